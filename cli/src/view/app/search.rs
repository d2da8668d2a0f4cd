//! Searches (`/`, `?`, `n`, `N`) and the filter (`&`), as the UI sees
//! them: what is asked of the scanners, what their answers do.

use super::App;
use super::model::Op;
use crate::view::find::{Finder, Hit};
use crate::view::scan::{Found, Job};
use crate::view::store::LINE_CAP;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// Filter chunks kept, and selected lines in them.
pub(super) const FILTER_CHUNKS_KEPT: usize = 4096;
pub(super) const FILTER_LINES_KEPT: usize = 2 << 20;

/// The `&pattern` filter and its cached chunks.
pub(super) struct Filter {
    pub(super) pattern: String,
    pub(super) finder: Arc<Finder>,
    pub(super) chunks: HashMap<u64, Arc<Vec<u64>>>,
    pub(super) order: VecDeque<u64>,
    pub(super) lines_kept: usize,
    pub(super) asked: Option<u64>,
    pub(super) progress: Option<(u64, u64)>,
}

/// The search being run.
pub(super) struct Running {
    pub(super) generation: u64,
    pub(super) backward: bool,
    pub(super) progress: Option<(u64, u64)>,
}

impl App {
    /// The pattern typed after `prompt` (`/`, `?`, `&`), compiled; an
    /// error is said about that pattern (see [`pattern_error`]).
    pub(super) fn compile(&self, pattern: &str, prompt: char) -> Result<Arc<Finder>, String> {
        Finder::new(pattern, &self.mopts)
            .map(Arc::new)
            .map_err(|e| pattern_error(pattern, prompt, &e.to_string()))
    }

    /// The options changed: the search and the filter are compiled again.
    pub(super) fn recompile(&mut self) {
        if let Some((s, _, b)) = self.search.take()
            && let Ok(m) = self.compile(&s, '/')
        {
            self.search = Some((s, m, b));
        }
        if let Some(f) = self.filter.take() {
            let m = self.compile(&f.pattern, '&');
            self.set_filter(m.ok().map(|m| (f.pattern, m)));
        }
    }

    pub(super) fn set_filter(&mut self, f: Option<(String, Arc<Finder>)>) {
        self.filterer.cancel();
        self.pending.clear();
        self.filter = f.map(|(pattern, finder)| Filter {
            pattern,
            finder,
            chunks: HashMap::new(),
            order: VecDeque::new(),
            lines_kept: 0,
            asked: None,
            progress: None,
        });
        self.exec(Op::Settle);
    }

    // ----- search -----------------------------------------------------------

    pub(super) fn start_search(&mut self, backward: bool) {
        let Some(index) = self.index.clone() else {
            return;
        };
        let Some((_, m, _)) = self.search.clone() else {
            return;
        };
        let top = self.pos.line;
        let shown = self.last_match.filter(|&l| l >= top && self.on_screen(l));
        // From the screen to the end, then (wrapping) from the other end
        // back to where it started: one search covers the file once.
        let count = index.line_count();
        let (lines, wrap) = if backward {
            let from = shown.unwrap_or(top);
            (0..from, from..count)
        } else {
            let from = shown.map_or(top, |l| l + 1);
            (from..count, 0..from)
        };
        let generation = self.searcher.cancel();
        self.searcher.send(
            self.store.epoch(),
            &index,
            &m,
            Job::Search {
                lines,
                wrap,
                backward,
            },
        );
        self.running = Some(Running {
            generation,
            backward,
            progress: None,
        });
    }

    pub(super) fn repeat_search(&mut self, reverse: bool) {
        match &self.search {
            Some((_, _, backward)) => {
                let b = *backward != reverse;
                self.start_search(b);
            }
            None => self.message = Some("no previous search".into()),
        }
    }

    pub(super) fn on_screen(&self, line: u64) -> bool {
        line >= self.pos.line && line < self.pos.line + self.text_rows()
    }

    pub(super) fn scanned(&mut self, generation: u64, epoch: u64, found: Result<Found, String>) {
        match found {
            Ok(Found::Line(hit, wrapped)) => {
                let Some(r) = self.running.take_if(|r| r.generation == generation) else {
                    return;
                };
                match hit {
                    Some(h) => {
                        self.last_match = Some(h.line);
                        self.message = wrapped.then(|| {
                            if r.backward {
                                "search hit TOP, continued at BOTTOM".to_string()
                            } else {
                                "search hit BOTTOM, continued at TOP".to_string()
                            }
                        });
                        self.show_hit(h);
                    }
                    None => {
                        let pattern = self
                            .search
                            .as_ref()
                            .map(|s| s.0.clone())
                            .unwrap_or_default();
                        self.message = Some(format!("Pattern not found: {pattern}"));
                    }
                }
            }
            Ok(Found::Chunk(c, lines)) => {
                if generation != self.filterer.generation() || epoch != self.store.epoch() {
                    return;
                }
                let Some(f) = self.filter.as_mut() else {
                    return;
                };
                f.asked = None;
                f.progress = None;
                f.lines_kept += lines.len();
                f.chunks.insert(c, Arc::new(lines));
                f.order.push_back(c);
                while f.order.len() > FILTER_CHUNKS_KEPT
                    || (f.lines_kept > FILTER_LINES_KEPT && f.order.len() > 1)
                {
                    if let Some(old) = f.order.pop_front()
                        && let Some(v) = f.chunks.remove(&old)
                    {
                        f.lines_kept -= v.len();
                    }
                }
                self.retry();
            }
            Err(e) => {
                if self
                    .running
                    .take_if(|r| r.generation == generation)
                    .is_some()
                    || generation == self.filterer.generation()
                {
                    self.pending.clear();
                    if let Some(f) = self.filter.as_mut() {
                        f.asked = None;
                    }
                    self.message = Some(format!("error: {e}"));
                }
            }
        }
    }

    /// Goes to a match: its line, and the row (or, chopped, the columns)
    /// that show it; a match in the part of a long line not held is said.
    fn show_hit(&mut self, h: Hit) {
        if h.byte < LINE_CAP as u64 {
            self.exec(Op::GotoHit(h.line, h.byte));
            return;
        }
        let past = format!(
            "match at byte {} of line {}, past the {} KiB shown",
            thousands(h.byte),
            thousands(self.shown(h.line)),
            LINE_CAP >> 10
        );
        self.message = Some(match self.message.take() {
            Some(m) => format!("{m}; {past}"),
            None => past,
        });
        self.exec(Op::Goto(h.line, true));
    }
}

/// A regex error as the user can read it. The matcher compiles the
/// pattern inside a group of its own, `(?:PATTERN)`, and its message
/// (one line, from regex-syntax's: `regex parse error: (?:PATTERN) ^
/// error: WHAT`) shows that and a caret under a column of it. Said here:
/// `invalid pattern: WHAT`, then the pattern as typed after its prompt
/// and, when the caret falls inside the user's pattern, the caret under
/// the same character. (A caret on the group's own parentheses, as for
/// an unclosed group, points at nothing the user typed: then none.)
pub(super) fn pattern_error(pattern: &str, prompt: char, msg: &str) -> String {
    let Some((_, rest)) = msg.split_once("regex parse error:") else {
        return msg.to_string();
    };
    let Some(at) = rest.rfind(" error: ") else {
        return msg.to_string();
    };
    let what = rest[at + " error: ".len()..].trim();
    let mut out = format!("invalid pattern: {what}\n{prompt}{pattern}");
    // The pattern's row and the caret's row, joined by a space, each
    // indented by 4 (the caret's row further by the caret's column).
    let shown = rest[..at].trim_end();
    let body = shown.trim_end_matches('^');
    let carets = shown.len() - body.len();
    let spaces = body.len() - body.trim_end().len();
    let wrapped = body.trim();
    if carets == 0 || spaces < 5 {
        return out;
    }
    let column = spaces - 5;
    if let Some(o) = wrapped.find(pattern).map(|o| wrapped[..o].chars().count())
        && column >= o
        && column + carets <= o + pattern.chars().count()
        && !pattern.is_empty()
    {
        out.push('\n');
        out.push_str(&" ".repeat(1 + column - o));
        out.push_str(&"^".repeat(carets));
    }
    out
}

/// `n` with thousands separated: 1,234,567.
pub(super) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_pattern_error_shows_the_pattern_and_a_caret_under_it() {
        let opts = lidx::search::MatcherOptions::default();
        let err = |p: &str| {
            let e = crate::view::find::Finder::new(p, &opts).unwrap_err();
            super::pattern_error(p, '/', &e.to_string())
        };
        // A caret under the character at fault, none when the fault is
        // the matcher's own group.
        assert_eq!(
            err("*ab"),
            "invalid pattern: repetition operator missing expression\n/*ab\n ^"
        );
        assert_eq!(
            err("a{2,1}"),
            "invalid pattern: invalid repetition count range, the start must be <= the end\n/a{2,1}\n  ^^^^^"
        );
        assert_eq!(
            err("x[z-a]"),
            "invalid pattern: invalid character class range, the start must be <= the end\n/x[z-a]\n   ^^^"
        );
        assert_eq!(err("a("), "invalid pattern: unclosed group\n/a(");
        assert_eq!(err("a)"), "invalid pattern: unopened group\n/a)");
        for p in ["a(", "*ab", "x[z-a]", "\\p{Nope}", "a{2,1}", "ab\\"] {
            assert!(!err(p).contains("(?:"), "{p}: {}", err(p));
        }
    }

    #[test]
    fn thousands_are_separated() {
        for (n, s) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (1234567, "1,234,567"),
        ] {
            assert_eq!(super::thousands(n), s);
        }
    }
}
