//! Ingest: one sequential pass over the source that writes a sidecar.
//!
//! [`scan`] turns source bytes into checkpoints, [`mod@build`] bulk-loads them
//! into B+tree pages, [`writer`] puts the pages on disk crash-safely, and
//! [`fingerprint`] binds the sidecar to its source; [`sniff`] says from
//! its first bytes what a source holds (gzip, another compression format,
//! text), and [`mod@gzip`] indexes a gzip source's text. Reads are `pread`s of
//! reused 64-byte-aligned buffers ([`BUFFER_SIZE`], chosen by measurement;
//! see `benches/README.md` and [`crate::io::AlignedBuf`]); a plain source is
//! read and its newlines counted by one worker per core, and scanned for
//! checkpoints in order on the calling thread (`parallel`: the same
//! checkpoints as one thread finds). Memory is a few buffers per worker, one
//! leaf, and 16 bytes per leaf for the internal nodes, which are written at the end, before the
//! leaves (the head-first layout, spec R-63; about 1 MiB for a 1 TB source
//! at the default spacing). Extension of a grown source copies the old
//! checkpoints, from a sidecar of any layout, and resumes the scan at the
//! last one.

mod bgzf;
pub mod build;
pub mod fingerprint;
pub mod gzip;
pub mod pack;
mod parallel;
mod pieces;
pub mod scan;
pub mod sniff;
mod speculative;
mod spill;
pub(crate) mod time;
pub mod writer;
pub mod zstd;

use crate::cache::PageCache;
use crate::error::{Error, Result};
use crate::format::{self, Fingerprint, PageKind, Superblock};
use crate::io::{AlignedBuf, ReadAt};
use crate::tree::Checkpoint;
use build::{PageSink, TreeBuilder};
use scan::Scanner;
pub(crate) use time::{TimeBuilder, TimeStart};

/// Bytes read per `pread` during ingest and range scans.
pub const BUFFER_SIZE: usize = 128 * 1024;

/// Default checkpoint spacing in bytes.
pub const DEFAULT_SPACING: u64 = 65536;

/// Parameters of a build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Checkpoint spacing in bytes (>= 1).
    pub spacing: u64,
    /// Page size (power of two, 512..=65536).
    pub page_size: u32,
    /// Read buffer size.
    pub buffer_size: usize,
    /// gzip sources: text bytes between access points.
    pub span: u64,
    /// gzip sources: log2 of the length of the pieces whose CRCs the
    /// sidecar records (spec §11.9), 9..=30; 0 for none (a reader then
    /// decodes and checks whole spans).
    pub piece_shift: u8,
    /// Index the source as plain bytes even if it starts with the gzip
    /// magic (spec R-90): for a file that only looks like gzip, or to
    /// index an archive's compressed bytes.
    pub plain: bool,
    /// Also build a time index (spec §12), reading stamps as this says.
    pub time: Option<TimeOptions>,
    /// Threads that read and count a plain source's lines: 0 for one per
    /// core, 1 for the sequential scan. The sidecar is the same for any
    /// number.
    pub threads: usize,
}

/// How a build reads the lines' timestamps for the time index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TimeOptions {
    /// The stamp format; `None`: detected from the first lines.
    pub format: Option<crate::time::TimeKind>,
    /// Time zone of stamps without one (an IANA name, `UTC`, an offset
    /// such as `+01:00`); `None`: the system's.
    pub tz: Option<String>,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            spacing: DEFAULT_SPACING,
            page_size: format::DEFAULT_PAGE_SIZE,
            buffer_size: BUFFER_SIZE,
            span: gzip::DEFAULT_SPAN,
            piece_shift: gzip::DEFAULT_PIECE_SHIFT,
            plain: false,
            time: None,
            threads: 0,
        }
    }
}

impl BuildOptions {
    /// The parameters `sb` was built with (an extension must keep them to
    /// equal a fresh build).
    pub fn of(sb: &Superblock) -> BuildOptions {
        BuildOptions {
            spacing: sb.spacing,
            page_size: sb.page_size,
            span: if sb.gzip.span > 0 {
                sb.gzip.span as u64
            } else {
                gzip::DEFAULT_SPAN
            },
            // An extension keeps what the old sidecar has: pieces of its
            // length, or none (a sidecar written before 1.5 stays without
            // them until it is built afresh, R-99).
            piece_shift: if sb.piece_len().is_some() {
                sb.gzip.piece_shift
            } else {
                0
            },
            plain: !sb.compressed(),
            ..BuildOptions::default()
        }
    }

    /// Rejects impossible parameters.
    pub fn validate(&self) -> Result<()> {
        if self.spacing == 0 {
            return Err(Error::InvalidArgument(
                "spacing must be at least 1 byte".into(),
            ));
        }
        if !format::valid_page_size(self.page_size) {
            return Err(Error::InvalidArgument(format!(
                "page size {} is not a power of two in 512..=65536",
                self.page_size
            )));
        }
        if self.span == 0 || self.span > u32::MAX as u64 {
            return Err(Error::InvalidArgument(
                "span must be in 1..=4294967295 bytes".into(),
            ));
        }
        if self.piece_shift != 0
            && !(format::MIN_PIECE_SHIFT..=format::MAX_PIECE_SHIFT).contains(&self.piece_shift)
        {
            return Err(Error::InvalidArgument(format!(
                "piece length must be 2^{}..=2^{} bytes",
                format::MIN_PIECE_SHIFT,
                format::MAX_PIECE_SHIFT
            )));
        }
        if self.buffer_size == 0 {
            return Err(Error::InvalidArgument(
                "buffer size must be positive".into(),
            ));
        }
        Ok(())
    }
}

/// What the ingest knows about the source besides its bytes.
#[derive(Debug, Clone)]
pub struct SourceInfo {
    /// Modification time (seconds, nanoseconds).
    pub mtime: (i64, u32),
    /// Basename recorded in the superblock.
    pub name: Vec<u8>,
}

/// Scans `src[from..src.len()]` with `scanner`, pushing checkpoints into
/// `tree` (and the lines into the time pass, if any); returns the last
/// byte seen (if any).
#[allow(clippy::too_many_arguments)]
fn scan_range(
    src: &dyn ReadAt,
    from: u64,
    scanner: &mut Scanner,
    tree: &mut TreeBuilder,
    time: Option<&mut TimeBuilder>,
    sink: &mut impl PageSink,
    opts: &BuildOptions,
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<Option<u8>> {
    let end = src.len();
    let buffer_size = opts.buffer_size;
    let workers = workers(opts.threads);
    // In parallel only where the checkpoints are sparse enough for the
    // scan to skip most bytes, the source long enough to pay for the
    // threads, and the stamps (if any) can be read out of order.
    if workers > 1
        && opts.spacing >= PARALLEL_MIN_SPACING
        && end - from >= 4 * buffer_size as u64
        && time.as_ref().is_none_or(|t| !t.reads_in_order())
    {
        return parallel::scan(
            src,
            from,
            end,
            scanner,
            &mut |cp| tree.push(cp, sink),
            time,
            workers,
            buffer_size * parallel::BATCH,
            buffer_size,
            parallel::GRAIN,
            progress,
        );
    }
    if let Some(t) = time {
        return scan_range_timed(src, from, scanner, tree, t, sink, buffer_size, progress);
    }
    let mut buf = AlignedBuf::zeroed(buffer_size.min((end - from).max(1) as usize));
    let mut at = from;
    let mut last = None;
    while at < end {
        let n = read_more(src, &mut buf, at, end)?;
        scanner.feed(&buf[..n], at, &mut |cp| tree.push(cp, sink))?;
        last = Some(buf[n - 1]);
        at += n as u64;
        if !progress(at) {
            return Err(Error::Cancelled {
                path: src.path().to_path_buf(),
            });
        }
    }
    scanner.finish(&mut |cp| tree.push(cp, sink))?;
    Ok(last)
}

/// The threads [`BuildOptions::threads`] asks for.
fn workers(threads: usize) -> usize {
    match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// The smallest spacing scanned in parallel: below a few grains, the scan
/// would read most bytes again anyway.
const PARALLEL_MIN_SPACING: u64 = 4 * parallel::GRAIN as u64;

/// Reports compressed offset `at` of `src` to `progress` once it reaches
/// `*next`, then again 4 MiB later (a build of a compressed source
/// reports as it decodes, not per read); a false answer cancels.
pub(crate) fn report_compressed(
    progress: &mut dyn FnMut(u64) -> bool,
    at: u64,
    next: &mut u64,
    src: &dyn ReadAt,
) -> Result<()> {
    if at >= *next {
        if !progress(at) {
            return Err(Error::Cancelled {
                path: src.path().to_path_buf(),
            });
        }
        *next = at + (4 << 20);
    }
    Ok(())
}

/// The error for a source that ended before the length it had when its
/// build began.
fn shrank(src: &dyn ReadAt) -> Error {
    Error::io(
        "read",
        src.path(),
        std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "file shrank while being indexed",
        ),
    )
}

/// Reads the next bytes of `src` at `at` (before `end`) into `buf`; at
/// least one, or the file shrank while it was being indexed.
fn read_more(src: &dyn ReadAt, buf: &mut [u8], at: u64, end: u64) -> Result<usize> {
    let want = buf.len().min((end - at) as usize);
    let n = src.read_full_at(&mut buf[..want], at)?;
    if n == 0 {
        return Err(shrank(src));
    }
    Ok(n)
}

/// [`scan_range`] with a time pass: the stamps are read on a second
/// thread, from the same buffers, while this one finds the lines, so that
/// on a machine with two cores reading the times costs (almost) no time.
/// A few buffers go round between the two; the time pass gets each
/// buffer with the checkpoints found in it, in order.
#[allow(clippy::too_many_arguments)]
fn scan_range_timed(
    src: &dyn ReadAt,
    from: u64,
    scanner: &mut Scanner,
    tree: &mut TreeBuilder,
    time: &mut TimeBuilder,
    sink: &mut impl PageSink,
    buffer_size: usize,
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<Option<u8>> {
    use std::sync::mpsc;
    /// A buffer, its bytes in use, their offset, and the checkpoints
    /// found in them.
    type Filled = (AlignedBuf, usize, u64, Vec<u64>);
    const BUFFERS: usize = 3;
    let end = src.len();
    let size = buffer_size.min((end - from).max(1) as usize);
    let (full_tx, full_rx) = mpsc::sync_channel::<Filled>(BUFFERS);
    let (free_tx, free_rx) = mpsc::channel::<AlignedBuf>();
    for _ in 0..BUFFERS {
        free_tx
            .send(AlignedBuf::zeroed(size))
            .expect("receiver alive");
    }
    let mut at = from;
    let mut last = None;
    let pass = &mut *time;
    let (main, worker) = std::thread::scope(|s| {
        let worker = s.spawn(move || -> Result<()> {
            for (buf, n, base, bounds) in full_rx {
                for b in bounds {
                    pass.boundary(b);
                }
                pass.feed(&buf[..n], base)?;
                // The main thread may have stopped: then nobody waits.
                let _ = free_tx.send(buf);
            }
            Ok(())
        });
        let main = (|| -> Result<()> {
            while at < end {
                // No buffer comes back only when the time pass failed.
                let Ok(mut buf) = free_rx.recv() else {
                    return Ok(());
                };
                let n = read_more(src, &mut buf, at, end)?;
                let mut bounds = Vec::new();
                scanner.feed(&buf[..n], at, &mut |cp| {
                    bounds.push(cp.offset);
                    tree.push(cp, sink)
                })?;
                last = Some(buf[n - 1]);
                if full_tx.send((buf, n, at, bounds)).is_err() {
                    return Ok(());
                }
                at += n as u64;
                if !progress(at) {
                    return Err(Error::Cancelled {
                        path: src.path().to_path_buf(),
                    });
                }
            }
            Ok(())
        })();
        drop(full_tx);
        let worker = worker
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (main, worker)
    });
    main?;
    worker?;
    if at < end {
        // Only a failed time pass stops the loop early, and it said why;
        // should it not have, this is no answer either.
        return Err(Error::InvalidArgument(format!(
            "{}: the time pass stopped at byte {at}",
            src.path().display()
        )));
    }
    scanner.finish(&mut |cp| {
        time.boundary(cp.offset);
        tree.push(cp, sink)
    })?;
    Ok(last)
}

pub(crate) fn finish(
    tree: TreeBuilder,
    sink: &mut impl PageSink,
    opts: &BuildOptions,
    line_count: u64,
    fingerprint: Fingerprint,
    name: &[u8],
) -> Result<Superblock> {
    let shape = tree.finish(sink)?;
    Ok(Superblock {
        version_major: format::VERSION_MAJOR,
        version_minor: format::VERSION_MINOR,
        page_size: opts.page_size,
        incompat_features: 0,
        compat_features: format::COMPAT_HEAD_FIRST,
        key_kind: format::KEY_KIND_LINE_OFFSET,
        source_kind: format::SOURCE_KIND_PLAIN,
        line_count,
        spacing: opts.spacing,
        checkpoint_count: shape.checkpoints,
        root_page: shape.root,
        height: shape.height,
        leaf_count: shape.leaf_count,
        page_count: shape.page_count,
        first_leaf: shape.first_leaf,
        last_leaf: shape.last_leaf,
        head_pages: shape.head_pages,
        time_page: 0,
        fingerprint,
        source_name: name[..name.len().min(format::SOURCE_NAME_MAX)].to_vec(),
        gzip: format::GzipFields::default(),
    })
}

/// Ends the time pass `time` at text length `end` and writes the time
/// index after the pages of `sb` (spec §12), which it records.
pub(crate) fn add_time(
    sb: &mut Superblock,
    time: TimeBuilder,
    old: &mut dyn Iterator<Item = Result<(u64, u64)>>,
    end: u64,
    sink: &mut impl PageSink,
) -> Result<()> {
    let at = sb.page_count;
    // A format new in 1.4 makes the file 1.4.
    sb.version_minor = sb.version_minor.max(time.minor_version());
    let next = time.finish(end, old, sb.checkpoint_count, sb.page_size, at, sink)?;
    sb.time_page = at;
    sb.compat_features |= format::COMPAT_TIME_INDEX;
    sb.page_count = next;
    Ok(())
}

/// Where the time pass of a build starts: from `resume` (an extension),
/// or from the start of the text, whose first bytes are `head`, with the
/// format given or detected from them. `None` without a time index.
pub(crate) fn time_start(
    opts: &BuildOptions,
    resume: Option<TimeStart>,
    head: &[u8],
    src: &dyn ReadAt,
    info: &SourceInfo,
) -> Result<Option<TimeStart>> {
    if resume.is_some() {
        return Ok(resume);
    }
    let Some(t) = &opts.time else {
        return Ok(None);
    };
    let mut lines: Vec<&[u8]> = head
        .split_inclusive(|&b| b == b'\n')
        .take(DETECT_LINES)
        .map(|l| &l[..l.len().min(time::HEAD)])
        .collect();
    // A last line cut by the end of the sample is not a line.
    if head.len() == DETECT_BYTES && lines.len() > 1 && !head.ends_with(b"\n") {
        lines.pop();
    }
    let format = crate::time::TimeFormat::for_lines(
        t.format.clone(),
        t.tz.as_deref().unwrap_or("local"),
        &lines,
        info.mtime.0,
    )
    .map_err(|e| match e {
        Error::InvalidArgument(m) => {
            Error::InvalidArgument(format!("{}: {m}", src.path().display()))
        }
        e => e,
    })?
    .ok_or_else(|| {
        Error::InvalidArgument(format!(
            "{}: no timestamps recognised in its first lines (iso8601, clf, syslog, epoch-s, epoch-ms, ymd-slash, ctime, yy-slash, yymmdd, keyed); give --time-format",
            src.path().display()
        ))
    })?;
    Ok(Some(TimeStart {
        format,
        offset: 0,
        first_span: 0,
        prev: None,
        years: Vec::new(),
        line: 0,
        mtime: info.mtime.0,
        source: src.path().to_path_buf(),
    }))
}

/// Text bytes and lines that stamp formats are detected from.
pub(crate) const DETECT_BYTES: usize = 64 << 10;
const DETECT_LINES: usize = 1000;

/// Pushes the checkpoints of the verified sidecar `old` (read through
/// `cache`) into a new tree builder; returns it and the last checkpoint.
/// Any layout will do: the leaves are the leaf pages of
/// `first_leaf..=last_leaf`, in key order; internal pages among them,
/// as in sidecars of format 1.0 and 1.1, are skipped.
pub(crate) fn copy_checkpoints(
    old: &Superblock,
    cache: &PageCache,
    sink: &mut impl PageSink,
) -> Result<(TreeBuilder, Checkpoint)> {
    let mut tree = TreeBuilder::new(old.page_size);
    let corrupt = |page: u32, what: String| Error::corrupt(cache.file().path(), page as u64, what);
    for id in old.first_leaf..=old.last_leaf {
        let page = cache.read_uncached(id)?;
        let view = page.view();
        if view.kind != PageKind::Leaf {
            continue;
        }
        for (line, offset, _) in view.sorted_entries() {
            tree.push(Checkpoint { line, offset }, sink)
                .map_err(|_| corrupt(id, "leaf keys out of order".into()))?;
        }
    }
    let last_cp = tree
        .last()
        .ok_or_else(|| corrupt(old.first_leaf, "no checkpoints".into()))?;
    if last_cp.offset >= old.text_len().max(1) {
        return Err(corrupt(
            old.last_leaf,
            "last checkpoint beyond the indexed size".into(),
        ));
    }
    Ok((tree, last_cp))
}

/// True when `src` starts with the gzip magic bytes `1f 8b`.
pub fn is_gzip(src: &dyn ReadAt) -> Result<bool> {
    let mut magic = [0u8; 2];
    Ok(src.read_full_at(&mut magic, 0)? == 2 && magic == crate::gzip::header::MAGIC)
}

fn line_count(newlines: u64, size: u64, last_byte: Option<u8>) -> u64 {
    newlines + u64::from(size > 0 && last_byte != Some(b'\n'))
}

/// Builds a sidecar for all of `src` (its length is fixed by the `ReadAt`):
/// a gzip source as its text unless [`BuildOptions::plain`], else
/// its bytes. Pages go to `sink`; the returned superblock is for page 0.
/// (Refusing other compressed formats is [`crate::OpenOptions`]' policy,
/// see [`sniff`].)
pub fn build(
    src: &dyn ReadAt,
    info: &SourceInfo,
    opts: &BuildOptions,
    sink: &mut impl PageSink,
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<Superblock> {
    opts.validate()?;
    if !opts.plain && is_gzip(src)? {
        return gzip::build(src, info, opts, sink, progress);
    }
    if !opts.plain && crate::zstd::is_seekable(src)? {
        return zstd::build(src, info, opts, sink, progress);
    }
    let first = Checkpoint { line: 0, offset: 0 };
    let mut tree = TreeBuilder::new(opts.page_size);
    tree.push(first, sink)?;
    let time = if opts.time.is_some() {
        let mut head = vec![0u8; DETECT_BYTES.min(src.len() as usize)];
        let n = src.read_full_at(&mut head, 0)?;
        head.truncate(n);
        time_start(opts, None, &head, src, info)?
    } else {
        None
    };
    let time = time.map(|t| (t, Box::new(std::iter::empty()) as OldTimes<'_>));
    resume_and_finish(src, info, opts, tree, first, time, sink, progress)
}

/// The entries of an old time tree an extension keeps.
pub(crate) type OldTimes<'a> = Box<dyn Iterator<Item = Result<(u64, u64)>> + 'a>;

/// Scans `src` from checkpoint `from` (already in `tree`) to its end, then
/// fingerprints the source and writes the upper levels of the tree.
#[allow(clippy::too_many_arguments)]
fn resume_and_finish(
    src: &dyn ReadAt,
    info: &SourceInfo,
    opts: &BuildOptions,
    mut tree: TreeBuilder,
    from: Checkpoint,
    time: Option<(TimeStart, OldTimes<'_>)>,
    sink: &mut impl PageSink,
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<Superblock> {
    let size = src.len();
    let mut scanner = Scanner::resume(from, opts.spacing, size);
    let (mut time, mut old) = match time {
        Some((start, old)) => (Some(TimeBuilder::new(start)), Some(old)),
        None => (None, None),
    };
    let last = scan_range(
        src,
        from.offset,
        &mut scanner,
        &mut tree,
        time.as_mut(),
        sink,
        opts,
        progress,
    )?;
    let fp = fingerprint::compute(src, size, info.mtime)?;
    let mut sb = finish(
        tree,
        sink,
        opts,
        line_count(scanner.newlines(), size, last),
        fp,
        &info.name,
    )?;
    if let (Some(t), Some(old)) = (time, old.as_mut()) {
        add_time(&mut sb, t, old, size, sink)?;
    }
    Ok(sb)
}

/// Builds a sidecar for `src`, which has grown since `old` (a verified
/// sidecar of its prefix, read through `cache`) was built: copies the old
/// checkpoints and scans only from the last of them. The result equals a
/// fresh [`build()`] with the old spacing and page size. `time`: where the
/// time pass resumes and the old time entries it keeps, when the old
/// sidecar has a time index.
pub(crate) fn extend(
    old: &Superblock,
    cache: &PageCache,
    src: &dyn ReadAt,
    info: &SourceInfo,
    time: Option<(TimeStart, OldTimes<'_>)>,
    sink: &mut impl PageSink,
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<Superblock> {
    let opts = BuildOptions::of(old);
    opts.validate()?;
    let (tree, last_cp) = copy_checkpoints(old, cache, sink)?;
    resume_and_finish(src, info, &opts, tree, last_cp, time, sink, progress)
}
