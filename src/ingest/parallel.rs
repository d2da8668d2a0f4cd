//! The parallel line scan of a plain source (issue 14, item 1).
//!
//! Where the checkpoints fall depends on the previous checkpoint only
//! through a short search: the next one is the first line start at or
//! after `last + spacing` (spec §5), found by a `memchr` from there. What
//! costs is everything else: reading every byte (the kernel's copy) and
//! counting every newline for the checkpoints' line numbers. Both split
//! into independent blocks, so workers do them, one block each at a time:
//! read the block into an aligned buffer and count its newlines in grains
//! of [`GRAIN`] bytes (prefix counts, [`Prefix`]). This thread takes the
//! blocks in order and runs the same [`Scanner`] over them with those
//! counts, so it reads only about a grain around each checkpoint. The
//! checkpoints, and so the sidecar, are exactly the sequential scan's.
//!
//! Memory: at most [`AHEAD`] blocks per worker are read ahead of the one
//! being scanned (the workers wait beyond that), each a buffer of the
//! build's buffer size and its counts.

use super::scan::{Prefix, Scanner, count_newlines};
use super::time::{HEAD, TimeBuilder};
use crate::error::{Error, Result};
use crate::io::{AlignedBuf, ReadAt};
use crate::time::{Nanos, Stamper};
use crate::tree::Checkpoint;
use parking_lot::{Condvar, Mutex};
use std::collections::BTreeMap;

/// Bytes per prefix count.
pub(crate) const GRAIN: usize = 4096;
/// Reads (of the build's buffer size) per block: a block is the unit a
/// worker takes and hands on, so fewer blocks cost fewer wake-ups (with
/// one read per block, 1 GiB took 8,192 hand-overs, and the threads'
/// switching cost a fifth of the time).
pub(crate) const BATCH: usize = 8;
/// Blocks each worker may read ahead of the scan.
const AHEAD: u64 = 4;

/// A block read and counted by a worker.
struct Counted {
    /// The block's bytes at `buf[pre..pre + len]`; with a time pass, the
    /// byte before it (`pre` = 1, but at the start) and up to
    /// [`HEAD`] bytes after it (the heads of its last lines).
    buf: AlignedBuf,
    pre: usize,
    len: usize,
    /// Bytes read into `buf`.
    filled: usize,
    counts: Vec<u32>,
    /// With a time pass: the lines that start in the block, in order.
    lines: Vec<LineTime>,
}

/// A line's start and its time, read out of order by a worker.
struct LineTime {
    start: u64,
    /// `Some`: as [`crate::time::Stamper::stamp_alone`] read it; `None`:
    /// to be read in order, from `head`.
    time: Option<Option<(Nanos, i32)>>,
    head: Vec<u8>,
}

/// What the workers and the scan share.
struct Shared {
    /// The next block to hand out.
    next: u64,
    /// Blocks scanned.
    done: u64,
    /// Set when the scan stops early (an error, a cancel): workers quit.
    stop: bool,
    /// Buffers given back by the scan.
    free: Vec<Counted>,
}

/// Scans `src[from..end]` as [`Scanner::feed`] over consecutive buffers
/// would, emitting the same checkpoints in the same order, with `workers`
/// threads reading and counting blocks of `block` bytes in grains of
/// `grain` bytes; returns the last byte. `progress` gets the offset
/// scanned up to; false from it cancels. With `time` (whose format must
/// give [`TimeBuilder::stamper_alone`]), the workers also read the lines'
/// stamps, and the time pass gets them in order: the same time index as
/// the sequential pass.
#[allow(clippy::too_many_arguments)]
pub(crate) fn scan(
    src: &dyn ReadAt,
    from: u64,
    end: u64,
    scanner: &mut Scanner,
    emit: &mut dyn FnMut(Checkpoint) -> Result<()>,
    mut time: Option<&mut TimeBuilder>,
    workers: usize,
    block: usize,
    piece: usize,
    grain: usize,
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<Option<u8>> {
    let blocks = (end - from).div_ceil(block as u64);
    let workers = workers.max(1);
    let ahead = AHEAD * workers as u64;
    let shared = Mutex::new(Shared {
        next: 0,
        done: 0,
        stop: false,
        free: Vec::new(),
    });
    let wake = Condvar::new();
    let (tx, rx) = std::sync::mpsc::channel::<(u64, Result<Counted>)>();
    let stampers: Vec<Option<Stamper>> = (0..workers)
        .map(|_| time.as_ref().and_then(|t| t.stamper_alone()))
        .collect();
    let timed = time.is_some();
    std::thread::scope(|s| {
        for mut stamper in stampers {
            let tx = tx.clone();
            let (shared, wake) = (&shared, &wake);
            s.spawn(move || {
                loop {
                    let (i, c) = {
                        let mut g = shared.lock();
                        loop {
                            if g.stop || g.next >= blocks {
                                return;
                            }
                            if g.next < g.done + ahead {
                                break;
                            }
                            wake.wait(&mut g);
                        }
                        let i = g.next;
                        g.next += 1;
                        let c = g.free.pop().unwrap_or_else(|| Counted {
                            buf: AlignedBuf::zeroed(0),
                            pre: 0,
                            len: 0,
                            filled: 0,
                            counts: Vec::new(),
                            lines: Vec::new(),
                        });
                        (i, c)
                    };
                    let at = from + i * block as u64;
                    let len = (block as u64).min(end - at) as usize;
                    let result =
                        read_block(src, c, at, len, from, end, timed, piece, grain).map(|mut c| {
                            if let Some(st) = stamper.as_mut() {
                                line_times(&mut c, at, from, st);
                            }
                            c
                        });
                    // The scan may have stopped: then nobody listens.
                    if tx.send((i, result)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let result = (|| {
            let mut pending = BTreeMap::new();
            let mut last = None;
            // The last line that started in the blocks scanned: it may
            // end in a later one, so the time pass gets it then.
            let mut open_line: Option<LineTime> = None;
            for i in 0..blocks {
                let mut c = loop {
                    if let Some(c) = pending.remove(&i) {
                        break c;
                    }
                    let (j, r) = rx.recv().expect("a worker holds block i");
                    pending.insert(j, r?);
                };
                let at = from + i * block as u64;
                let counter = Prefix {
                    counts: &c.counts,
                    grain,
                };
                let bytes = &c.buf[c.pre..c.pre + c.len];
                match time.as_deref_mut() {
                    Some(t) => scanner.feed_counted(bytes, at, &counter, &mut |cp| {
                        t.boundary(cp.offset);
                        emit(cp)
                    })?,
                    None => scanner.feed_counted(bytes, at, &counter, &mut &mut *emit)?,
                }
                last = bytes.last().copied();
                let scanned = at + bytes.len() as u64;
                if let Some(t) = time.as_deref_mut() {
                    // Every line but the last that starts in this block
                    // ends in it; so does the open line, if one starts here.
                    if let Some(newest) = c.lines.pop() {
                        if let Some(l) = open_line.take() {
                            t.line_read(l.start, l.time, &l.head)?;
                        }
                        for l in c.lines.drain(..) {
                            t.line_read(l.start, l.time, &l.head)?;
                        }
                        open_line = Some(newest);
                    }
                }
                {
                    let mut g = shared.lock();
                    g.done += 1;
                    g.free.push(c);
                }
                wake.notify_all();
                if !progress(scanned) {
                    return Err(Error::Cancelled {
                        path: src.path().to_path_buf(),
                    });
                }
            }
            Ok((last, open_line))
        })();
        shared.lock().stop = true;
        wake.notify_all();
        let (last, open_line) = result?;
        if let Some(t) = time {
            // The last line ends at the end of the text: its checkpoint,
            // if it is long, comes from the scanner's finish.
            scanner.finish(&mut |cp| {
                t.boundary(cp.offset);
                emit(cp)
            })?;
            if let Some(l) = open_line {
                t.line_read(l.start, l.time, &l.head)?;
            }
            t.lines_end(end);
        } else {
            scanner.finish(&mut |cp| emit(cp))?;
        }
        Ok(last)
    })
}

/// Reads block `src[at..at + len]` into `c` (with a time pass, with the
/// byte before it unless it starts at `from`, and up to [`HEAD`] bytes
/// after it, before `end`) in reads of `piece` bytes, and counts its
/// newlines in grains of `grain` bytes as the bytes arrive (while they are
/// in the CPU's cache).
#[allow(clippy::too_many_arguments)]
fn read_block(
    src: &dyn ReadAt,
    mut c: Counted,
    at: u64,
    len: usize,
    from: u64,
    end: u64,
    timed: bool,
    piece: usize,
    grain: usize,
) -> Result<Counted> {
    let pre = usize::from(timed && at > from);
    let post = if timed {
        (HEAD as u64).min(end - (at + len as u64)) as usize
    } else {
        0
    };
    let want = pre + len + post;
    if c.buf.len() < want {
        c.buf = AlignedBuf::zeroed(want);
    }
    c.counts.clear();
    c.counts.push(0);
    let (mut filled, mut counted, mut total) = (0usize, 0usize, 0u32);
    while filled < want {
        let n = (want - filled).min(piece.max(1));
        let got = src.read_full_at(
            &mut c.buf[filled..filled + n],
            at - pre as u64 + filled as u64,
        )?;
        if got < n {
            return Err(super::shrank(src));
        }
        filled += n;
        // The grains of the block read so far (the last may be short).
        let block_end = (filled.saturating_sub(pre)).min(len);
        while counted < len && (counted + grain <= block_end || block_end == len) {
            let g = grain.min(len - counted);
            total += count_newlines(&c.buf[pre + counted..pre + counted + g]) as u32;
            c.counts.push(total);
            counted += g;
        }
    }
    c.pre = pre;
    c.len = len;
    c.filled = want;
    Ok(c)
}

/// The lines that start in `c`'s block (at offset `at`; `from` is a line
/// start) and their times, read with `stamper` from their first [`HEAD`]
/// bytes (the bytes [`super::time::Heads`] gives the sequential pass).
fn line_times(c: &mut Counted, at: u64, from: u64, stamper: &mut Stamper) {
    c.lines.clear();
    let buf = &c.buf[..c.filled];
    let (pre, len) = (c.pre, c.len);
    let lines = &mut c.lines;
    let mut push = |s: usize, head: &[u8]| {
        let time = stamper.stamp_alone(head);
        lines.push(LineTime {
            start: at + (s - pre) as u64,
            time,
            head: if time.is_none() {
                head.to_vec()
            } else {
                Vec::new()
            },
        });
    };
    // Each line's end is the next newline of the one pass over the block
    // (not a search of its head again); the last line that starts in the
    // block may end after it.
    let mut start = (at == from || buf[pre - 1] == b'\n').then_some(pre);
    for e in memchr::memchr_iter(b'\n', &buf[pre..pre + len]) {
        let nl = pre + e;
        if let Some(s) = start {
            push(s, &buf[s..(nl + 1).min(s + HEAD)]);
        }
        start = (nl + 1 < pre + len).then_some(nl + 1);
    }
    if let Some(s) = start {
        let limit = buf.len().min(s + HEAD);
        let head = match memchr::memchr(b'\n', &buf[s..limit]) {
            Some(k) => &buf[s..s + k + 1],
            None => &buf[s..limit],
        };
        push(s, head);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::MemSource;

    /// The checkpoints of the sequential scan of `data[from..]`, resuming
    /// at checkpoint `cp`.
    fn sequential(data: &[u8], cp: Checkpoint, spacing: u64) -> (Vec<Checkpoint>, u64) {
        crate::ingest::scan::tests::scan_from(data, cp, spacing, 100)
    }

    fn parallel(
        data: &[u8],
        cp: Checkpoint,
        spacing: u64,
        workers: usize,
        block: usize,
        grain: usize,
    ) -> (Vec<Checkpoint>, u64) {
        let src = MemSource::new(data.to_vec());
        let mut out = Vec::new();
        let mut sc = Scanner::resume(cp, spacing, data.len() as u64);
        let mut seen = 0;
        let last = scan(
            &src,
            cp.offset,
            data.len() as u64,
            &mut sc,
            &mut |cp| {
                out.push(cp);
                Ok(())
            },
            None,
            workers,
            block,
            // Reads of a third of a block (at least a byte).
            block / 3 + 1,
            grain,
            &mut |at| {
                assert!(at > seen);
                seen = at;
                true
            },
        )
        .unwrap();
        assert_eq!(
            last,
            data.last()
                .copied()
                .filter(|_| cp.offset < data.len() as u64)
        );
        (out, sc.newlines())
    }

    /// Lines of random lengths, a few longer than the spacings used.
    fn text(seed: &mut u64, lines: usize, final_newline: bool) -> Vec<u8> {
        let mut data = Vec::new();
        for _ in 0..lines {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = *seed >> 33;
            let len = if r.is_multiple_of(17) {
                r % 3000
            } else {
                r % 90
            };
            data.extend((0..len).map(|i| b'a' + (i % 26) as u8));
            data.push(b'\n');
        }
        if !final_newline {
            data.extend_from_slice(b"no newline at the end");
        }
        data
    }

    #[test]
    fn same_checkpoints_as_the_sequential_scan() {
        let mut seed = 11u64;
        for round in 0..8 {
            let data = text(&mut seed, 50 + round * 90, round % 3 != 0);
            for spacing in [1, 2, 7, 64, 1000, 5000] {
                let (all, _) = sequential(&data, Checkpoint { line: 0, offset: 0 }, spacing);
                // Resume at the start, and at a checkpoint in the middle.
                let starts = [Checkpoint { line: 0, offset: 0 }, all[all.len() / 2]];
                for &cp in &starts {
                    let want = sequential(&data, cp, spacing);
                    for (workers, block, grain) in [
                        (1, 1, 1),
                        (2, 3, 2),
                        (3, 64, 7),
                        (2, 1000, 64),
                        (2, 4096, 4096),
                        (4, 777, 100),
                    ] {
                        assert_eq!(
                            parallel(&data, cp, spacing, workers, block, grain),
                            want,
                            "round {round} spacing {spacing} from {cp:?} workers {workers} block {block} grain {grain}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_cancel_stops_the_workers() {
        let data = b"line\n".repeat(10_000);
        let src = MemSource::new(data.clone());
        let mut sc = Scanner::resume(Checkpoint { line: 0, offset: 0 }, 100, data.len() as u64);
        let r = scan(
            &src,
            0,
            data.len() as u64,
            &mut sc,
            &mut |_| Ok(()),
            None,
            2,
            64,
            64,
            16,
            &mut |at| at < 1000,
        );
        assert!(matches!(r, Err(Error::Cancelled { .. })), "{r:?}");
    }
}
