//! Searches and filters, off the UI thread, through the library's range
//! search (`lidx::search::Search` over chunks of lines).
//!
//! A search scans forward from a line, or backward to it, in pieces of
//! about [`PIECE`] bytes split at checkpoints (`Index::split_chunk`):
//! forward it stops at the first selected line; backward it scans the
//! pieces from the last one down and keeps the last selected line of the
//! first piece that has one. Between two pieces it reports its progress
//! and looks at its generation: a newer search, or Esc, bumps the shared
//! generation and the old search stops there.
//!
//! A filter (`&pattern`) is computed in chunks of [`FILTER_CHUNK`] lines,
//! only those the screen needs, and each chunk's result (the numbers of its
//! selected lines) is cached by the UI (`Filter`), a bounded number of them.

use super::Msg;
use lidx::Index;
use lidx::search::{Chunk, Line, Matcher, ScanOptions, Search, Sink};
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
    /// The first selected line in `lines` (the last one if `backward`).
    Search { lines: Range<u64>, backward: bool },
    /// The selected lines of filter chunk `n`.
    Filter { n: u64 },
}

struct Request {
    /// The generation this job belongs to.
    generation: u64,
    epoch: u64,
    index: Arc<Index>,
    matcher: Arc<Matcher>,
    job: Job,
}

/// What a scan found.
#[derive(Debug)]
pub enum Found {
    /// A search's line.
    Line(Option<u64>),
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
    pub fn send(&self, epoch: u64, index: &Arc<Index>, matcher: &Arc<Matcher>, job: Job) {
        let _ = self.tx.send(Request {
            generation: self.generation(),
            epoch,
            index: Arc::clone(index),
            matcher: Arc::clone(matcher),
            job,
        });
    }
}

struct First(Option<u64>);

impl Sink for First {
    fn line(&mut self, l: &Line<'_>) -> lidx::Result<bool> {
        self.0 = Some(l.number);
        Ok(false)
    }
}

/// The last selected line (a backward search keeps only that, however
/// many lines a piece selects).
struct Last(Option<u64>);

impl Sink for Last {
    fn line(&mut self, l: &Line<'_>) -> lidx::Result<bool> {
        self.0 = Some(l.number);
        Ok(true)
    }
}

struct All(Vec<u64>);

impl Sink for All {
    fn line(&mut self, l: &Line<'_>) -> lidx::Result<bool> {
        self.0.push(l.number);
        Ok(true)
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
            Job::Search { lines, backward } => search(
                &r.index,
                &r.matcher,
                lines.clone(),
                *backward,
                &mut buf,
                &live,
                &mut report,
            )
            .map(|o| o.map(Found::Line)),
            Job::Filter { n } => {
                let lines = n * FILTER_CHUNK..(n + 1) * FILTER_CHUNK;
                filter(&r.index, &r.matcher, lines, &mut buf, &live, &mut report)
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
    let chunk = index.chunk_for_lines(lines)?;
    let mut p = index.split_chunk(chunk, PIECE)?;
    if backward {
        p.reverse();
    }
    Ok(p)
}

/// `Ok(None)` when cancelled.
fn search(
    index: &Index,
    m: &Matcher,
    lines: Range<u64>,
    backward: bool,
    buf: &mut Vec<u8>,
    live: &dyn Fn() -> bool,
    report: &mut dyn FnMut(u64, u64),
) -> lidx::Result<Option<Option<u64>>> {
    let pieces = pieces(index, lines, backward)?;
    let total: u64 = pieces.iter().map(|c| c.end - c.start).sum();
    let mut done = 0;
    for piece in pieces {
        if let Some(d) = super::test_slowness() {
            std::thread::sleep(d * 8);
        }
        if !live() {
            return Ok(None);
        }
        let opts = ScanOptions::default();
        let mut s = Search::new(m, opts);
        if backward {
            let mut last = Last(None);
            s.scan(index.source(), piece, buf, &mut last)?;
            if last.0.is_some() {
                return Ok(Some(last.0));
            }
        } else {
            let mut first = First(None);
            s.scan(index.source(), piece, buf, &mut first)?;
            if first.0.is_some() {
                return Ok(Some(first.0));
            }
        }
        done += piece.end - piece.start;
        report(done, total);
    }
    Ok(Some(None))
}

/// `Ok(None)` when cancelled.
fn filter(
    index: &Index,
    m: &Matcher,
    lines: Range<u64>,
    buf: &mut Vec<u8>,
    live: &dyn Fn() -> bool,
    report: &mut dyn FnMut(u64, u64),
) -> lidx::Result<Option<Vec<u64>>> {
    let pieces = pieces(index, lines, false)?;
    let total: u64 = pieces.iter().map(|c| c.end - c.start).sum();
    let mut done = 0;
    let mut all = All(Vec::new());
    for piece in pieces {
        if let Some(d) = super::test_slowness() {
            std::thread::sleep(d * 8);
        }
        if !live() {
            return Ok(None);
        }
        Search::new(m, ScanOptions::default()).scan(index.source(), piece, buf, &mut all)?;
        done += piece.end - piece.start;
        report(done, total);
    }
    Ok(Some(all.0))
}
