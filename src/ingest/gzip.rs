//! Ingest of a gzip source: one streaming decode that counts lines into the
//! checkpoint tree (at uncompressed offsets) and records an access point at
//! the first deflate block boundary after every `span` bytes of text and at
//! every member start, with its 32 KiB window raw-deflate-compressed after
//! zeroing the bytes the following span never copies
//! ([`crate::gzip::sparse`]).
//!
//! Layout written (spec §11): the tree pages as for plain sources, then the
//! access-point pages, then the blob pages. Windows are spilled to a
//! temporary file while the tree streams out, so memory stays bounded (plus
//! 32 bytes per access point, one per `span` of text).

use super::bgzf;
use super::build::{PageSink, TreeBuilder};
use super::pieces::Pieces;
use super::scan::Scanner;
use super::speculative;
use super::spill::Spill;
use super::{BuildOptions, SourceInfo, fingerprint};
use crate::error::{Error, Result, SourceDamage};
use crate::format::gzip::{self as fmt, AP_MEMBER_START, ApRecord};
use crate::format::{self, GzipFields, PageKind, Superblock};
use crate::gzip::{Event, Inflater, sparse};
use crate::io::ReadAt;
use crate::tree::Checkpoint;

/// Default text bytes between access points: 1.25 MiB, chosen by
/// measurement (issue 24; the 4 GiB genlog log's `pigz -6`, 979 MB, on the
/// 2-core VM, warm; gotos to 10 lines spread over the file, alternated
/// with gztool 1.5 at its 1 MiB span, `-s 1`, whose index is 31,444,255
/// bytes; medians of 9, then the mean over the lines):
///
/// | span | sidecar | / gztool's | goto | gztool / lidx |
/// |---:|---:|---:|---:|---:|
/// | 1 MiB | 14,663,680 B | 0.47 | 4.00 ms | 2.01 |
/// | 1.25 MiB | 11,993,088 B | 0.38 | 4.36 ms | 1.85 |
/// | 1.5 MiB | 10,223,616 B | 0.33 | 4.23 ms | 1.90 |
/// | 2 MiB | 8,003,584 B | 0.25 | 5.01 ms | 1.60 |
///
/// With piece CRCs (spec §11.9) a goto decodes from its access point to
/// its line, half a span on average, so the cost of a longer span is half
/// what it was; 1.25 MiB is the densest span whose sidecar is under 0.4
/// of gztool's index. (Issue 14 chose 1 MiB, when a goto decoded its
/// whole span.)
pub const DEFAULT_SPAN: u64 = 1_310_720;

/// Default piece length, 2^16 = 64 KiB (spec §11.9): a goto decodes from
/// its access point to the end of the piece holding its line, half a
/// piece past it on average, for 4 bytes of sidecar per 64 KiB of text.
pub const DEFAULT_PIECE_SHIFT: u8 = 16;

/// Deflates access-point windows: raw deflate at level 6 with zlib-rs
/// (spec R-96). Measured on the sparse windows of a 1 GiB log's sidecar
/// (1023 windows, 23% of their bytes kept): zlib-rs level 6 writes 3.28 MB
/// in 0.27 s, `miniz_oxide` level 9 (the encoder before) 3.28 MB in 0.96 s
/// — a third of the whole ingest — and zlib-rs level 9 3.23 MB in 1.6 s.
struct WindowCompressor(Vec<u8>);

impl WindowCompressor {
    fn new() -> WindowCompressor {
        WindowCompressor(vec![
            0;
            zlib_rs::compress_bound(crate::gzip::inflate::WINDOW)
        ])
    }

    fn compress(&mut self, w: &[u8]) -> Vec<u8> {
        debug_assert!(w.len() <= crate::gzip::inflate::WINDOW);
        let (out, ret) = zlib_rs::compress_slice(&mut self.0, w, WINDOW_DEFLATE);
        // The buffer holds the bound for any window, so this cannot fail.
        assert_eq!(ret, zlib_rs::ReturnCode::Ok, "deflating a window");
        debug_assert!(out.len() <= crate::format::gzip::MAX_BLOB_LEN as usize);
        out.to_vec()
    }
}

/// How windows are deflated: raw deflate (negative window bits),
/// level 6, zlib's defaults otherwise.
const WINDOW_DEFLATE: zlib_rs::DeflateConfig = zlib_rs::DeflateConfig {
    level: 6,
    method: zlib_rs::Method::Deflated,
    window_bits: -15,
    mem_level: 8,
    strategy: zlib_rs::Strategy::Default,
};

/// Where a build starts: from scratch, or (extension) after the checkpoints
/// and access points of an older sidecar of the same archive's prefix.
struct Start<'a> {
    /// Where the time pass starts, and the old time entries it keeps.
    time: Option<(super::TimeStart, super::OldTimes<'a>)>,
    /// Holds the checkpoints up to and including `from`.
    tree: TreeBuilder,
    /// The scanner resumes right after this checkpoint.
    from: Checkpoint,
    /// Access points so far; the last one's span CRC is recomputed.
    records: Vec<ApRecord>,
    /// The blob stream so far.
    blobs: Spill,
    /// The piece array so far; the last record's span is open.
    pieces: Pieces,
    /// Decoding resumes here (`None`: at the start of the file). Must be at
    /// or before both `from` and the last record.
    at: Option<crate::gzip::AccessPoint>,
}

impl Start<'_> {
    /// A build from the start of the file: checkpoint (0, 0), nothing else.
    fn fresh(
        gz: &dyn ReadAt,
        info: &SourceInfo,
        opts: &BuildOptions,
        sink: &mut impl PageSink,
    ) -> Result<Start<'static>> {
        let mut tree = TreeBuilder::new(opts.page_size);
        let first = Checkpoint { line: 0, offset: 0 };
        tree.push(first, sink)?;
        let time = if opts.time.is_some() {
            super::time_start(opts, None, &text_head(gz), gz, info)?
        } else {
            None
        };
        Ok(Start {
            time: time.map(|t| (t, Box::new(std::iter::empty()) as super::OldTimes<'static>)),
            tree,
            from: first,
            records: Vec::new(),
            blobs: Spill::new(),
            pieces: Pieces::new(shift_of(opts), Spill::new(), 0),
            at: None,
        })
    }
}

/// The piece length a build records, if any.
fn shift_of(opts: &BuildOptions) -> Option<u8> {
    (opts.piece_shift != 0).then_some(opts.piece_shift)
}

/// Builds the sidecar of gzip source `gz` (see the module doc).
pub fn build(
    gz: &dyn ReadAt,
    info: &SourceInfo,
    opts: &BuildOptions,
    sink: &mut impl PageSink,
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<Superblock> {
    opts.validate()?;
    let start = Start::fresh(gz, info, opts, sink)?;
    run(gz, info, opts, start, sink, progress)
}

/// The first [`super::DETECT_BYTES`] of `gz`'s text, or what decodes of
/// them (the build reports any damage).
fn text_head(gz: &dyn ReadAt) -> Vec<u8> {
    let mut inf = Inflater::new(gz);
    let mut head = Vec::new();
    while head.len() < super::DETECT_BYTES {
        match inf.next_event() {
            Ok(Some(Event::Data(d))) => {
                let n = d.len().min(super::DETECT_BYTES - head.len());
                head.extend_from_slice(&d[..n]);
            }
            Ok(Some(Event::Boundary { .. })) => {}
            Ok(None) | Err(_) => break,
        }
    }
    head
}

/// Builds the sidecar of `gz`, an archive that grew (members appended)
/// since `old` was built for its prefix: copies the old checkpoints, access
/// points and windows (making whole windows sparse), and decodes only from the access point before the
/// last checkpoint. The result equals a fresh [`build()`] with the old
/// spacing, span and page size.
#[allow(clippy::too_many_arguments)]
pub(crate) fn extend(
    old: &Superblock,
    cache: &crate::cache::PageCache,
    aps: &crate::index::gzip::SidecarAps,
    gz: &dyn ReadAt,
    info: &SourceInfo,
    time: Option<(super::TimeStart, super::OldTimes<'_>)>,
    sink: &mut impl PageSink,
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<Superblock> {
    use crate::gzip::AccessPoints;
    let opts = BuildOptions::of(old);
    opts.validate()?;
    let (tree, from) = super::copy_checkpoints(old, cache, sink)?;
    let mut records = Vec::with_capacity(aps.count());
    for i in 0..aps.count() {
        let mut r = aps.record(i)?;
        if old.piece_len().is_none() {
            // Reserved bytes before 1.5: whatever they hold means
            // nothing, and the extension has no pieces either.
            r.first_piece = 0;
        }
        records.push(r);
    }
    // The old windows, made sparse as a fresh build makes them (a sidecar
    // written before sparse windows holds whole ones): a window that is
    // already sparse keeps its blob as stored.
    let mut blobs = Spill::new();
    let mut compressor = WindowCompressor::new();
    for (i, r) in records.iter_mut().enumerate() {
        let whole = aps.get(i)?.window;
        let mut window = whole.clone();
        let at = r.comp_bit / 8;
        let mut input = vec![0u8; sparse::INPUT.min(gz.len().saturating_sub(at) as usize)];
        gz.read_exact_at(&mut input, at)?;
        sparse::zero_unreferenced(&input, (r.comp_bit % 8) as u8, &mut window);
        let blob = if window == whole {
            aps.blob(r.blob_offset, r.blob_len as usize)?
        } else {
            compressor.compress(&window)
        };
        r.blob_offset = blobs.len;
        r.blob_len = blob.len() as u32;
        blobs.append(&blob)?;
    }
    // The piece slots of every span but the last, which is decoded again.
    let mut pieces = Spill::new();
    let kept = match (old.piece_len(), records.last()) {
        (Some(_), Some(r)) => r.first_piece as u64,
        _ => 0,
    };
    let mut buf = vec![0u8; 1 << 16];
    let mut at = 0u64;
    while at < kept * 4 {
        let n = (buf.len() as u64).min(kept * 4 - at) as usize;
        aps.piece_bytes(at, &mut buf[..n])?;
        pieces.append(&buf[..n])?;
        at += n as u64;
    }
    let pieces = Pieces::new(shift_of(&opts), pieces, kept);
    let last = records.last().map_or(0, |r| r.uncomp);
    let j = aps.find(from.offset.min(last))?;
    let at = Some(aps.get(j)?);
    run(
        gz,
        info,
        &opts,
        Start {
            time,
            tree,
            from,
            records,
            blobs,
            pieces,
            at,
        },
        sink,
        progress,
    )
}

/// As [`build()`], but a damaged archive is indexed up to the last
/// complete line before the damage, and the damage is returned beside the
/// superblock: for an archive that ends early ([`SourceDamage::Truncated`]),
/// the last complete line decoded; for damaged data (a bad code, a CRC or
/// length mismatch, a bad member header) or trailing garbage, the last
/// complete line of the members before it whose CRC-32 and length checked.
/// Such a sidecar describes only part of the text: callers keep it in
/// memory and refuse answers past its end (see `Index::damage`). When no
/// complete line precedes the damage, the error is [`Error::Damaged`] with
/// 0 lines.
pub fn build_tolerant(
    gz: &dyn ReadAt,
    info: &SourceInfo,
    opts: &BuildOptions,
    sink: &mut impl PageSink,
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<(Superblock, Option<Error>)> {
    opts.validate()?;
    let start = Start::fresh(gz, info, opts, sink)?;
    run_tolerant(gz, info, opts, start, sink, progress, true)
}

fn run(
    gz: &dyn ReadAt,
    info: &SourceInfo,
    opts: &BuildOptions,
    start: Start,
    sink: &mut impl PageSink,
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<Superblock> {
    run_tolerant(gz, info, opts, start, sink, progress, false).map(|(sb, _)| sb)
}

/// What a build reads a gzip source's text from: a sequential
/// [`Inflater`], a BGZF archive's members decoded in parallel
/// ([`bgzf::Members`]), or chunks decoded ahead on other cores
/// ([`speculative::Speculative`]), which all give the same events.
pub(super) trait Decoder {
    fn next_event(&mut self) -> Result<Option<Event<'_>>>;
    fn window(&self) -> Vec<u8>;
    fn checked_end(&self) -> u64;
    fn input_from(&mut self, at: u64, want: usize) -> Result<&[u8]>;
}

impl Decoder for Inflater<'_> {
    fn next_event(&mut self) -> Result<Option<Event<'_>>> {
        Inflater::next_event(self)
    }
    fn window(&self) -> Vec<u8> {
        Inflater::window(self)
    }
    fn checked_end(&self) -> u64 {
        Inflater::checked_end(self)
    }
    fn input_from(&mut self, at: u64, want: usize) -> Result<&[u8]> {
        Inflater::input_from(self, at, want)
    }
}

impl Decoder for speculative::Speculative<'_> {
    fn next_event(&mut self) -> Result<Option<Event<'_>>> {
        speculative::Speculative::next_event(self)
    }
    fn window(&self) -> Vec<u8> {
        speculative::Speculative::window(self)
    }
    fn checked_end(&self) -> u64 {
        speculative::Speculative::checked_end(self)
    }
    fn input_from(&mut self, at: u64, want: usize) -> Result<&[u8]> {
        speculative::Speculative::input_from(self, at, want)
    }
}

impl Decoder for bgzf::Members<'_> {
    fn next_event(&mut self) -> Result<Option<Event<'_>>> {
        bgzf::Members::next_event(self)
    }
    fn window(&self) -> Vec<u8> {
        bgzf::Members::window(self)
    }
    fn checked_end(&self) -> u64 {
        bgzf::Members::checked_end(self)
    }
    fn input_from(&mut self, at: u64, want: usize) -> Result<&[u8]> {
        bgzf::Members::input_from(self, at, want)
    }
}

fn run_tolerant(
    gz: &dyn ReadAt,
    info: &SourceInfo,
    opts: &BuildOptions,
    start: Start,
    sink: &mut impl PageSink,
    progress: &mut dyn FnMut(u64) -> bool,
    tolerate: bool,
) -> Result<(Superblock, Option<Error>)> {
    let workers = super::workers(opts.threads);
    // A fresh, strict build of a BGZF archive decodes its members in
    // parallel, when every access point will be at a member start (a span
    // of at least a member's text: then no block boundary inside a member
    // is ever due) — the same sidecar as the sequential decode.
    if start.at.is_none()
        && !tolerate
        && workers > 1
        && opts.span >= bgzf::MAX_MEMBER_TEXT
        && bgzf::is_bgzf(gz)?
    {
        let shared = bgzf::Members::shared();
        return std::thread::scope(|s| {
            let members = bgzf::Members::start(s, gz, &shared, workers);
            run_with(gz, info, opts, start, members, 0, sink, progress, tolerate)
        });
    }
    // A fresh, strict build of any other archive longer than a few
    // chunks decodes chunks of it ahead on the other cores: the same
    // events, so the same sidecar.
    if start.at.is_none() && !tolerate && workers > 1 && gz.len() >= speculative::MIN_LEN {
        let shared = speculative::Shared::new(gz);
        return std::thread::scope(|s| {
            let chunks = speculative::Speculative::start(s, gz, &shared, workers - 1);
            run_with(gz, info, opts, start, chunks, 0, sink, progress, tolerate)
        });
    }
    let (inf, uoff) = match &start.at {
        Some(ap) => (Inflater::resume(gz, ap)?, ap.uncomp),
        None => (Inflater::new(gz), 0),
    };
    run_with(gz, info, opts, start, inf, uoff, sink, progress, tolerate)
}

/// [`run_tolerant`] reading the text from `inf`, which starts at
/// uncompressed offset `uoff` (where `start.at` says, or 0).
#[allow(clippy::too_many_arguments)]
fn run_with(
    gz: &dyn ReadAt,
    info: &SourceInfo,
    opts: &BuildOptions,
    start: Start,
    mut inf: impl Decoder,
    mut uoff: u64,
    sink: &mut impl PageSink,
    progress: &mut dyn FnMut(u64) -> bool,
    tolerate: bool,
) -> Result<(Superblock, Option<Error>)> {
    let span = opts.span.clamp(1, u32::MAX as u64);
    let Start {
        time,
        mut tree,
        from,
        mut records,
        mut blobs,
        mut pieces,
        at: _,
    } = start;
    // The text length is known only at the end: scan with an open end.
    // Checkpoints wait in `pending` until they are known to lie before the
    // end of the indexed text: the newest one might be at the very end,
    // and in a tolerant build every one after the last member whose
    // trailer checked might lie past the damage.
    let mut scanner = Scanner::resume(from, opts.spacing, u64::MAX);
    let mut pending: Vec<Checkpoint> = Vec::new();
    // The stamps are read on another thread while this one decodes.
    let (mut time, mut old_times) = super::time::TimeThread::resume(time);
    // Bytes before these offsets were seen by the older build.
    let scan_from = from.offset;
    let crc_from = records.last().map_or(0, |r| r.uncomp);
    let mut last_byte = None;
    let mut next_progress = 0u64;
    if !records.is_empty() {
        // Extending: the last old span is open again.
        pieces.next_span()?;
    }
    let mut compressor = WindowCompressor::new();
    let mut damage: Option<Error> = None;
    // Tolerant builds: (end of the last complete line, lines) at the end
    // of the last member whose CRC-32 and length checked.
    let mut checked = Cut {
        text_len: 0,
        lines: 0,
    };
    let mut checked_at = None;
    loop {
        if tolerate && inf.checked_end() == uoff && checked_at != Some(uoff) {
            checked_at = Some(uoff);
            checked = Cut {
                text_len: scanner.line_start(),
                lines: scanner.newlines(),
            };
            let keep = pending.partition_point(|cp| cp.offset < checked.text_len);
            for cp in pending.drain(..keep) {
                tree.push(cp, sink)?;
            }
            if let Some(t) = time.as_mut() {
                t.mark()?;
            }
        }
        let ev = match inf.next_event() {
            Ok(Some(ev)) => ev,
            Ok(None) => break,
            Err(e @ Error::CorruptSource { .. }) if tolerate => {
                damage = Some(e);
                break;
            }
            Err(e) => return Err(e),
        };
        match ev {
            Event::Data(d) => {
                let end = uoff + d.len() as u64;
                if end > scan_from {
                    let skip = scan_from.saturating_sub(uoff) as usize;
                    scanner.feed(&d[skip..], uoff + skip as u64, &mut |cp| {
                        if let Some(t) = time.as_mut() {
                            t.boundary(cp.offset);
                        }
                        pending.push(cp);
                        // Streaming: only the newest one waits.
                        if !tolerate && pending.len() > 1 {
                            tree.push(pending.remove(0), sink)?;
                        }
                        Ok::<(), Error>(())
                    })?;
                    if let Some(t) = time.as_mut() {
                        t.feed(&d[skip..], uoff + skip as u64)?;
                    }
                }
                if end > crc_from {
                    pieces.feed(&d[crc_from.saturating_sub(uoff) as usize..]);
                }
                uoff = end;
                last_byte = d.last().copied();
            }
            Event::Boundary {
                comp_bit,
                uncomp,
                member_start,
            } => {
                if crate::gzip::access_point_due(
                    records.last().map(|l| l.uncomp),
                    uncomp,
                    member_start,
                    span,
                ) {
                    if let (Some(crc), Some(prev)) = (pieces.next_span()?, records.last_mut()) {
                        prev.span_crc = crc;
                    }
                    let mut window = inf.window();
                    // Only the bytes the next span copies are kept (spec
                    // §11.3, R-99); if the stream after this point does
                    // not parse, the window stays whole and the decode
                    // reports the damage.
                    if !window.is_empty() {
                        let input = inf.input_from(comp_bit / 8, sparse::INPUT)?;
                        sparse::zero_unreferenced(input, (comp_bit % 8) as u8, &mut window);
                    }
                    let blob = if window.is_empty() {
                        Vec::new()
                    } else {
                        compressor.compress(&window)
                    };
                    records.push(ApRecord {
                        uncomp,
                        comp_bit,
                        blob_offset: blobs.len,
                        blob_len: blob.len() as u32,
                        window_len: window.len() as u16,
                        flags: if member_start { AP_MEMBER_START } else { 0 },
                        span_crc: 0,
                        first_piece: pieces.first_slot()?,
                    });
                    blobs.append(&blob)?;
                }
                let at = comp_bit / 8;
                super::report_compressed(progress, at, &mut next_progress, gz)?;
            }
        }
    }
    let (text_len, lines) = match &damage {
        None => {
            if let (Some(crc), Some(last)) = (pieces.close()?, records.last_mut()) {
                last.span_crc = crc;
            }
            let lines = scanner.newlines() + u64::from(uoff > 0 && last_byte != Some(b'\n'));
            (uoff, lines)
        }
        Some(e) => {
            // Keep the complete lines before the damage: for an archive
            // that merely ends early, every complete line decoded (the
            // bytes before the end are intact, as zcat prints them); for
            // damaged data or trailing garbage, only those of the members
            // whose CRC-32 and length checked (what was decoded of a
            // damaged member cannot be trusted).
            let cut = match e {
                Error::CorruptSource {
                    kind: SourceDamage::Truncated,
                    ..
                } => Cut {
                    text_len: scanner.line_start(),
                    lines: scanner.newlines(),
                },
                _ => {
                    if let Some(t) = time.as_mut() {
                        t.rewind()?;
                    }
                    checked
                }
            };
            if cut.text_len == 0 {
                return Err(Error::Damaged {
                    what: e.to_string(),
                    lines: 0,
                });
            }
            records.retain(|r| r.uncomp < cut.text_len);
            let last = records.last_mut().expect("the access point at 0 is kept");
            last.span_crc = prefix_crc(gz, &blobs, last, cut.text_len, &mut pieces)?;
            (cut.text_len, cut.lines)
        }
    };
    scanner.set_end(text_len);
    scanner.finish(&mut |cp| {
        if let Some(t) = time.as_mut() {
            t.boundary(cp.offset);
        }
        pending.push(cp);
        Ok::<(), Error>(())
    })?;
    for cp in pending.into_iter().filter(|cp| cp.offset < text_len) {
        tree.push(cp, sink)?;
    }
    let _ = progress(gz.len());
    let fp = fingerprint::compute(gz, gz.len(), info.mtime)?;
    let mut sb = super::finish(tree, sink, opts, lines, fp, &info.name)?;
    if let (Some(t), Some(old)) = (time, old_times.as_mut()) {
        super::add_time(&mut sb, t.finish()?, old, text_len, sink)?;
    }

    // Access-point pages, then blob pages, after the tree.
    let p = opts.page_size;
    let mut page = vec![0u8; p as usize];
    let mut id = sb.page_count;
    let ap_first_page = id;
    let per = fmt::records_per_page(p);
    for chunk in records.chunks(per) {
        let mut body = vec![0u8; chunk.len() * fmt::AP_RECORD_LEN];
        for (r, b) in chunk.iter().zip(body.chunks_mut(fmt::AP_RECORD_LEN)) {
            r.encode(b);
        }
        fmt::encode_page(
            &mut page,
            PageKind::AccessPoints,
            id,
            chunk.len() as u16,
            &body,
        );
        sink.write_page(id, &page)?;
        id += 1;
    }
    let ap_pages = id - ap_first_page;
    // With piece CRCs the windows' last page is padded with zeros to a
    // full payload, so that every blob page but the file's last
    // is full.
    let padded = pieces.slots > 0;
    id = write_blob_pages(&blobs, blobs.len, padded, p, id, sink)?;
    let piece_page = id;
    id = write_blob_pages(&pieces.out, pieces.slots * 4, false, p, id, sink)?;
    let sb_damage = damage;
    sb.incompat_features |= format::INCOMPAT_GZIP;
    sb.source_kind = format::SOURCE_KIND_GZIP;
    sb.page_count = id;
    sb.gzip = GzipFields {
        text_len,
        span: span as u32,
        ap_count: records.len() as u32,
        ap_first_page,
        ap_pages,
        blob_pages: id - ap_first_page - ap_pages,
        piece_shift: 0,
        piece_page: 0,
    };
    if padded {
        set_pieces(&mut sb, opts.piece_shift, piece_page);
    }
    Ok((sb, sb_damage))
}

/// Writes the first `len` bytes of `out` as blob pages of size `p` from
/// page `id` on, the last one's payload zero-padded to a full page
/// when `pad` (windows followed by piece CRCs, R-141); returns the page
/// after them.
pub(super) fn write_blob_pages(
    out: &Spill,
    len: u64,
    pad: bool,
    p: u32,
    mut id: u32,
    sink: &mut impl PageSink,
) -> Result<u32> {
    let payload = fmt::blob_payload(p);
    let mut page = vec![0u8; p as usize];
    let mut body = vec![0u8; payload];
    let mut at = 0u64;
    while at < len {
        let n = payload.min((len - at) as usize);
        body.fill(0);
        out.read_at(&mut body[..n], at)?;
        let count = if pad { payload } else { n };
        fmt::encode_page(&mut page, PageKind::Blob, id, count as u16, &body[..count]);
        sink.write_page(id, &page)?;
        id += 1;
        at += n as u64;
    }
    Ok(id)
}

/// Marks `sb` as holding piece CRCs of `2^shift` bytes from blob page
/// `piece_page` on (§11.9): a 1.5 file.
pub(super) fn set_pieces(sb: &mut Superblock, shift: u8, piece_page: u32) {
    sb.compat_features |= format::COMPAT_PIECE_CRCS;
    sb.version_minor = sb.version_minor.max(format::VERSION_MINOR_PIECES);
    sb.gzip.piece_shift = shift;
    sb.gzip.piece_page = piece_page;
}

/// Where a tolerant build ends the indexed text.
#[derive(Debug, Clone, Copy)]
struct Cut {
    /// Text bytes kept: up to the end of the last complete line.
    text_len: u64,
    /// Lines in them.
    lines: u64,
}

/// CRC-32 of the text from access point `r` to `end`, decoding it again
/// (the running CRC went past `end` before the damage was found); its
/// pieces replace those `pieces` took for it.
fn prefix_crc(
    gz: &dyn ReadAt,
    blobs: &Spill,
    r: &ApRecord,
    end: u64,
    pieces: &mut Pieces,
) -> Result<u32> {
    let mut window = Vec::new();
    if r.blob_len > 0 {
        let mut blob = vec![0u8; r.blob_len as usize];
        blobs.read_at(&mut blob, r.blob_offset)?;
        use std::io::Read;
        flate2::read::DeflateDecoder::new(&blob[..])
            .read_to_end(&mut window)
            .map_err(|e| Error::InvalidArgument(format!("re-reading a window: {e}")))?;
    }
    let ap = crate::gzip::AccessPoint {
        comp_bit: r.comp_bit,
        uncomp: r.uncomp,
        window,
        member_start: r.flags & AP_MEMBER_START != 0,
        span_crc: None,
    };
    let mut inf = Inflater::resume(gz, &ap)?;
    pieces.reopen_at(r.first_piece as u64)?;
    inf.data_until(end, &mut |d| pieces.feed(d))?;
    Ok(pieces.close()?.expect("the span was opened"))
}
