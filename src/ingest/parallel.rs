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
use super::time::{BlockTimes, HEAD, TimeBuilder};
use crate::error::{Error, Result};
use crate::io::{AlignedBuf, ReadAt};
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
/// The longest block: its newlines' offsets in it fit in 32 bits.
const MAX_BLOCK: usize = 1 << 30;

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
    /// With a time pass: the offsets in the block of its newlines (the
    /// first `counts.last()`), and the stamps of the lines that start in
    /// it.
    newlines: Vec<u32>,
    times: BlockTimes,
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
/// give [`TimeBuilder::block_reader`]), the workers also read the lines'
/// stamps, and the time pass folds them in order: the same time index as
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
    // A block's newlines are kept as 32-bit offsets in it (the sidecar
    // is the same for any block).
    let block = block.min(MAX_BLOCK);
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
    let readers: Vec<_> = (0..workers)
        .map(|_| time.as_ref().and_then(|t| t.block_reader()))
        .collect();
    let timed = time.is_some();
    std::thread::scope(|s| {
        for mut reader in readers {
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
                            newlines: Vec::new(),
                            times: BlockTimes::default(),
                        });
                        (i, c)
                    };
                    let at = from + i * block as u64;
                    let len = (block as u64).min(end - at) as usize;
                    let result =
                        read_block(src, c, at, len, from, end, timed, piece, grain).map(|mut c| {
                            if let Some(r) = reader.as_mut() {
                                let first = at == from || c.buf[c.pre - 1] == b'\n';
                                let nl = &c.newlines[..*c.counts.last().expect("a count") as usize];
                                r.read(
                                    &mut c.times,
                                    &c.buf[..c.filled],
                                    c.pre,
                                    c.len,
                                    at,
                                    first,
                                    nl,
                                );
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
            // The block whose last line started and did not end in the
            // blocks scanned: the time pass gets it once it ends.
            let mut open: Option<BlockTimes> = None;
            // Its buffers, once folded, for the next block kept open.
            let mut spare: Option<BlockTimes> = None;
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
                    // The open line ends at this block's first newline;
                    // every line that starts in the block ends in it but
                    // its open one.
                    let newline = c.counts.last().is_some_and(|&n| n > 0);
                    if newline && let Some(mut b) = open.take() {
                        t.fold_rest(&mut b)?;
                        spare = Some(b);
                    }
                    match c.times.open() {
                        Some(s) => {
                            t.fold(&mut c.times, s)?;
                            let empty = spare.take().unwrap_or_default();
                            open = Some(std::mem::replace(&mut c.times, empty));
                        }
                        None if newline => t.fold_rest(&mut c.times)?,
                        None => {}
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
            Ok((last, open))
        })();
        shared.lock().stop = true;
        wake.notify_all();
        let (last, open) = result?;
        if let Some(t) = time {
            // The last line ends at the end of the text: its checkpoint,
            // if it is long, comes from the scanner's finish.
            scanner.finish(&mut |cp| {
                t.boundary(cp.offset);
                emit(cp)
            })?;
            if let Some(mut b) = open {
                t.fold_rest(&mut b)?;
            }
            t.lines_end(end)?;
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
            let bytes = &c.buf[pre + counted..pre + counted + g];
            total = if timed {
                // Where they are, for the stamps' lines.
                let n = total as usize;
                super::scan::newlines_into(bytes, counted as u32, &mut c.newlines, n) as u32
            } else {
                total + count_newlines(bytes) as u32
            };
            c.counts.push(total);
            counted += g;
        }
    }
    c.pre = pre;
    c.len = len;
    c.filled = want;
    Ok(c)
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

    /// A log of many shapes for the time pass: ISO 8601 stamps with and
    /// without fractions, offsets and zones, at the line's start and after
    /// a prefix, in a minute's run and across minutes, a year's end and a
    /// daylight-saving change; syslog stamps (whose year the line before
    /// gives: read in order); unstamped, long and short lines: each line
    /// in one of `styles` (0 to 10), or 11, a zone abbreviation the zone
    /// contradicts (after the first third), 12, a stamp before 1980, 13,
    /// style 0's with a digit of its seconds or fraction replaced, or 14
    /// to 16, fractions of 9, 1 and 12 digits.
    fn time_log(seed: u64, size: usize, styles: &[u64]) -> Vec<u8> {
        const MON: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let mut rng = seed;
        let mut next = move |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        // Seconds since 2026-12-31T23:40:00Z, going on mostly forward.
        let t0: i64 = 1_798_760_400;
        let mut t = 0i64;
        let mut out = String::new();
        let mut lines = 0u64;
        while out.len() < size {
            lines += 1;
            t += next(3) as i64;
            if next(50) == 0 {
                t -= 90;
            }
            if next(2000) == 0 {
                // To the night of Paris's spring change, and back.
                t = if t < 10_000_000 { 7_451_700 } else { 0 };
            }
            let ts = jiff::Timestamp::from_second(t0 + t).unwrap();
            let c = jiff::tz::TimeZone::UTC.to_datetime(ts);
            let (y, mo, d, h, mi, se) = (
                c.year(),
                c.month(),
                c.day(),
                c.hour(),
                c.minute(),
                c.second(),
            );
            let ms = next(1000);
            let body = "x".repeat(next(100) as usize);
            let style = styles[next(styles.len() as u64) as usize];
            let line = match style {
                0 => format!("{y}-{mo:02}-{d:02}T{h:02}:{mi:02}:{se:02}.{ms:03}Z INFO {body}\n"),
                1 => format!("{y}-{mo:02}-{d:02} {h:02}:{mi:02}:{se:02},{ms:03} WARN {body}\n"),
                2 => format!("{y}-{mo:02}-{d:02}T{h:02}:{mi:02}:{se:02}.{ms:03}417+05:30 {body}\n"),
                3 => format!("{y}-{mo:02}-{d:02}T{h:02}:{mi:02}:{se:02} DEBUG {body}\n"),
                4 => format!(
                    "{} {d:2} {h:02}:{mi:02}:{se:02} host app[7]: {body}\n",
                    MON[mo as usize - 1]
                ),
                5 => format!("\tat com.example.Thing(Thing.java:{ms})\n"),
                6 => format!(
                    "{y}-{mo:02}-{d:02}T{h:02}:{mi:02}:{se:02}.{ms:03}Z {}\n",
                    "L".repeat(500 + next(20_000) as usize)
                ),
                7 => format!(
                    "[worker-{ms}] {y}-{mo:02}-{d:02}T{h:02}:{mi:02}:{se:02}.{ms}Z {body}\n"
                ),
                8 => format!("{y}-{mo:02}-{d:02}T{h:02}:{mi:02}Z\n"),
                9 => format!(
                    "{y}-{mo:02}-{d:02}T{h:02}:{mi:02}:{}.{ms:03}Z leap {body}\n",
                    59 + next(3)
                ),
                10 => format!("{y}-{mo:02}-{d:02}T{h:02}:{mi:02}:{se:02}.{ms:03}-0800 {body}\n"),
                11 if out.len() > size / 3 => {
                    format!("{y}-{mo:02}-{d:02} {h:02}:{mi:02}:{se:02} PST {body}\n")
                }
                11 => format!("{y}-{mo:02}-{d:02} {h:02}:{mi:02}:{se:02} {body}\n"),
                12 => format!("1975-{mo:02}-{d:02}T{h:02}:{mi:02}:{se:02}Z old {body}\n"),
                14 => format!(
                    "{y}-{mo:02}-{d:02}T{h:02}:{mi:02}:{se:02}.{ms:03}{:06}+00:00 {body}\n",
                    next(1_000_000)
                ),
                15 => format!(
                    "{y}-{mo:02}-{d:02}T{h:02}:{mi:02}:{se:02}.{}Z {body}\n",
                    ms % 10
                ),
                16 => format!(
                    "{y}-{mo:02}-{d:02}T{h:02}:{mi:02}:{se:02},{ms:03}{:09}Z {body}\n",
                    next(1_000_000_000)
                ),
                18 => {
                    // Up to an hour either side of the time: a span's
                    // least and greatest stamps fall anywhere in it.
                    let at =
                        jiff::Timestamp::from_second(t0 + t + next(7200) as i64 - 3600).unwrap();
                    let c = jiff::tz::TimeZone::UTC.to_datetime(at);
                    format!("{} late {body}\n", c.strftime("%Y-%m-%dT%H:%M:%S%.3fZ"))
                }
                17 => {
                    // Every other line 40 days on: stamps that jump back
                    // and forth.
                    let far = jiff::Timestamp::from_second(t0 + t + 40 * 86_400).unwrap();
                    let c = jiff::tz::TimeZone::UTC.to_datetime(if lines.is_multiple_of(2) {
                        far
                    } else {
                        ts
                    });
                    format!("{} jump {body}\n", c.strftime("%Y-%m-%dT%H:%M:%S%.3fZ"))
                }
                13 => {
                    // Style 0's with a digit of its seconds or fraction
                    // replaced.
                    let mut l =
                        format!("{y}-{mo:02}-{d:02}T{h:02}:{mi:02}:{se:02}.{ms:03}Z INFO {body}\n");
                    let at = [17, 18, 20, 21, 22][next(5) as usize];
                    let by = b"x:/ .-+Z\x7f\xc3"[next(10) as usize];
                    // SAFETY-free: a byte of ASCII for another (or the
                    // first byte of a two-byte character, made whole).
                    let mut b = std::mem::take(&mut l).into_bytes();
                    b[at] = by;
                    if by == 0xC3 {
                        b.insert(at + 1, 0xA9);
                    }
                    String::from_utf8(b).expect("whole characters")
                }
                _ => unreachable!("no style {style}"),
            };
            out.push_str(&line);
        }
        out.into_bytes()
    }

    /// Every stamp read the short ways (a line of the last minute read
    /// with [`crate::time::QuickIso`] as the parallel pass reads it, or
    /// within [`Stamper::stamp`] as the sequential pass does) is the time
    /// a stamper that never read a line before gives it, in every zone.
    #[test]
    fn short_ways_read_what_the_long_way_reads() {
        use crate::time::{TimeFormat, TimeKind};
        let mixed: Vec<u64> = (0..17).filter(|&s| s != 12).collect();
        let cases: [&[u64]; 15] = [
            &[14],
            &[15],
            &[16],
            &[0, 0, 0, 13],
            &mixed,
            &[0],
            &[1],
            &[2],
            &[3],
            &[7],
            &[8],
            &[9],
            &[10],
            &[11],
            &[0, 5, 6],
        ];
        for (k, styles) in cases.into_iter().enumerate() {
            let data = time_log(9 + k as u64, 60_000, styles);
            for tz in ["UTC", "Europe/Paris", "America/New_York"] {
                let format = TimeFormat::new(TimeKind::Iso, tz, 2026).unwrap();
                let fresh = |line: &[u8]| {
                    let mut st = format.stamper();
                    st.check_zones(true);
                    (st.stamp_alone(line), st.take_zone_conflict())
                };
                let mut st = format.stamper();
                st.check_zones(true);
                let mut seq = format.stamper();
                seq.check_zones(true);
                let mut q = st.quick();
                let (mut quick, mut at) = (0, 0);
                for line in data.split_inclusive(|&b| b == b'\n') {
                    let want = fresh(line);
                    match q
                        .as_ref()
                        .and_then(|q| q.read(&data, at, line).map(|t| (t, q.year)))
                    {
                        Some(got) => {
                            assert_eq!(
                                (Some(Some(got)), None),
                                want,
                                "{tz}: {:?}",
                                String::from_utf8_lossy(line)
                            );
                            quick += 1;
                        }
                        None => {
                            let got = (st.stamp_alone(line), st.take_zone_conflict());
                            assert_eq!(got, want, "{tz}: {:?}", String::from_utf8_lossy(line));
                            q = st.quick();
                        }
                    }
                    let got = (seq.stamp(line), seq.take_zone_conflict());
                    let want = (want.0.flatten().map(|(t, _)| t), want.1);
                    assert_eq!(got, want, "{tz}: {:?}", String::from_utf8_lossy(line));
                    at += line.len();
                }
                // The workers' loop over a block's lines (runs of them
                // with QuickIso::read_between, the others alone) reads
                // each line's head as a fresh stamper does.
                let nl: Vec<u32> = memchr::memchr_iter(b'\n', &data)
                    .map(|i| i as u32)
                    .collect();
                let mut st = format.stamper();
                st.check_zones(true);
                let (mut k, mut between) = (0, 0);
                while k + 1 < nl.len() {
                    if let Some(q) = st.quick() {
                        let n = q.read_between(&data, 0, &nl[k..], HEAD, |s, t| {
                            let e = s + memchr::memchr(b'\n', &data[s..]).expect("a newline") + 1;
                            let head = &data[s..e.min(s + HEAD)];
                            let want = fresh(head);
                            let line = String::from_utf8_lossy(head);
                            assert_eq!((Some(Some((t, q.year))), None), want, "{tz}: {line:?}");
                        });
                        (k, between) = (k + n, between + n);
                        if k + 1 == nl.len() {
                            break;
                        }
                    }
                    let (s, e) = (nl[k] as usize + 1, nl[k + 1] as usize + 1);
                    let head = &data[s..e.min(s + HEAD)];
                    let got = (st.stamp_alone(head), st.take_zone_conflict());
                    let line = String::from_utf8_lossy(head);
                    assert_eq!(got, fresh(head), "{tz}: {line:?}");
                    k += 1;
                }
                // Most lines of a minute go the short way (where their
                // shape is the one before's, and no abbreviation follows).
                let lines = data.iter().filter(|&&b| b == b'\n').count();
                if styles.len() == 1 && styles[0] != 7 && styles[0] != 11 {
                    for (way, n) in [("short way", quick), ("run loop", between)] {
                        assert!(
                            n * 2 > lines,
                            "{tz} {styles:?}: {n} of {lines} lines the {way}"
                        );
                    }
                }
            }
        }
    }

    /// The time index of a parallel build is the sequential build's, byte
    /// for byte, whatever the blocks (down to a few lines each: a line's
    /// stamp, its span and its year then cross blocks, and lines read in
    /// order fall anywhere); and an implausible log or a contradicted zone
    /// gives the same error, naming the same line.
    #[test]
    fn parallel_time_pass_is_the_sequential_one() {
        use crate::ingest::{BuildOptions, TimeOptions};
        let build = |data: &[u8], threads: usize, buffer_size: usize, tz: &str| {
            let opts = BuildOptions {
                spacing: 16384,
                buffer_size,
                threads,
                time: Some(TimeOptions {
                    format: None,
                    tz: Some(tz.into()),
                }),
                ..BuildOptions::default()
            };
            crate::build_to_vec(&MemSource::new(data.to_vec()), &opts).map_err(|e| e.to_string())
        };
        let all: Vec<u64> = (0..11).collect();
        let mut conflict = all.clone();
        conflict.push(11);
        let mut early = all.clone();
        early.extend([12; 14]);
        for (seed, styles, ok) in [
            (1u64, &all, true),
            (2, &vec![0, 0, 0, 0, 4, 5], true),
            (3, &conflict, false),
            (4, &early, false),
            (5, &vec![17], false),
            (6, &vec![0, 18], true),
        ] {
            let data = time_log(seed, 200_000, styles);
            for tz in ["Europe/Paris", "UTC"] {
                let want = build(&data, 1, 128 * 1024, tz);
                assert_eq!(want.is_ok(), ok, "seed {seed} {tz}: {want:?}");
                for (threads, buffer_size) in [(2, 40), (3, 97), (2, 1000), (4, 4096), (2, 65536)] {
                    let got = build(&data, threads, buffer_size, tz);
                    assert!(
                        got == want,
                        "seed {seed} {tz}, {threads} threads, buffer {buffer_size}: {:?} vs {:?}",
                        got.as_ref().err(),
                        want.as_ref().err()
                    );
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
