//! Time queries through the time index (spec §12): the first line at or
//! after an instant, and the lines of a time range.
//!
//! A line's time is its stamp's, or for a line without one the time of
//! the stamped line before it; lines before the first stamp have none. The
//! time tree holds, for each span between checkpoints, the running maximum
//! of the spans' latest times up to it and the running minimum of their
//! earliest times from it on. The first line at or after `T` lies in the
//! first span whose running maximum reaches `T`, and the last line before
//! `U` in the last span whose running minimum is below `U`: each query
//! reads one span of the source (about one spacing), whatever the order of
//! the times in the file.

use super::Index;
use crate::error::{Error, Result};
use crate::format::time::TimeHeader;
use crate::format::{PageKind, eytzinger};
use crate::ingest::time::{HEAD, Heads, NO_MAX, NO_MIN, TimeStart};
use crate::io::ReadAt;
use crate::time::{Nanos, TimeFormat, digest, undigest};
use crate::tree::{ByLine, ByOffset, Checkpoint, Column};
use std::ops::Range;
use std::sync::Arc;

/// What the time index says about itself (`lidx info`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeInfo {
    /// The stamp format's name: `iso8601`, `syslog`, `clf`, `epoch-s`,
    /// `epoch-ms` or `strftime:FORMAT`, after `auto:` when it was detected.
    pub format: String,
    /// The time zone stamps without one are read in.
    pub tz: String,
    /// The earliest and latest time of any line (`None`: no line has a
    /// stamp).
    pub range: Option<(Nanos, Nanos)>,
}

/// A loaded time index.
#[derive(Debug)]
pub(crate) struct TimeIndex {
    pub header: TimeHeader,
    pub format: TimeFormat,
}

impl Index {
    /// True when the sidecar holds a time index.
    pub fn has_time_index(&self) -> bool {
        self.sb.has_time_index()
    }

    fn no_time_index(&self) -> Error {
        Error::InvalidArgument(format!(
            "{}: its sidecar has no time index (build one with `lidx index --time`)",
            self.source.path().display()
        ))
    }

    /// The time index, loaded and checked on first use.
    pub(crate) fn time_index(&self) -> Result<Arc<TimeIndex>> {
        if let Some(t) = &*self.time.lock() {
            return Ok(Arc::clone(t));
        }
        if !self.has_time_index() {
            return Err(self.no_time_index());
        }
        let sb = &self.sb;
        let at = sb.time_page;
        let corrupt = |what: String| Error::corrupt(self.sidecar_path(), at as u64, what);
        let mut page = vec![0u8; sb.page_size as usize];
        crate::cache::read_checked(&*self.sidecar_file, at, &mut page)?;
        let header = TimeHeader::decode(&page, at).map_err(corrupt)?;
        let end = sb.nodes_end();
        let cap = crate::format::leaf_capacity(sb.page_size) as u64;
        let h = &header;
        let shape_ok = h.entries == sb.checkpoint_count
            && h.height >= 1
            && h.root_page == at + 1
            && h.first_leaf > at
            && h.last_leaf < end
            && h.first_leaf <= h.last_leaf
            && (h.last_leaf - h.first_leaf + 1) as u64 == h.entries.div_ceil(cap)
            && h.leaf_count == h.last_leaf - h.first_leaf + 1
            && (h.height == 1) == (h.root_page == h.first_leaf)
            && sb.head_first();
        if !shape_ok {
            return Err(corrupt(
                "time header disagrees with the superblock or its tree".into(),
            ));
        }
        let kind = TimeFormat::kind_of(&h.format).map_err(|e| corrupt(e.to_string()))?;
        let format = TimeFormat::new(kind, &h.tz, h.syslog_year)
            .map_err(|e| {
                Error::InvalidArgument(format!(
                    "{}: the time index reads stamps in time zone {:?}, which is unknown here: {e}",
                    self.sidecar_path().display(),
                    h.tz
                ))
            })?
            .with_auto(h.format.starts_with("auto:"));
        let t = Arc::new(TimeIndex { header, format });
        *self.time.lock() = Some(Arc::clone(&t));
        Ok(t)
    }

    /// The time index's format, zone and time range; `None` without one.
    pub fn time_info(&self) -> Result<Option<TimeInfo>> {
        if !self.has_time_index() {
            return Ok(None);
        }
        let ti = self.time_index()?;
        // The first entry's running minimum is the least time; the last
        // entry's running maximum the greatest.
        let lo = self.time_entry(&ti, 0)?.1;
        let hi = self.time_entry(&ti, ti.header.entries - 1)?.0;
        Ok(Some(TimeInfo {
            format: ti.header.format.clone(),
            tz: ti.header.tz.clone(),
            range: (hi != NO_MAX).then(|| (undigest(lo), undigest(hi))),
        }))
    }

    /// Checks every page of the time index: the header (CRC, shape), each
    /// tree page's CRC, kind and level, the head-first order of children
    /// and separators equal to each child's first entry, one entry per
    /// checkpoint, both columns non-decreasing, and that the tree ends
    /// where the next section begins. With `full`, re-reads every span of
    /// the source and checks each entry against the times of its lines
    /// (entry `k` is the maximum of entry `k - 1`'s and span `k`'s latest
    /// time, and the minimum of span `k`'s earliest time and entry
    /// `k + 1`'s; a span's times include the stamp in effect at its start). Returns the number of pages checked.
    pub(crate) fn verify_time(&self, full: bool) -> Result<u64> {
        let ti = self.time_index()?;
        let h = &ti.header;
        let sb = &self.sb;
        let end = sb.nodes_end();
        let corrupt = |id: u32, what: String| Error::corrupt(self.sidecar_path(), id as u64, what);
        if h.last_leaf + 1 != end {
            return Err(corrupt(
                sb.time_page,
                "the time tree does not end where the next section begins".into(),
            ));
        }
        let cache = self.cache();
        // Pages expected in turn (head-first: breadth-first, so a page's
        // expectations are queued before it is reached): level, and the
        // separator its first entry must equal.
        let mut expect = std::collections::VecDeque::new();
        expect.push_back((h.height - 1, None::<(u64, u64)>));
        let mut prev: Option<(u64, u64)> = None;
        let mut count = 0u64;
        for id in h.root_page..=h.last_leaf {
            let page = cache.read_uncached(id)?;
            let v = page.view();
            let Some((level, sep)) = expect.pop_front() else {
                return Err(corrupt(id, "time page reached by no parent".into()));
            };
            let leaf = id >= h.first_leaf;
            if (v.kind == PageKind::Leaf) != leaf || v.level as u32 != level {
                return Err(corrupt(
                    id,
                    format!(
                        "time page of kind {:?} at level {} out of place",
                        v.kind, v.level
                    ),
                ));
            }
            let entries = v.sorted_entries();
            if let Some(sep) = sep
                && (entries[0].0, entries[0].1) != sep
            {
                return Err(corrupt(
                    id,
                    "first time entry differs from the parent's separator".into(),
                ));
            }
            if leaf {
                for &(max, min, _) in &entries {
                    if let Some((pmax, pmin)) = prev
                        && (max < pmax || min < pmin)
                    {
                        return Err(corrupt(id, format!("time entry {count} decreases")));
                    }
                    prev = Some((max, min));
                    count += 1;
                }
            } else {
                let first = id + 1 + expect.len() as u32;
                for (next, &(max, min, child)) in (first..).zip(&entries) {
                    if child != next {
                        return Err(corrupt(
                            id,
                            format!(
                                "time child page {child} where the head-first layout puts page {next}"
                            ),
                        ));
                    }
                    expect.push_back((level - 1, Some((max, min))));
                }
            }
        }
        if !expect.is_empty() || count != h.entries {
            return Err(corrupt(
                sb.time_page,
                "the time tree's entries disagree with its header".into(),
            ));
        }
        if full {
            let mut prev_max = NO_MAX;
            for k in 0..h.entries {
                // A span's extremes include the stamp in effect at its
                // start (§12).
                let (mut lo, mut hi) = match self.in_effect(&ti, k)? {
                    Some((t, _)) => (digest(t), digest(t)),
                    None => (NO_MIN, NO_MAX),
                };
                self.scan_span(&ti, k, &mut |_, t| {
                    if let Some(t) = t {
                        lo = lo.min(digest(t));
                        hi = hi.max(digest(t));
                    }
                    true
                })?;
                let (max, min) = self.time_entry(&ti, k)?;
                let next_min = if k + 1 < h.entries {
                    self.time_entry(&ti, k + 1)?.1
                } else {
                    NO_MIN
                };
                if max != prev_max.max(hi) || min != lo.min(next_min) {
                    return Err(Error::SourceChanged {
                        path: self.source.path().to_path_buf(),
                        what: format!(
                            "the times of span {k} (lines from {}) differ from the time index",
                            self.checkpoint_at(k)?.line + 1
                        ),
                    });
                }
                prev_max = max;
            }
        }
        Ok((h.last_leaf - sb.time_page + 1) as u64)
    }

    /// Entry `k` (0-based, in order) of the tree whose leaves start at
    /// page `first_leaf`: its two keys. Head-first leaves are full but the
    /// last, and contiguous, so the entry's page and
    /// place follow from `k`. `what` names the entry in the error.
    fn entry_at(&self, first_leaf: u32, k: u64, what: &str) -> Result<(u64, u64)> {
        let cap = crate::format::leaf_capacity(self.sb.page_size) as u64;
        let id = first_leaf + (k / cap) as u32;
        let e = self.cache.with_page(id, |p| {
            let v = p.view();
            (v.kind == PageKind::Leaf && (k % cap) < v.len() as u64).then(|| {
                let e = eytzinger::stored_index(v.len(), (k % cap) as usize);
                (u64::from_le(v.lines[e]), u64::from_le(v.offsets[e]))
            })
        })?;
        e.ok_or_else(|| {
            Error::corrupt(
                self.sidecar_path(),
                id as u64,
                format!("{what} {k} missing"),
            )
        })
    }

    /// Entry `k` of the time tree: (running maximum, running minimum).
    pub(super) fn time_entry(&self, ti: &TimeIndex, k: u64) -> Result<(u64, u64)> {
        self.entry_at(ti.header.first_leaf, k, "time entry")
    }

    /// Checkpoint `k` (0-based, in order) of the line tree.
    fn checkpoint_at(&self, k: u64) -> Result<Checkpoint> {
        let (line, offset) = self.entry_at(self.sb.first_leaf, k, "checkpoint")?;
        Ok(Checkpoint { line, offset })
    }

    /// The position of the last time entry whose key in column `C` is at
    /// most `target`; `None` when every key is greater.
    fn time_find<C: Column>(&self, ti: &TimeIndex, target: u64) -> Result<Option<u64>> {
        let h = &ti.header;
        let mut id = h.root_page;
        let mut level = h.height - 1;
        loop {
            enum Step {
                Child(u32),
                Leaf(usize, usize),
                Below,
                Bad(String),
            }
            let step = self.cache.with_page(id, |p| {
                let v = p.view();
                if v.level as u32 != level {
                    return Step::Bad(format!("time node at level {} for {level}", v.level));
                }
                match eytzinger::predecessor(C::keys(&v), target) {
                    None => Step::Below,
                    Some(e) if v.kind == PageKind::Leaf => Step::Leaf(e, v.len()),
                    Some(e) => Step::Child(u32::from_le(v.children[e])),
                }
            })?;
            let bad = |what: String| Error::corrupt(self.sidecar_path(), id as u64, what);
            match step {
                Step::Below if id == h.root_page => return Ok(None),
                Step::Below => return Err(bad("no key where the parent promised one".into())),
                Step::Bad(what) => return Err(bad(what)),
                Step::Child(c) => {
                    if c <= id || c > h.last_leaf || level == 0 {
                        return Err(bad(format!("time child page {c} out of place")));
                    }
                    id = c;
                    level -= 1;
                }
                Step::Leaf(e, n) => {
                    if id < h.first_leaf || id > h.last_leaf {
                        return Err(bad("time leaf outside its range".into()));
                    }
                    let cap = crate::format::leaf_capacity(self.sb.page_size) as u64;
                    let k = (id - h.first_leaf) as u64 * cap + eytzinger::rank(n, e) as u64;
                    return Ok(Some(k));
                }
            }
        }
    }

    /// The lines of span `k`: its first line and byte range.
    fn span(&self, ti: &TimeIndex, k: u64) -> Result<(u64, Range<u64>)> {
        let cp = self.checkpoint_at(k)?;
        let end = if k + 1 < ti.header.entries {
            self.checkpoint_at(k + 1)?.offset
        } else {
            self.source_len()
        };
        Ok((cp.line, cp.offset..end))
    }

    /// The stamp in effect at the start of span `k` (the last stamp before
    /// it) and its wall-clock year, found by reading back from there.
    fn in_effect(&self, ti: &TimeIndex, k: u64) -> Result<Option<(Nanos, i32)>> {
        if k == 0 || self.time_entry(ti, k - 1)?.0 == NO_MAX {
            return Ok(None);
        }
        let years = &ti.header.years;
        let year = match years.partition_point(|&(s, _)| s <= k) {
            0 => ti.format.syslog_year(),
            i => years[i - 1].1,
        };
        let start = self.checkpoint_at(k)?.offset;
        let mut stamper = ti.format.stamper();
        let mut head = vec![0u8; HEAD];
        let mut buf = self.take_buffer();
        // Lines are read from the last before `start` back; `end` is where
        // the line being looked for ends.
        let mut end = start;
        let result = 'outer: loop {
            if end == 0 {
                break Ok(None);
            }
            let lo = end.saturating_sub(buf.len() as u64);
            let chunk = &mut buf[..(end - lo) as usize];
            let n = self.source.read_full_at(chunk, lo)?;
            if n != chunk.len() {
                break Err(self.stale_source("source shorter than indexed"));
            }
            // The line ending at `end` starts after the last newline before
            // `end - 1` (its own newline).
            let mut stop = chunk.len() - 1;
            loop {
                let line_start = match memchr::memrchr(b'\n', &chunk[..stop]) {
                    Some(p) => lo + p as u64 + 1,
                    None if lo == 0 => 0,
                    None => {
                        // The line starts before this chunk: read further back.
                        end = lo + stop as u64 + 1;
                        continue 'outer;
                    }
                };
                let len = (end - line_start).min(HEAD as u64) as usize;
                let got = self.source.read_full_at(&mut head[..len], line_start)?;
                if let Some(t) = stamper.stamp_in_year(&head[..got], year) {
                    break 'outer Ok(Some((t, year)));
                }
                if line_start == 0 {
                    break 'outer Ok(None);
                }
                end = line_start;
                if line_start == lo {
                    continue 'outer;
                }
                stop = (line_start - lo) as usize - 1;
            }
        };
        self.give_buffer(buf);
        result
    }

    /// Reads the lines of span `k` with their times, calling `f(line,
    /// time)` in order until it returns false.
    fn scan_span(
        &self,
        ti: &TimeIndex,
        k: u64,
        f: &mut dyn FnMut(u64, Option<Nanos>) -> bool,
    ) -> Result<()> {
        let (first, range) = self.span(ti, k)?;
        let mut stamper = ti.format.stamper();
        if let Some((t, y)) = self.in_effect(ti, k)? {
            stamper.anchor(t, y);
        }
        self.source.will_need(range.clone());
        let mut heads = Heads::new(range.start);
        let mut line = first;
        let mut go = true;
        let mut each = |_: u64, head: &[u8]| {
            if go {
                stamper.stamp(head);
                go = f(line, stamper.last());
                line += 1;
            }
            Ok(())
        };
        let mut buf = self.take_buffer();
        let mut at = range.start;
        let result = loop {
            if at >= range.end {
                break heads.finish(range.end, &mut each);
            }
            let want = buf.len().min((range.end - at) as usize);
            let n = match self.source.read_full_at(&mut buf[..want], at) {
                Ok(n) if n == want => n,
                Ok(_) => break Err(self.stale_source("source shorter than indexed")),
                Err(e) => break Err(e),
            };
            if let Err(e) = heads.feed(&buf[..n], at, &mut each) {
                break Err(e);
            }
            at += n as u64;
        };
        self.give_buffer(buf);
        result
    }

    /// The number (0-based) of the first line at or after instant `t`, or
    /// the line count when no line is. Lines before the first stamp have
    /// no time and are never at or after anything.
    pub fn line_at_time(&self, t: Nanos) -> Result<u64> {
        self.check_described()?;
        let ti = self.time_index()?;
        let d = digest(t);
        let from = match d.checked_sub(1) {
            None => 0,
            Some(below) => self.time_find::<ByLine>(&ti, below)?.map_or(0, |k| k + 1),
        };
        for k in from..ti.header.entries {
            let mut found = None;
            self.scan_span(&ti, k, &mut |line, time| {
                if time.is_some_and(|x| x >= t) {
                    found = Some(line);
                }
                found.is_none()
            })?;
            if let Some(l) = found {
                return Ok(l);
            }
        }
        Ok(self.line_count())
    }

    /// The number of the last line before instant `u` (its time less than
    /// `u`), or `None` when no line is.
    fn last_line_before(&self, u: Nanos) -> Result<Option<u64>> {
        let ti = self.time_index()?;
        let Some(below) = digest(u).checked_sub(1) else {
            return Ok(None);
        };
        let Some(to) = self.time_find::<ByOffset>(&ti, below)? else {
            return Ok(None);
        };
        for k in (0..=to).rev() {
            let mut found = None;
            self.scan_span(&ti, k, &mut |line, time| {
                if time.is_some_and(|x| x < u) {
                    found = Some(line);
                }
                true
            })?;
            if found.is_some() {
                return Ok(found);
            }
        }
        Ok(None)
    }

    /// The lines of a time range, as a line range: from the first line at
    /// or after `since` (the first line when `None`) to the last line
    /// before `until` (the last line when `None`). When the file's times
    /// are not in order, the lines between those two are all in the range,
    /// whatever their own time (spec §12.4).
    pub fn time_range(&self, since: Option<Nanos>, until: Option<Nanos>) -> Result<Range<u64>> {
        self.check_described()?;
        let start = match since {
            Some(t) => self.line_at_time(t)?,
            None => {
                self.time_index()?;
                0
            }
        };
        let end = match until {
            Some(u) => self.last_line_before(u)?.map_or(0, |l| l + 1),
            None => self.line_count(),
        };
        Ok(start..end.max(start))
    }

    /// The time of line `line` (0-based): its stamp's, or the last stamp's
    /// before it; `None` before the first stamp.
    pub fn line_time(&self, line: u64) -> Result<Option<Nanos>> {
        self.check_described()?;
        let ti = self.time_index()?;
        if line >= self.line_count() {
            return Err(self.past_end_line(line));
        }
        let cp = self.checkpoint_for_line(line)?;
        // The position of that checkpoint: the first with its offset.
        let k = self.checkpoint_position(cp)?;
        let mut time = None;
        self.scan_span(&ti, k, &mut |l, t| {
            if l == line {
                time = Some(t);
            }
            l < line
        })?;
        time.ok_or_else(|| self.stale_source("line not found in its span"))
    }

    /// Appends to `out` the time of each line of `lines` (clamped to the
    /// line count), in order, as [`Index::line_time`] gives it: its stamp's,
    /// or the last stamp's before it (a stack trace's lines take their
    /// record's time); `None` before the first stamp. One pass over the
    /// spans that hold the lines.
    pub fn line_times(&self, lines: Range<u64>, out: &mut Vec<Option<Nanos>>) -> Result<()> {
        self.check_described()?;
        let ti = self.time_index()?;
        let end = lines.end.min(self.line_count());
        if lines.start >= end {
            return Ok(());
        }
        let cp = self.checkpoint_for_line(lines.start)?;
        let mut k = self.checkpoint_position(cp)?;
        let mut next = lines.start;
        while next < end && k < ti.header.entries {
            self.scan_span(&ti, k, &mut |l, t| {
                if l == next && l < end {
                    out.push(t);
                    next = l + 1;
                }
                l + 1 < end
            })?;
            k += 1;
        }
        if next < end {
            return Err(self.stale_source("lines not found in their spans"));
        }
        Ok(())
    }

    /// The position (0-based) of checkpoint `cp` among the checkpoints.
    pub(super) fn checkpoint_position(&self, cp: Checkpoint) -> Result<u64> {
        let cap = crate::format::leaf_capacity(self.sb.page_size) as u64;
        // Descend by line to the leaf, then rank the entry in it.
        let mut id = self.sb.root_page;
        for _ in 0..self.sb.height {
            let next = self.cache.with_page(id, |p| {
                let v = p.view();
                let e = eytzinger::predecessor(v.lines, cp.line)?;
                Some(if v.kind == PageKind::Leaf {
                    (0, eytzinger::rank(v.len(), e))
                } else {
                    (u32::from_le(v.children[e]), 0)
                })
            })?;
            match next {
                Some((0, r)) if id >= self.sb.first_leaf => {
                    return Ok((id - self.sb.first_leaf) as u64 * cap + r as u64);
                }
                Some((c, _)) if c > id => id = c,
                _ => break,
            }
        }
        Err(Error::corrupt(
            self.sidecar_path(),
            id as u64,
            "checkpoint not found where the tree leads",
        ))
    }

    /// How the time index reads stamps, as options for a build that keeps
    /// it (a detected format is detected again); `None` without one.
    pub(crate) fn time_options(&self) -> Result<Option<crate::TimeOptions>> {
        if !self.has_time_index() {
            return Ok(None);
        }
        let ti = self.time_index()?;
        Ok(Some(crate::TimeOptions {
            format: (!ti.format.is_auto()).then(|| ti.format.kind().clone()),
            tz: Some(ti.header.tz.clone()),
        }))
    }

    /// Where the time pass of an extension starts, and the old entries it
    /// keeps: every span but the last, which is scanned again.
    pub(crate) fn time_resume(&self) -> Result<Option<(TimeStart, crate::ingest::OldTimes<'_>)>> {
        if !self.has_time_index() {
            return Ok(None);
        }
        let ti = self.time_index()?;
        let last = ti.header.entries - 1;
        let prev = self.in_effect(&ti, last)?;
        let cp = self.checkpoint_at(last)?;
        let start = TimeStart {
            format: ti.format.clone(),
            offset: cp.offset,
            line: cp.line,
            // An extension checks what it reads for plausibility but for
            // the modification time (it is the appended bytes').
            mtime: 0,
            source: self.source_path().to_path_buf(),
            first_span: last,
            prev,
            years: ti
                .header
                .years
                .iter()
                .copied()
                .filter(|&(k, _)| k <= last)
                .collect(),
        };
        let ti2 = Arc::clone(&ti);
        let old = (0..last).map(move |k| self.time_entry(&ti2, k));
        Ok(Some((start, Box::new(old))))
    }
}
