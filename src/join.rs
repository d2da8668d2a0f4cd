//! Several logs shown as one [`Index`]: their lines one log after the
//! other ([`Order::Concat`]) or interleaved by time ([`Order::Time`], the
//! order of [`crate::merge::merge_by_time`]), with the way back from each
//! line of the whole to its log and its number there, and from a log's
//! line to the whole. Any code written for one index (the viewer, a
//! search) then reads the collection.
//!
//! The whole is a list of **runs**: lines of one index (a file, or a
//! family's member) that follow each other in the whole as in their
//! file. Its text is the runs' bytes back to back, a run's last line
//! given a `\n` when it had none (a file's last line), so that every line
//! stays a line. Its sidecar is built in memory from the members' own
//! checkpoints, shifted, and the runs' starts: nothing is scanned for a
//! concatenation; a merge by time reads every line once, for its time.
//!
//! Memory: 68 bytes a run, plus the checkpoints (16 bytes per 32 KiB of
//! text at most). A concatenation has a run per file; a merge has one
//! each time the merge goes from one log to another, at most one a line.
//! Past [`MAX_RUNS`] the merge is refused, with a way to narrow it.

use crate::error::{Error, Result};
use crate::family::Family;
use crate::index::Index;
use crate::ingest::BuildOptions;
use crate::io::ReadAt;
use crate::merge::{Input, Part, merge_by_time};
use crate::time::Nanos;
use crate::tree::Checkpoint;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Runs a merge may have (about 285 MB of them).
pub const MAX_RUNS: usize = 1 << 22;

/// Checkpoints of the whole are at least this far apart.
const SPACING: u64 = 32 << 10;

/// One log of a collection: a file's index, or a rotation family.
#[derive(Debug)]
pub enum Log {
    /// A file (or archive, or URL).
    File(Arc<Index>),
    /// A rotation family, in its global numbers.
    Family(Arc<Family>),
}

impl Log {
    /// The first and just-past-last line numbers (global for a family).
    pub fn lines(&self) -> Range<u64> {
        match self {
            Log::File(i) => 0..i.line_count(),
            Log::Family(f) => f.first_line()..f.end_line(),
        }
    }

    /// The parts that hold the lines `ranges` (sorted, in this log's
    /// numbers), in order.
    pub fn parts(&self, ranges: &[Range<u64>]) -> Vec<Part<'_>> {
        self.pieces(ranges).into_iter().map(|(_, p)| p).collect()
    }

    /// [`Self::parts`], each with the position of its index among the
    /// log's ([`Self::index`]).
    fn pieces(&self, ranges: &[Range<u64>]) -> Vec<(usize, Part<'_>)> {
        let mut out = Vec::new();
        for r in ranges {
            match self {
                Log::File(i) => {
                    let r = r.start.min(i.line_count())..r.end.min(i.line_count());
                    if r.start < r.end {
                        out.push((
                            0,
                            Part {
                                index: i,
                                base: 0,
                                byte_base: 0,
                                lines: r,
                            },
                        ));
                    }
                }
                Log::Family(f) => {
                    for (k, m) in f.members().iter().enumerate() {
                        let own = m.lines();
                        let (s, e) = (r.start.max(own.start), r.end.min(own.end));
                        if s < e {
                            out.push((
                                k,
                                Part {
                                    index: &m.index,
                                    base: m.base_line,
                                    byte_base: m.base_byte,
                                    lines: s - m.base_line..e - m.base_line,
                                },
                            ));
                        }
                    }
                }
            }
        }
        out
    }

    /// The log's `k`th index (a family's member; a file's only one).
    fn index(&self, k: usize) -> &Index {
        match self {
            Log::File(i) => i,
            Log::Family(f) => &f.members()[k].index,
        }
    }

    /// The log's file (a family's live file).
    pub fn path(&self) -> &Path {
        match self {
            Log::File(i) => i.source_path(),
            Log::Family(f) => f.live_path(),
        }
    }

    /// True when every line has a time (each index has a time index).
    pub fn has_time_index(&self) -> bool {
        match self {
            Log::File(i) => i.has_time_index(),
            Log::Family(f) => f.members().iter().all(|m| m.index.has_time_index()),
        }
    }

    /// The first line at or after instant `t`, or the end of the log.
    pub fn line_at_time(&self, t: Nanos) -> Result<u64> {
        match self {
            Log::File(i) => i.line_at_time(t),
            Log::Family(f) => f.line_at_time(t),
        }
    }

    /// An index of the log that has a time index (for its time zone).
    pub fn timed_index(&self) -> Option<&Index> {
        match self {
            Log::File(i) => Some(&**i).filter(|i| i.has_time_index()),
            Log::Family(f) => f
                .members()
                .iter()
                .map(|m| &m.index)
                .find(|i| i.has_time_index()),
        }
    }
}

/// How the logs' lines follow each other in the whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Each log's lines in turn, in the order of the logs.
    Concat,
    /// By time, through the logs' time indexes (ties in the order of the
    /// logs, then of the lines).
    Time,
}

/// Lines of one index that follow each other in the whole.
#[derive(Debug, Clone, Copy)]
struct Run {
    /// The whole's number of its first line.
    line: u64,
    /// Where its text starts in the whole.
    start: u64,
    /// Its first line, in its index.
    local: u64,
    /// Where its text starts in its index's text.
    src: u64,
    /// Its text's length (a `\n` follows when `newline`).
    len: u64,
    /// Its lines.
    lines: u64,
    /// Its log, and the index in that log.
    log: u32,
    member: u32,
    /// Its last line had no `\n`: one is given.
    newline: bool,
}

/// What the whole's text is read from.
struct Text {
    logs: Arc<[Log]>,
    runs: Arc<[Run]>,
    len: u64,
    path: PathBuf,
}

impl ReadAt for Text {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize> {
        if buf.is_empty() || offset >= self.len {
            return Ok(0);
        }
        let r = &self.runs[self.runs.partition_point(|r| r.start <= offset) - 1];
        let at = offset - r.start;
        if at < r.len {
            let n = buf.len().min((r.len - at) as usize);
            return self.logs[r.log as usize]
                .index(r.member as usize)
                .source()
                .read_at(&mut buf[..n], r.src + at);
        }
        buf[0] = b'\n';
        Ok(1)
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

/// Several logs as one index (module doc).
pub struct Joined {
    logs: Arc<[Log]>,
    runs: Arc<[Run]>,
    /// Per log, its runs (positions in `runs`), in the log's order.
    by_log: Vec<Vec<u32>>,
    index: Arc<Index>,
    order: Order,
}

impl std::fmt::Debug for Joined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Joined")
            .field("logs", &self.logs.len())
            .field("runs", &self.runs.len())
            .field("order", &self.order)
            .finish()
    }
}

impl Joined {
    /// Joins `logs` in `order`, each log's lines limited to `windows`
    /// (its own numbers; `None`: all of them). `progress(done, total)`
    /// hears how far a merge read (bytes of text) and stops it when it
    /// returns false ([`Error::Cancelled`]). A merge needs every log's
    /// time index (the first without is an error naming it).
    pub fn new(
        logs: Vec<Log>,
        windows: Option<Vec<Range<u64>>>,
        order: Order,
        cache_bytes: usize,
        progress: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<Joined> {
        let logs: Arc<[Log]> = logs.into();
        if logs.is_empty() {
            return Err(Error::InvalidArgument("no log to show".into()));
        }
        let windows = match windows {
            Some(w) if w.len() == logs.len() => w,
            Some(_) => {
                return Err(Error::InvalidArgument(
                    "a window is needed for each log".into(),
                ));
            }
            None => logs.iter().map(Log::lines).collect(),
        };
        let pieces: Vec<Vec<(usize, Part<'_>)>> = logs
            .iter()
            .zip(&windows)
            .map(|(l, w)| l.pieces(std::slice::from_ref(w)))
            .collect();
        let runs = match order {
            Order::Concat => concat_runs(&pieces)?,
            Order::Time => merge_runs(&pieces, progress)?,
        };
        let (mut by_log, mut cps) = (vec![Vec::new(); logs.len()], Vec::new());
        let mut member_cps: std::collections::HashMap<(u32, u32), Vec<Checkpoint>> =
            Default::default();
        // Candidates closer than SPACING to the last one kept are passed
        // over, but the one before a long gap is kept: a line longer than
        // the spacing has a checkpoint at both ends, as in a sidecar built
        // from the text.
        let (mut last, mut passed): (Option<u64>, Option<Checkpoint>) = (None, None);
        let mut take = |cp: Checkpoint, cps: &mut Vec<Checkpoint>| match last {
            Some(l) if cp.offset < l + SPACING => passed = Some(cp),
            _ => {
                if let Some(p) = passed.take().filter(|p| cp.offset - p.offset >= SPACING) {
                    cps.push(p);
                }
                last = Some(cp.offset);
                cps.push(cp);
            }
        };
        for (k, r) in runs.iter().enumerate() {
            by_log[r.log as usize].push(k as u32);
            take(
                Checkpoint {
                    line: r.line,
                    offset: r.start,
                },
                &mut cps,
            );
            if r.len < SPACING {
                continue;
            }
            // A long run: its index's checkpoints inside it, shifted.
            let own = match member_cps.entry((r.log, r.member)) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => e.insert(
                    logs[r.log as usize]
                        .index(r.member as usize)
                        .checkpoints()?,
                ),
            };
            let from = own.partition_point(|c| c.offset <= r.src);
            for c in &own[from..] {
                if c.offset >= r.src + r.len {
                    break;
                }
                take(
                    Checkpoint {
                        line: r.line + (c.line - r.local),
                        offset: r.start + (c.offset - r.src),
                    },
                    &mut cps,
                );
            }
        }
        drop(member_cps);
        let (lines, len) = runs.last().map_or((0, 0), |r| {
            (r.line + r.lines, r.start + r.len + u64::from(r.newline))
        });
        // The start of a long last line.
        if let Some(p) = passed.filter(|p| len - p.offset >= SPACING) {
            cps.push(p);
        }
        if cps.is_empty() {
            cps.push(Checkpoint { line: 0, offset: 0 });
        }
        let runs: Arc<[Run]> = runs.into();
        let text = Text {
            logs: Arc::clone(&logs),
            runs: Arc::clone(&runs),
            len,
            path: logs[0].path().to_path_buf(),
        };
        let index = in_memory_index(text, cps, lines, cache_bytes)?;
        Ok(Joined {
            logs,
            runs,
            by_log,
            index: Arc::new(index),
            order,
        })
    }

    /// The whole, as one index (no time index: [`Self::line_at_time`]).
    pub fn index(&self) -> &Arc<Index> {
        &self.index
    }

    /// The logs, in the order given.
    pub fn logs(&self) -> &[Log] {
        &self.logs
    }

    /// The order of the whole.
    pub fn order(&self) -> Order {
        self.order
    }

    /// The log of the whole's line `line` (0-based), and its number in
    /// that log (0-based; a family's global number); `None` past the end.
    pub fn origin(&self, line: u64) -> Option<(usize, u64)> {
        if line >= self.index.line_count() {
            return None;
        }
        let r = &self.runs[self.runs.partition_point(|r| r.line <= line) - 1];
        let base = match &self.logs[r.log as usize] {
            Log::File(_) => 0,
            Log::Family(f) => f.members()[r.member as usize].base_line,
        };
        Some((r.log as usize, base + r.local + (line - r.line)))
    }

    /// The whole's line that shows line `line` of log `log` (its own
    /// number, 0-based), or the first one after it of that log that the
    /// whole shows; `None` when the whole shows none of them.
    pub fn line_of(&self, log: usize, line: u64) -> Option<u64> {
        let runs = self.by_log.get(log)?;
        let first = |k: u32| {
            let r = &self.runs[k as usize];
            let (_, own) = self.origin(r.line).expect("a run's first line");
            (r, own)
        };
        // The last run starting at or before `line`, in the log's order.
        let i = runs.partition_point(|&k| first(k).1 <= line);
        if i > 0 {
            let (r, own) = first(runs[i - 1]);
            let n = r.lines;
            if line < own + n {
                return Some(r.line + (line - own));
            }
        }
        runs.get(i).map(|&k| self.runs[k as usize].line)
    }

    /// The whole's first line at or after instant `t`: the earliest, in
    /// the whole, of each log's first line at or after `t`; `None` when
    /// no log has one. Logs without a time index are passed over.
    pub fn line_at_time(&self, t: Nanos) -> Result<Option<u64>> {
        let mut best: Option<u64> = None;
        for (k, log) in self.logs.iter().enumerate() {
            if !log.has_time_index() {
                continue;
            }
            let l = log.line_at_time(t)?;
            if l < log.lines().end
                && let Some(w) = self.line_of(k, l)
            {
                best = Some(best.map_or(w, |b| b.min(w)));
            }
        }
        Ok(best)
    }
}

/// A run per piece of each log, log after log. Nothing is read but a
/// piece's last byte, when it ends its file.
fn concat_runs(pieces: &[Vec<(usize, Part<'_>)>]) -> Result<Vec<Run>> {
    let mut runs: Vec<Run> = Vec::new();
    for (log, ps) in pieces.iter().enumerate() {
        for (member, p) in ps {
            let span = p.index.lines_span(p.lines.clone())?;
            let mut newline = false;
            if p.lines.end >= p.index.line_count() && span.end > span.start {
                let mut last = [0u8; 1];
                p.index.source().read_exact_at(&mut last, span.end - 1)?;
                newline = last[0] != b'\n';
            }
            let (line, start) = next_place(runs.last());
            runs.push(Run {
                line,
                start,
                local: p.lines.start,
                src: span.start,
                len: span.end - span.start,
                lines: p.lines.end - p.lines.start,
                log: log as u32,
                member: *member as u32,
                newline,
            });
        }
    }
    Ok(runs)
}

/// Where the run after `last` starts: its line and its byte.
fn next_place(last: Option<&Run>) -> (u64, u64) {
    last.map_or((0, 0), |r| {
        (r.line + r.lines, r.start + r.len + u64::from(r.newline))
    })
}

/// The runs of the merge by time of the pieces: every line is read once.
fn merge_runs(
    pieces: &[Vec<(usize, Part<'_>)>],
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<Vec<Run>> {
    let inputs: Vec<Input<'_>> = pieces
        .iter()
        .map(|ps| Input {
            parts: ps.iter().map(|(_, p)| p.clone()).collect(),
        })
        .collect();
    let mut total = 0u64;
    for (_, p) in pieces.iter().flatten() {
        let s = p.index.lines_span(p.lines.clone())?;
        total += s.end - s.start;
    }
    let mut at = vec![0usize; pieces.len()];
    let mut runs: Vec<Run> = Vec::new();
    let (mut done, mut told) = (0u64, 0u64);
    let mut stopped: Option<PathBuf> = None;
    let mut too_many = false;
    merge_by_time(&inputs, &mut |m| {
        let ps = &pieces[m.input];
        let mut k = at[m.input];
        while m.line >= ps[k].1.base + ps[k].1.lines.end {
            k += 1;
        }
        at[m.input] = k;
        let (member, p) = &ps[k];
        let (local, src) = (m.line - p.base, m.offset - p.byte_base);
        let ends = m.bytes.ends_with(b"\n");
        done += m.bytes.len() as u64;
        let n = runs.len();
        match runs.last_mut() {
            Some(r)
                if r.log as usize == m.input
                    && r.member as usize == *member
                    && !r.newline
                    && r.local + r.lines == local =>
            {
                r.len += m.bytes.len() as u64;
                r.lines += 1;
                r.newline = !ends;
            }
            last => {
                if n >= MAX_RUNS {
                    too_many = true;
                    return Ok(false);
                }
                let (line, start) = next_place(last.map(|r| &*r));
                runs.push(Run {
                    line,
                    start,
                    local,
                    src,
                    len: m.bytes.len() as u64,
                    lines: 1,
                    log: m.input as u32,
                    member: *member as u32,
                    newline: !ends,
                });
            }
        }
        if done >= told + (1 << 20) {
            told = done;
            if !progress(done, total) {
                stopped = Some(p.index.source_path().to_path_buf());
                return Ok(false);
            }
        }
        Ok(true)
    })?;
    if let Some(path) = stopped {
        return Err(Error::Cancelled { path });
    }
    if too_many {
        return Err(Error::InvalidArgument(format!(
            "the logs take turns more than {MAX_RUNS} times: merge a narrower time window"
        )));
    }
    progress(total, total);
    Ok(runs)
}

/// An index over `text` with an in-memory sidecar of checkpoints `cps`.
fn in_memory_index(
    text: Text,
    cps: Vec<Checkpoint>,
    lines: u64,
    cache_bytes: usize,
) -> Result<Index> {
    let opts = BuildOptions::default();
    let mut pages = vec![0u8; opts.page_size as usize];
    let mut tree = crate::ingest::build::TreeBuilder::new(opts.page_size);
    for cp in cps {
        tree.push(cp, &mut pages)?;
    }
    let fp = crate::ingest::fingerprint::compute(&text, text.len, (0, 0))?;
    let sb = crate::ingest::finish(tree, &mut pages, &opts, lines, fp, b"")?;
    pages[..crate::format::SUPERBLOCK_LEN].copy_from_slice(&sb.encode());
    let path = text.path.clone();
    let sidecar = crate::io::MemSource::new(pages);
    let index = Index::from_parts(Box::new(text), Box::new(sidecar), (0, 0), cache_bytes)?;
    if index.verdict() != crate::Verdict::Unchanged {
        return Err(Error::InvalidArgument(format!(
            "{}: the logs changed while they were read as one",
            path.display()
        )));
    }
    Ok(index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::LineBuf;
    use crate::io::MemSource;

    /// A log of `n` lines from second `t0` on: stamped lines, some
    /// continuation lines without a stamp, a last line without `\n` when
    /// `open_end`. Returns the text and each line's time (the last stamp's).
    fn log(seed: u64, t0: i64, n: usize, open_end: bool) -> (Vec<u8>, Vec<Option<i64>>) {
        let mut x = seed;
        let mut rnd = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let (mut text, mut times) = (Vec::new(), Vec::new());
        let (mut t, mut last) = (t0, None);
        for i in 0..n {
            if i > 0 && rnd(5) == 0 {
                text.extend_from_slice(format!("    at frame {i} of {seed}\n").as_bytes());
            } else {
                t += rnd(3) as i64;
                let (h, m, s) = (t / 3600 % 24, t / 60 % 60, t % 60);
                let pad = "x".repeat(rnd(200) as usize);
                text.extend_from_slice(
                    format!("2026-12-01T{h:02}:{m:02}:{s:02}Z log {seed} line {i} {pad}\n")
                        .as_bytes(),
                );
                last = Some(t);
            }
            times.push(last);
        }
        if open_end {
            text.pop();
        }
        (text, times)
    }

    fn index(text: &[u8]) -> Index {
        let opts = BuildOptions {
            spacing: 4096,
            time: Some(crate::ingest::TimeOptions {
                format: None,
                tz: Some("UTC".into()),
            }),
            ..BuildOptions::default()
        };
        Index::build_in_memory(Box::new(MemSource::new(text.to_vec())), &opts).unwrap()
    }

    fn plain(text: &[u8]) -> Index {
        let opts = BuildOptions {
            spacing: 4096,
            ..BuildOptions::default()
        };
        Index::build_in_memory(Box::new(MemSource::new(text.to_vec())), &opts).unwrap()
    }

    fn lines_of(text: &[u8]) -> Vec<Vec<u8>> {
        let mut v: Vec<Vec<u8>> = text
            .split_inclusive(|&b| b == b'\n')
            .map(|l| l.to_vec())
            .collect();
        if let Some(l) = v.last_mut().filter(|l| !l.ends_with(b"\n")) {
            l.push(b'\n');
        }
        v
    }

    fn all_lines(i: &Index) -> Vec<Vec<u8>> {
        let mut buf = LineBuf::new();
        let mut out = Vec::new();
        let mut at = 0;
        while at < i.line_count() {
            i.read_lines(at..(at + 500).min(i.line_count()), &mut buf)
                .unwrap();
            out.extend(buf.iter().map(|l| {
                let mut l = l.to_vec();
                l.push(b'\n');
                l
            }));
            at += buf.len() as u64;
        }
        out
    }

    /// The model: (log, line) in the whole's order, the logs limited to
    /// `windows`, merged by picking the smallest head (time, log).
    fn model(
        times: &[Vec<Option<i64>>],
        windows: &[Range<u64>],
        order: Order,
    ) -> Vec<(usize, u64)> {
        let mut heads: Vec<u64> = windows.iter().map(|w| w.start).collect();
        let mut out = Vec::new();
        loop {
            let live = (0..times.len()).filter(|&k| heads[k] < windows[k].end);
            let next = match order {
                Order::Concat => live.min(),
                Order::Time => live.min_by_key(|&k| {
                    (times[k][heads[k] as usize].map_or(i128::MIN, i128::from), k)
                }),
            };
            let Some(k) = next else { return out };
            out.push((k, heads[k]));
            heads[k] += 1;
        }
    }

    #[test]
    fn the_whole_is_the_model_in_both_orders_with_windows_and_the_way_back() {
        let specs = [
            (1, 0, 3000, false),
            (2, 40, 200, true),
            (3, 10, 900, false),
            (4, 5, 1, true),
        ];
        let made: Vec<_> = specs.iter().map(|&(s, t, n, o)| log(s, t, n, o)).collect();
        for order in [Order::Concat, Order::Time] {
            for windowed in [false, true] {
                let windows: Vec<Range<u64>> = made
                    .iter()
                    .map(|(_, t)| {
                        let n = t.len() as u64;
                        if windowed { n / 3..n - n / 4 } else { 0..n }
                    })
                    .collect();
                let logs = made
                    .iter()
                    .map(|(text, _)| Log::File(Arc::new(index(text))))
                    .collect();
                let j = Joined::new(logs, Some(windows.clone()), order, 1 << 20, &mut |_, _| {
                    true
                })
                .unwrap();
                let times: Vec<_> = made.iter().map(|(_, t)| t.clone()).collect();
                let want = model(&times, &windows, order);
                let texts: Vec<_> = made.iter().map(|(text, _)| lines_of(text)).collect();
                let got = all_lines(j.index());
                assert_eq!(got.len(), want.len(), "{order:?} {windowed}");
                for (w, (&(k, l), line)) in want.iter().zip(&got).enumerate() {
                    assert_eq!(line, &texts[k][l as usize], "{order:?} {windowed} line {w}");
                    assert_eq!(j.origin(w as u64), Some((k, l)));
                    assert_eq!(j.line_of(k, l), Some(w as u64));
                }
                assert_eq!(j.origin(want.len() as u64), None);
                // A line outside the window: the first shown after it.
                if windowed {
                    let w0 = windows[0].clone();
                    assert_eq!(j.line_of(0, 0), j.line_of(0, w0.start));
                    assert_eq!(j.line_of(0, w0.end), None);
                }
                // Every line's offset and number agree (the checkpoints).
                let mut off = 0;
                for (w, line) in got.iter().enumerate().step_by(97) {
                    let _ = line;
                    assert_eq!(
                        j.index()
                            .line_at(j.index().line_start(w as u64).unwrap())
                            .unwrap(),
                        w as u64
                    );
                }
                for line in &got {
                    off += line.len() as u64;
                }
                assert_eq!(off, j.index().source_len());
            }
        }
    }

    #[test]
    fn a_time_finds_the_earliest_of_the_logs_first_lines_at_or_after_it() {
        let made: Vec<_> = [(7, 0, 400, false), (8, 100, 400, false)]
            .iter()
            .map(|&(s, t, n, o)| log(s, t, n, o))
            .collect();
        let logs = made
            .iter()
            .map(|(text, _)| Log::File(Arc::new(index(text))))
            .collect();
        let j = Joined::new(logs, None, Order::Time, 1 << 20, &mut |_, _| true).unwrap();
        let times: Vec<_> = made.iter().map(|(_, t)| t.clone()).collect();
        let base = crate::time::Nanos::from(1_796_083_200i64) * 1_000_000_000; // 2026-12-01
        for t in [0i64, 50, 101, 150, 300, 10_000] {
            let got = j.line_at_time(base + t * 1_000_000_000).unwrap();
            // The model: the first line of the whole stamped at or after t.
            let want = (0..j.index().line_count()).find(|&w| {
                let (k, l) = j.origin(w).unwrap();
                let text = &made[k].0;
                let line = &lines_of(text)[l as usize];
                line.starts_with(b"2026") && times[k][l as usize].unwrap() >= t
            });
            assert_eq!(got, want, "t={t}");
        }
    }

    #[test]
    fn a_long_line_has_a_checkpoint_at_its_start() {
        // A 200 KB line 6 bytes into the second file: its start is less
        // than SPACING past the run's start, and still a checkpoint.
        let first = b"a\n".repeat(10);
        let mut second = b"short\n".to_vec();
        second.extend(std::iter::repeat_n(b'x', 200_000));
        second.extend_from_slice(b"\nend\n");
        let logs = vec![
            Log::File(Arc::new(plain(&first))),
            Log::File(Arc::new(plain(&second))),
        ];
        let j = Joined::new(logs, None, Order::Concat, 1 << 20, &mut |_, _| true).unwrap();
        let start = first.len() as u64 + 6;
        assert_eq!(j.index().line_at(start + 100_000).unwrap(), 11);
        assert_eq!(
            j.index()
                .checkpoint_for_offset(start + 100_000)
                .unwrap()
                .offset,
            start
        );
        // The same line last in the whole: no checkpoint after it.
        second.truncate(second.len() - 4);
        let logs = vec![
            Log::File(Arc::new(plain(&first))),
            Log::File(Arc::new(plain(&second))),
        ];
        let j = Joined::new(logs, None, Order::Concat, 1 << 20, &mut |_, _| true).unwrap();
        assert_eq!(
            j.index()
                .checkpoint_for_offset(start + 100_000)
                .unwrap()
                .offset,
            start
        );
    }

    #[test]
    fn a_merge_can_be_cancelled() {
        let (text, _) = log(9, 0, 20_000, false);
        let logs = vec![
            Log::File(Arc::new(index(&text))),
            Log::File(Arc::new(index(&text))),
        ];
        let e = Joined::new(logs, None, Order::Time, 1 << 20, &mut |_, _| false).unwrap_err();
        assert!(matches!(e, Error::Cancelled { .. }), "{e}");
    }
}
