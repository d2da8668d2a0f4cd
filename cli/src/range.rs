//! The RANGE syntax of `lidx lines` and `lidx grep --lines` (1-based,
//! inclusive), converted to the library's 0-based half-open form.
//!
//! ```text
//! RANGE = LINE | LINE ":" LINE | LINE ":" | ":" LINE | LINE ":+" COUNT
//! LINE  = N | "$" | "$-" K        N ≥ 1; K ≥ 0; COUNT ≥ 1 (decimal)
//! ```
//!
//! `$` is the last line (as in sed) and `$-K` the line K lines before it,
//! so a range can name lines from the end of the file without starting
//! with `-` (which would read as an option). A range is parsed before the
//! index is opened (a malformed one is an error before anything is built)
//! and resolved once the line count is known ([`LineRange::resolve`]).
//! It stands for the line numbers from its start to its end; those outside
//! `1..=line_count` are not printed, at either end: on a 5-line file
//! `$-9:$` is lines 1 to 5 (as `tail -n 10`) and `3:20` lines 3 to 5.

use std::ops::Range;

/// One end of a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// Line N, 1-based, counted from the start (N ≥ 1).
    Number(u64),
    /// `$-K`: K lines before the last line (`$` is `$-0`).
    FromEnd(u64),
}

/// Where a range ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// At this line, inclusive (`A:B`, and `N` alone, which is `N:N`).
    At(Line),
    /// At the end of the file (`A:`).
    Open,
    /// COUNT lines from the start (`A:+COUNT`).
    Count(u64),
}

/// A parsed RANGE argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineRange {
    text: String,
    first: Line,
    end: End,
}

/// How to write a RANGE, for error messages.
const FORMS: &str = "use N, $, $-K, A:B, A:, :B or A:+K";

/// Parses one RANGE argument.
pub fn parse(s: &str) -> Result<LineRange, String> {
    let bad = |why: &str| Err(format!("invalid range {s:?}: {why}"));
    let digits = |t: &str| -> Result<u64, String> {
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
            return Err(not_a_line(s, t));
        }
        t.parse()
            .map_err(|_| format!("invalid range {s:?}: {t} is too large"))
    };
    let line = |t: &str| -> Result<Line, String> {
        if t == "$" {
            return Ok(Line::FromEnd(0));
        }
        if let Some(k) = t.strip_prefix("$-") {
            return Ok(Line::FromEnd(digits(k)?));
        }
        match digits(t)? {
            0 => Err(format!("invalid range {s:?}: line numbers start at 1")),
            n => Ok(Line::Number(n)),
        }
    };
    let (first, end) = match s.split_once(':') {
        None => {
            let n = line(s)?;
            (n, End::At(n))
        }
        Some(("", "")) => return bad("give at least one end (A:, :B or A:B)"),
        Some((a, "")) => (line(a)?, End::Open),
        Some(("", b)) => (Line::Number(1), End::At(line(b)?)),
        Some((a, b)) => {
            let a = line(a)?;
            if let Some(k) = b.strip_prefix('+') {
                match digits(k)? {
                    0 => return bad("+0 selects no lines"),
                    k => (a, End::Count(k)),
                }
            } else {
                let b = line(b)?;
                // Decidable without the line count: both ends counted from
                // the same side.
                let inverted = match (a, b) {
                    (Line::Number(a), Line::Number(b)) => b < a,
                    (Line::FromEnd(a), Line::FromEnd(b)) => b > a,
                    _ => false,
                };
                if inverted {
                    return bad("the end is before the start");
                }
                (a, End::At(b))
            }
        }
    };
    Ok(LineRange {
        text: s.to_string(),
        first,
        end,
    })
}

/// The error for a part `t` of range `s` that is not a line number, with a
/// hint for a negative number (`-1`: count from the end with `$`) and when
/// the shell seems to have expanded an unquoted `$-` (the shell's option
/// flags, such as `hB`, in place of `$-`).
fn not_a_line(s: &str, t: &str) -> String {
    let letters = t.bytes().take_while(u8::is_ascii_alphabetic).count();
    let expanded =
        letters > 0 && letters < t.len() && t.bytes().skip(letters).all(|b| b.is_ascii_digit());
    let hint = if t.starts_with('-') {
        "; count from the end with $: '$' is the last line, '$-K' the K-th before it, \
         '$-9:$' the last 10"
    } else if expanded {
        "; quote ranges that count from the end: '$-9:$' (unquoted, the shell replaces $-)"
    } else {
        ""
    };
    format!("invalid range {s:?}: {t:?} is not a line number ({FORMS}){hint}")
}

impl LineRange {
    /// True if the range counts from the end, so needs the line count.
    pub fn counts_from_end(&self) -> bool {
        matches!(self.first, Line::FromEnd(_)) || matches!(self.end, End::At(Line::FromEnd(_)))
    }

    /// True for `A:` (to the end, wherever the end is when it is read).
    pub fn is_open(&self) -> bool {
        self.end == End::Open
    }

    /// The first and last line numbers (1-based, inclusive, unclamped: the
    /// first may be 0 or below, the last `None` for "to the end").
    fn bounds(&self, line_count: u64) -> (i128, Option<i128>) {
        let at = |l: Line| match l {
            Line::Number(n) => n as i128,
            Line::FromEnd(k) => line_count as i128 - k as i128,
        };
        let first = at(self.first);
        let last = match self.end {
            End::At(l) => Some(at(l)),
            End::Open => None,
            End::Count(k) => Some(first + k as i128 - 1),
        };
        (first, last)
    }

    /// The lines of a file of `line_count` lines that the range selects,
    /// 0-based and half-open. Lines before line 1 are dropped; the end is
    /// not clamped to `line_count` (`u64::MAX` for "to the end"), so that
    /// callers can tell a range reaching past the end. Empty when the range
    /// selects nothing before the end (then `start..start`).
    pub fn resolve(&self, line_count: u64) -> Range<u64> {
        let (first, last) = self.bounds(line_count);
        let start = first.max(1) - 1;
        let end = last.map_or(u64::MAX as i128, |l| l.min(u64::MAX as i128));
        // `start` ≤ line_count < 2^64 when counted from the end; otherwise
        // it came from a u64 ≥ 1, so both conversions are exact.
        let start = u64::try_from(start).unwrap_or(u64::MAX);
        let end = u64::try_from(end.max(start as i128)).unwrap_or(u64::MAX);
        start..end
    }

    /// [`LineRange::resolve`] against `index`. A range counted from the end
    /// of a damaged archive is an error: only the lines before the damage
    /// can be read, and its last line is unknown, so `$` is not taken to
    /// be the last line that could be read.
    pub fn resolve_in(&self, index: &lidx::Index) -> lidx::Result<Range<u64>> {
        if self.counts_from_end()
            && let Some(lidx::Error::Damaged { what, lines }) = index.damaged_error()
        {
            return Err(lidx::Error::Damaged {
                what: format!(
                    "range {:?} counts from the last line, which is unknown: {what}",
                    self.text
                ),
                lines,
            });
        }
        Ok(self.resolve(index.line_count()))
    }

    /// Why the range selects no line of a file of `line_count` lines (for
    /// the message when nothing at all was printed).
    pub fn why_empty(&self, line_count: u64) -> String {
        let (first, _) = self.bounds(line_count);
        if first > line_count as i128 {
            format!(
                "line {first} is past the end (the file has {})",
                lidx::count_of(line_count, "line", "lines")
            )
        } else {
            format!(
                "range {:?} selects no lines (the file has {})",
                self.text,
                lidx::count_of(line_count, "line", "lines")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn at(s: &str, lines: u64) -> std::ops::Range<u64> {
        parse(s).unwrap().resolve(lines)
    }

    #[test]
    fn accepted_from_the_start() {
        for (s, want) in [
            ("5", 4..5),
            ("2:4", 1..4),
            ("3:3", 2..3),
            ("7:", 6..u64::MAX),
            (":3", 0..3),
            ("10:+5", 9..14),
            ("18446744073709551615", u64::MAX - 1..u64::MAX),
            ("2:+18446744073709551615", 1..u64::MAX),
        ] {
            assert_eq!(at(s, 10), want, "{s}");
            assert!(!parse(s).unwrap().counts_from_end(), "{s}");
        }
    }

    /// Against a 10-line file; each row also says what sed or tail prints.
    #[test]
    fn accepted_from_the_end() {
        for (s, want) in [
            ("$", 9..10),          // sed -n '$p'
            ("$-0", 9..10),        // the same
            ("$-9", 0..1),         // line 1
            ("$-9:$", 0..10),      // tail -n 10
            ("$-2:", 7..u64::MAX), // tail -n 3
            ("$-2:+2", 7..9),      // two lines from the third last
            (":$-3", 0..7),        // head -n -3
            ("1:$", 0..10),        // the whole file
            ("4:$-4", 3..6),       // sed -n '4,6p'
            ("$-5:8", 4..8),       // sed -n '5,8p'
            ("$-99:$", 0..10),     // tail -n 100: the lines there are
            ("$-99:+95", 0..5),    // lines -89..5: only 1..5 exist
            ("$-18446744073709551615:", 0..u64::MAX),
        ] {
            assert_eq!(at(s, 10), want, "{s}");
            assert!(parse(s).unwrap().counts_from_end(), "{s}");
        }
    }

    #[test]
    fn selecting_nothing() {
        for (s, lines) in [
            ("$-10", 10),
            ("$-99:+3", 10),
            (":$-10", 10),
            ("$", 0),
            ("$-3:2", 10),
            ("8:$-5", 10),
        ] {
            let r = at(s, lines);
            assert!(r.is_empty(), "{s} on {lines} lines: {r:?}");
            let why = parse(s).unwrap().why_empty(lines);
            assert!(why.contains("selects no lines"), "{s}: {why}");
        }
        assert_eq!(
            parse("12:$").unwrap().why_empty(10),
            "line 12 is past the end (the file has 10 lines)"
        );
    }

    #[test]
    fn rejected() {
        for s in [
            "",
            "0",
            "-1",
            "5:3",
            "1:+0",
            ":",
            "a",
            "1:b",
            "1::2",
            "18446744073709551616",
            "+3",
            "1:+",
            " 1",
            "0:5",
            "1:0",
            "$+1",
            "$-",
            "$-x",
            "$$",
            "$-1:$-2",
            "$:$-1",
            "$:+0",
            ":+3",
            "$-18446744073709551616",
            "1:+$",
            "-$",
        ] {
            assert!(parse(s).is_err(), "{s:?} accepted");
        }
    }

    #[test]
    fn unquoted_dollar_hint() {
        // `lidx lines f $-9:$` in bash with flags "hB": the range is "hB9:$".
        let e = parse("hB9:$").unwrap_err();
        assert!(e.contains("quote ranges"), "{e}");
        let e = parse("abc").unwrap_err();
        assert!(!e.contains("quote ranges"), "{e}");
    }
}

/// Issue 21, item 24: the range grammar fuzzed (as the fuzz targets fuzz
/// the library's parsers; this one lives in the command line): any string
/// is a range or an error naming it, never a panic; a range resolves to a
/// start no later than its end for every line count; and ranges built
/// from the grammar parse.
#[cfg(test)]
mod fuzzed {
    use super::parse;
    use proptest::prelude::*;

    fn line() -> impl Strategy<Value = String> {
        prop_oneof![
            (1u64..u64::MAX).prop_map(|n| n.to_string()),
            Just("$".to_string()),
            (0u64..u64::MAX).prop_map(|k| format!("$-{k}")),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn any_string(s in "\\PC{0,12}|[0-9$:+\\-]{0,12}") {
            match parse(&s) {
                Ok(r) => {
                    for n in [0, 1, 2, 10, u64::MAX] {
                        let got = r.resolve(n);
                        prop_assert!(got.start <= got.end || got.start >= n, "{s:?} on {n}: {got:?}");
                    }
                }
                Err(e) => prop_assert!(e.contains("range"), "{s:?}: {e}"),
            }
        }

        #[test]
        fn grammar_forms(a in line(), b in line(), k in 1u64..u64::MAX, form in 0u8..5) {
            // A:B with B before A (both from the start, or both from the
            // end) is refused on purpose.
            let key = |l: &str| match l.strip_prefix('$') {
                None => (0, l.parse::<u64>().unwrap() as i128),
                Some(r) => (1, -(r.strip_prefix('-').map_or(0, |k| k.parse::<u64>().unwrap()) as i128)),
            };
            let (ka, kb) = (key(&a), key(&b));
            prop_assume!(form != 1 || ka.0 != kb.0 || ka.1 <= kb.1);
            let s = match form {
                0 => a.clone(),
                1 => format!("{a}:{b}"),
                2 => format!("{a}:"),
                3 => format!(":{b}"),
                _ => format!("{a}:+{k}"),
            };
            prop_assert!(parse(&s).is_ok(), "{s:?}");
        }
    }
}
