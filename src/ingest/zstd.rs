//! Ingest of a zstd seekable source (spec §13): the seek table gives every
//! frame's place; worker threads ([`BuildOptions::threads`], one per core
//! by default) decode and check frames in parallel, a few ahead of the line
//! scan, which takes their text strictly in order and
//! counts lines into the checkpoint tree (at uncompressed offsets). One
//! frame record per frame follows the tree pages; no window is stored.
//!
//! Memory: the tree builder's, plus at most [`AHEAD`] × threads decoded
//! frames in flight, plus 40 bytes per frame.

use super::build::{PageSink, TreeBuilder};
use super::scan::Scanner;
use super::{BuildOptions, SourceInfo, fingerprint};
use crate::error::{Error, Result};
use crate::format::zstd::{self as fmt, FrameRecord};
use crate::format::{self, GzipFields, PageKind, Superblock};
use crate::io::ReadAt;
use crate::tree::Checkpoint;
use crate::zstd::{Decoder, Frame};
use parking_lot::{Condvar, Mutex};
use std::collections::BTreeMap;

/// Frames decoded ahead of the scan, per worker thread.
pub const AHEAD: usize = 2;

/// One decoded frame: its text, whether it carries a content checksum,
/// and the CRC-32 of its text.
pub(crate) struct Decoded {
    pub(crate) text: Vec<u8>,
    pub(crate) content_checksum: bool,
    pub(crate) crc: u32,
}

struct Shared {
    /// Decoded frames waiting for the scan, by frame number.
    done: BTreeMap<usize, Result<Decoded>>,
    /// The next frame a worker takes.
    next: usize,
    /// The next frame the scan takes.
    wanted: usize,
    /// The scan failed or finished: workers stop.
    stop: bool,
    /// Text buffers the scan is done with.
    free: Vec<Vec<u8>>,
    /// A worker could not start.
    failed: Option<Error>,
}

/// Decodes `frames` of `src` on `threads` worker threads and passes each
/// one's text to `each`, in order, on the calling thread.
pub(crate) fn decode_in_order(
    src: &dyn ReadAt,
    frames: &[Frame],
    threads: usize,
    each: &mut dyn FnMut(usize, &Decoded) -> Result<()>,
) -> Result<()> {
    let threads = threads.clamp(1, frames.len().max(1));
    let window = threads * AHEAD;
    let state = Mutex::new(Shared {
        done: BTreeMap::new(),
        next: 0,
        wanted: 0,
        stop: false,
        free: Vec::new(),
        failed: None,
    });
    let (ready, room) = (Condvar::new(), Condvar::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let mut dec = match Decoder::new() {
                    Ok(d) => Some(d),
                    Err(e) => {
                        let mut st = state.lock();
                        st.failed = Some(e);
                        ready.notify_all();
                        None
                    }
                };
                let mut comp = Vec::new();
                while let Some(d) = dec.as_mut() {
                    let (i, mut text) = {
                        let mut st = state.lock();
                        while !st.stop && st.next < frames.len() && st.next >= st.wanted + window {
                            room.wait(&mut st);
                        }
                        if st.stop || st.next >= frames.len() {
                            return;
                        }
                        st.next += 1;
                        (st.next - 1, st.free.pop().unwrap_or_default())
                    };
                    let r =
                        d.frame(src, i, &frames[i], &mut comp, &mut text)
                            .map(|content_checksum| Decoded {
                                crc: crc32fast::hash(&text),
                                text,
                                content_checksum,
                            });
                    let mut st = state.lock();
                    st.done.insert(i, r);
                    ready.notify_all();
                }
            });
        }
        let mut result = Ok(());
        for i in 0..frames.len() {
            let got = {
                let mut st = state.lock();
                loop {
                    if let Some(r) = st.done.remove(&i) {
                        break r;
                    }
                    if let Some(e) = st.failed.take() {
                        break Err(e);
                    }
                    ready.wait(&mut st);
                }
            };
            let r = got.and_then(|d| {
                let r = each(i, &d);
                let mut st = state.lock();
                st.free.push(d.text);
                st.wanted = i + 1;
                room.notify_all();
                r
            });
            if let Err(e) = r {
                result = Err(e);
                break;
            }
        }
        let mut st = state.lock();
        st.stop = true;
        room.notify_all();
        drop(st);
        result
    })
}

/// The frames of damaged zstd seekable archive `src` before its first
/// damaged frame (decoded and checked in order), where the complete lines
/// of their text end, and the damage found. An error when not even the
/// seek table can be read. For an index of those lines in memory, as a
/// damaged gzip archive's lines before the damage are indexed.
pub(crate) fn intact_prefix(
    src: &dyn ReadAt,
    threads: usize,
) -> Result<(Vec<FrameRecord>, u64, Option<Error>)> {
    let frames = crate::zstd::seek_table(src)?;
    let mut records = Vec::new();
    let mut cut = 0u64;
    let found = decode_in_order(src, &frames, super::workers(threads), &mut |i, d| {
        let f = &frames[i];
        if let Some(k) = memchr::memrchr(b'\n', &d.text) {
            cut = f.uncomp + k as u64 + 1;
        }
        records.push(record(f, d));
        Ok(())
    })
    .err();
    Ok((records, cut, found))
}

/// Builds the sidecar of zstd seekable source `src` (see the module doc).
pub fn build(
    src: &dyn ReadAt,
    info: &SourceInfo,
    opts: &BuildOptions,
    sink: &mut impl PageSink,
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<Superblock> {
    opts.validate()?;
    let frames = crate::zstd::seek_table(src)?;
    let text_len = frames.last().map_or(0, |f| f.uncomp + f.text_len as u64);
    let first = Checkpoint { line: 0, offset: 0 };
    let mut tree = TreeBuilder::new(opts.page_size);
    tree.push(first, sink)?;
    let head = if opts.time.is_some() {
        text_head(src, &frames)?
    } else {
        Vec::new()
    };
    let mut time = super::time_start(opts, None, &head, src, info)?
        .map(|t| super::time::TimeThread::spawn(super::TimeBuilder::new(t)));
    let mut scanner = Scanner::resume(first, opts.spacing, text_len);
    let mut records = Vec::with_capacity(frames.len());
    let mut last_byte = None;
    let mut next_progress = 0u64;
    decode_in_order(src, &frames, super::workers(opts.threads), &mut |i, d| {
        let f = &frames[i];
        scanner.feed(&d.text, f.uncomp, &mut |cp| {
            if let Some(t) = time.as_mut() {
                t.boundary(cp.offset);
            }
            tree.push(cp, sink)
        })?;
        if let Some(t) = time.as_mut() {
            t.feed(&d.text, f.uncomp)?;
        }
        if let Some(&b) = d.text.last() {
            last_byte = Some(b);
        }
        records.push(record(f, d));
        let at = f.comp + f.comp_len as u64;
        super::report_compressed(progress, at, &mut next_progress, src)?;
        Ok(())
    })?;
    scanner.finish(&mut |cp| {
        if let Some(t) = time.as_mut() {
            t.boundary(cp.offset);
        }
        tree.push(cp, sink)
    })?;
    let lines = scanner.newlines() + u64::from(text_len > 0 && last_byte != Some(b'\n'));
    let _ = progress(src.len());
    let fp = fingerprint::compute(src, src.len(), info.mtime)?;
    let mut sb = super::finish(tree, sink, opts, lines, fp, &info.name)?;
    if let Some(t) = time {
        let mut old = std::iter::empty();
        super::add_time(&mut sb, t.finish()?, &mut old, text_len, sink)?;
    }
    write_records(&mut sb, &records, text_len, sink)?;
    Ok(sb)
}

/// Builds the sidecar of `src`, a zstd source that grew since `old` (a
/// verified sidecar of its prefix, read through `cache`, its frame
/// records through `records`) was built: another seekable archive was
/// appended. Copies the old checkpoints and frame records, and
/// decodes only from the frame holding the last old checkpoint. The
/// result equals a fresh [`build()`] with the old spacing and page size.
/// An archive whose first frames are not the old ones is built afresh
/// with `fresh` (the old build parameters, and the time options of the
/// old time index). A time index resumes at `time` (where the last old
/// span starts, and the old entries before it).
#[allow(clippy::too_many_arguments)]
pub(crate) fn extend(
    old: &Superblock,
    fresh: &BuildOptions,
    cache: &crate::cache::PageCache,
    records: &dyn crate::zstd::FrameRecords,
    src: &dyn ReadAt,
    info: &SourceInfo,
    time: Option<(super::TimeStart, super::OldTimes<'_>)>,
    sink: &mut impl PageSink,
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<Superblock> {
    let opts = BuildOptions::of(old);
    opts.validate()?;
    let frames = crate::zstd::seek_table(src)?;
    let n_old = records.count();
    let mut kept = Vec::with_capacity(frames.len());
    for i in 0..n_old {
        kept.push(records.record(i)?);
    }
    let same = frames.len() >= n_old
        && kept.iter().zip(&frames).all(|(r, f)| {
            (r.uncomp, r.comp, r.comp_len, r.text_len) == (f.uncomp, f.comp, f.comp_len, f.text_len)
        });
    if !same || n_old == 0 {
        return build(src, info, fresh, sink, progress);
    }
    let text_len = frames.last().map_or(0, |f| f.uncomp + f.text_len as u64);
    let (mut tree, from) = super::copy_checkpoints(old, cache, sink)?;
    // The frame holding the last old checkpoint (frames without text
    // share their offset with the next one).
    let j = frames
        .iter()
        .position(|f| from.offset < f.uncomp + f.text_len as u64)
        .unwrap_or(frames.len());
    let mut scanner = Scanner::resume(from, opts.spacing, text_len);
    // The stamps are read on another thread while this one decodes, from
    // where the last old span starts (the last old checkpoint).
    let (mut time, mut old_times) = super::time::TimeThread::resume(time);
    let mut last_byte = None;
    let mut next_progress = 0u64;
    decode_in_order(
        src,
        &frames[j..],
        super::workers(opts.threads),
        &mut |k, d| {
            let i = j + k;
            let f = &frames[i];
            let skip = from.offset.saturating_sub(f.uncomp) as usize;
            if skip < d.text.len() {
                let at = f.uncomp + skip as u64;
                scanner.feed(&d.text[skip..], at, &mut |cp| {
                    if let Some(t) = time.as_mut() {
                        t.boundary(cp.offset);
                    }
                    tree.push(cp, sink)
                })?;
                if let Some(t) = time.as_mut() {
                    t.feed(&d.text[skip..], at)?;
                }
            }
            if let Some(&b) = d.text.last() {
                last_byte = Some(b);
            }
            if i >= n_old {
                kept.push(record(f, d));
            }
            let at = f.comp + f.comp_len as u64;
            super::report_compressed(progress, at, &mut next_progress, src)?;
            Ok(())
        },
    )?;
    scanner.finish(&mut |cp| {
        if let Some(t) = time.as_mut() {
            t.boundary(cp.offset);
        }
        tree.push(cp, sink)
    })?;
    let lines = scanner.newlines() + u64::from(text_len > 0 && last_byte != Some(b'\n'));
    let _ = progress(src.len());
    let fp = fingerprint::compute(src, src.len(), info.mtime)?;
    let mut sb = super::finish(tree, sink, &opts, lines, fp, &info.name)?;
    if let (Some(t), Some(old)) = (time, old_times.as_mut()) {
        super::add_time(&mut sb, t.finish()?, old, text_len, sink)?;
    }
    write_records(&mut sb, &kept, text_len, sink)?;
    Ok(sb)
}

/// The sidecar record of frame `f`, decoded as `d`.
pub(crate) fn record(f: &Frame, d: &Decoded) -> FrameRecord {
    let mut flags = 0;
    if f.xxh.is_some() {
        flags |= fmt::FRAME_HAS_XXH;
    }
    if d.content_checksum {
        flags |= fmt::FRAME_CONTENT_CHECKSUM;
    }
    FrameRecord {
        uncomp: f.uncomp,
        comp: f.comp,
        comp_len: f.comp_len,
        text_len: f.text_len,
        text_crc: d.crc,
        xxh: f.xxh.unwrap_or(0),
        flags,
    }
}

/// Writes the frame-record pages after the pages of `sb` and makes `sb`
/// the superblock of a zstd sidecar.
pub(crate) fn write_records(
    sb: &mut Superblock,
    records: &[FrameRecord],
    text_len: u64,
    sink: &mut impl PageSink,
) -> Result<()> {
    let p = sb.page_size;
    let mut page = vec![0u8; p as usize];
    let first = sb.page_count;
    let mut id = first;
    for chunk in records.chunks(fmt::records_per_page(p)) {
        let mut body = vec![0u8; chunk.len() * fmt::FRAME_RECORD_LEN];
        for (r, b) in chunk.iter().zip(body.chunks_mut(fmt::FRAME_RECORD_LEN)) {
            r.encode(b);
        }
        format::gzip::encode_page(&mut page, PageKind::Frames, id, chunk.len() as u16, &body);
        sink.write_page(id, &page)?;
        id += 1;
    }
    sb.version_minor = sb.version_minor.max(format::VERSION_MINOR_ZSTD);
    sb.incompat_features |= format::INCOMPAT_ZSTD;
    sb.source_kind = format::SOURCE_KIND_ZSTD;
    sb.page_count = id;
    sb.gzip = GzipFields {
        text_len,
        span: records.iter().map(|r| r.text_len).max().unwrap_or(0).max(1),
        ap_count: records.len() as u32,
        ap_first_page: first,
        ap_pages: id - first,
        blob_pages: 0,
        ..GzipFields::default()
    };
    Ok(())
}

/// The first [`super::DETECT_BYTES`] of the text (for the time format).
fn text_head(src: &dyn ReadAt, frames: &[Frame]) -> Result<Vec<u8>> {
    let mut head = Vec::new();
    let mut dec = Decoder::new()?;
    let (mut comp, mut text) = (Vec::new(), Vec::new());
    for (i, f) in frames.iter().enumerate() {
        if head.len() >= super::DETECT_BYTES {
            break;
        }
        dec.frame(src, i, f, &mut comp, &mut text)?;
        let n = text.len().min(super::DETECT_BYTES - head.len());
        head.extend_from_slice(&text[..n]);
    }
    Ok(head)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::zstd::{Entry, SeekTable};
    use crate::io::MemSource;

    /// An archive of `pieces`, one frame each (with content checksums),
    /// and a seek table with checksums.
    fn archive(pieces: &[Vec<u8>]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut table = SeekTable::default();
        let mut c = zstd::bulk::Compressor::new(1).unwrap();
        c.set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))
            .unwrap();
        for p in pieces {
            let f = c.compress(p).unwrap();
            table.entries.push(Entry {
                comp: f.len() as u32,
                text: p.len() as u32,
                xxh: Some(xxhash_rust::xxh64::xxh64(p, 0) as u32),
            });
            out.extend(f);
        }
        out.extend(table.encode());
        out
    }

    fn pieces() -> Vec<Vec<u8>> {
        (0..40u32)
            .map(|i| {
                (0..i * 37)
                    .flat_map(|k| format!("{i}:{k}\n").into_bytes())
                    .collect()
            })
            .collect()
    }

    /// Frames come to the scan in order, whatever the threads; a damaged
    /// frame stops it with that frame's error (no thread left waiting).
    #[test]
    fn frames_in_order_and_errors_stop_the_pipeline() {
        let p = pieces();
        let a = archive(&p);
        let src = MemSource::new(a.clone());
        let frames = crate::zstd::seek_table(&src).unwrap();
        assert_eq!(frames.len(), p.len());
        for threads in [1, 2, 3, 8] {
            let mut seen = Vec::new();
            decode_in_order(&src, &frames, threads, &mut |i, d| {
                assert_eq!(d.text, p[i]);
                assert_eq!(d.crc, crc32fast::hash(&p[i]));
                assert!(d.content_checksum);
                seen.push(i);
                Ok(())
            })
            .unwrap();
            assert_eq!(seen, (0..p.len()).collect::<Vec<_>>(), "{threads} threads");
        }
        // Frame 17's last byte (its content checksum) flipped.
        let f = frames[17];
        let mut bad = a.clone();
        bad[(f.comp + f.comp_len as u64 - 1) as usize] ^= 1;
        let src = MemSource::new(bad);
        for threads in [1, 3] {
            let mut n = 0;
            let e = decode_in_order(&src, &frames, threads, &mut |_, _| {
                n += 1;
                Ok(())
            })
            .unwrap_err();
            assert_eq!(n, 17, "frames before the damage");
            assert!(e.to_string().contains("frame 17"), "{e}");
        }
        // The scan's own error stops the workers too.
        let src = MemSource::new(a);
        let e = decode_in_order(&src, &frames, 4, &mut |i, _| {
            if i == 5 {
                Err(Error::InvalidArgument("stop".into()))
            } else {
                Ok(())
            }
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "stop");
    }

    /// The built sidecar reads back every byte of the text (frames of
    /// every size, an empty one first).
    #[test]
    fn built_sidecar_reads_the_text() {
        let p = pieces();
        let text: Vec<u8> = p.concat();
        let a = archive(&p);
        let opts = BuildOptions {
            spacing: 100,
            ..Default::default()
        };
        let sidecar = crate::build_to_vec(&MemSource::new(a.clone()), &opts).unwrap();
        let index = crate::Index::from_parts(
            Box::new(MemSource::new(a)),
            Box::new(MemSource::new(sidecar)),
            (0, 0),
            1 << 16,
        )
        .unwrap();
        assert_eq!(index.source_len(), text.len() as u64);
        assert_eq!(
            index.line_count(),
            text.iter().filter(|&&b| b == b'\n').count() as u64
        );
        let mut buf = vec![0u8; 3001];
        let mut at = 0;
        while at < text.len() {
            let n = index.source().read_full_at(&mut buf, at as u64).unwrap();
            assert_eq!(&buf[..n], &text[at..(at + 3001).min(text.len())]);
            at += n;
        }
        index.verify(true).unwrap();
    }
}
