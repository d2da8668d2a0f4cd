//! The naive model every answer is checked against: the whole file split on
//! `\n`, every question answered by brute force over the split, plus the
//! checkpoint rule of `DESIGN.md` restated over line spans. Nothing here
//! calls into lidx except to *ask* it (in [`check_index`]).

use lidx::search::Kind;
use lidx::{Checkpoint, Index, LineBuf};
use std::ops::Range;

/// Proptest settings: `cases` cases, failures saved next to the test
/// module (`tests/it/NAME.regressions`).
pub fn config(cases: u32) -> proptest::test_runner::Config {
    proptest::test_runner::Config {
        cases,
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("regressions"),
        )),
        ..proptest::test_runner::Config::default()
    }
}

/// A deterministic splitmix64 generator for sampling (tests must be
/// reproducible without proptest's runner).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// Random text: lines of mixed lengths (some much longer than small
/// spacings), `\r`, NUL and invalid UTF-8 bytes, optional final newline.
pub fn random_text(rng: &mut Rng, lines: usize, max_len: u64, trailing_newline: bool) -> Vec<u8> {
    const ALPHABET: &[u8] = b"abc xyz\r\0\xff\xc3\x80\t";
    let mut out = Vec::new();
    for i in 0..lines {
        let len = match rng.below(10) {
            0 => 0,
            1..=6 => rng.below(12),
            7 | 8 => rng.below(max_len.max(1)),
            _ => rng.below(max_len.max(1) * 4),
        };
        for _ in 0..len {
            out.push(ALPHABET[rng.below(ALPHABET.len() as u64) as usize]);
        }
        if i + 1 < lines || trailing_newline {
            out.push(b'\n');
        }
    }
    out
}

/// Line starts of `data`, found by splitting the whole file on `\n`: each
/// piece is a line, except the empty piece after a final `\n` (or of an
/// empty file).
pub fn line_starts(data: &[u8]) -> Vec<u64> {
    let mut pieces: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if pieces.last().is_some_and(|p| p.is_empty()) {
        pieces.pop();
    }
    let mut starts = Vec::with_capacity(pieces.len());
    let mut at = 0u64;
    for p in pieces {
        starts.push(at);
        at += p.len() as u64 + 1;
    }
    starts
}

/// The checkpoint rule of the design, over line spans: line 0 at offset 0 is
/// a checkpoint; after that, a line start is a checkpoint when it lies at
/// least `spacing` bytes after the previous checkpoint, or when its line
/// (terminator included) is longer than `spacing`.
pub fn checkpoints_of(starts: &[u64], len: u64, spacing: u64) -> Vec<Checkpoint> {
    let mut out = vec![Checkpoint { line: 0, offset: 0 }];
    for (l, &start) in starts.iter().enumerate() {
        let end = starts.get(l + 1).copied().unwrap_or(len);
        let last = out.last().expect("line 0 is always there").offset;
        let far = start >= last.saturating_add(spacing);
        let long = end - start > spacing;
        if l > 0 && (far || long) {
            out.push(Checkpoint {
                line: l as u64,
                offset: start,
            });
        }
    }
    out
}

/// The largest checkpoint whose `key` is `<= target`.
pub fn predecessor(cps: &[Checkpoint], target: u64, key: fn(&Checkpoint) -> u64) -> Checkpoint {
    let i = cps.partition_point(|c| key(c) <= target);
    cps[i.max(1) - 1]
}

/// The first line (0-based) whose time is at or after `t`: `--at T`.
/// `times` holds each line's own instant, `None` for a line without one.
pub fn first_at_or_after(times: &[Option<i64>], t: i64) -> Option<usize> {
    times.iter().position(|x| x.is_some_and(|x| x >= t))
}

/// The lines (0-based, inclusive) of `--since S --until U` as the spec
/// defines them: from the first line at or after `S` to the last line
/// before `U`; `None` when that is empty.
pub fn time_range(
    times: &[Option<i64>],
    since: Option<i64>,
    until: Option<i64>,
) -> Option<(usize, usize)> {
    let a = match since {
        Some(t) => first_at_or_after(times, t)?,
        None => 0,
    };
    let b = match until {
        Some(u) => times.iter().rposition(|x| x.is_some_and(|x| x < u))?,
        None => times.len().checked_sub(1)?,
    };
    (a <= b).then_some((a, b))
}

/// Pages a dense bottom-up bulk load needs: (height, page count including
/// the superblock) for `n` checkpoints.
pub fn tree_shape(n: u64, page_size: u32) -> (u32, u32) {
    let leaf = (page_size as u64 - 16) / 16;
    let internal = (page_size as u64 - 16) / 20;
    let mut nodes = n.div_ceil(leaf);
    let mut pages = 1 + nodes;
    let mut height = 1;
    while nodes > 1 {
        nodes = nodes.div_ceil(internal);
        pages += nodes;
        height += 1;
    }
    (height, pages as u32)
}

/// A file as the naive model sees it. `base` shifts every offset: the model
/// of a sparse source holds only its tail bytes (see `big.rs`), and its line
/// 0 may start far before `base`.
#[derive(Debug, Clone)]
pub struct Model {
    /// Bytes from offset `base` on.
    pub data: Vec<u8>,
    pub base: u64,
    /// Every line start (absolute offsets).
    pub starts: Vec<u64>,
}

impl Model {
    pub fn new(data: Vec<u8>) -> Model {
        let starts = line_starts(&data);
        Model {
            data,
            base: 0,
            starts,
        }
    }

    pub fn len(&self) -> u64 {
        self.base + self.data.len() as u64
    }

    pub fn line_count(&self) -> u64 {
        self.starts.len() as u64
    }

    pub fn span(&self, line: u64) -> Range<u64> {
        let l = line as usize;
        self.starts[l]..self.starts.get(l + 1).copied().unwrap_or(self.len())
    }

    pub fn line_at(&self, offset: u64) -> Option<u64> {
        if offset >= self.len() {
            return None;
        }
        Some(self.starts.partition_point(|&s| s <= offset) as u64 - 1)
    }

    /// Bytes `range` (absolute offsets, at or above `base`).
    pub fn bytes(&self, range: Range<u64>) -> &[u8] {
        &self.data[(range.start - self.base) as usize..(range.end - self.base) as usize]
    }

    /// The documented `lines_span`: clamp both ends to the line count; an
    /// empty range sits at the start of its first line, or at the end of
    /// the source when that line does not exist.
    pub fn lines_span(&self, r: &Range<u64>) -> Range<u64> {
        let n = self.line_count();
        let (a, b) = (r.start.min(n), r.end.min(n));
        let at = |l: u64| {
            if l < n {
                self.starts[l as usize]
            } else {
                self.len()
            }
        };
        if a >= b { at(a)..at(a) } else { at(a)..at(b) }
    }

    /// Lines `r` (clamped), each with its terminator.
    pub fn lines(&self, r: &Range<u64>) -> Vec<&[u8]> {
        let n = self.line_count();
        (r.start.min(n)..r.end.min(n))
            .map(|l| self.bytes(self.span(l)))
            .collect()
    }

    /// What `write_lines` must produce: the bytes of the lines, each
    /// prefixed by its 1-based number and `:` when numbered.
    pub fn render(&self, r: &Range<u64>, numbered: bool) -> Vec<u8> {
        let first = r.start.min(self.line_count());
        let mut out = Vec::new();
        for (i, line) in self.lines(r).into_iter().enumerate() {
            if numbered {
                out.extend_from_slice(format!("{}:", first + i as u64 + 1).as_bytes());
            }
            out.extend_from_slice(line);
        }
        out
    }

    pub fn checkpoints(&self, spacing: u64) -> Vec<Checkpoint> {
        checkpoints_of(&self.starts, self.len(), spacing)
    }

    /// Lowest offset worth probing: for a sparse source, offsets inside the
    /// huge first line are skipped (answering them means counting newlines
    /// over gigabytes of filler; `big.rs` probes that case separately).
    pub fn probe_floor(&self) -> u64 {
        if self.base == 0 { 0 } else { self.starts[1] }
    }
}

/// How thoroughly [`check_index`] asks.
#[derive(Debug, Clone, Copy)]
pub struct Depth {
    /// Ask about every line when there are at most this many.
    pub all_lines_up_to: u64,
    /// Ask about every offset when the file has at most this many bytes.
    pub all_offsets_up_to: u64,
    /// Otherwise, this many random samples of each.
    pub samples: u64,
    /// Random line ranges for lines_span / read_lines / write_lines.
    pub ranges: u64,
}

impl Default for Depth {
    fn default() -> Self {
        Depth {
            all_lines_up_to: 4000,
            all_offsets_up_to: 16384,
            samples: 1500,
            ranges: 40,
        }
    }
}

/// Past the end: `OutOfRange`, or for a damaged gzip archive's in-memory
/// index (past the lines before the damage) `Damaged`.
fn is_out_of_range<T: std::fmt::Debug>(r: lidx::Result<T>, index: &Index, what: &str) {
    match (r, index.damage().is_some()) {
        (Err(lidx::Error::OutOfRange { .. }), false) | (Err(lidx::Error::Damaged { .. }), true) => {
        }
        (other, damaged) => {
            panic!("{what}: expected past-the-end (damaged: {damaged}), got {other:?}")
        }
    }
}

/// Asks `index` everything the API answers about lines and offsets and
/// compares each answer with `m`. `spacing` is the spacing the sidecar was
/// built with (the checkpoint list is derived from it). `ctx` names the case
/// in failure messages.
pub fn check_index(index: &Index, m: &Model, spacing: u64, depth: Depth, seed: u64, ctx: &str) {
    let mut rng = Rng::new(seed);
    let n = m.line_count();
    let len = m.len();
    assert_eq!(index.line_count(), n, "{ctx}: line_count");
    assert_eq!(index.source_len(), len, "{ctx}: source_len");
    let cps = m.checkpoints(spacing);
    assert_eq!(
        index.superblock().checkpoint_count,
        cps.len() as u64,
        "{ctx}: checkpoint count"
    );
    assert_eq!(index.superblock().spacing, spacing, "{ctx}: spacing");

    // Lines to ask about: all, or a sample plus the ends and every
    // checkpoint's neighbours.
    let mut lines: Vec<u64> = if n <= depth.all_lines_up_to {
        (0..n).collect()
    } else {
        let mut v: Vec<u64> = (0..depth.samples).map(|_| rng.below(n)).collect();
        v.extend([0, 1, n - 2, n - 1]);
        v
    };
    let cp_sample: Vec<Checkpoint> = if cps.len() as u64 <= depth.all_lines_up_to {
        cps.clone()
    } else {
        (0..depth.samples)
            .map(|_| cps[rng.below(cps.len() as u64) as usize])
            .chain([cps[0], *cps.last().unwrap()])
            .collect()
    };
    for cp in &cp_sample {
        for d in [-1i64, 0, 1] {
            let l = cp.line as i64 + d;
            if l >= 0 && (l as u64) < n {
                lines.push(l as u64);
            }
        }
    }
    for &l in &lines {
        let span = m.span(l);
        assert_eq!(
            index.line_start(l).unwrap(),
            span.start,
            "{ctx}: line_start({l})"
        );
        assert_eq!(index.line_end(l).unwrap(), span.end, "{ctx}: line_end({l})");
        assert_eq!(index.line_span(l).unwrap(), span, "{ctx}: line_span({l})");
        let want = predecessor(&cps, l, |c| c.line);
        let got = index.checkpoint_for_line(l).unwrap();
        assert_eq!(got, want, "{ctx}: checkpoint_for_line({l})");
    }
    for l in [n, n + 1, u64::MAX] {
        is_out_of_range(
            index.line_start(l),
            index,
            &format!("{ctx}: line_start({l})"),
        );
        is_out_of_range(index.line_end(l), index, &format!("{ctx}: line_end({l})"));
        is_out_of_range(index.line_span(l), index, &format!("{ctx}: line_span({l})"));
        assert_eq!(
            index.checkpoint_for_line(l).unwrap(),
            *cps.last().unwrap(),
            "{ctx}: checkpoint_for_line({l}) past the end"
        );
    }

    // Offsets: all, or a sample plus every sampled line's ends and every
    // sampled checkpoint's offset, each +-1.
    let mut offsets: Vec<u64> = if len <= depth.all_offsets_up_to {
        (0..len).collect()
    } else {
        let floor = m.probe_floor();
        let mut v: Vec<u64> = (0..depth.samples)
            .map(|_| floor + rng.below(len - floor))
            .collect();
        v.extend([len - 1]);
        v
    };
    let near = |o: u64, v: &mut Vec<u64>| {
        for x in [o.wrapping_sub(1), o, o + 1] {
            if x >= m.probe_floor() && x < len {
                v.push(x);
            }
        }
    };
    if len > depth.all_offsets_up_to {
        for &l in lines.iter().take(depth.samples as usize) {
            near(m.starts[l as usize], &mut offsets);
        }
    }
    for cp in &cp_sample {
        near(cp.offset, &mut offsets);
    }
    for &o in &offsets {
        assert_eq!(
            index.line_at(o).unwrap(),
            m.line_at(o).unwrap(),
            "{ctx}: line_at({o})"
        );
        let want = predecessor(&cps, o, |c| c.offset);
        let got = index.checkpoint_for_offset(o).unwrap();
        assert_eq!(got, want, "{ctx}: checkpoint_for_offset({o})");
        // The checkpoint is a real line start at or before the target.
        assert!(got.offset <= o, "{ctx}: checkpoint after {o}");
        assert_eq!(m.starts[got.line as usize], got.offset, "{ctx}: fake start");
    }
    for o in [len, len + 1, u64::MAX] {
        is_out_of_range(index.line_at(o), index, &format!("{ctx}: line_at({o})"));
        assert_eq!(
            index.checkpoint_for_offset(o).unwrap(),
            *cps.last().unwrap(),
            "{ctx}: checkpoint_for_offset({o}) past the end"
        );
    }

    // Ranges.
    let mut ranges: Vec<Range<u64>> = vec![
        0..n,
        0..u64::MAX,
        n..n,
        n..u64::MAX,
        u64::MAX - 1..u64::MAX,
        0..0,
        n.saturating_sub(1)..n + 5,
        #[allow(clippy::reversed_empty_ranges)]
        (n / 2 + 1..n / 2),
    ];
    let pick = |rng: &mut Rng| match rng.below(4) {
        0 => rng.below(n + 3),
        1 if !lines.is_empty() => lines[rng.below(lines.len() as u64) as usize],
        _ => {
            let a = lines.first().copied().unwrap_or(0);
            a + rng.below(5)
        }
    };
    for _ in 0..depth.ranges {
        let a = pick(&mut rng);
        let b = if rng.below(3) == 0 {
            pick(&mut rng)
        } else {
            a + rng.below(40)
        };
        ranges.push(a..b);
    }
    let mut buf = LineBuf::new();
    for r in &ranges {
        let span = m.lines_span(r);
        // Skip byte-reading a range that includes a line of several
        // hundred MiB (sparse sources): the span is checked, not the bytes.
        let huge = span.start < m.base;
        assert_eq!(
            index.lines_span(r.clone()).unwrap(),
            span,
            "{ctx}: lines_span({r:?})"
        );
        if huge {
            continue;
        }
        let want = m.lines(r);
        let got = index.read_lines(r.clone(), &mut buf).unwrap();
        assert_eq!(got, want.len(), "{ctx}: read_lines({r:?}) count");
        assert_eq!(buf.len(), want.len(), "{ctx}: LineBuf::len for {r:?}");
        assert_eq!(buf.is_empty(), want.is_empty(), "{ctx}: is_empty {r:?}");
        assert_eq!(buf.first_line(), r.start.min(n), "{ctx}: first_line {r:?}");
        assert_eq!(buf.start_offset(), span.start, "{ctx}: start_offset {r:?}");
        assert_eq!(buf.bytes(), m.bytes(span.clone()), "{ctx}: bytes {r:?}");
        for (i, w) in want.iter().enumerate() {
            assert_eq!(buf.line_with_terminator(i), *w, "{ctx}: {r:?} line {i}");
            let bare = w.strip_suffix(b"\n").unwrap_or(w);
            assert_eq!(buf.line(i), bare, "{ctx}: {r:?} line {i} bare");
        }
        let bare: Vec<&[u8]> = want
            .iter()
            .map(|w| w.strip_suffix(b"\n").unwrap_or(w))
            .collect();
        assert_eq!(buf.iter().collect::<Vec<_>>(), bare, "{ctx}: iter {r:?}");
        for numbered in [false, true] {
            let mut out = Vec::new();
            let count = index.write_lines(r.clone(), numbered, &mut out).unwrap();
            assert_eq!(count, want.len() as u64, "{ctx}: write_lines({r:?}) count");
            assert_eq!(
                out,
                m.render(r, numbered),
                "{ctx}: write_lines({r:?}, numbered={numbered})"
            );
        }
    }
}

/// Every checkpoint stored in a sidecar's leaves, read straight from its
/// pages (superblock fields for the leaf range, [`NodeView`] for entries).
///
/// [`NodeView`]: lidx::format::node::NodeView
pub fn stored_checkpoints(sidecar: &[u8]) -> Vec<Checkpoint> {
    let sb = lidx::format::Superblock::decode(&sidecar[..256]).expect("superblock");
    let ps = sb.page_size as usize;
    let mut out = Vec::new();
    for id in sb.first_leaf..=sb.last_leaf {
        let page = &sidecar[id as usize * ps..(id as usize + 1) * ps];
        let words: Vec<u64> = page
            .chunks(8)
            .map(|c| u64::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        let view = lidx::format::node::NodeView::parse(&words, id).expect("leaf parses");
        if view.kind != lidx::format::PageKind::Leaf {
            continue;
        }
        out.extend(
            view.sorted_entries()
                .into_iter()
                .map(|(line, offset, _)| Checkpoint { line, offset }),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_basics() {
        let m = Model::new(b"ab\n\ncd".to_vec());
        assert_eq!(m.starts, [0, 3, 4]);
        assert_eq!(m.span(2), 4..6);
        assert_eq!(m.line_at(3), Some(1));
        assert_eq!(m.line_at(6), None);
        assert_eq!(Model::new(Vec::new()).line_count(), 0);
        assert_eq!(Model::new(b"\n".to_vec()).starts, [0]);
        assert_eq!(m.render(&(1..9), true), b"2:\n3:cd");
    }

    #[test]
    fn checkpoint_rule_by_hand() {
        // Lines: "aaaaaaaaaa\n" (11 bytes, long), "b\n", "c\n", "d\n", "e"
        let m = Model::new(b"aaaaaaaaaa\nb\nc\nd\ne".to_vec());
        let cps: Vec<(u64, u64)> = m
            .checkpoints(4)
            .iter()
            .map(|c| (c.line, c.offset))
            .collect();
        assert_eq!(cps, [(0, 0), (1, 11), (3, 15)]);
        assert_eq!(tree_shape(31, 512), (1, 2));
        assert_eq!(tree_shape(32, 512), (2, 4));
        assert_eq!(tree_shape(31 * 24 + 1, 512), (3, 1 + 25 + 2 + 1));
    }
}

/// One line as `Index::search` reports it (for comparison with the model).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    pub kind: Kind,
    pub number: u64,
    pub offset: u64,
    pub bytes: Vec<u8>,
}

/// The naive search: each line of `lines` (clamped) alone, without its
/// `\n`; the first `max_count` selected; context within `before`/`after`;
/// past `max_count`, lines of the last after context that would be
/// selected are reported as selected (ripgrep's rule).
pub fn model_search(
    m: &Model,
    lines: std::ops::Range<u64>,
    re: &regex::bytes::Regex,
    o: &lidx::search::ScanOptions,
) -> Vec<SearchHit> {
    let n = m.line_count();
    let r = lines.start.min(n)..lines.end.min(n);
    let text = |l: u64| m.bytes(m.span(l));
    let is_selected = |l: u64| {
        let t = text(l);
        re.is_match(t.strip_suffix(b"\n").unwrap_or(t)) != o.invert
    };
    let selected: Vec<u64> = r
        .clone()
        .filter(|&l| is_selected(l))
        .take(o.max_count.map_or(usize::MAX, |c| c as usize))
        .collect();
    let mut kinds: std::collections::BTreeMap<u64, Kind> = std::collections::BTreeMap::new();
    for &s in &selected {
        let lo = s.saturating_sub(o.before).max(r.start);
        let hi = s.saturating_add(o.after).min(r.end - 1);
        for l in lo..=hi {
            kinds.entry(l).or_insert(Kind::Context);
        }
    }
    for &s in &selected {
        kinds.insert(s, Kind::Match);
    }
    // As ripgrep: once `max_count` lines are selected, a line in the last
    // one's after context that would be selected is reported as selected.
    if let (Some(max), Some(&last)) = (o.max_count, selected.last())
        && selected.len() as u64 == max
    {
        for l in last + 1..=last.saturating_add(o.after).min(r.end - 1) {
            if is_selected(l) {
                kinds.insert(l, Kind::Match);
            }
        }
    }
    kinds
        .into_iter()
        .map(|(l, kind)| SearchHit {
            kind,
            number: l,
            offset: m.span(l).start,
            bytes: text(l).to_vec(),
        })
        .collect()
}
