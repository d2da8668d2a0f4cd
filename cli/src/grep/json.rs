//! ripgrep's JSON Lines format, message for message: `begin` before the
//! first reported line, `match` and `context` lines with their submatches,
//! `end` with the search's statistics (see [`super::stats`]), and a closing
//! `summary`. Text that
//! is valid UTF-8 is `{"text": ...}`, anything else `{"bytes": BASE64}`.

use super::stats::Stats;
use super::{LineFacts, Rendered, Spans};
use base64::Engine as _;
use lidx::search::parallel::{ChunkOutput, Render};
use lidx::search::{Kind, Line, Matcher, Sink};
use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

/// What every message of one search shares.
#[derive(Debug, Clone)]
pub struct JsonOptions {
    /// The file as given.
    pub path: Vec<u8>,
    /// Report line numbers (`null` with `-N`).
    pub line_number: bool,
    /// `-r`: each submatch gets a `replacement`.
    pub replacement: Option<Vec<u8>>,
    /// `-v`: context lines carry their matches.
    pub invert: bool,
}

/// Text as ripgrep encodes it: UTF-8 as text, other bytes as base64.
struct Data<'a>(&'a [u8]);

impl Serialize for Data<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Data", 1)?;
        match std::str::from_utf8(self.0) {
            Ok(t) => st.serialize_field("text", t)?,
            Err(_) => st.serialize_field(
                "bytes",
                &base64::engine::general_purpose::STANDARD.encode(self.0),
            )?,
        }
        st.end()
    }
}

#[derive(Serialize)]
struct Message<T: Serialize> {
    #[serde(rename = "type")]
    kind: &'static str,
    data: T,
}

#[derive(Serialize)]
struct Begin<'a> {
    path: Data<'a>,
}

#[derive(Serialize)]
struct Hit<'a> {
    path: Data<'a>,
    lines: Data<'a>,
    line_number: Option<u64>,
    absolute_offset: u64,
    submatches: Vec<SubMatch<'a>>,
}

struct SubMatch<'a> {
    m: Data<'a>,
    replacement: Option<Data<'a>>,
    start: usize,
    end: usize,
}

impl Serialize for SubMatch<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("SubMatch", 4)?;
        st.serialize_field("match", &self.m)?;
        if let Some(r) = &self.replacement {
            st.serialize_field("replacement", r)?;
        }
        st.serialize_field("start", &self.start)?;
        st.serialize_field("end", &self.end)?;
        st.end()
    }
}

/// A duration as ripgrep prints it.
#[derive(Serialize)]
struct Elapsed {
    secs: u64,
    nanos: u32,
    human: String,
}

impl Elapsed {
    fn of(d: Duration) -> Elapsed {
        Elapsed {
            secs: d.as_secs(),
            nanos: d.subsec_nanos(),
            human: format!("{:0.6}s", d.as_secs_f64()),
        }
    }
}

#[derive(Serialize)]
struct StatsMessage {
    elapsed: Elapsed,
    searches: u64,
    searches_with_match: u64,
    bytes_searched: u64,
    bytes_printed: u64,
    matched_lines: u64,
    matches: u64,
}

#[derive(Serialize)]
struct End<'a> {
    path: Data<'a>,
    binary_offset: Option<u64>,
    stats: StatsMessage,
}

fn stats(s: &Stats) -> StatsMessage {
    StatsMessage {
        elapsed: Elapsed::of(s.elapsed),
        searches: s.searches,
        searches_with_match: s.searches_with_match,
        bytes_searched: s.bytes_searched,
        bytes_printed: s.bytes_printed,
        matched_lines: s.matched_lines,
        matches: s.matches,
    }
}

fn line<W: Write, T: Serialize>(out: &mut W, kind: &'static str, data: T) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, &Message { kind, data })?;
    out.write_all(b"\n")
}

/// Writes the `begin` message; returns its length.
pub fn write_begin(out: &mut impl Write, o: &JsonOptions) -> std::io::Result<u64> {
    let mut v = Vec::new();
    line(
        &mut v,
        "begin",
        Begin {
            path: Data(&o.path),
        },
    )?;
    out.write_all(&v)?;
    Ok(v.len() as u64)
}

/// Writes the `end` message.
pub fn write_end(out: &mut impl Write, o: &JsonOptions, s: &Stats) -> std::io::Result<()> {
    line(
        out,
        "end",
        End {
            path: Data(&o.path),
            binary_offset: None,
            stats: stats(s),
        },
    )
}

/// Writes the closing `summary` message (keys sorted, as ripgrep's).
pub fn write_summary(out: &mut impl Write, s: &Stats, total: Duration) -> std::io::Result<()> {
    let v = serde_json::json!({
        "type": "summary",
        "data": {
            "stats": stats(s),
            "elapsed_total": Elapsed::of(total),
        }
    });
    serde_json::to_writer(&mut *out, &v)?;
    out.write_all(b"\n")
}

/// Renders lines as `match` and `context` messages.
pub struct Json {
    opts: Arc<JsonOptions>,
    facts: Arc<LineFacts>,
    matcher: Arc<Matcher>,
    done: Rendered,
    spans: Spans,
}

impl Json {
    /// A renderer for one chunk.
    pub fn new(opts: Arc<JsonOptions>, facts: Arc<LineFacts>, matcher: Arc<Matcher>) -> Json {
        Json {
            opts,
            facts,
            matcher,
            done: Rendered::default(),
            spans: Spans::default(),
        }
    }

    fn render(&mut self, l: &Line<'_>) -> std::io::Result<()> {
        let mut spans = std::mem::take(&mut self.spans);
        spans.clear();
        let want = l.kind == Kind::Match || self.opts.invert;
        if want {
            spans.find(&self.matcher, &self.facts, l);
            if let Some(r) = &self.opts.replacement {
                spans.replace(&self.matcher, &self.facts, l, r);
            }
        }
        if l.kind == Kind::Match {
            self.done.matches += spans.original.len() as u64;
        }
        let replaced = if spans.has_replacement {
            Some((&spans.replaced[..], &spans.replaced_spans[..]))
        } else {
            None
        };
        let submatches = spans
            .original
            .iter()
            .enumerate()
            .map(|(i, &(s, e))| SubMatch {
                m: Data(&l.bytes[s..e]),
                replacement: replaced.map(|(buf, sp)| Data(&buf[sp[i].0..sp[i].1])),
                start: s,
                end: e,
            })
            .collect();
        let hit = Hit {
            path: Data(&self.opts.path),
            lines: Data(l.bytes),
            line_number: self.opts.line_number.then_some(self.facts.number(l.number)),
            absolute_offset: self.facts.offset(l.offset),
            submatches,
        };
        let kind = if l.kind == Kind::Match {
            "match"
        } else {
            "context"
        };
        let r = line(&mut self.done.out, kind, hit);
        self.spans = spans;
        r
    }
}

impl Sink for Json {
    fn line(&mut self, l: &Line<'_>) -> lidx::Result<bool> {
        self.render(l)
            .map_err(|e| lidx::Error::io("write", std::path::Path::new("<stdout>"), e))?;
        self.done.rendered(l.kind);
        Ok(true)
    }
}

impl Render for Json {
    fn finish(self) -> ChunkOutput {
        self.done.finish()
    }
}
