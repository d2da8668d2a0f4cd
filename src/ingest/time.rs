//! The time pass of an ingest (spec §12): the time of every line, folded
//! into the earliest and latest time of each span between checkpoints,
//! then written as the time tree of running extremes.
//!
//! It runs in the same pass as the newline scan, on the same buffers, when
//! a time index is asked for. A line without a stamp takes the time of the
//! stamped line before it (a stack trace belongs to its log line); lines
//! before the first stamp have no time. Spans go to a spill (16 bytes
//! each), so memory stays bounded; the running minimum from each span to
//! the end is computed backwards once the pass is over.

use super::build::{PageSink, TreeBuilder};
use super::spill::Spill;
use crate::error::{Error, Result};
use crate::format::time::TimeHeader;
use crate::time::{Nanos, QuickIso, Stamper, TimeFormat, ZoneConflict, digest};
use crate::tree::Checkpoint;
use std::collections::VecDeque;

/// The bytes of a line's start that its stamp is looked for in (the line
/// terminator included when it falls within them).
pub const HEAD: usize = 512;

/// A span without any time (before the first stamp): its keys.
pub(crate) const NO_MIN: u64 = u64::MAX;
pub(crate) const NO_MAX: u64 = 0;

/// Splits text fed in buffers, in order and without gaps, into lines, and
/// hands on each line's start and first [`HEAD`] bytes.
#[derive(Debug)]
pub(crate) struct Heads {
    /// The current line's first bytes when it began in an earlier buffer.
    head: Vec<u8>,
    /// Offset of the current line's start.
    line_start: u64,
}

impl Heads {
    /// Lines from offset `at` (a line start) on.
    pub(crate) fn new(at: u64) -> Heads {
        Heads {
            head: Vec::new(),
            line_start: at,
        }
    }

    /// Where the current line starts.
    pub(crate) fn line_start(&self) -> u64 {
        self.line_start
    }

    /// Bytes `buf` of the text at offset `base`: calls `f(start, head)` for
    /// each line that ends in it.
    pub(crate) fn feed(
        &mut self,
        buf: &[u8],
        base: u64,
        f: &mut impl FnMut(u64, &[u8]) -> Result<()>,
    ) -> Result<()> {
        for nl in memchr::memchr_iter(b'\n', buf) {
            if self.line_start < base {
                // The line began in an earlier buffer: its head is kept.
                let room = HEAD.saturating_sub(self.head.len());
                self.head.extend_from_slice(&buf[..(nl + 1).min(room)]);
                f(self.line_start, &self.head)?;
                self.head.clear();
            } else {
                let s = (self.line_start - base) as usize;
                f(self.line_start, &buf[s..(nl + 1).min(s + HEAD)])?;
            }
            self.line_start = base + nl as u64 + 1;
        }
        // The current line goes on past this buffer: keep its first bytes.
        let end = base + buf.len() as u64;
        if self.line_start < end {
            if self.line_start >= base {
                self.head.clear();
                let s = (self.line_start - base) as usize;
                self.head
                    .extend_from_slice(&buf[s..buf.len().min(s + HEAD)]);
            } else {
                let room = HEAD.saturating_sub(self.head.len());
                self.head.extend_from_slice(&buf[..buf.len().min(room)]);
            }
        }
        Ok(())
    }

    /// The end of the text at `end`: a last line without `\n` before it
    /// counts.
    pub(crate) fn finish(
        &mut self,
        end: u64,
        f: &mut impl FnMut(u64, &[u8]) -> Result<()>,
    ) -> Result<()> {
        if self.line_start < end {
            f(self.line_start, &self.head)?;
            self.line_start = end;
        }
        self.head.clear();
        Ok(())
    }

    /// Starts again at `at`, forgetting the current line.
    fn reset(&mut self, at: u64) {
        self.head.clear();
        self.line_start = at;
    }
}

/// Where a time pass starts.
pub(crate) struct TimeStart {
    /// How stamps are read.
    pub format: TimeFormat,
    /// Offset of the checkpoint the pass starts at (0, or where an
    /// extension resumes).
    pub offset: u64,
    /// Spans before it (an extension: the old sidecar's spans but its
    /// last, which is scanned again).
    pub first_span: u64,
    /// The last stamp before `offset` and its wall-clock year.
    pub prev: Option<(Nanos, i32)>,
    /// The year table of the spans before (§12).
    pub years: Vec<(u64, i32)>,
    /// The line at `offset` (0-based), for messages.
    pub line: u64,
    /// The source's modification time in seconds (0: unknown), and its
    /// path, for the plausibility check and its message.
    pub mtime: i64,
    pub source: std::path::PathBuf,
}

/// What a tolerant gzip build returns to when the text after a point is
/// dropped (see [`TimeBuilder::mark`]).
#[derive(Debug, Clone)]
pub(crate) struct TimeMark {
    span_count: u64,
    span_min: u64,
    span_max: u64,
    years: usize,
    line_start: u64,
    sense: Sense,
    conflict: Option<(u64, ZoneConflict)>,
}

/// The time pass of one build.
pub(crate) struct TimeBuilder {
    heads: Heads,
    state: SpanState,
}

/// The spans of a time pass so far.
struct SpanState {
    /// Reads the stamps; remembers the time in effect (the last stamp).
    stamper: Stamper,
    /// Starts of spans not begun yet (checkpoints from the scanner).
    boundaries: VecDeque<u64>,
    span_min: u64,
    span_max: u64,
    /// Spans closed by this pass, as (min, max) digests.
    spans: Spill,
    span_count: u64,
    first_span: u64,
    /// (span, year) where the wall-clock year of the stamp in effect at a
    /// span's start changes (§12): syslog stamps carry no year.
    years: Vec<(u64, i32)>,
    /// What the stamps read so far look like.
    sense: Sense,
    /// The first stamp whose zone abbreviation the zone contradicts
    /// and its line.
    conflict: Option<(u64, ZoneConflict)>,
    /// The line of the first line of the next block of
    /// [`TimeBuilder::fold`].
    block_base: u64,
    /// The source's path, for messages.
    source: std::path::PathBuf,
}

/// Counts that tell whether the times a format reads are plausible for
/// the file, or a format reading something else (a sequence number read
/// as epoch seconds, a field of random numbers): R-127.
#[derive(Debug, Clone, Copy, Default)]
struct Sense {
    /// The current line (0-based).
    line: u64,
    stamped: u64,
    /// Stamps before 1980, and after the file's modification time plus a
    /// day: how many, and the first.
    early: Outliers,
    late: Outliers,
    /// Consecutive stamps more than a day apart, backwards and forwards.
    back: u64,
    forth: u64,
    /// The first stamp and the last.
    first: Option<Nanos>,
    prev: Option<Nanos>,
    /// The source's modification time in seconds (0: unknown).
    mtime: i64,
    /// After this, a stamp is later than the file was last written
    /// (`i64::MAX` when that is not known).
    late_after: Nanos,
}

/// Stamps out of the plausible range: how many, and the first one's line
/// and time.
#[derive(Debug, Clone, Copy, Default)]
struct Outliers {
    count: u64,
    first: (u64, Nanos),
}

impl Outliers {
    #[inline]
    fn add(&mut self, line: u64, t: Nanos) {
        if self.count == 0 {
            self.first = (line, t);
        }
        self.count += 1;
    }
}

/// Before 1980-01-01T00:00:00Z.
const EARLY: Nanos = 315_532_800 * 1_000_000_000;
const DAY: Nanos = 86_400 * 1_000_000_000;

impl Sense {
    /// Counts of nothing yet, for a file last written at `mtime` (seconds,
    /// 0: unknown), from line `line`.
    fn new(line: u64, mtime: i64) -> Sense {
        let late_after = if mtime > 0 {
            mtime.saturating_add(86_400).saturating_mul(1_000_000_000)
        } else {
            Nanos::MAX
        };
        Sense {
            line,
            mtime,
            late_after,
            ..Sense::default()
        }
    }

    /// A stamp, at the current line (every line's stamp passes here: the
    /// common case is a few comparisons).
    #[inline]
    fn stamp(&mut self, t: Nanos) {
        self.stamped += 1;
        if t < EARLY {
            self.early.add(self.line, t);
        }
        if t > self.late_after {
            self.late.add(self.line, t);
        }
        match self.prev {
            Some(p) => self.step(p, t),
            None => self.first = Some(t),
        }
        self.prev = Some(t);
    }

    /// Consecutive stamps `p` then `t`.
    #[inline]
    fn step(&mut self, p: Nanos, t: Nanos) {
        let d = t.saturating_sub(p);
        self.back += (d < -DAY) as u64;
        self.forth += (d > DAY) as u64;
    }

    /// The counts of stamps `times`, whose least and greatest are `(lo,
    /// hi)`, in a file last written at `mtime`;
    /// `line_of(k)` is the line of stamp `k` (asked for the first
    /// outliers only).
    fn over(
        times: &[Nanos],
        (lo, hi): (Nanos, Nanos),
        mtime: i64,
        line_of: impl Fn(usize) -> u64,
    ) -> Sense {
        let mut s = Sense::new(0, mtime);
        s.stamped = times.len() as u64;
        let late_after = s.late_after;
        // Most runs: every stamp after 1980, before the file was written,
        // and within a day of every other (so of the one before) count
        // nothing; the others, one pass without branches.
        if lo < EARLY || hi > late_after || hi.saturating_sub(lo) > DAY {
            let (mut early, mut late, mut back, mut forth) = (0u64, 0u64, 0u64, 0u64);
            let mut p = times.first().copied().unwrap_or(0);
            for &t in times {
                early += u64::from(t < EARLY);
                late += u64::from(t > late_after);
                let d = t.saturating_sub(p);
                back += u64::from(d < -DAY);
                forth += u64::from(d > DAY);
                p = t;
            }
            (s.early.count, s.late.count, s.back, s.forth) = (early, late, back, forth);
        }
        if s.early.count > 0 {
            let k = times.iter().position(|&t| t < EARLY).expect("counted");
            s.early.first = (line_of(k), times[k]);
        }
        if s.late.count > 0 {
            let k = times.iter().position(|&t| t > late_after).expect("counted");
            s.late.first = (line_of(k), times[k]);
        }
        s.first = times.first().copied();
        s.prev = times.last().copied();
        s
    }

    /// The stamps counted in `run` come next; its lines are counted from
    /// line `base`.
    fn merge(&mut self, run: &Sense, base: u64) {
        let add = |o: &mut Outliers, r: &Outliers| {
            if o.count == 0 && r.count > 0 {
                o.first = (base + r.first.0, r.first.1);
            }
            o.count += r.count;
        };
        add(&mut self.early, &run.early);
        add(&mut self.late, &run.late);
        self.stamped += run.stamped;
        self.back += run.back;
        self.forth += run.forth;
        if let (Some(p), Some(f)) = (self.prev, run.first) {
            self.step(p, f);
        }
        if self.first.is_none() {
            self.first = run.first;
        }
        self.prev = run.prev.or(self.prev);
    }

    /// Why the times read are implausible, if they are: most
    /// before 1980 or after the file was last written, or jumping more
    /// than a day both ways between most lines.
    fn implausible(&self) -> Option<String> {
        let n = self.stamped;
        let pct = |k: u64| k * 100 / n.max(1);
        if n == 0 {
            return None;
        }
        if self.early.count * 2 > n {
            let (line, t) = self.early.first;
            return Some(format!(
                "{}% of its {n} stamps read before 1980 (line {}: {})",
                pct(self.early.count),
                line + 1,
                crate::time::format_instant(t)
            ));
        }
        if self.late.count * 2 > n {
            return Some(format!(
                "{}% of its {n} stamps read after the file was last modified ({}), \
                 the first at line {}",
                pct(self.late.count),
                crate::time::format_instant(self.mtime.saturating_mul(1_000_000_000)),
                self.late.first.0 + 1
            ));
        }
        let jumps = self.back.min(self.forth);
        if n >= 16 && jumps * 4 > n - 1 {
            return Some(format!(
                "its stamps jump by more than a day, back and forth, between {}% of \
                 consecutive stamped lines",
                pct(self.back + self.forth)
            ));
        }
        None
    }
}

impl TimeBuilder {
    /// A pass from `start`.
    pub(crate) fn new(start: TimeStart) -> TimeBuilder {
        let mut stamper = start.format.stamper();
        stamper.check_zones(true);
        if let Some((t, y)) = start.prev {
            stamper.anchor(t, y);
        }
        let (span_min, span_max) = match start.prev {
            Some((t, _)) => (digest(t), digest(t)),
            None => (NO_MIN, NO_MAX),
        };
        TimeBuilder {
            heads: Heads::new(start.offset),
            state: SpanState {
                stamper,
                boundaries: VecDeque::new(),
                span_min,
                span_max,
                spans: Spill::new(),
                span_count: 0,
                first_span: start.first_span,
                years: start.years,
                sense: Sense::new(start.line, start.mtime),
                conflict: None,
                block_base: start.line,
                source: start.source,
            },
        }
    }

    /// A checkpoint the scanner emitted: a span starts there.
    pub(crate) fn boundary(&mut self, offset: u64) {
        self.state.boundaries.push_back(offset);
    }

    /// The state to go back to with [`TimeBuilder::rewind`]: taken where
    /// every complete line before the current one has been fed.
    pub(crate) fn mark(&self) -> TimeMark {
        let s = &self.state;
        TimeMark {
            span_count: s.span_count,
            span_min: s.span_min,
            span_max: s.span_max,
            years: s.years.len(),
            line_start: self.heads.line_start(),
            sense: s.sense,
            conflict: s.conflict.clone(),
        }
    }

    /// Forgets every line after `mark` (a damaged member's).
    pub(crate) fn rewind(&mut self, mark: &TimeMark) {
        let s = &mut self.state;
        s.span_count = mark.span_count;
        s.span_min = mark.span_min;
        s.span_max = mark.span_max;
        s.years.truncate(mark.years);
        s.sense = mark.sense;
        s.conflict = mark.conflict.clone();
        s.boundaries.clear();
        self.heads.reset(mark.line_start);
    }

    /// A reader of blocks' stamps for another thread, which reads them
    /// out of order ([`BlockReader::read`]), or `None` when the format is
    /// read in order only (syslog's).
    pub(crate) fn block_reader(&self) -> Option<BlockReader> {
        (!self.reads_in_order()).then(|| {
            let mut stamper = self.state.stamper.format().stamper();
            stamper.check_zones(true);
            BlockReader {
                stamper,
                mtime: self.state.sense.mtime,
            }
        })
    }

    /// True when the format's stamps are read in order only (syslog's).
    pub(crate) fn reads_in_order(&self) -> bool {
        self.state.stamper.reads_in_order()
    }

    /// Folds the lines of `b` that start before `upto` and were not folded
    /// yet into the spans, in order: the same as feeding their text would
    /// (instead of [`TimeBuilder::feed`], which is then not used). Blocks
    /// come in order, each line once every checkpoint at or before its
    /// start has been given to [`TimeBuilder::boundary`] and its end has
    /// been scanned; [`TimeBuilder::fold_rest`] ends each block, and
    /// [`TimeBuilder::lines_end`] the text.
    pub(crate) fn fold(&mut self, b: &mut BlockTimes, upto: u64) -> Result<()> {
        let s = &mut self.state;
        let end = b.next + b.starts[b.next..].partition_point(|&x| x < upto);
        while b.next < end {
            let ordered = b.ordered.get(b.next_ordered);
            let stop = ordered.map_or(end, |o| (o.entry as usize).min(end));
            // Lines read by the worker: each span's run of them at once.
            while b.next < stop {
                s.close_before(b.starts[b.next])?;
                let lim = match s.boundaries.front() {
                    Some(&bound) => b.first_at(b.next, stop, bound),
                    None => stop,
                };
                let (lo, hi) = b.bounds(b.next, lim);
                s.span_min = s.span_min.min(digest(lo));
                s.span_max = s.span_max.max(digest(hi));
                // The stamp in effect: the last one's.
                s.stamper.anchor(b.times[lim - 1], b.year_of(lim - 1));
                b.next = lim;
            }
            if b.next == end {
                break;
            }
            // A line to read in order, after the stamps before it.
            let o = &b.ordered[b.next_ordered];
            s.sense.merge(&b.runs[b.next_ordered], s.block_base);
            s.sense.line = s.block_base + o.line;
            s.line(b.starts[b.next], &o.head)?;
            b.next_ordered += 1;
            b.next += 1;
        }
        Ok(())
    }

    /// Folds the rest of `b` ([`TimeBuilder::fold`]): its last lines have
    /// ended.
    pub(crate) fn fold_rest(&mut self, b: &mut BlockTimes) -> Result<()> {
        self.fold(b, u64::MAX)?;
        let s = &mut self.state;
        // (A block never read has no runs, and no lines.)
        debug_assert!(b.runs.len() == b.ordered.len() + 1 || b.lines == 0);
        if let Some(run) = b.runs.get(b.next_ordered) {
            s.sense.merge(run, s.block_base);
        }
        if let Some((line, c)) = b.conflict.take() {
            s.conflicts(s.block_base + line, c);
        }
        s.block_base += b.lines;
        s.sense.line = s.block_base;
        Ok(())
    }

    /// The lines given by [`TimeBuilder::fold`] reach the end of the text
    /// at `end`: the spans that begin before it are begun.
    pub(crate) fn lines_end(&mut self, end: u64) -> Result<()> {
        self.state.close_before(end.saturating_sub(1))?;
        self.heads.reset(end);
        Ok(())
    }

    /// The format version its stamp format's name needs (spec R-4).
    pub(crate) fn minor_version(&self) -> u16 {
        self.state.stamper.format().minor_version()
    }

    /// Bytes `buf` of the text at offset `base`, in order, without gaps.
    pub(crate) fn feed(&mut self, buf: &[u8], base: u64) -> Result<()> {
        let state = &mut self.state;
        self.heads
            .feed(buf, base, &mut |start, head| state.line(start, head))
    }
}

/// How many of the sorted `starts` are below `v` (their
/// `partition_point`), searched from the front in growing steps: the
/// chunk that holds a span's end is a few chunks on, and the search then
/// reads the first starts near it, not ones across the block.
fn below(starts: &[u64], v: u64) -> usize {
    let (mut lo, mut step) = (0, 1);
    while lo + step < starts.len() && starts[lo + step] < v {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step).min(starts.len());
    lo + starts[lo..hi].partition_point(|&x| x < v)
}

impl SpanState {
    /// Closes the current span: the next one starts.
    fn close(&mut self) -> Result<()> {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&self.span_min.to_le_bytes());
        b[8..].copy_from_slice(&self.span_max.to_le_bytes());
        self.spans.write_at(&b, self.span_count * 16)?;
        self.span_count += 1;
        // The stamp in effect carries into the next span.
        match self.stamper.last() {
            Some(t) => {
                self.span_min = digest(t);
                self.span_max = digest(t);
                let y = self.stamper.last_year();
                if self.years.last().is_none_or(|&(_, last)| last != y) {
                    self.years.push((self.first_span + self.span_count, y));
                }
            }
            None => {
                self.span_min = NO_MIN;
                self.span_max = NO_MAX;
            }
        }
        Ok(())
    }

    /// The line starting at `start` whose first bytes are `head`.
    fn line(&mut self, start: u64, head: &[u8]) -> Result<()> {
        self.close_before(start)?;
        if let Some(t) = self.stamper.stamp(head) {
            self.extend(t);
            if let Some(c) = self.stamper.take_zone_conflict() {
                self.conflicts(self.sense.line, c);
            }
        }
        self.sense.line += 1;
        Ok(())
    }

    /// A stamp at line `line` whose zone abbreviation the zone
    /// contradicts: kept if it is the first.
    fn conflicts(&mut self, line: u64, c: ZoneConflict) {
        if self.conflict.as_ref().is_none_or(|(l, _)| line < *l) {
            self.conflict = Some((line, c));
        }
    }

    /// The error for times that cannot be right, if any.
    fn check(&self) -> Result<()> {
        let name = self.stamper.format().name();
        let path = self.source.display();
        if let Some((line, c)) = &self.conflict {
            let zone = self.stamper.format().tz_name();
            let hm = |o: i32| format!("{:+03}:{:02}", o / 3600, (o % 3600).abs() / 60);
            let written = match c.written.offset {
                Some(o) => format!("{} ({})", c.written.name, hm(o)),
                None => c.written.name.to_string(),
            };
            return Err(Error::InvalidArgument(format!(
                "{path}: line {}: the stamp is followed by the zone abbreviation {written}, \
                 but stamps without an offset are read in zone {zone}, where that time is \
                 {} ({}): give --tz with the zone the log was written in",
                line + 1,
                c.zone_abbr,
                hm(c.zone_offset)
            )));
        }
        if let Some(why) = self.sense.implausible() {
            return Err(Error::InvalidArgument(format!(
                "{path}: the times read as {name} are implausible: {why}; the format reads \
                 something other than the lines' stamps: give --time-format (for a strptime \
                 format, `strptime@K:FORMAT` reads it at field K)"
            )));
        }
        Ok(())
    }

    /// Closes the spans that end at or before `start`.
    fn close_before(&mut self, start: u64) -> Result<()> {
        while self.boundaries.front().is_some_and(|&b| b <= start) {
            self.boundaries.pop_front();
            self.close()?;
        }
        Ok(())
    }

    /// A line of the current span has time `t`.
    fn extend(&mut self, t: Nanos) {
        self.sense.stamp(t);
        let d = digest(t);
        self.span_min = self.span_min.min(d);
        self.span_max = self.span_max.max(d);
    }
}

impl TimeBuilder {
    /// Ends the pass at the end of the text `end` (a last line without
    /// `\n` counts) and writes the time header at page `at` and the time
    /// tree after it; returns the page after the last. `old` yields the
    /// first `first_span` entries (an extension's: their running minimum is
    /// lowered to this pass's least time). `spans` is the sidecar's
    /// checkpoint count: the spans of checkpoints a gzip build dropped at
    /// the end of its text (where no line starts) are dropped too.
    pub(crate) fn finish(
        mut self,
        end: u64,
        old: &mut dyn Iterator<Item = Result<(u64, u64)>>,
        spans: u64,
        page_size: u32,
        at: u32,
        sink: &mut impl PageSink,
    ) -> Result<u32> {
        let mut st = self.state;
        self.heads
            .finish(end, &mut |start, head| st.line(start, head))?;
        st.check()?;
        // Spans whose checkpoint lies at or past `end` were never begun
        // (their boundary waits); the current one ends here.
        st.years
            .retain(|&(k, _)| k <= st.first_span + st.span_count);
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&st.span_min.to_le_bytes());
        b[8..].copy_from_slice(&st.span_max.to_le_bytes());
        st.spans.write_at(&b, st.span_count * 16)?;
        let n = st.span_count + 1;
        if st.first_span + n != spans {
            return Err(Error::InvalidArgument(format!(
                "time index: {} spans for {spans} checkpoints",
                st.first_span + n
            )));
        }
        // The running minimum from each new span to the end, backwards.
        // (Spans are read `AT_ONCE` at a time.)
        const AT_ONCE: u64 = 4096;
        let mut read = vec![0u8; AT_ONCE as usize * 16];
        let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
        let mut suffix = Spill::new();
        let mut m = NO_MIN;
        let mut k = n;
        while k > 0 {
            let lo = k.saturating_sub(AT_ONCE);
            let c = &mut read[..(k - lo) as usize * 16];
            st.spans.read_at(c, lo * 16)?;
            for e in c.chunks_exact(16).rev() {
                m = m.min(word(&e[..8]));
                suffix.append(&m.to_le_bytes())?;
            }
            k = lo;
        }
        let new_min = m;
        let mut tree = TreeBuilder::for_time(page_size, at);
        let mut run_max = NO_MAX;
        let mut pushed = 0u64;
        for e in old {
            let (hi, lo) = e?;
            run_max = run_max.max(hi);
            tree.push(
                Checkpoint {
                    line: run_max,
                    offset: lo.min(new_min),
                },
                sink,
            )?;
            pushed += 1;
        }
        if pushed != st.first_span {
            return Err(Error::InvalidArgument(format!(
                "time index: {pushed} old spans where {} were expected",
                st.first_span
            )));
        }
        let mut minima = vec![0u8; AT_ONCE as usize * 8];
        let mut k = 0;
        while k < n {
            let hi = (k + AT_ONCE).min(n);
            let c = &mut read[..(hi - k) as usize * 16];
            st.spans.read_at(c, k * 16)?;
            // Span j's minimum is the suffix's entry n - 1 - j.
            let mins = &mut minima[..(hi - k) as usize * 8];
            suffix.read_at(mins, (n - hi) * 8)?;
            for (e, min) in c.chunks_exact(16).zip(mins.chunks_exact(8).rev()) {
                run_max = run_max.max(word(&e[8..]));
                tree.push(
                    Checkpoint {
                        line: run_max,
                        offset: word(min),
                    },
                    sink,
                )?;
            }
            k = hi;
        }
        let shape = tree.finish(sink)?;
        let format = st.stamper.format();
        let header = TimeHeader {
            root_page: shape.root,
            height: shape.height,
            leaf_count: shape.leaf_count,
            first_leaf: shape.first_leaf,
            last_leaf: shape.last_leaf,
            entries: spans,
            syslog_year: format.syslog_year(),
            format: format.name(),
            tz: format.tz_name().to_string(),
            years: st.years,
        };
        let mut page = vec![0u8; page_size as usize];
        header
            .encode(&mut page, at)
            .map_err(|e| Error::InvalidArgument(format!("time index: {e}")))?;
        sink.write_page(at, &page)?;
        Ok(shape.page_count)
    }
}

/// Reads the stamps of blocks of text out of order, on a worker of the
/// parallel scan ([`TimeBuilder::block_reader`]).
pub(crate) struct BlockReader {
    stamper: Stamper,
    /// The source's modification time (for [`Sense`]).
    mtime: i64,
}

/// The stamps of the lines that start in one block of text, read out of
/// order by a [`BlockReader`], for [`TimeBuilder::fold`] to fold in order.
#[derive(Debug, Default)]
pub(crate) struct BlockTimes {
    /// The stamped lines' starts and times, in order; a line whose stamp
    /// is read in order has an entry too (its time unused).
    starts: Vec<u64>,
    times: Vec<Nanos>,
    /// The least and greatest time of each [`CHUNK`] entries, when no
    /// line is read in order (empty otherwise): a span's bounds are its
    /// whole chunks' and its ends' lines'.
    chunks: Vec<(Nanos, Nanos)>,
    /// The start of each [`CHUNK`]'s first entry (every entry's start
    /// lies in memory another core wrote: a search reads these few lines
    /// first).
    heads: Vec<u64>,
    /// (entry, year) where an entry's wall-clock year differs from the
    /// entry before's; the first entry's always.
    years: Vec<(u32, i32)>,
    /// The lines whose stamps are read in order.
    ordered: Vec<Ordered>,
    /// What the stamps before each line read in order look like, and those
    /// after the last (`ordered.len() + 1` runs; lines counted from the
    /// block's first).
    runs: Vec<Sense>,
    /// Lines that start in the block.
    lines: u64,
    /// Where the line starts that starts in the block and ends after it.
    open: Option<u64>,
    /// The first stamp whose zone abbreviation the zone contradicts, and
    /// its line in the block.
    conflict: Option<(u64, ZoneConflict)>,
    /// Folded so far: entries, lines read in order, and the entry of
    /// `years` in effect.
    next: usize,
    next_ordered: usize,
    year_at: usize,
}

/// A line whose stamp depends on the line before (a stamp without a
/// year, in a format that reads others out of order).
#[derive(Debug)]
struct Ordered {
    /// Its entry in [`BlockTimes`].
    entry: u32,
    /// Its line in the block.
    line: u64,
    /// Its first [`HEAD`] bytes.
    head: Vec<u8>,
}

/// Entries of [`BlockTimes::chunks`].
const CHUNK: usize = 32;

/// The bounds of no time: (least, greatest) of none.
const NO_SPAN: (Nanos, Nanos) = (Nanos::MAX, Nanos::MIN);

/// The least and greatest of `a` and `b`'s.
#[inline]
fn join(a: (Nanos, Nanos), b: (Nanos, Nanos)) -> (Nanos, Nanos) {
    (a.0.min(b.0), a.1.max(b.1))
}

/// The least and greatest of `times` and `with`'s.
#[inline]
fn span_of(times: &[Nanos], with: (Nanos, Nanos)) -> (Nanos, Nanos) {
    times.iter().fold(with, |a, &t| join(a, (t, t)))
}

/// Appends to `out` the least and greatest of each [`CHUNK`] of `times`
/// (and of the rest).
fn chunk_bounds(times: &[Nanos], out: &mut Vec<(Nanos, Nanos)>) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        #[allow(unsafe_code)]
        // SAFETY: the CPU has the feature the function is compiled for
        // (checked just now).
        return unsafe { chunk_bounds_avx2(times, out) };
    }
    chunks_of(times, out);
}

/// [`chunk_bounds`] with 64-bit compares four at a time (`vpcmpgtq`; SSE2
/// has none, SSE4.2 two at a time, and the portable loop's branches
/// mispredict on times out of order).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn chunk_bounds_avx2(times: &[Nanos], out: &mut Vec<(Nanos, Nanos)>) {
    use std::arch::x86_64::{__m256i, _mm256_blendv_epi8, _mm256_cmpgt_epi64};
    let (whole, rest) = times.as_chunks::<CHUNK>();
    out.reserve(whole.len() + 1);
    for c in whole {
        // Four lanes of least and greatest, then the lanes'.
        let (quads, _) = c.as_chunks::<4>();
        let mut lo: __m256i = bytemuck::cast(quads[0]);
        let mut hi = lo;
        for q in &quads[1..] {
            let v: __m256i = bytemuck::cast(*q);
            lo = _mm256_blendv_epi8(lo, v, _mm256_cmpgt_epi64(lo, v));
            hi = _mm256_blendv_epi8(hi, v, _mm256_cmpgt_epi64(v, hi));
        }
        let (lo, hi): ([Nanos; 4], [Nanos; 4]) = (bytemuck::cast(lo), bytemuck::cast(hi));
        out.push((
            lo.into_iter().fold(Nanos::MAX, Nanos::min),
            hi.into_iter().fold(Nanos::MIN, Nanos::max),
        ));
    }
    if !rest.is_empty() {
        out.push(span_of(rest, NO_SPAN));
    }
}

/// [`chunk_bounds`] one time after another.
fn chunks_of(times: &[Nanos], out: &mut Vec<(Nanos, Nanos)>) {
    out.extend(times.chunks(CHUNK).map(|c| span_of(c, NO_SPAN)));
}

impl BlockTimes {
    /// The first entry in `from..stop` whose line starts at or after `v`
    /// (`stop` if none does): the chunk by the chunks' first starts, then
    /// the entry within it.
    fn first_at(&self, from: usize, stop: usize, v: u64) -> usize {
        let (a, z) = (from.div_ceil(CHUNK), stop.div_ceil(CHUNK));
        let m = below(&self.heads[a..z], v);
        let lo = if m > 0 { (a + m - 1) * CHUNK + 1 } else { from };
        let hi = if a + m < z { (a + m) * CHUNK } else { stop };
        lo + self.starts[lo..hi].partition_point(|&x| x < v)
    }

    /// The least and greatest time of entries `from..to`.
    fn bounds(&self, from: usize, to: usize) -> (Nanos, Nanos) {
        let (c0, c1) = (from.div_ceil(CHUNK), to / CHUNK);
        if self.chunks.is_empty() || c0 >= c1 {
            return span_of(&self.times[from..to], NO_SPAN);
        }
        let ends = span_of(&self.times[c1 * CHUNK..to], NO_SPAN);
        let ends = span_of(&self.times[from..c0 * CHUNK], ends);
        self.chunks[c0..c1].iter().fold(ends, |a, &c| join(a, c))
    }

    /// Where the line starts that starts in the block and ends after it.
    pub(crate) fn open(&self) -> Option<u64> {
        self.open
    }

    /// The wall-clock year of entry `k` (at or after the last asked for).
    fn year_of(&mut self, k: usize) -> i32 {
        while self
            .years
            .get(self.year_at + 1)
            .is_some_and(|&(e, _)| e as usize <= k)
        {
            self.year_at += 1;
        }
        self.years[self.year_at].1
    }
}

impl BlockReader {
    /// Reads into `out` the stamps of the lines that start in
    /// `buf[pre..pre + len]`, the block at offset `at` whose first byte
    /// starts a line when `first_is_start`, and whose newlines are at
    /// `newlines` (offsets in the block); the bytes after the block in
    /// `buf` hold the heads of its last lines (up to [`HEAD`] bytes each,
    /// as [`Heads`] gives them to the sequential pass).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn read(
        &mut self,
        out: &mut BlockTimes,
        buf: &[u8],
        pre: usize,
        len: usize,
        at: u64,
        first_is_start: bool,
        newlines: &[u32],
    ) {
        out.starts.clear();
        out.times.clear();
        out.years.clear();
        out.ordered.clear();
        out.runs.clear();
        out.conflict = None;
        (out.next, out.next_ordered, out.year_at) = (0, 0, 0);
        let mut year = None;
        out.starts.reserve(newlines.len() + 1);
        out.times.reserve(newlines.len() + 1);
        // Most lines: a stamp of the minute and year of the line before,
        // read the short way (asked for again after every other line).
        let mut q = self.stamper.quick().filter(|q| Some(q.year) == year);
        let mut one = |r: &mut BlockReader,
                       out: &mut BlockTimes,
                       q: &mut Option<QuickIso>,
                       s: usize,
                       head: &[u8],
                       line: u64| {
            let start = at + (s - pre) as u64;
            match q.as_ref().and_then(|q| q.read(buf, s, head)) {
                Some(t) => {
                    out.starts.push(start);
                    out.times.push(t);
                }
                None => {
                    r.read_line(out, start, head, line, &mut year);
                    *q = r.stamper.quick().filter(|q| Some(q.year) == year);
                }
            }
        };
        // Each line's end is the next newline of the one pass over the
        // block (not a search of its head again); the first line starts
        // at the block's start if a line does, the others after a
        // newline, and the last that starts in the block may end after
        // it.
        let mut line = 0u64;
        if first_is_start && let Some(&e) = newlines.first() {
            one(
                self,
                out,
                &mut q,
                pre,
                &buf[pre..(pre + e as usize + 1).min(pre + HEAD)],
                line,
            );
            line += 1;
        }
        // The lines between newlines: runs of them the short way, in one
        // loop, each line that does not take it the long way.
        let mut k = 0;
        while k + 1 < newlines.len() {
            if let Some(q) = q.as_ref() {
                let n = q.read_between(buf, pre, &newlines[k..], HEAD, |s, t| {
                    out.starts.push(at + (s - pre) as u64);
                    out.times.push(t);
                });
                k += n;
                line += n as u64;
                if k + 1 == newlines.len() {
                    break;
                }
            }
            let (s, end) = (
                pre + newlines[k] as usize + 1,
                pre + newlines[k + 1] as usize + 1,
            );
            one(self, out, &mut q, s, &buf[s..end.min(s + HEAD)], line);
            line += 1;
            k += 1;
        }
        // The line that starts in the block and ends after it: its head
        // reaches into the bytes after the block.
        let open = match newlines.last() {
            Some(&e) => (e as usize + 1 < len).then_some(pre + e as usize + 1),
            None => first_is_start.then_some(pre),
        };
        if let Some(s) = open {
            let limit = buf.len().min(s + HEAD);
            let head = match memchr::memchr(b'\n', &buf[s..limit]) {
                Some(k) => &buf[s..s + k + 1],
                None => &buf[s..limit],
            };
            one(self, out, &mut q, s, head, line);
            line += 1;
        }
        out.lines = line;
        out.open = open.map(|s| at + (s - pre) as u64);
        // What the stamps look like, in runs between the lines read in
        // order; a run's first outliers' lines are found where there are
        // any (the newlines before their start, less the one before the
        // block's first line if it began in an earlier block).
        let line_of = |entry: usize| {
            let rel = (out.starts[entry] - at) as usize;
            newlines.partition_point(|&e| (e as usize) < rel) as u64 - u64::from(!first_is_start)
        };
        out.heads.clear();
        out.heads.extend(out.starts.iter().step_by(CHUNK));
        out.chunks.clear();
        if out.ordered.is_empty() {
            chunk_bounds(&out.times, &mut out.chunks);
        }
        let mut from = 0;
        for k in 0..=out.ordered.len() {
            let to = out
                .ordered
                .get(k)
                .map_or(out.times.len(), |o| o.entry as usize);
            // (With no line read in order, one run: the block's.)
            let bounds = if out.ordered.is_empty() {
                out.chunks.iter().fold(NO_SPAN, |a, &c| join(a, c))
            } else {
                span_of(&out.times[from..to], NO_SPAN)
            };
            let run = Sense::over(&out.times[from..to], bounds, self.mtime, |e| {
                line_of(from + e)
            });
            out.runs.push(run);
            from = to + 1;
        }
    }

    /// Line `line` of the block, at `start`, that the short way did not
    /// read (or read in another year than the line before).
    #[inline(never)]
    fn read_line(
        &mut self,
        out: &mut BlockTimes,
        start: u64,
        head: &[u8],
        line: u64,
        year: &mut Option<i32>,
    ) {
        match self.stamper.stamp_alone(head) {
            Some(None) => {}
            Some(Some((t, y))) => {
                if *year != Some(y) {
                    out.years.push((out.starts.len() as u32, y));
                    *year = Some(y);
                }
                out.starts.push(start);
                out.times.push(t);
            }
            None => {
                out.ordered.push(Ordered {
                    entry: out.starts.len() as u32,
                    line,
                    head: head.to_vec(),
                });
                out.starts.push(start);
                out.times.push(0);
                // Its year is read in order; the next stamp's is written.
                *year = None;
            }
        }
        if let Some(c) = self.stamper.take_zone_conflict()
            && out.conflict.is_none()
        {
            out.conflict = Some((line, c));
        }
    }
}

/// What a [`TimeThread`] is told, in order.
enum Msg {
    /// Checkpoints found, then text at an offset.
    Feed(Vec<u64>, Vec<u8>, u64),
    /// Checkpoints found after the last text.
    Bounds(Vec<u64>),
    /// Remember the state here ([`TimeBuilder::mark`]).
    Mark,
    /// Go back to the state remembered last ([`TimeBuilder::rewind`]).
    Rewind,
}

/// A time pass on its own thread, for a build whose text comes from a
/// decoder (gzip): the decoding thread sends it, in order, the checkpoints
/// and copies of the text (a few buffers go round), and marks and rewinds;
/// the stamps are read meanwhile on the other core. [`TimeThread::finish`]
/// gives the builder back.
pub(crate) struct TimeThread {
    tx: Option<std::sync::mpsc::SyncSender<Msg>>,
    free: std::sync::mpsc::Receiver<Vec<u8>>,
    buffers: usize,
    bounds: Vec<u64>,
    worker: Option<std::thread::JoinHandle<Result<TimeBuilder>>>,
}

/// Text buffers a [`TimeThread`] keeps going round.
const THREAD_BUFFERS: usize = 6;

impl TimeThread {
    /// The time pass of an extension on its own thread, from `start`, and
    /// the old entries it keeps (both `None` without a time index).
    pub(crate) fn resume<'a>(
        time: Option<(TimeStart, super::OldTimes<'a>)>,
    ) -> (Option<TimeThread>, Option<super::OldTimes<'a>>) {
        match time {
            Some((start, old)) => (Some(TimeThread::spawn(TimeBuilder::new(start))), Some(old)),
            None => (None, None),
        }
    }

    /// Starts the pass of `builder` on a new thread.
    pub(crate) fn spawn(mut builder: TimeBuilder) -> TimeThread {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Msg>(THREAD_BUFFERS);
        let (free_tx, free) = std::sync::mpsc::channel::<Vec<u8>>();
        let worker = std::thread::spawn(move || -> Result<TimeBuilder> {
            let mut mark = builder.mark();
            for msg in rx {
                match msg {
                    Msg::Feed(bounds, buf, base) => {
                        for b in bounds {
                            builder.boundary(b);
                        }
                        builder.feed(&buf, base)?;
                        let _ = free_tx.send(buf);
                    }
                    Msg::Bounds(bounds) => {
                        for b in bounds {
                            builder.boundary(b);
                        }
                    }
                    Msg::Mark => mark = builder.mark(),
                    Msg::Rewind => builder.rewind(&mark),
                }
            }
            Ok(builder)
        });
        TimeThread {
            tx: Some(tx),
            free,
            buffers: 0,
            bounds: Vec::new(),
            worker: Some(worker),
        }
    }

    /// A checkpoint: a span starts there.
    pub(crate) fn boundary(&mut self, offset: u64) {
        self.bounds.push(offset);
    }

    /// Sends `msg`; when the pass has stopped (it failed), its error.
    fn send(&mut self, msg: Msg) -> Result<()> {
        let tx = self.tx.as_ref().expect("not finished");
        if tx.send(msg).is_err() {
            return Err(self.stopped());
        }
        Ok(())
    }

    /// The error of a pass that stopped early.
    fn stopped(&mut self) -> Error {
        self.tx = None;
        match self.worker.take().map(|w| w.join()) {
            Some(Ok(Err(e))) => e,
            Some(Err(p)) => std::panic::resume_unwind(p),
            _ => Error::InvalidArgument("the time pass stopped early".into()),
        }
    }

    /// Text `buf` at offset `base`, in order, without gaps.
    pub(crate) fn feed(&mut self, buf: &[u8], base: u64) -> Result<()> {
        let mut b = match self.free.try_recv() {
            Ok(b) => b,
            Err(_) if self.buffers < THREAD_BUFFERS => {
                self.buffers += 1;
                Vec::new()
            }
            Err(_) => match self.free.recv() {
                Ok(b) => b,
                Err(_) => return Err(self.stopped()),
            },
        };
        b.clear();
        b.extend_from_slice(buf);
        let bounds = std::mem::take(&mut self.bounds);
        self.send(Msg::Feed(bounds, b, base))
    }

    fn flush_bounds(&mut self) -> Result<()> {
        if self.bounds.is_empty() {
            return Ok(());
        }
        let bounds = std::mem::take(&mut self.bounds);
        self.send(Msg::Bounds(bounds))
    }

    /// Remembers the state after everything sent so far.
    pub(crate) fn mark(&mut self) -> Result<()> {
        self.flush_bounds()?;
        self.send(Msg::Mark)
    }

    /// Forgets everything sent after the last mark.
    pub(crate) fn rewind(&mut self) -> Result<()> {
        self.bounds.clear();
        self.send(Msg::Rewind)
    }

    /// Waits for the pass to read everything sent; the builder.
    pub(crate) fn finish(mut self) -> Result<TimeBuilder> {
        self.flush_bounds()?;
        self.tx = None;
        match self.worker.take().expect("not finished").join() {
            Ok(r) => r,
            Err(p) => std::panic::resume_unwind(p),
        }
    }
}

impl Drop for TimeThread {
    fn drop(&mut self) {
        // An abandoned pass (an error elsewhere): let its thread end.
        self.tx = None;
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_bounds_are_each_chunks_least_and_greatest() {
        let mut rng = 7u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        for len in [0, 1, 31, 32, 33, 64, 100, 1000] {
            // Times near each other, far apart, and at the ends of the
            // range (where a difference would overflow).
            let times: Vec<Nanos> = (0..len)
                .map(|k| match next() % 4 {
                    0 => k as Nanos * 1000,
                    1 => next() as Nanos,
                    2 => [Nanos::MIN, Nanos::MAX, -1, 0][(next() % 4) as usize],
                    _ => -(next() as Nanos % 1_000_000),
                })
                .collect();
            let want: Vec<(Nanos, Nanos)> = times
                .chunks(CHUNK)
                .map(|c| (*c.iter().min().unwrap(), *c.iter().max().unwrap()))
                .collect();
            let mut got = Vec::new();
            chunk_bounds(&times, &mut got);
            assert_eq!(got, want, "{len}");
            let mut got = Vec::new();
            chunks_of(&times, &mut got);
            assert_eq!(got, want, "{len}, portable");
        }
    }

    #[test]
    fn first_at_is_the_partition_point() {
        let starts: Vec<u64> = (0..300u64).map(|k| k * 3 + k % 2).collect();
        let mut b = BlockTimes {
            heads: starts.iter().copied().step_by(CHUNK).collect(),
            starts,
            ..BlockTimes::default()
        };
        for (from, stop) in [
            (0, 300),
            (0, 0),
            (5, 5),
            (1, 31),
            (31, 33),
            (32, 64),
            (7, 250),
        ] {
            for v in 0..=1000 {
                let want = from + b.starts[from..stop].partition_point(|&x| x < v);
                assert_eq!(b.first_at(from, stop, v), want, "{from}..{stop} {v}");
            }
        }
        b.heads.clear();
        b.starts.clear();
        assert_eq!(b.first_at(0, 0, 5), 0);
    }

    #[test]
    fn below_is_the_partition_point() {
        let starts: Vec<u64> = (0..300u64).map(|k| k * 3 + k % 2).collect();
        for len in [0, 1, 2, 3, 7, 64, 300] {
            let s = &starts[..len];
            for v in 0..=1000 {
                assert_eq!(below(s, v), s.partition_point(|&x| x < v), "{len} {v}");
            }
        }
    }

    #[test]
    fn implausible_names_the_first_early_stamp() {
        const NS: Nanos = 1_000_000_000;
        let mut s = Sense::new(0, 1_700_000_000);
        for t in [1_700_000_000, 100_000_010, 100_000_011, 100_000_060] {
            s.stamp(t * NS);
            s.line += 1;
        }
        let why = s.implausible().unwrap();
        // 100000010 s after the epoch, as `date -u -d @100000010` writes it.
        assert!(
            why.starts_with("75% of its 4 stamps read before 1980 (line 2: 1973-03-03T09:46:50Z)"),
            "{why}"
        );
    }
}
