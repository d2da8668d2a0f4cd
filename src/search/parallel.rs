//! Parallel scan of many chunks with output strictly in file order.
//!
//! Workers take chunks in order from a shared counter and render each into
//! its own buffer through a fresh [`Render`]; the calling thread writes the
//! buffers in chunk order. At most `2 × workers` chunks are in flight, so
//! memory is bounded by that many chunk outputs plus one scan buffer per
//! worker. `max_count` is exact and deterministic: each chunk stops after
//! `max_count` selected lines, and the writer cuts the output after the
//! `max_count`-th selected line in file order, then stops every worker.
//!
//! The chunks of the window are announced to the source in order
//! ([`ReadAt::will_need`]) as the window moves, so that a remote source
//! fetches them in parallel, ahead of the workers, and never more than the
//! window ahead.

use super::matcher::Matcher;
use super::scan::{self, Chunk, ScanOptions, Sink};
use crate::error::Result;
use crate::io::ReadAt;
use parking_lot::{Condvar, Mutex};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// A sink that renders one chunk's lines into bytes.
pub trait Render: Sink {
    /// The rendered bytes, the end (in those bytes) of each selected line's
    /// record (for cutting at `max_count`), the selected count and the
    /// matches counted (`searched` is filled in by [`run`]).
    fn finish(self) -> ChunkOutput;
}

/// One chunk's rendered output.
#[derive(Debug, Default)]
pub struct ChunkOutput {
    /// Rendered bytes.
    pub bytes: Vec<u8>,
    /// `bytes[..ends[i]]` holds everything up to the (i+1)-th selected line.
    pub ends: Vec<usize>,
    /// Selected lines in the chunk.
    pub selected: u64,
    /// Matches the renderer counted in them (0 if it does not count).
    pub matches: u64,
    /// Bytes searched, as [`scan::Search::bytes_searched`] counts them.
    pub searched: u64,
}

/// What [`run`] wrote, in total.
#[derive(Debug, Default, Clone, Copy)]
pub struct Totals {
    /// Selected lines written.
    pub selected: u64,
    /// Matches counted in them (see [`ChunkOutput::matches`]; not cut at
    /// `max_count`).
    pub matches: u64,
    /// Bytes searched in the chunks written.
    pub searched: u64,
}

struct Shared {
    done: BTreeMap<usize, Result<ChunkOutput>>,
    written: usize,
}

/// Scans `chunks` with `threads` workers; `make()` builds a renderer per
/// chunk; `write` receives the rendered bytes in chunk order. Returns what
/// was written.
pub fn run<R, F>(
    src: &dyn ReadAt,
    chunks: &[Chunk],
    threads: usize,
    matcher: &Matcher,
    opts: &ScanOptions,
    make: F,
    write: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<Totals>
where
    R: Render,
    F: Fn() -> R + Sync,
{
    let limit = opts.max_count;
    let mut total = Totals::default();
    // Writes one chunk's output; returns false once max_count is reached.
    let mut emit = |out: ChunkOutput, total: &mut Totals| -> Result<bool> {
        total.matches += out.matches;
        total.searched += out.searched;
        if let Some(m) = limit {
            let left = m - total.selected;
            if out.selected >= left {
                let cut = if left == 0 {
                    0
                } else {
                    out.ends[left as usize - 1]
                };
                write(&out.bytes[..cut])?;
                total.selected += left;
                return Ok(false);
            }
        }
        write(&out.bytes)?;
        total.selected += out.selected;
        Ok(true)
    };
    let one = |c: Chunk, buf: &mut Vec<u8>| -> Result<ChunkOutput> {
        let mut r = make();
        let mut s = scan::Search::new(matcher, *opts);
        s.scan(src, c, buf, &mut r)?;
        let mut out = r.finish();
        out.searched = s.bytes_searched();
        Ok(out)
    };

    // Chunks announced so far; announces up to `limit`.
    let hinted = AtomicUsize::new(0);
    let hint = |limit: usize| {
        let limit = limit.min(chunks.len());
        loop {
            let h = hinted.load(Ordering::Relaxed);
            if h >= limit {
                return;
            }
            if hinted
                .compare_exchange(h, h + 1, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
            {
                src.will_need(chunks[h].start..chunks[h].end);
            }
        }
    };

    if threads <= 1 || chunks.len() <= 1 {
        let mut buf = Vec::new();
        for (i, &c) in chunks.iter().enumerate() {
            hint(i + 2);
            if !emit(one(c, &mut buf)?, &mut total)? {
                break;
            }
        }
        return Ok(total);
    }

    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let shared = Mutex::new(Shared {
        done: BTreeMap::new(),
        written: 0,
    });
    let cond = Condvar::new();
    let window = 2 * threads;
    hint(window);

    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let mut buf = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= chunks.len() || stop.load(Ordering::Relaxed) {
                        return;
                    }
                    {
                        let mut g = shared.lock();
                        while i >= g.written + window && !stop.load(Ordering::Relaxed) {
                            cond.wait(&mut g);
                        }
                    }
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let res = one(chunks[i], &mut buf);
                    shared.lock().done.insert(i, res);
                    cond.notify_all();
                }
            });
        }
        let result = (|| {
            for i in 0..chunks.len() {
                let out = {
                    let mut g = shared.lock();
                    loop {
                        if let Some(r) = g.done.remove(&i) {
                            break r;
                        }
                        cond.wait(&mut g);
                    }
                };
                let go_on = emit(out?, &mut total)?;
                shared.lock().written = i + 1;
                if go_on {
                    hint(i + 1 + window);
                }
                cond.notify_all();
                if !go_on {
                    break;
                }
            }
            Ok(total)
        })();
        stop.store(true, Ordering::Relaxed);
        cond.notify_all();
        result
    })
}
