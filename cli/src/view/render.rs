//! Bytes to screen cells: what a line's bytes look like on the terminal,
//! and how they wrap into rows. Nothing read from a file reaches the
//! terminal as it is, except printable characters:
//!
//! - a tab is expanded to the next multiple of 8 columns;
//! - a control byte (C0, a `\r` and NUL included) is shown in caret
//!   notation, `^M`, `^@`, and DEL as `^?`, in reverse video (the `\r` of a
//!   CRLF line ending is not part of the line here: the store drops it);
//! - a byte that is not part of valid UTF-8 is shown as `<XX>` (hex);
//! - a character that is a control (C1), of zero width (combining marks,
//!   bidirectional overrides, a byte-order mark) or unassigned is shown as
//!   `<U+XXXX>`;
//! - other characters take their width in cells (1, or 2 for wide ones);
//! - with `-R` (as less's), a colour sequence, `ESC [ params m` (SGR), is
//!   not shown: it styles what follows on the line (colours, bold, dim,
//!   italic, underline, reverse…) through ratatui's styles; every other
//!   escape sequence is still shown escaped.
//!
//! So a row of cells never holds an escape sequence, never moves the
//! cursor, and its width is exact. No I/O here.

use ratatui::style::{Color, Modifier, Style};
use std::ops::Range;

/// Tab stops every 8 columns.
const TAB: usize = 8;

/// What one unit of a line shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A printable character of this width (1 or 2).
    Char(char, u8),
    /// A tab (its width depends on its column).
    Tab,
    /// A control byte in caret notation (`^M`).
    Caret(u8),
    /// A byte outside valid UTF-8 (`<C3>`).
    Byte(u8),
    /// A character shown by its code point (`<U+0085>`).
    Code(char),
    /// A colour sequence (`-R`): no cells, a style for what follows.
    Sgr,
}

/// One unit: its shape and the bytes of the line it stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unit {
    pub shape: Shape,
    /// Offset of its first byte in the line.
    pub start: u32,
    /// Its bytes' length.
    pub len: u8,
}

impl Unit {
    /// Width in cells at column `col` of the line.
    pub fn width(&self, col: usize) -> usize {
        match self.shape {
            Shape::Char(_, w) => w as usize,
            Shape::Tab => TAB - col % TAB,
            Shape::Caret(_) => 2,
            Shape::Byte(_) => 4,
            Shape::Code(c) => format!("{:X}", c as u32).len().max(4) + 4,
            Shape::Sgr => 0,
        }
    }

    /// True for units shown as escapes (drawn in reverse video).
    pub fn is_escape(&self) -> bool {
        matches!(
            self.shape,
            Shape::Caret(_) | Shape::Byte(_) | Shape::Code(_)
        )
    }

    /// Appends what the unit shows, `width` cells of it from cell `skip`
    /// (a unit cut by the screen's edge shows part of itself).
    pub fn push_text(&self, out: &mut String, skip: usize, width: usize) {
        let full = match self.shape {
            Shape::Char(c, _) => {
                if skip == 0 && width == self.width(0) {
                    out.push(c);
                } else {
                    // Half of a wide character: a blank.
                    out.extend(std::iter::repeat_n(' ', width));
                }
                return;
            }
            Shape::Tab => {
                out.extend(std::iter::repeat_n(' ', width));
                return;
            }
            Shape::Sgr => return,
            Shape::Caret(b) => format!("^{}", (b ^ 0x40) as char),
            Shape::Byte(b) => format!("<{b:02X}>"),
            Shape::Code(c) => format!("<U+{:04X}>", c as u32),
        };
        out.extend(full.chars().skip(skip).take(width));
    }
}

/// The length of the colour sequence (`ESC [ digits ; : m`) at the
/// start of `bytes`, if there is one.
fn sgr_len(bytes: &[u8]) -> Option<usize> {
    if !bytes.starts_with(b"\x1b[") {
        return None;
    }
    let params = bytes[2..]
        .iter()
        .take(64)
        .take_while(|b| b.is_ascii_digit() || **b == b';' || **b == b':')
        .count();
    (bytes.get(2 + params) == Some(&b'm')).then_some(3 + params)
}

/// The units of `line` (its bytes without the `\n` terminator); with
/// `ansi`, colour sequences are [`Shape::Sgr`] units.
pub fn units(line: &[u8], ansi: bool) -> Vec<Unit> {
    let mut out = Vec::with_capacity(line.len());
    let mut i = 0usize;
    while i < line.len() {
        let b = line[i];
        let sgr = if ansi && b == 0x1b {
            sgr_len(&line[i..])
        } else {
            None
        };
        let (shape, len) = if let Some(n) = sgr {
            (Shape::Sgr, n)
        } else if b < 0x80 {
            let shape = match b {
                b'\t' => Shape::Tab,
                0..=0x1f | 0x7f => Shape::Caret(b),
                _ => Shape::Char(b as char, 1),
            };
            (shape, 1)
        } else {
            let (c, len) = bstr::decode_utf8(&line[i..]);
            match c {
                None => (Shape::Byte(b), 1),
                Some(c) => {
                    let shape = match unicode_width::UnicodeWidthChar::width(c) {
                        Some(w @ 1..=2) if !is_format(c) => Shape::Char(c, w as u8),
                        _ => Shape::Code(c),
                    };
                    (shape, len)
                }
            }
        };
        out.push(Unit {
            shape,
            start: i as u32,
            len: len as u8,
        });
        i += len;
    }
    out
}

/// Characters with a width that still change how a terminal lays out
/// text (bidirectional embeddings and isolates, which some terminals
/// honour): shown by code point.
fn is_format(c: char) -> bool {
    matches!(c, '\u{200E}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// A run of cells of one style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seg {
    pub text: String,
    pub escape: bool,
    pub highlight: bool,
    /// The colours of `-R` (the default style without).
    pub style: Style,
}

/// `style` changed by the colour sequence `seq` (`ESC [ params m`).
pub fn sgr(seq: &[u8], style: Style) -> Style {
    let params = seq.get(2..seq.len().saturating_sub(1)).unwrap_or(&[]);
    let mut codes = params.split(|&b| b == b';' || b == b':').map(|p| {
        std::str::from_utf8(p)
            .ok()
            .and_then(|s| s.parse::<u32>().ok())
            .unwrap_or(0)
    });
    let mut s = style;
    let mut any = false;
    while let Some(c) = codes.next() {
        any = true;
        s = match c {
            0 => Style::default(),
            1 => s.add_modifier(Modifier::BOLD),
            2 => s.add_modifier(Modifier::DIM),
            3 => s.add_modifier(Modifier::ITALIC),
            4 => s.add_modifier(Modifier::UNDERLINED),
            5 | 6 => s.add_modifier(Modifier::SLOW_BLINK),
            7 => s.add_modifier(Modifier::REVERSED),
            8 => s.add_modifier(Modifier::HIDDEN),
            9 => s.add_modifier(Modifier::CROSSED_OUT),
            21 | 22 => s.remove_modifier(Modifier::BOLD | Modifier::DIM),
            23 => s.remove_modifier(Modifier::ITALIC),
            24 => s.remove_modifier(Modifier::UNDERLINED),
            25 => s.remove_modifier(Modifier::SLOW_BLINK),
            27 => s.remove_modifier(Modifier::REVERSED),
            28 => s.remove_modifier(Modifier::HIDDEN),
            29 => s.remove_modifier(Modifier::CROSSED_OUT),
            30..=37 => s.fg(Color::Indexed((c - 30) as u8)),
            39 => Style { fg: None, ..s },
            40..=47 => s.bg(Color::Indexed((c - 40) as u8)),
            49 => Style { bg: None, ..s },
            90..=97 => s.fg(Color::Indexed((c - 90 + 8) as u8)),
            100..=107 => s.bg(Color::Indexed((c - 100 + 8) as u8)),
            38 | 48 => {
                let color = match codes.next() {
                    Some(5) => codes.next().map(|n| Color::Indexed(n.min(255) as u8)),
                    Some(2) => {
                        let mut c = || codes.next().unwrap_or(0).min(255) as u8;
                        let (r, g, b) = (c(), c(), c());
                        Some(Color::Rgb(r, g, b))
                    }
                    _ => None,
                };
                match (c, color) {
                    (38, Some(col)) => s.fg(col),
                    (_, Some(col)) => s.bg(col),
                    _ => s,
                }
            }
            _ => s,
        };
    }
    if any { s } else { Style::default() }
}

/// One screen row of a line: its segments and width in cells.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Row {
    pub segs: Vec<Seg>,
    pub width: usize,
    /// The line's offset of the first byte shown on the row.
    pub first_byte: Option<u32>,
}

impl Row {
    fn push(&mut self, u: &Unit, skip: usize, width: usize, highlight: bool, style: Style) {
        self.first_byte.get_or_insert(u.start);
        let escape = u.is_escape();
        match self.segs.last_mut() {
            Some(s) if s.escape == escape && s.highlight == highlight && s.style == style => {
                u.push_text(&mut s.text, skip, width)
            }
            _ => {
                let mut text = String::new();
                u.push_text(&mut text, skip, width);
                self.segs.push(Seg {
                    text,
                    escape,
                    highlight,
                    style,
                });
            }
        }
        self.width += width;
    }

    fn push_marker(&mut self, text: &str, width: usize) {
        let t: String = text
            .chars()
            .take(width.saturating_sub(self.width))
            .collect();
        if !t.is_empty() {
            self.width += t.chars().count();
            self.segs.push(Seg {
                text: t,
                escape: true,
                highlight: false,
                style: Style::default(),
            });
        }
    }

    /// The row's text, without styles (tests, widths).
    #[cfg(test)]
    pub fn text(&self) -> String {
        self.segs.iter().map(|s| s.text.as_str()).collect()
    }
}

/// How a line is laid out.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// Cells per row.
    pub width: usize,
    /// Wrap long lines into rows (else chop them: one row per line).
    pub wrap: bool,
    /// Chop mode: the first column shown.
    pub hscroll: usize,
    /// Colour sequences as colours (`-R`).
    pub ansi: bool,
}

/// Marks a line held only in part: the bytes after what is shown.
pub fn cut_marker(more: u64) -> String {
    format!("[+{more} bytes]")
}

/// The column of the unit holding byte `byte` of the line (the line's
/// width if past its end).
pub fn column_of(units: &[Unit], byte: usize) -> usize {
    let mut col = 0;
    for u in units {
        if u.start as usize + u.len as usize > byte {
            break;
        }
        col += u.width(col);
    }
    col
}

/// How many rows `line` takes (as `rows(&units(line), marker, &[], l)`),
/// without laying it out when it is printable ASCII: a long walk counts
/// the rows of every line it passes.
pub fn row_count(line: &[u8], marker: Option<&str>, l: &Layout) -> usize {
    if !l.wrap {
        return 1;
    }
    if marker.is_none() && line.iter().all(|b| (0x20..0x7f).contains(b)) {
        return line.len().div_ceil(l.width.max(1)).max(1);
    }
    rows(line, &units(line, l.ansi), marker, &[], l).len()
}

/// Lays `units` of `line` out in rows (at least one). `marker` (a line cut
/// short) follows the last unit; `hits` are byte ranges to highlight.
pub fn rows(
    line: &[u8],
    units: &[Unit],
    marker: Option<&str>,
    hits: &[Range<usize>],
    l: &Layout,
) -> Vec<Row> {
    let width = l.width.max(1);
    let lit = |u: &Unit| {
        let (a, b) = (u.start as usize, u.start as usize + u.len as usize);
        hits.iter().any(|h| h.start < b && a < h.end)
    };
    let mut out = vec![Row::default()];
    let mut col = 0usize; // column in the whole line
    let mut style = Style::default();
    let seq = |u: &Unit| &line[u.start as usize..u.start as usize + u.len as usize];
    if l.wrap {
        for u in units {
            if u.shape == Shape::Sgr {
                style = sgr(seq(u), style);
                continue;
            }
            let w = u.width(col);
            let row = out.last_mut().expect("one row");
            let room = width - row.width;
            if w <= room {
                row.push(u, 0, w, lit(u), style);
            } else if matches!(u.shape, Shape::Tab) {
                // A tab ends its row.
                row.push(u, 0, room, lit(u), style);
                out.push(Row::default());
            } else if row.width == 0 {
                // Wider than a whole row: what fits.
                row.push(u, 0, width, lit(u), style);
            } else {
                let mut next = Row::default();
                next.push(u, 0, w.min(width), lit(u), style);
                out.push(next);
            }
            col += w;
            if out.last().is_some_and(|r| r.width >= width) {
                out.push(Row::default());
            }
        }
        if out.len() > 1 && out.last().is_some_and(|r| r.width == 0) {
            out.pop();
        }
        if let Some(m) = marker {
            let row = out.last_mut().expect("one row");
            if row.width + m.chars().count() > width {
                out.push(Row::default());
            }
            out.last_mut().expect("one row").push_marker(m, width);
        }
    } else {
        let (from, to) = (l.hscroll, l.hscroll + width);
        let row = &mut out[0];
        for u in units {
            if u.shape == Shape::Sgr {
                style = sgr(seq(u), style);
                continue;
            }
            let w = u.width(col);
            let (a, b) = (col.max(from), (col + w).min(to));
            if a < b {
                row.push(u, a - col, b - a, lit(u), style);
            }
            col += w;
            if col >= to {
                break;
            }
        }
        if let Some(m) = marker
            && col < to
        {
            if col < from {
                let skip = from - col;
                let m: String = m.chars().skip(skip).collect();
                row.push_marker(&m, width);
            } else {
                row.push_marker(m, width);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(line: &[u8], width: usize, wrap: bool) -> Vec<String> {
        let l = Layout {
            width,
            wrap,
            hscroll: 0,
            ansi: false,
        };
        rows(line, &units(line, false), None, &[], &l)
            .iter()
            .map(Row::text)
            .collect()
    }

    #[test]
    fn row_count_is_the_rows_laid_out() {
        let lines: [&[u8]; 6] = [b"", b"abc", b"a\tb", b"caf\xc3\xa9 \xff", b"\x1b[1m", b"x"];
        for width in 1..12 {
            for n in 0..40 {
                let ascii = vec![b'q'; n];
                for line in lines.iter().copied().chain([&ascii[..]]) {
                    for (marker, ansi) in [(None, false), (Some("[+5 bytes]"), false), (None, true)]
                    {
                        let l = Layout {
                            width,
                            wrap: true,
                            hscroll: 0,
                            ansi,
                        };
                        assert_eq!(
                            row_count(line, marker, &l),
                            rows(line, &units(line, ansi), marker, &[], &l).len(),
                            "{line:?} width {width} marker {marker:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn escapes_are_visible_and_safe() {
        for (bytes, want) in [
            (&b"a\tb"[..], "a       b"),
            (b"crlf\r", "crlf^M"),
            (b"nul\0x", "nul^@x"),
            (b"esc\x1b[31m", "esc^[[31m"),
            (b"del\x7f", "del^?"),
            (b"bad\xc3(\xff", "bad<C3>(<FF>"),
            ("caf\u{e9}".as_bytes(), "caf\u{e9}"),
            ("c1\u{85}x".as_bytes(), "c1<U+0085>x"),
            ("rlo\u{202e}x".as_bytes(), "rlo<U+202E>x"),
            ("e\u{301}".as_bytes(), "e<U+0301>"),
            ("\u{5b57}".as_bytes(), "\u{5b57}"),
        ] {
            assert_eq!(show(bytes, 80, true), [want], "{bytes:?}");
        }
    }

    #[test]
    fn wraps_at_the_width() {
        assert_eq!(show(b"abcdefg", 3, true), ["abc", "def", "g"]);
        assert_eq!(show(b"abcdef", 3, true), ["abc", "def"]);
        assert_eq!(show(b"", 3, true), [""]);
        assert_eq!(show(b"ab\xc3", 3, true), ["ab", "<C3"]);
        assert_eq!(show(b"a\tb", 4, true), ["a   ", "b"]);
        assert_eq!(
            show("a\u{5b57}b".as_bytes(), 2, true),
            ["a", "\u{5b57}", "b"]
        );
    }

    #[test]
    fn chops_with_horizontal_scroll() {
        let l = Layout {
            width: 4,
            wrap: false,
            hscroll: 2,
            ansi: false,
        };
        let r = rows(b"ab\x01cdefg", &units(b"ab\x01cdefg", false), None, &[], &l);
        assert_eq!(r[0].text(), "^Acd");
        let r = rows(
            b"abcdef",
            &units(b"abcdef", false),
            Some("[+9 bytes]"),
            &[],
            &l,
        );
        assert_eq!(r[0].text(), "cdef");
        let l = Layout {
            width: 20,
            wrap: false,
            hscroll: 0,
            ansi: false,
        };
        let r = rows(b"abc", &units(b"abc", false), Some("[+9 bytes]"), &[], &l);
        assert_eq!(r[0].text(), "abc[+9 bytes]");
    }

    #[test]
    fn highlights_the_hit_units() {
        let l = Layout {
            width: 20,
            wrap: true,
            hscroll: 0,
            ansi: false,
        };
        let hits = [std::ops::Range { start: 2, end: 4 }];
        let r = rows(b"xxabyy", &units(b"xxabyy", false), None, &hits, &l);
        let lit: Vec<_> = r[0]
            .segs
            .iter()
            .map(|s| (s.text.as_str(), s.highlight))
            .collect();
        assert_eq!(lit, [("xx", false), ("ab", true), ("yy", false)]);
    }

    #[test]
    fn colour_sequences_style_what_follows_with_r() {
        let line =
            b"\x1b[31mred\x1b[0m plain \x1b[1;38;5;42mbold\x1b[22;39m x \x1b]0;t\x07 \x1b[2J";
        let l = Layout {
            width: 80,
            wrap: true,
            hscroll: 0,
            ansi: true,
        };
        let r = rows(line, &units(line, true), None, &[], &l);
        let segs: Vec<_> = r[0]
            .segs
            .iter()
            .map(|s| (s.text.as_str(), s.style, s.escape))
            .collect();
        let red = Style::default().fg(Color::Indexed(1));
        let bold = Style::default()
            .add_modifier(Modifier::BOLD)
            .fg(Color::Indexed(42));
        // After ESC[22;39m: no foreground, not bold or dim.
        let after_reset = Style {
            fg: None,
            ..bold.remove_modifier(Modifier::BOLD | Modifier::DIM)
        };
        assert_eq!(
            segs,
            [
                ("red", red, false),
                (" plain ", Style::default(), false),
                ("bold", bold, false),
                (" x ", after_reset, false),
                // Not colours: still escaped (an OSC, a screen clear).
                ("^[", after_reset, true),
                ("]0;t", after_reset, false),
                ("^G", after_reset, true),
                (" ", after_reset, false),
                ("^[", after_reset, true),
                ("[2J", after_reset, false),
            ]
        );
        // Without -R, as before: every ESC shown.
        let r = rows(
            line,
            &units(line, false),
            None,
            &[],
            &Layout { ansi: false, ..l },
        );
        assert!(
            r[0].text().starts_with("^[[31mred^[[0m plain"),
            "{}",
            r[0].text()
        );
    }
}
