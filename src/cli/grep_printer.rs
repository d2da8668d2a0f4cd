//! Rendering grep output: ripgrep's standard format (`N:line`, context
//! `N-line`, `--` between groups, `-b` offsets, `-o` parts), colours, and
//! ripgrep-style JSON messages. One printer renders one chunk into a byte
//! buffer (see `lidx::search::parallel`).

use lidx::search::parallel::{ChunkOutput, Render};
use lidx::search::{Kind, Line, Matcher, Sink};
use std::sync::Arc;

/// How to print.
#[derive(Debug, Clone)]
pub struct PrintOptions {
    /// Prefix line numbers (1-based).
    pub line_number: bool,
    /// Prefix the byte offset of the line (or of the match with `-o`).
    pub byte_offset: bool,
    /// Print only the matched parts, one per line.
    pub only_matching: bool,
    /// Count only (print nothing per line).
    pub count: bool,
    /// ANSI colours.
    pub color: bool,
    /// JSON messages.
    pub json: bool,
    /// Context is on: print `--` between non-adjacent groups.
    pub context: bool,
    /// Lines are selected when they do not match (`-v`).
    pub invert: bool,
    /// The file name, for JSON.
    pub path: String,
}

/// Renders lines into a buffer.
pub struct Printer {
    opts: Arc<PrintOptions>,
    matcher: Arc<Matcher>,
    out: Vec<u8>,
    ends: Vec<usize>,
    selected: u64,
    /// Last printed line number, to place `--` (None before the first).
    last: Option<u64>,
}

const GREEN: &[u8] = b"\x1b[32m";
const RED_BOLD: &[u8] = b"\x1b[1;31m";
const RESET: &[u8] = b"\x1b[0m";

impl Printer {
    /// A printer for one chunk. `last` is the line printed just before the
    /// chunk (for `--` placement across calls), if known.
    pub fn new(opts: Arc<PrintOptions>, matcher: Arc<Matcher>, last: Option<u64>) -> Printer {
        Printer {
            opts,
            matcher,
            out: Vec::new(),
            ends: Vec::new(),
            selected: 0,
            last,
        }
    }

    /// A context line after the `-m` limit that would have been selected
    /// is shown as a match, as ripgrep 13 does.
    fn shown_as_match(&self, l: &Line<'_>) -> bool {
        l.kind == Kind::Match
            || (self.opts.context
                && self
                    .matcher
                    .is_match(l.bytes.strip_suffix(b"\n").unwrap_or(l.bytes))
                    != self.opts.invert)
    }

    fn number(&mut self, n: u64, sep: u8) {
        if self.opts.color {
            self.out.extend_from_slice(GREEN);
        }
        self.out.extend_from_slice((n + 1).to_string().as_bytes());
        if self.opts.color {
            self.out.extend_from_slice(RESET);
        }
        self.out.push(sep);
    }

    fn text_line(&mut self, l: &Line<'_>) {
        let sep = if self.shown_as_match(l) { b':' } else { b'-' };
        if self.opts.context
            && let Some(last) = self.last
            && l.number > last + 1
        {
            self.out.extend_from_slice(b"--\n");
        }
        self.last = Some(l.number);
        let body = l.bytes.strip_suffix(b"\n").unwrap_or(l.bytes);
        if self.opts.only_matching {
            if l.kind != Kind::Match {
                return;
            }
            let mut spans = Vec::new();
            self.matcher.for_each_match(body, |s, e| {
                spans.push((s, e));
                true
            });
            for (s, e) in spans {
                if self.opts.line_number {
                    self.number(l.number, sep);
                }
                if self.opts.byte_offset {
                    self.out
                        .extend_from_slice((l.offset + s as u64).to_string().as_bytes());
                    self.out.push(sep);
                }
                if self.opts.color {
                    self.out.extend_from_slice(RED_BOLD);
                }
                self.out.extend_from_slice(&body[s..e]);
                if self.opts.color {
                    self.out.extend_from_slice(RESET);
                }
                self.out.push(b'\n');
            }
            return;
        }
        if self.opts.line_number {
            self.number(l.number, sep);
        }
        if self.opts.byte_offset {
            self.out.extend_from_slice(l.offset.to_string().as_bytes());
            self.out.push(sep);
        }
        if self.opts.color && l.kind == Kind::Match {
            let mut at = 0;
            let out = &mut self.out;
            self.matcher.for_each_match(body, |s, e| {
                out.extend_from_slice(&body[at..s]);
                out.extend_from_slice(RED_BOLD);
                out.extend_from_slice(&body[s..e]);
                out.extend_from_slice(RESET);
                at = e;
                true
            });
            out.extend_from_slice(&body[at..]);
        } else {
            self.out.extend_from_slice(body);
        }
        self.out.push(b'\n');
    }

    fn json_line(&mut self, l: &Line<'_>) {
        let body_nl = l.bytes;
        let body = body_nl.strip_suffix(b"\n").unwrap_or(body_nl);
        let kind = if self.shown_as_match(l) {
            "match"
        } else {
            "context"
        };
        self.out.extend_from_slice(b"{\"type\":\"");
        self.out.extend_from_slice(kind.as_bytes());
        self.out
            .extend_from_slice(b"\",\"data\":{\"path\":{\"text\":");
        json_string(&mut self.out, self.opts.path.as_bytes());
        self.out.extend_from_slice(b"},\"lines\":");
        json_data(&mut self.out, body_nl);
        self.out.extend_from_slice(
            format!(
                ",\"line_number\":{},\"absolute_offset\":{},\"submatches\":[",
                l.number + 1,
                l.offset
            )
            .as_bytes(),
        );
        if l.kind == Kind::Match {
            let mut first = true;
            let out = &mut self.out;
            self.matcher.for_each_match(body, |s, e| {
                if !first {
                    out.push(b',');
                }
                first = false;
                out.extend_from_slice(b"{\"match\":");
                json_data(out, &body[s..e]);
                out.extend_from_slice(format!(",\"start\":{s},\"end\":{e}}}").as_bytes());
                true
            });
        }
        self.out.extend_from_slice(b"]}}\n");
    }
}

impl Sink for Printer {
    fn line(&mut self, l: &Line<'_>) -> lidx::Result<bool> {
        if l.kind == Kind::Match {
            self.selected += 1;
        }
        if !self.opts.count {
            if self.opts.json {
                self.json_line(l);
            } else {
                self.text_line(l);
            }
        }
        if l.kind == Kind::Match {
            self.ends.push(self.out.len());
        }
        Ok(true)
    }
}

impl Render for Printer {
    fn finish(self) -> ChunkOutput {
        ChunkOutput {
            bytes: self.out,
            ends: self.ends,
            selected: self.selected,
        }
    }
}

/// `{"text":"..."}` for UTF-8, else `{"bytes":"BASE64"}` (as ripgrep).
pub fn json_data(out: &mut Vec<u8>, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(s) => {
            out.extend_from_slice(b"{\"text\":");
            json_string(out, s.as_bytes());
            out.push(b'}');
        }
        Err(_) => {
            out.extend_from_slice(b"{\"bytes\":\"");
            base64(out, bytes);
            out.extend_from_slice(b"\"}");
        }
    }
}

/// A JSON string literal of valid UTF-8 `s` (lossy for invalid bytes).
pub fn json_string(out: &mut Vec<u8>, s: &[u8]) {
    out.push(b'"');
    for c in String::from_utf8_lossy(s).chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            c if (c as u32) < 0x20 => {
                out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes())
            }
            c => {
                let mut b = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            }
        }
    }
    out.push(b'"');
}

/// Standard base64 with padding.
pub fn base64(out: &mut Vec<u8>, bytes: &[u8]) {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        out.push(T[(n >> 18) as usize & 63]);
        out.push(T[(n >> 12) as usize & 63]);
        out.push(if c.len() > 1 {
            T[(n >> 6) as usize & 63]
        } else {
            b'='
        });
        out.push(if c.len() > 2 {
            T[n as usize & 63]
        } else {
            b'='
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_vectors() {
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            let mut v = Vec::new();
            base64(&mut v, i.as_bytes());
            assert_eq!(v, o.as_bytes());
        }
    }
}
