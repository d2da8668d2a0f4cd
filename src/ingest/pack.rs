//! `lidx pack`: compresses a file into a zstd seekable archive (spec §13),
//! or a gzip file of one member per frame (§11), and writes the archive's
//! sidecar in the same pass.
//!
//! One thread reads the file and scans its lines (the checkpoints go to the
//! sidecar's tree as in any build) and cuts the text into frames: a frame
//! ends at the first checkpoint at or after `frame` bytes from its start,
//! so every frame starts at a line start that is a checkpoint, and a goto
//! decodes one frame. Worker threads compress frames in parallel (zstd,
//! with the frame content checksum); one writer thread puts them in order
//! into the archive, then the seek table (with checksums). A line longer
//! than [`HARD_CUT`] (or the frame size, if larger) is the one exception:
//! its frame is cut inside it. Both files are written under temporary
//! names, fsynced and renamed, the archive first: a crash leaves the old
//! files, or a new archive whose sidecar is rebuilt on first use.
//!
//! The result equals what indexing the archive afterwards gives (the same
//! checkpoints, frame records and superblock), and `zstd -d` restores the
//! file byte for byte.

use super::build::TreeBuilder;
use super::scan::Scanner;
use super::writer::AtomicFile;
use super::{BuildOptions, fingerprint};
use crate::error::{Error, Result};
use crate::format::zstd::{Entry, FrameRecord, SeekTable};
use crate::io::{FileSource, ReadAt};
use crate::tree::Checkpoint;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

/// Default text bytes per frame, chosen by measurement on a 1 GiB log
/// (`benches/README.md`, *zstd seekable*): at level 3, 256 KiB frames gave
/// an archive 0.7% smaller than `zstd -T0 -3`'s (1 MiB: 0.5% smaller,
/// 64 KiB: 0.5%, 128 KiB: 2.7% larger, level 3 choosing other parameters
/// by input size), and a goto 2.4 ms faster than with 1 MiB frames (a goto
/// decodes one frame into fresh memory).
pub const DEFAULT_FRAME: u64 = 256 << 10;
/// Default zstd level.
pub const DEFAULT_LEVEL: i32 = 3;
/// Default gzip level (gzip's own).
pub const DEFAULT_GZ_LEVEL: i32 = 6;
/// A frame is cut inside a line only past this many bytes.
pub const HARD_CUT: u64 = 64 << 20;
/// The largest `--frame` accepted.
pub const MAX_FRAME: u64 = 256 << 20;

/// The archive formats [`pack`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum PackFormat {
    /// A zstd seekable archive (spec §13): frames and a seek table.
    #[default]
    Zst,
    /// A gzip file of one member per frame (spec §11): every member is an
    /// access point without a window. Frames hold at most `span` bytes
    /// of text ([`BuildOptions::span`]), so the access points are the
    /// member starts and nothing else.
    Gz,
}

/// How [`pack`] compresses.
#[derive(Debug, Clone)]
pub struct PackOptions {
    /// The archive format.
    pub format: PackFormat,
    /// Compression level: zstd 1..=22 or negative for the fast levels;
    /// gzip 0..=9.
    pub level: i32,
    /// Target text bytes per frame (frames end at the first checkpoint
    /// past it).
    pub frame: u64,
    /// Compression threads (0: one per core).
    pub threads: usize,
    /// Replace an existing output file.
    pub force: bool,
    /// The sidecar's build parameters (spacing, page size).
    pub build: BuildOptions,
}

impl Default for PackOptions {
    fn default() -> Self {
        PackOptions {
            format: PackFormat::Zst,
            level: DEFAULT_LEVEL,
            frame: DEFAULT_FRAME,
            threads: 0,
            force: false,
            build: BuildOptions::default(),
        }
    }
}

/// What [`pack`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packed {
    /// The archive.
    pub archive: PathBuf,
    /// Its sidecar.
    pub sidecar: PathBuf,
    /// Bytes of text read.
    pub text_len: u64,
    /// Bytes of the archive.
    pub archive_len: u64,
    /// Frames written.
    pub frames: u64,
    /// Lines.
    pub lines: u64,
}

/// A file being written under a temporary name next to `dest`, renamed
/// into place by [`TempFile::commit`] and removed if dropped before.
struct TempFile {
    tmp: PathBuf,
    dest: PathBuf,
    done: bool,
}

impl TempFile {
    fn create(dest: &Path) -> Result<(TempFile, std::fs::File)> {
        use std::os::unix::ffi::OsStrExt;
        let name = dest.file_name().map(|n| n.as_bytes()).unwrap_or_default();
        let mut t = b".".to_vec();
        t.extend_from_slice(&name[..name.len().min(200)]);
        t.extend_from_slice(format!(".tmp-{}-pack", std::process::id()).as_bytes());
        let tmp = super::writer::parent_dir(dest)
            .join(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&t));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)
            .map_err(|e| Error::io("create", &tmp, e))?;
        Ok((
            TempFile {
                tmp,
                dest: dest.to_path_buf(),
                done: false,
            },
            file,
        ))
    }

    fn commit(mut self) -> Result<()> {
        std::fs::rename(&self.tmp, &self.dest).map_err(|e| Error::io("rename", &self.dest, e))?;
        self.done = true;
        if let Ok(d) = std::fs::File::open(super::writer::parent_dir(&self.dest)) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// A compressed frame on its way to the writer.
struct Compressed {
    i: usize,
    text_len: u32,
    crc: u32,
    /// A gzip member's piece CRCs (spec §11.9; empty when it is no longer
    /// than one piece).
    pieces: Vec<u32>,
    bytes: Result<Vec<u8>>,
}

/// Compresses `input` into the seekable archive `output` and writes its
/// sidecar (at the default place beside it) in the same pass (see the
/// module doc). `progress(done, total)` gets bytes read; false cancels.
pub fn pack(
    input: &Path,
    output: &Path,
    opts: &PackOptions,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<Packed> {
    opts.build.validate()?;
    if opts.frame == 0 || opts.frame > MAX_FRAME {
        return Err(Error::InvalidArgument(format!(
            "frame size must be in 1..={MAX_FRAME} bytes"
        )));
    }
    match opts.format {
        PackFormat::Zst => {
            let (lo, hi) = (
                zstd::zstd_safe::min_c_level(),
                zstd::zstd_safe::max_c_level(),
            );
            if opts.level < lo || opts.level > hi || opts.level == 0 {
                return Err(Error::InvalidArgument(format!(
                    "zstd level must be in {lo}..=-1 or 1..={hi}"
                )));
            }
        }
        PackFormat::Gz => {
            if !(0..=9).contains(&opts.level) {
                return Err(Error::InvalidArgument("gzip level must be in 0..=9".into()));
            }
            if opts.frame > opts.build.span {
                return Err(Error::InvalidArgument(format!(
                    "--frame {} exceeds the span {} (a gzip member holds at most one span)",
                    opts.frame, opts.build.span
                )));
            }
        }
    }
    if output.exists() && !opts.force {
        return Err(Error::InvalidArgument(format!(
            "{}: already exists (--force replaces it)",
            output.display()
        )));
    }
    let src = FileSource::open(input)?;
    let size = src.len();
    let threads = super::workers(opts.threads);
    let sidecar_path = crate::locate::default_sidecar(output);
    let (archive_tmp, file) = TempFile::create(output)?;
    let mut sidecar = AtomicFile::create(&sidecar_path, opts.build.page_size)?;
    let tmp_path = archive_tmp.tmp.clone();

    let (job_tx, job_rx) = mpsc::sync_channel::<(usize, Vec<u8>)>(threads * 2);
    // Shared by the workers only: when they are all gone (the writer
    // failed), sending a job fails instead of waiting.
    let job_rx = std::sync::Arc::new(std::sync::Mutex::new(job_rx));
    let (done_tx, done_rx) = mpsc::sync_channel::<Compressed>(threads * 2);
    let (level, format) = (opts.level, opts.format);
    let piece = (format == PackFormat::Gz && opts.build.piece_shift != 0)
        .then(|| 1usize << opts.build.piece_shift);

    let (scan, written) = std::thread::scope(|s| {
        for _ in 0..threads {
            let done_tx = done_tx.clone();
            let job_rx = std::sync::Arc::clone(&job_rx);
            s.spawn(move || {
                let mut c = match Codec::new(format, level) {
                    Ok(c) => Some(c),
                    Err(e) => {
                        let _ = done_tx.send(Compressed {
                            i: usize::MAX,
                            text_len: 0,
                            crc: 0,
                            pieces: Vec::new(),
                            bytes: Err(e),
                        });
                        None
                    }
                };
                while let Some(c) = c.as_mut() {
                    let job = job_rx.lock().map(|r| r.recv());
                    let Ok(Ok((i, text))) = job else { return };
                    let bytes = c.compress(&text);
                    let (crc, pieces) = super::pieces::crcs_of(&text, piece);
                    let msg = Compressed {
                        i,
                        text_len: text.len() as u32,
                        crc,
                        pieces,
                        bytes,
                    };
                    if done_tx.send(msg).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done_tx);
        drop(job_rx);
        let writer = s.spawn(move || write_frames(file, &tmp_path, done_rx, format));
        let scan = scan_and_cut(&src, opts, &mut sidecar, job_tx, progress);
        let written = writer
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (scan, written)
    });
    // A writer's error first: the scan only saw that the frames stopped.
    let (records, pieces, archive_len) = written?;
    let (tree, lines) = scan?;

    // The archive is complete: fsync, then its fingerprint and the sidecar.
    let archive = FileSource::open(&archive_tmp.tmp)?;
    archive
        .file()
        .sync_all()
        .map_err(|e| Error::io("fsync", &archive_tmp.tmp, e))?;
    let meta = archive
        .file()
        .metadata()
        .map_err(|e| Error::io("stat", &archive_tmp.tmp, e))?;
    let fp = fingerprint::compute(&archive, archive.len(), fingerprint::mtime(&meta))?;
    let name = output
        .file_name()
        .map(|n| std::os::unix::ffi::OsStrExt::as_bytes(n).to_vec())
        .unwrap_or_default();
    let mut sb = super::finish(tree, &mut sidecar, &opts.build, lines, fp, &name)?;
    match opts.format {
        PackFormat::Zst => super::zstd::write_records(&mut sb, &records, size, &mut sidecar)?,
        PackFormat::Gz => {
            write_gzip_records(&mut sb, &records, &pieces, size, &opts.build, &mut sidecar)?
        }
    }
    archive_tmp.commit()?;
    sidecar.commit(&sb.encode())?;
    Ok(Packed {
        archive: output.to_path_buf(),
        sidecar: sidecar_path,
        text_len: size,
        archive_len,
        frames: records.len() as u64,
        lines,
    })
}

/// Reads and scans `src`, pushing checkpoints into a tree in `sidecar`,
/// and sends frames (cut at checkpoints) to `jobs`. Returns the tree and
/// the line count.
fn scan_and_cut(
    src: &FileSource,
    opts: &PackOptions,
    sidecar: &mut AtomicFile,
    jobs: mpsc::SyncSender<(usize, Vec<u8>)>,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<(TreeBuilder, u64)> {
    let size = src.len();
    let first = Checkpoint { line: 0, offset: 0 };
    let mut tree = TreeBuilder::new(opts.build.page_size);
    tree.push(first, sidecar)?;
    let mut scanner = Scanner::resume(first, opts.build.spacing, size);
    // A gzip member holds at most one span (R-92: no access point inside).
    let hard = match opts.format {
        PackFormat::Zst => HARD_CUT.max(opts.frame),
        PackFormat::Gz => opts.build.span,
    };
    let mut buf = crate::io::AlignedBuf::zeroed(super::BUFFER_SIZE);
    let mut frame = Vec::new();
    let mut frame_start = 0u64;
    let mut n_frames = 0usize;
    let mut cuts = Vec::new();
    let mut at = 0u64;
    let mut last = None;
    let stopped = |path: &Path| {
        Error::InvalidArgument(format!(
            "{}: compression stopped (see the error before)",
            path.display()
        ))
    };
    let send = |text: Vec<u8>, n: &mut usize| -> Result<()> {
        jobs.send((*n, text)).map_err(|_| stopped(src.path()))?;
        *n += 1;
        Ok(())
    };
    while at < size {
        let want = buf.len().min((size - at) as usize);
        let n = src.read_full_at(&mut buf[..want], at)?;
        if n == 0 {
            return Err(Error::SourceChanged {
                path: src.path().to_path_buf(),
                what: format!("it ends at byte {at}, not at {size}: it shrank while packed"),
            });
        }
        let chunk = &buf[..n];
        let target = frame_start + opts.frame;
        scanner.feed(chunk, at, &mut |cp| {
            if cp.offset >= target && cuts.last().is_none_or(|&c| cp.offset >= c + opts.frame) {
                cuts.push(cp.offset);
            }
            tree.push(cp, sidecar)
        })?;
        frame.extend_from_slice(chunk);
        for c in cuts.drain(..) {
            while c - frame_start > hard {
                let rest = frame.split_off(hard as usize);
                send(std::mem::replace(&mut frame, rest), &mut n_frames)?;
                frame_start += hard;
            }
            let k = (c - frame_start) as usize;
            let rest = frame.split_off(k);
            send(std::mem::replace(&mut frame, rest), &mut n_frames)?;
            frame_start = c;
        }
        while frame.len() as u64 >= hard {
            let rest = frame.split_off(hard as usize);
            send(std::mem::replace(&mut frame, rest), &mut n_frames)?;
            frame_start += hard;
        }
        last = chunk.last().copied();
        at += n as u64;
        if !progress(at, size) {
            return Err(Error::Cancelled {
                path: src.path().to_path_buf(),
            });
        }
    }
    scanner.finish(&mut |cp| tree.push(cp, sidecar))?;
    if !frame.is_empty() || n_frames == 0 {
        send(frame, &mut n_frames)?;
    }
    let lines = scanner.newlines() + u64::from(size > 0 && last != Some(b'\n'));
    Ok((tree, lines))
}

/// Writes compressed frames from `done` in order into `file`, then the
/// seek table; returns the frame records, each one's piece CRCs, and the
/// archive's length.
#[allow(clippy::type_complexity)]
fn write_frames(
    file: std::fs::File,
    path: &Path,
    done: mpsc::Receiver<Compressed>,
    format: PackFormat,
) -> Result<(Vec<FrameRecord>, Vec<Vec<u32>>, u64)> {
    let io = |e| Error::io("write", path, e);
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let mut waiting = std::collections::BTreeMap::new();
    let mut records: Vec<FrameRecord> = Vec::new();
    let mut pieces = Vec::new();
    let mut table = SeekTable::default();
    let (mut comp, mut uncomp) = (0u64, 0u64);
    for c in done {
        if c.i == usize::MAX {
            return Err(c.bytes.expect_err("an encoder error"));
        }
        waiting.insert(c.i, c);
        while let Some(c) = waiting.remove(&records.len()) {
            let bytes = c.bytes?;
            out.write_all(&bytes).map_err(io)?;
            // The frame's content checksum (its last 4 bytes) is the seek
            // table's checksum: both are XXH64's low 32 bits. (A gzip
            // member's last 8 bytes are its CRC-32 and length.)
            let xxh = u32::from_le_bytes(bytes[bytes.len() - 4..].try_into().expect("4 bytes"));
            table.entries.push(Entry {
                comp: bytes.len() as u32,
                text: c.text_len,
                xxh: Some(xxh),
            });
            records.push(FrameRecord {
                uncomp,
                comp,
                comp_len: bytes.len() as u32,
                text_len: c.text_len,
                text_crc: c.crc,
                xxh,
                flags: crate::format::zstd::FRAME_HAS_XXH
                    | crate::format::zstd::FRAME_CONTENT_CHECKSUM,
            });
            pieces.push(c.pieces);
            comp += bytes.len() as u64;
            uncomp += c.text_len as u64;
        }
    }
    if !waiting.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{}: a compressed frame went missing",
            path.display()
        )));
    }
    let t = match format {
        PackFormat::Zst => table.encode(),
        PackFormat::Gz => Vec::new(),
    };
    out.write_all(&t).map_err(io)?;
    out.flush().map_err(io)?;
    Ok((records, pieces, comp + t.len() as u64))
}

/// A frame compressor of one format.
enum Codec {
    Zst(Box<zstd::bulk::Compressor<'static>>),
    Gz(Box<crate::gzip::zlib::GzipDeflate>),
}

impl Codec {
    fn new(format: PackFormat, level: i32) -> Result<Codec> {
        match format {
            PackFormat::Zst => {
                let mut c = zstd::bulk::Compressor::new(level)
                    .map_err(|e| Error::InvalidArgument(format!("zstd encoder: {e}")))?;
                c.set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))
                    .map_err(|e| Error::InvalidArgument(format!("zstd encoder: {e}")))?;
                Ok(Codec::Zst(Box::new(c)))
            }
            PackFormat::Gz => crate::gzip::zlib::GzipDeflate::new(level)
                .map(|d| Codec::Gz(Box::new(d)))
                .ok_or_else(|| Error::InvalidArgument(format!("gzip level {level}: not 0..=9"))),
        }
    }

    /// One zstd frame, or one gzip member (a 10-byte header: no name, no
    /// time, R-92's member start right after it).
    fn compress(&mut self, text: &[u8]) -> Result<Vec<u8>> {
        match self {
            Codec::Zst(c) => c
                .compress(text)
                .map_err(|e| Error::InvalidArgument(format!("zstd compression: {e}"))),
            Codec::Gz(d) => {
                let mut out = Vec::new();
                d.member(text, &mut out)
                    .map_err(|e| Error::InvalidArgument(format!("gzip compression: {e}")))?;
                Ok(out)
            }
        }
    }
}

/// Length of the member header [`Codec::compress`] writes.
const GZIP_HEADER_LEN: u64 = 10;

/// Writes a gzip sidecar's access-point pages (spec §11.3) for the members
/// `records` describe (one access point per member start, no window) after
/// the pages of `sb`, and makes `sb` a gzip superblock: what a build of the
/// archive gives.
fn write_gzip_records(
    sb: &mut crate::format::Superblock,
    records: &[FrameRecord],
    pieces: &[Vec<u32>],
    text_len: u64,
    opts: &super::BuildOptions,
    sink: &mut impl super::build::PageSink,
) -> Result<()> {
    use crate::format::gzip::{self as gz, AP_MEMBER_START, ApRecord};
    // a member start is an access point if it is the first, or if
    // the text grew since the previous one (an empty member is not).
    let mut aps: Vec<ApRecord> = Vec::new();
    let mut slots = super::spill::Spill::new();
    let mut n_slots = 0u64;
    for (r, p) in records.iter().zip(pieces) {
        if aps.last().is_some_and(|a| a.uncomp == r.uncomp) {
            continue;
        }
        let first_piece = u32::try_from(n_slots).map_err(|_| {
            Error::InvalidArgument("more than 2^32 piece CRCs: use a larger --frame".into())
        })?;
        let bytes: Vec<u8> = p.iter().flat_map(|c| c.to_le_bytes()).collect();
        slots.append(&bytes)?;
        n_slots += p.len() as u64;
        aps.push(ApRecord {
            uncomp: r.uncomp,
            comp_bit: (r.comp + GZIP_HEADER_LEN) * 8,
            blob_offset: 0,
            blob_len: 0,
            window_len: 0,
            flags: AP_MEMBER_START,
            span_crc: r.text_crc,
            first_piece,
        });
    }
    let p = sb.page_size;
    let mut page = vec![0u8; p as usize];
    let first = sb.page_count;
    let mut id = first;
    for chunk in aps.chunks(gz::records_per_page(p)) {
        let mut body = vec![0u8; chunk.len() * gz::AP_RECORD_LEN];
        for (r, b) in chunk.iter().zip(body.chunks_mut(gz::AP_RECORD_LEN)) {
            r.encode(b);
        }
        gz::encode_page(
            &mut page,
            crate::format::PageKind::AccessPoints,
            id,
            chunk.len() as u16,
            &body,
        );
        sink.write_page(id, &page)?;
        id += 1;
    }
    sb.incompat_features |= crate::format::INCOMPAT_GZIP;
    sb.source_kind = crate::format::SOURCE_KIND_GZIP;
    sb.page_count = id;
    sb.gzip = crate::format::GzipFields {
        text_len,
        span: opts.span as u32,
        ap_count: aps.len() as u32,
        ap_first_page: first,
        ap_pages: id - first,
        blob_pages: 0,
        ..crate::format::GzipFields::default()
    };
    if n_slots > 0 {
        let piece_page = id;
        id = super::gzip::write_blob_pages(&slots, n_slots * 4, false, p, id, sink)?;
        sb.page_count = id;
        sb.gzip.blob_pages = id - piece_page;
        super::gzip::set_pieces(sb, opts.piece_shift, piece_page);
    }
    Ok(())
}
