//! Splitting a source into line-range partitions that engines (Spark,
//! Dask, any pool of workers) read independently: the planner of spec
//! `format-spec/partitions-v1.md`.
//!
//! A plan reads only the sidecar: the checkpoints, the access points or
//! frames, and the time index. Partition boundaries are checkpoints, each
//! the first at or after a point where decoding can start (a gzip access
//! point, a zstd frame; any checkpoint of a plain file), so a worker that
//! reads a partition decodes from that point, never from the start of the
//! source: at most one checkpoint spacing of text before its first line.
//! A partition is closed at the first such boundary once it holds the
//! target's bytes of text, so a compressed source never splits finer than
//! its access points.

use super::Index;
use crate::error::{Error, Result};
use crate::format::{self, PageKind};
use crate::ingest::time::{NO_MAX, NO_MIN};
use crate::time::{Nanos, undigest};
use crate::tree::Checkpoint;
use std::ops::Range;

/// One partition of a plan ([`Index::partitions`]): lines `lines`, whose
/// text is bytes `text` of the source's text and which a reader decodes
/// from bytes `source` of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    /// Its lines (0-based, half-open); never empty.
    pub lines: Range<u64>,
    /// Their bytes in the text (for a compressed source, the uncompressed
    /// text), from the first line's start to the end of the last line.
    pub text: Range<u64>,
    /// The bytes of the file a reader of these lines reads: from the
    /// access point or frame at or before `text.start` to the first at or
    /// after `text.end` (equal to `text` for a plain file).
    pub source: Range<u64>,
    /// Bounds on the times of its lines when the sidecar has a time index
    /// and some line has a time: every line's time `t` (its stamp's, or the
    /// last stamp's before it; [`Index::line_time`]) has `lo <= t <= hi`.
    /// Bounds, not extremes: exact for a log written in time order, wider
    /// for one whose times go back.
    pub time: Option<(Nanos, Nanos)>,
}

/// Where decoding can start, for choosing boundaries: text offsets in
/// increasing order with the file offset decoding from there reads first.
/// Empty for a plain file, where every checkpoint is such a point.
struct Starts {
    points: Vec<(u64, u64)>,
}

impl Starts {
    /// The file offset to read from for text at `text`: the last point at
    /// or before it.
    fn file_before(&self, text: u64) -> u64 {
        match self.points.partition_point(|p| p.0 <= text) {
            0 => text,
            i => self.points[i - 1].1,
        }
    }

    /// The file offset where text `text` is sure to have been decoded: the
    /// first point at or after it, or the file's end.
    fn file_after(&self, text: u64, file_len: u64) -> u64 {
        let i = self.points.partition_point(|p| p.0 < text);
        self.points.get(i).map_or(file_len, |p| p.1)
    }

    /// Whether a point lies in `(prev, at]`: `at` is then the first
    /// checkpoint at or after it.
    fn follows_point(&self, prev: u64, at: u64) -> bool {
        let i = self.points.partition_point(|p| p.0 <= prev);
        self.points.get(i).is_some_and(|p| p.0 <= at)
    }
}

impl Index {
    /// Splits lines `lines` (clamped to the line count) into partitions of
    /// about `target_bytes` of text each (at least one checkpoint span, and
    /// for a compressed source at least one access point's or frame's
    /// span), in order. Every line of the range is in exactly one
    /// partition and no line is split; boundaries inside the range are
    /// checkpoints that follow a point where decoding starts. Reads only
    /// the sidecar, but for a range whose ends are not checkpoints (one
    /// line lookup each). An empty range gives no partition.
    pub fn partitions(&self, lines: Range<u64>, target_bytes: u64) -> Result<Vec<Partition>> {
        self.check_described()?;
        if let Some(e) = self.damaged_error() {
            return Err(e);
        }
        let count = self.line_count();
        let (first, end) = (lines.start.min(count), lines.end.min(count));
        if first >= end {
            return Ok(Vec::new());
        }
        let target = target_bytes.max(1);
        let starts = self.decode_starts()?;
        let plain = starts.points.is_empty();
        let text_len = self.source_len();
        let file_len = if plain {
            text_len
        } else {
            self.sb.fingerprint.size
        };
        // The boundaries: each partition's first line and its offset, then
        // the range's end. The walk starts at the leaf holding the range's
        // first line.
        let first_cp = self.checkpoint_for_line(first)?;
        let start_at = if first_cp.line == first {
            first_cp.offset
        } else {
            self.line_start(first)?
        };
        let end_at = if end == count {
            text_len
        } else {
            self.line_start(end)?
        };
        let mut cuts = vec![Checkpoint {
            line: first,
            offset: start_at,
        }];
        let mut prev_offset = first_cp.offset;
        // A sidecar without the head-first layout (format 1.0, 1.1) may
        // interleave internal nodes with its leaves: walked from the start.
        let from = if self.sb.head_first() {
            self.checkpoint_position(first_cp)?
        } else {
            0
        };
        self.each_checkpoint(from, &mut |cp| {
            if cp.line <= first {
                prev_offset = cp.offset;
                return Ok(true);
            }
            if cp.line >= end {
                return Ok(false);
            }
            let open = cuts.last().map_or(start_at, |c| c.offset);
            let aligned = plain || starts.follows_point(prev_offset, cp.offset);
            if aligned && cp.offset - open >= target {
                cuts.push(cp);
            }
            prev_offset = cp.offset;
            Ok(true)
        })?;
        let timed = self.has_time_index();
        let ti = if timed {
            Some(self.time_index()?)
        } else {
            None
        };
        let mut out = Vec::with_capacity(cuts.len());
        for (i, &cp) in cuts.iter().enumerate() {
            let (line_end, text_end) = match cuts.get(i + 1) {
                Some(next) => (next.line, next.offset),
                None => (end, end_at),
            };
            let time = match &ti {
                None => None,
                Some(ti) => {
                    // Spans (checkpoint positions) the lines lie in: from
                    // the one holding the first line to the one holding
                    // the last.
                    let ka = self.checkpoint_position(self.checkpoint_for_line(cp.line)?)?;
                    let kb = self.checkpoint_position(self.checkpoint_for_line(line_end - 1)?)?;
                    let lo = self.time_entry(ti, ka)?.1;
                    let hi = self.time_entry(ti, kb)?.0;
                    (hi != NO_MAX && lo != NO_MIN).then(|| (undigest(lo), undigest(hi)))
                }
            };
            out.push(Partition {
                lines: cp.line..line_end,
                text: cp.offset..text_end,
                source: if plain {
                    cp.offset..text_end
                } else {
                    starts.file_before(cp.offset)..starts.file_after(text_end, file_len)
                },
                time,
            });
        }
        Ok(out)
    }

    /// Where decoding can start in a compressed source; empty for a plain
    /// one.
    fn decode_starts(&self) -> Result<Starts> {
        let points = if self.sb.source_kind == format::SOURCE_KIND_PLAIN {
            Vec::new()
        } else {
            self.seek_points()?
        };
        for w in points.windows(2) {
            if w[1].0 < w[0].0 || w[1].1 < w[0].1 {
                return Err(Error::corrupt(
                    self.sidecar_path(),
                    0,
                    "access points or frames out of order",
                ));
            }
        }
        Ok(Starts { points })
    }

    /// Calls `f(checkpoint)` for the checkpoints in order from position
    /// `from` (0-based), leaf by leaf (one leaf in memory at a time),
    /// until it returns false. Head-first leaves are contiguous and full
    /// but the last, so position `from` lies in leaf `from /
    /// capacity`; other layouts are walked from their first leaf (`from`
    /// must be 0), past the internal nodes among the leaves.
    fn each_checkpoint(
        &self,
        from: u64,
        f: &mut dyn FnMut(Checkpoint) -> Result<bool>,
    ) -> Result<()> {
        let cap = format::leaf_capacity(self.sb.page_size) as u64;
        let first = self.sb.first_leaf as u64 + from / cap;
        let mut skip = (from % cap) as usize;
        for id in first..=self.sb.last_leaf as u64 {
            let page = self.cache.read_uncached(id as u32)?;
            let view = page.view();
            if view.kind != PageKind::Leaf {
                if self.sb.head_first() {
                    return Err(Error::corrupt(self.sidecar_path(), id, "a leaf expected"));
                }
                continue;
            }
            for (line, offset, _) in view.sorted_entries().into_iter().skip(skip) {
                if !f(Checkpoint { line, offset })? {
                    return Ok(());
                }
            }
            skip = 0;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{OpenOptions, TimeOptions};
    use std::io::Write;

    /// Lines of varied lengths with ISO stamps one second apart.
    fn log(lines: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for i in 0..lines {
            let pad = "x".repeat((i * 37) % 300);
            writeln!(
                out,
                "2026-11-20T{:02}:{:02}:{:02}Z line {i} {pad}",
                (i / 3600) % 24,
                (i / 60) % 60,
                i % 60
            )
            .unwrap();
        }
        out
    }

    /// Checks a plan against the text: contiguous, covering, boundaries
    /// at line starts, text ranges equal to the lines' bytes.
    fn check(text: &[u8], parts: &[Partition], lines: Range<u64>) {
        let starts: Vec<u64> = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text).map(|p| p as u64 + 1))
            .filter(|&p| (p as usize) < text.len())
            .collect();
        let line_start = |l: u64| starts.get(l as usize).copied().unwrap_or(text.len() as u64);
        assert_eq!(parts.first().unwrap().lines.start, lines.start);
        assert_eq!(parts.last().unwrap().lines.end, lines.end);
        for w in parts.windows(2) {
            assert_eq!(w[0].lines.end, w[1].lines.start);
            assert_eq!(w[0].text.end, w[1].text.start);
        }
        for p in parts {
            assert!(!p.lines.is_empty());
            assert_eq!(p.text.start, line_start(p.lines.start));
            assert_eq!(p.text.end, line_start(p.lines.end));
        }
    }

    #[test]
    fn a_plain_plan_covers_every_line_once_with_time_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("app.log");
        let text = log(20_000);
        std::fs::write(&path, &text).unwrap();
        let index = OpenOptions::new()
            .spacing(4096)
            .time(TimeOptions {
                format: None,
                tz: Some("UTC".into()),
            })
            .open(&path)
            .unwrap()
            .index;
        let n = index.line_count();
        let parts = index.partitions(0..n, 100_000).unwrap();
        assert!(parts.len() > 10, "{} partitions", parts.len());
        check(&text, &parts, 0..n);
        for p in &parts {
            assert!(p.text.end - p.text.start >= 100_000 || p.lines.end == n);
            assert_eq!(p.source, p.text);
            let (lo, hi) = p.time.unwrap();
            let mut times = Vec::new();
            index.line_times(p.lines.clone(), &mut times).unwrap();
            for t in times {
                let t = t.unwrap();
                assert!(lo <= t && t <= hi);
            }
        }
        // A range inside: ends that are not checkpoints.
        let parts = index.partitions(1234..17_777, 100_000).unwrap();
        check(&text, &parts, 1234..17_777);
        assert!(index.partitions(5..5, 1).unwrap().is_empty());
        assert!(index.partitions(n..n + 9, 1).unwrap().is_empty());
        // One partition when the target exceeds the text.
        let one = index.partitions(0..u64::MAX, u64::MAX).unwrap();
        assert_eq!(one.len(), 1);
        check(&text, &one, 0..n);
    }

    #[test]
    fn a_gzip_plan_starts_each_partition_after_its_own_access_point() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("app.log.gz");
        let text = log(60_000);
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
        enc.write_all(&text).unwrap();
        std::fs::write(&path, enc.finish().unwrap()).unwrap();
        let index = OpenOptions::new()
            .spacing(8192)
            .span(1 << 18)
            .open(&path)
            .unwrap()
            .index;
        let n = index.line_count();
        let points = index.seek_points().unwrap();
        assert!(points.len() > 8);
        let parts = index.partitions(0..n, 1).unwrap();
        check(&text, &parts, 0..n);
        // The finest plan: one partition per access point span, each
        // beginning at the first checkpoint after its access point.
        assert_eq!(parts.len(), points.len());
        for (p, ap) in parts.iter().zip(&points).skip(1) {
            assert!(p.text.start >= ap.0 && p.text.start - ap.0 <= 8192 + 400);
            assert_eq!(p.source.start, ap.1);
        }
        let file_len = std::fs::metadata(&path).unwrap().len();
        assert_eq!(parts.last().unwrap().source.end, file_len);
        for p in &parts {
            assert!(p.source.start < p.source.end && p.source.end <= file_len);
            assert_eq!(p.time, None);
        }
        let coarse = index.partitions(0..n, 3 << 20).unwrap();
        check(&text, &coarse, 0..n);
        assert!(
            coarse.len() < parts.len() && coarse.len() > 1,
            "{} {}",
            coarse.len(),
            parts.len()
        );
    }
}

#[cfg(test)]
mod batch_tests {
    use crate::{LineBuf, OpenOptions};

    /// Reading every partition in batches gives the text's lines, each
    /// once, in order, for any batch size; a final line without newline
    /// and CRLF lines included.
    #[test]
    fn partitions_read_in_batches_give_the_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.log");
        let mut text = Vec::new();
        for i in 0..5000u32 {
            text.extend_from_slice(
                format!("{i} {}\r\n", "y".repeat((i as usize * 7) % 900)).as_bytes(),
            );
        }
        text.extend_from_slice(b"last line, no newline");
        std::fs::write(&path, &text).unwrap();
        let index = OpenOptions::new().spacing(2048).open(&path).unwrap().index;
        let want: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
        assert_eq!(index.line_count(), want.len() as u64);
        for (target, batch) in [(1u64, 1usize), (50_000, 3000), (1 << 40, 1 << 20)] {
            let mut got: Vec<Vec<u8>> = Vec::new();
            let mut buf = LineBuf::new();
            for p in index.partitions(0..u64::MAX, target).unwrap() {
                let mut b = index.line_batches(p.lines.clone()).unwrap();
                let mut n = 0;
                while b.next(&index, batch, &mut buf).unwrap() {
                    assert_eq!(buf.first_line(), p.lines.start + n);
                    assert_eq!(
                        buf.line_offset(0) as usize,
                        want[..(p.lines.start + n) as usize]
                            .iter()
                            .map(|l| l.len())
                            .sum::<usize>()
                    );
                    n += buf.len() as u64;
                    got.extend((0..buf.len()).map(|i| buf.line_with_terminator(i).to_vec()));
                }
                assert_eq!(n, p.lines.end - p.lines.start);
            }
            assert_eq!(got, want, "target {target}, batch {batch}");
        }
    }
}
