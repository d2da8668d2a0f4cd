//! Searches and filters, off the UI thread, over chunks of lines split at
//! the index's checkpoints, each piece searched by [`find`] in a fixed
//! amount of memory.
//!
//! A search scans forward from a line, or backward to it, in pieces of
//! about [`PIECE`] bytes split at checkpoints (`Index::split_chunk`):
//! forward it stops at the first matching line; backward it scans the
//! pieces from the last one down and keeps the last matching line of the
//! first piece that has one. Where that finds nothing, the same search
//! goes on over the rest of the file from the other end (it wraps), so
//! one search says "not found" once. Between two pieces (and two windows
//! of a long line) it reports its progress and looks at its generation: a
//! newer search, or Esc, bumps the shared generation and the old search
//! stops there.
//!
//! A filter (`&pattern`) is computed in chunks of [`FILTER_CHUNK`] lines,
//! only those the screen needs, and each chunk's result (the numbers of its
//! selected lines) is cached by the UI (`Filter`), a bounded number of them.

use super::Msg;
use super::find::{self, Finder, Hit};
use lidx::Index;
use lidx::search::Chunk;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

/// Bytes scanned between two looks at the generation.
const PIECE: u64 = 1 << 20;
/// Lines per filter chunk.
pub const FILTER_CHUNK: u64 = 16384;

/// A scan to run.
pub enum Job {
    /// The first matching line in `lines` (the last one if `backward`),
    /// else in `wrap` (searched the same way).
    Search {
        lines: Range<u64>,
        wrap: Range<u64>,
        backward: bool,
    },
    /// The selected lines of filter chunk `n`.
    Filter { n: u64 },
}

struct Request {
    /// The generation this job belongs to.
    generation: u64,
    epoch: u64,
    index: Arc<Index>,
    finder: Arc<Finder>,
    job: Job,
}

/// What a scan found.
#[derive(Debug)]
pub enum Found {
    /// A search's line and where its match starts in it, and whether it
    /// was found after wrapping.
    Line(Option<Hit>, bool),
    /// A filter chunk's lines.
    Chunk(u64, Vec<u64>),
}

/// A scanning thread and the generation that cancels its jobs.
pub struct Scanner {
    tx: Sender<Request>,
    generation: Arc<AtomicU64>,
}

impl Scanner {
    /// A thread that replies on `reply`.
    pub fn new(reply: Sender<Msg>, name: &str) -> Scanner {
        let (tx, rx) = channel();
        let generation = Arc::new(AtomicU64::new(0));
        let g = Arc::clone(&generation);
        std::thread::Builder::new()
            .name(name.into())
            .spawn(move || worker(rx, reply, g))
            .expect("spawn a scan thread");
        Scanner { tx, generation }
    }

    /// Cancels every job sent so far; returns the new generation.
    pub fn cancel(&self) -> u64 {
        self.generation.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// The current generation.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// Runs `job` in the current generation.
    pub fn send(&self, epoch: u64, index: &Arc<Index>, finder: &Arc<Finder>, job: Job) {
        let _ = self.tx.send(Request {
            generation: self.generation(),
            epoch,
            index: Arc::clone(index),
            finder: Arc::clone(finder),
            job,
        });
    }
}

fn worker(rx: Receiver<Request>, reply: Sender<Msg>, generation: Arc<AtomicU64>) {
    let mut buf = Vec::new();
    while let Ok(r) = rx.recv() {
        let live = || generation.load(Ordering::SeqCst) == r.generation;
        if !live() {
            continue;
        }
        let mut last_report = Instant::now();
        let mut report = |done: u64, total: u64| {
            if last_report.elapsed() >= Duration::from_millis(40) {
                last_report = Instant::now();
                let _ = reply.send(Msg::ScanProgress {
                    generation: r.generation,
                    done,
                    total,
                });
            }
        };
        let result = match &r.job {
            Job::Search {
                lines,
                wrap,
                backward,
            } => search(
                &r.index,
                &r.finder,
                [lines.clone(), wrap.clone()],
                *backward,
                &mut buf,
                &live,
                &mut report,
            )
            .map(|o| o.map(|(hit, wrapped)| Found::Line(hit, wrapped))),
            Job::Filter { n } => {
                let lines = n * FILTER_CHUNK..(n + 1) * FILTER_CHUNK;
                filter(&r.index, &r.finder, lines, &mut buf, &live, &mut report)
                    .map(|o| o.map(|v| Found::Chunk(*n, v)))
            }
        };
        let msg = match result {
            Ok(None) => continue, // cancelled
            Ok(Some(found)) => Msg::Scanned {
                generation: r.generation,
                epoch: r.epoch,
                found: Ok(found),
            },
            Err(e) => Msg::Scanned {
                generation: r.generation,
                epoch: r.epoch,
                found: Err(e.to_string()),
            },
        };
        if reply.send(msg).is_err() {
            return;
        }
    }
}

/// The pieces of `lines`, in scan order.
fn pieces(index: &Index, lines: Range<u64>, backward: bool) -> lidx::Result<Vec<Chunk>> {
    if lines.start >= lines.end.min(index.line_count()) {
        return Ok(Vec::new());
    }
    let chunk = index.chunk_for_lines(lines)?;
    let mut p = index.split_chunk(chunk, PIECE)?;
    if backward {
        p.reverse();
    }
    Ok(p)
}

/// The first matching line of `ranges[0]` (the last one if `backward`),
/// else of `ranges[1]`, and whether it is in `ranges[1]`. `Ok(None)` when
/// cancelled.
fn search(
    index: &Index,
    f: &Finder,
    ranges: [Range<u64>; 2],
    backward: bool,
    buf: &mut Vec<u8>,
    live: &dyn Fn() -> bool,
    report: &mut dyn FnMut(u64, u64),
) -> lidx::Result<Option<(Option<Hit>, bool)>> {
    let [first, wrap] = ranges;
    let first = pieces(index, first, backward)?;
    let wrap = pieces(index, wrap, backward)?;
    let total: u64 = first.iter().chain(&wrap).map(|c| c.end - c.start).sum();
    let mut done = 0;
    for (wrapped, pieces) in [(false, first), (true, wrap)] {
        for piece in pieces {
            if let Some(d) = super::test_slowness() {
                std::thread::sleep(d * 8);
            }
            if !live() {
                return Ok(None);
            }
            let mut found = None;
            let finished = find::lines(index, f, piece, buf, live, &mut |h| {
                found = Some(h);
                // Forward: the first is the one; backward: the last.
                backward
            })?;
            if found.is_some() {
                return Ok(Some((found, wrapped)));
            }
            if !finished {
                return Ok(None);
            }
            done += piece.end - piece.start;
            report(done, total);
        }
    }
    Ok(Some((None, false)))
}

/// `Ok(None)` when cancelled.
fn filter(
    index: &Index,
    f: &Finder,
    lines: Range<u64>,
    buf: &mut Vec<u8>,
    live: &dyn Fn() -> bool,
    report: &mut dyn FnMut(u64, u64),
) -> lidx::Result<Option<Vec<u64>>> {
    let pieces = pieces(index, lines, false)?;
    let total: u64 = pieces.iter().map(|c| c.end - c.start).sum();
    let mut done = 0;
    let mut all = Vec::new();
    for piece in pieces {
        if let Some(d) = super::test_slowness() {
            std::thread::sleep(d * 8);
        }
        if !live() {
            return Ok(None);
        }
        if !find::lines(index, f, piece, buf, live, &mut |h| {
            all.push(h.line);
            true
        })? {
            return Ok(None);
        }
        done += piece.end - piece.start;
        report(done, total);
    }
    Ok(Some(all))
}
