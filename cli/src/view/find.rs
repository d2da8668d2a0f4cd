//! Finding the lines a pattern matches, in a fixed amount of memory
//! however long the lines are (the library's range search holds a whole
//! line, which for a line of gigabytes is gigabytes).
//!
//! A range of whole lines is read through a buffer of [`WINDOW`] bytes.
//! The whole lines in the buffer are searched at once (the regex runs
//! over the buffer; `^` and `$` match at line boundaries, and no match
//! crosses a `\n`), and from each match the search goes on at the next
//! line, so a line is reported once, with where its first match starts.
//!
//! A line longer than the buffer is searched in windows of [`WINDOW`]
//! bytes that overlap by [`OVERLAP`]: a window takes the matches that end
//! in it (past the previous window's end) and do not start at its first
//! byte (where `^` and `\b` would see a start that is not one), or end at
//! its last byte unless the line ends there. So a match inside such a line
//! is found if it is shorter than [`OVERLAP`]; a longer one (or a regex
//! that looks further around) may be missed there. Once a window matches,
//! the rest of the line is skipped through the index (its end is a
//! lookup).
//!
//! Patterns with `\A` or `\z` mean the start and end of each line: those
//! run line by line, as in `lidx grep`.

use lidx::Index;
use lidx::search::{Chunk, Matcher, MatcherOptions};

/// Bytes searched at once; lines up to this long are matched whole.
pub const WINDOW: usize = 1 << 20;
/// Bytes shared by two windows of one long line.
pub const OVERLAP: usize = 64 << 10;

/// A compiled pattern and how it runs.
#[derive(Debug)]
pub struct Finder {
    pub matcher: Matcher,
    /// Line by line (the pattern has `\A` or `\z`).
    per_line: bool,
}

impl Finder {
    /// Compiles `pattern` with `opts`.
    pub fn new(pattern: &str, opts: &MatcherOptions) -> lidx::Result<Finder> {
        let matcher = Matcher::new(&[pattern.to_string()], opts)?;
        let per_line = !opts.fixed_strings && (pattern.contains("\\A") || pattern.contains("\\z"));
        Ok(Finder { matcher, per_line })
    }

    /// The first match in `line` (its bytes without `\n`), as a start.
    fn first(&self, hay: &[u8]) -> Option<usize> {
        let mut at = None;
        self.matcher.for_each_match(hay, false, |s, _| {
            at = Some(s);
            false
        });
        at
    }
}

/// A line that matches: its number (0-based) and the offset in it of its
/// first match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub line: u64,
    pub byte: u64,
}

/// A fixed buffer over a range of the source, read forward.
struct Reader<'a> {
    index: &'a Index,
    buf: &'a mut Vec<u8>,
    lo: usize,
    hi: usize,
    /// Source offset of `buf[hi]`.
    pos: u64,
    end: u64,
}

impl Reader<'_> {
    fn data(&self) -> &[u8] {
        &self.buf[self.lo..self.hi]
    }

    fn done(&self) -> bool {
        self.pos >= self.end
    }

    fn consume(&mut self, n: usize) {
        self.lo += n;
    }

    /// Moves what is left to the front and reads as much as fits.
    fn fill(&mut self) -> lidx::Result<()> {
        self.buf.copy_within(self.lo..self.hi, 0);
        self.hi -= self.lo;
        self.lo = 0;
        let want = ((self.buf.len() - self.hi) as u64).min(self.end - self.pos) as usize;
        if want == 0 {
            return Ok(());
        }
        let got = self
            .index
            .source()
            .read_full_at(&mut self.buf[self.hi..self.hi + want], self.pos)?;
        if got < want {
            return Err(lidx::Error::SourceChanged {
                path: self.index.source_path().to_path_buf(),
                what: "source shorter than indexed".into(),
            });
        }
        self.hi += got;
        self.pos += got as u64;
        Ok(())
    }

    /// Goes on from source offset `to` (forward), dropping what is held.
    fn skip_to(&mut self, to: u64) {
        self.lo = 0;
        self.hi = 0;
        self.pos = to.min(self.end);
    }
}

/// Calls `hit` for each line of `chunk` that `f` matches, in order, until
/// it returns false. `buf` is the reused buffer (its size stays
/// [`WINDOW`]); `live` is asked between two windows: `Ok(false)` when it
/// said to stop or `hit` did, else `Ok(true)`.
pub fn lines(
    index: &Index,
    f: &Finder,
    chunk: Chunk,
    buf: &mut Vec<u8>,
    live: &dyn Fn() -> bool,
    hit: &mut dyn FnMut(Hit) -> bool,
) -> lidx::Result<bool> {
    buf.resize(WINDOW, 0);
    let mut r = Reader {
        index,
        buf,
        lo: 0,
        hi: 0,
        pos: chunk.start,
        end: chunk.end,
    };
    let mut line = chunk.first_line;
    loop {
        if r.data().len() < WINDOW && !r.done() {
            r.fill()?;
        }
        if r.data().is_empty() {
            return Ok(true);
        }
        if !live() {
            return Ok(false);
        }
        let d = r.data();
        let whole = if r.done() {
            d.len()
        } else {
            memchr::memrchr(b'\n', d).map_or(0, |k| k + 1)
        };
        if whole > 0 {
            let (lines, go_on) = region(f, &d[..whole], line, hit);
            if !go_on {
                return Ok(false);
            }
            line += lines;
            r.consume(whole);
            continue;
        }
        // A line longer than the buffer.
        if !long_line(index, f, &mut r, line, live, hit)? {
            return Ok(false);
        }
        line += 1;
    }
}

/// Searches `bytes` (whole lines; the last may lack its `\n` at the end
/// of the range), the first of them line `first`. Returns the lines in it
/// and false when `hit` said to stop.
fn region(f: &Finder, bytes: &[u8], first: u64, hit: &mut dyn FnMut(Hit) -> bool) -> (u64, bool) {
    let mut at = 0usize;
    let mut line = first;
    while at < bytes.len() {
        let (start, p) = if f.per_line {
            let le = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |k| at + k);
            match f.first(&bytes[at..le]) {
                Some(s) => (at, at + s),
                None => {
                    line += 1;
                    at = le + 1;
                    continue;
                }
            }
        } else {
            let Some(s) = f.first(&bytes[at..]) else {
                break;
            };
            let p = at + s;
            if p >= bytes.len() && bytes.last() == Some(&b'\n') {
                // An empty match after the last `\n`: no line there.
                break;
            }
            let ls = memchr::memrchr(b'\n', &bytes[at..p]).map_or(at, |k| at + k + 1);
            line += memchr::memchr_iter(b'\n', &bytes[at..ls]).count() as u64;
            (ls, p)
        };
        if !hit(Hit {
            line,
            byte: (p - start) as u64,
        }) {
            return (0, false);
        }
        line += 1;
        at = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |k| start + k + 1);
    }
    let lines = memchr::memchr_iter(b'\n', bytes).count() as u64
        + u64::from(bytes.last().is_some_and(|&b| b != b'\n'));
    (lines, true)
}

/// Searches line `line`, which starts at the reader's first byte and is
/// longer than its buffer, window by window (see the module's doc), and
/// leaves the reader past the line's end. False when `hit` or `live` said
/// to stop.
fn long_line(
    index: &Index,
    f: &Finder,
    r: &mut Reader<'_>,
    line: u64,
    live: &dyn Fn() -> bool,
    hit: &mut dyn FnMut(Hit) -> bool,
) -> lidx::Result<bool> {
    // Offset in the line of the window's first byte, and of the end of
    // the previous window.
    let mut from = 0u64;
    let mut prev_end = 0u64;
    loop {
        let d = r.data();
        let (win, last) = match memchr::memchr(b'\n', d) {
            Some(q) => (&d[..q], true),
            None => (d, r.done()),
        };
        let len = win.len();
        let mut found = None;
        f.matcher.for_each_match(win, false, |s, e| {
            let end = from + e as u64;
            let ok = (from == 0 || s > 0) && end >= prev_end && (last || e < len);
            if ok {
                found = Some(from + s as u64);
            }
            !ok
        });
        if let Some(byte) = found {
            if !hit(Hit { line, byte }) {
                return Ok(false);
            }
            if last {
                let n = (len + 1).min(d.len());
                r.consume(n);
            } else {
                r.skip_to(index.line_end(line)?);
            }
            return Ok(true);
        }
        if last {
            let n = (len + 1).min(d.len());
            r.consume(n);
            return Ok(true);
        }
        if !live() {
            return Ok(false);
        }
        // The next window: the last OVERLAP bytes of this one, then more.
        let keep = OVERLAP.min(len);
        prev_end = from + len as u64;
        from = prev_end - keep as u64;
        r.consume(len - keep);
        r.fill()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naive answer: every line matched whole.
    fn naive(f: &Finder, text: &[u8]) -> Vec<Hit> {
        let mut out = Vec::new();
        for (n, l) in text.split_inclusive(|&b| b == b'\n').enumerate() {
            let l = l.strip_suffix(b"\n").unwrap_or(l);
            if let Some(s) = f.first(l) {
                out.push(Hit {
                    line: n as u64,
                    byte: s as u64,
                });
            }
        }
        out
    }

    fn found(pattern: &str, text: &[u8]) -> (Vec<Hit>, Vec<Hit>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.log");
        std::fs::write(&path, text).unwrap();
        let index = lidx::OpenOptions::new().open(&path).unwrap().index;
        let f = Finder::new(pattern, &MatcherOptions::default()).unwrap();
        let chunk = index.chunk_for_lines(0..index.line_count()).unwrap();
        let mut got = Vec::new();
        let mut buf = Vec::new();
        lines(&index, &f, chunk, &mut buf, &|| true, &mut |h| {
            got.push(h);
            true
        })
        .unwrap();
        assert_eq!(buf.len(), WINDOW, "the buffer does not grow");
        (got, naive(&f, text))
    }

    #[test]
    fn short_lines_as_the_naive_search() {
        let mut text = Vec::new();
        for i in 0..50_000u32 {
            text.extend_from_slice(
                format!("{i:06} {}\n", ["hay", "needle", "x"][(i % 7 % 3) as usize]).as_bytes(),
            );
        }
        text.extend_from_slice(b"last needle without newline");
        for p in [
            "needle",
            "^0001",
            "e$",
            "x*",
            "^$",
            "\\Aneedle",
            "needle\\z",
            "nomatch",
        ] {
            let (got, want) = found(p, &text);
            assert_eq!(got, want, "{p}");
        }
    }

    #[test]
    fn long_lines_in_windows() {
        let mut text = b"short one\n".to_vec();
        // 3.5 windows of x, a match across the first window boundary, one
        // at the end of the line.
        let mut long = vec![b'x'; WINDOW * 7 / 2];
        long[WINDOW - 3..WINDOW + 3].copy_from_slice(b"needle");
        text.extend_from_slice(&long);
        text.extend_from_slice(b"tail\n");
        let mut other = vec![b'y'; WINDOW * 2 + 5];
        other.extend_from_slice(b" end\nafter needle\n");
        text.extend_from_slice(&other);
        for p in [
            "needle", "tail$", "^short", "^x", "end$", "y end", "^after", "zzz",
        ] {
            let (got, want) = found(p, &text);
            assert_eq!(got, want, "{p}");
        }
    }
}
