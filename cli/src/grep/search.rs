//! Searching one file: open its index, turn the asked ranges into chunks
//! of source, scan them (in parallel where the output allows), and write
//! what the printers rendered, after the file's lead (its heading, or its
//! JSON `begin`).

use super::json::{Json, JsonOptions};
use super::plan::Plan;
use super::standard::{Standard, StandardOptions};
use super::{LineFacts, Mode, Rendered, path_bytes};
use lidx::Error;
use lidx::Index;
use lidx::family::Family;
use lidx::search::parallel::{ChunkOutput, Render};
use lidx::search::{Chunk, Kind, Line, Matcher, ScanOptions, Search, Sink};
use std::io::Write;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What searching one file found and printed.
#[derive(Debug, Default)]
pub struct Found {
    /// Lines selected.
    pub selected: u64,
    /// Matches counted (count modes and JSON).
    pub matches: u64,
    /// Bytes searched (exact in JSON mode).
    pub searched: u64,
    /// Bytes printed, the lead included.
    pub printed: u64,
    /// Something was printed (the lead first).
    pub begun: bool,
    /// Time spent searching.
    pub elapsed: Duration,
}

/// One index to search: a file, or a member of a rotation family.
pub struct Part<'a> {
    /// The index.
    pub index: &'a Index,
    /// The name in messages and output (`-H`, JSON).
    pub name: &'a Path,
    /// Where the part's lines start in the numbers printed.
    pub line_base: u64,
    /// Where the part's bytes start in the offsets printed.
    pub byte_base: u64,
    /// The lines to search, 0-based in the part, sorted and disjoint.
    pub ranges: Vec<Range<u64>>,
}

impl Found {
    /// Adds a later part's findings (a family's next member).
    fn add(&mut self, f: &Found) {
        self.selected += f.selected;
        self.matches += f.matches;
        self.searched += f.searched;
        self.printed += f.printed;
        self.begun |= f.begun;
        self.elapsed += f.elapsed;
    }
}

/// Searches a rotation family as one log: `--lines` and the time range
/// in global numbers, each member with its base, `-m` counted over the
/// family, and the context separator between members' groups. A context
/// group does not reach across members.
pub fn search_family(
    plan: &Plan,
    family: &Family,
    lead: &[u8],
    out: &mut impl Write,
) -> lidx::Result<Found> {
    if !plan.byte_ranges.is_empty() {
        return Err(Error::InvalidArgument(
            "--bytes takes a file's byte offsets; with -R, select lines with --lines".into(),
        ));
    }
    let (first, end) = (family.first_line(), family.end_line());
    let mut ranges = if plan.whole {
        std::iter::once(first..end).collect()
    } else {
        merge(plan.specs.iter().map(|s| s.resolve(end)).collect())
    };
    if let Some(t) = crate::family::time_range(family, &plan.time)? {
        ranges = ranges
            .into_iter()
            .map(|r| r.start.max(t.start)..r.end.min(t.end))
            .filter(|r| r.start < r.end)
            .collect();
    }
    let mut total = Found::default();
    let mut separator = Vec::new();
    if plan.standard.context
        && let Some(sep) = &plan.standard.separator_context
    {
        separator.extend_from_slice(sep);
        separator.extend_from_slice(plan.matcher.line_terminator());
    }
    for m in family.members() {
        let lines = m.lines();
        let local: Vec<Range<u64>> = ranges
            .iter()
            .map(|g| g.start.max(lines.start)..g.end.min(lines.end))
            .filter(|g| g.start < g.end)
            .map(|g| g.start - m.base_line..g.end - m.base_line)
            .collect();
        if local.is_empty() {
            continue;
        }
        let mut sopts = plan.sopts;
        if let Some(max) = sopts.max_count {
            if total.selected >= max {
                break;
            }
            sopts.max_count = Some(max - total.selected);
        }
        let part = Part {
            index: &m.index,
            name: family.live_path(),
            line_base: m.base_line,
            byte_base: m.base_byte,
            ranges: local,
        };
        let lead_now: &[u8] = if !total.begun {
            lead
        } else if plan.mode == Mode::Standard && !plan.quiet {
            &separator
        } else {
            b""
        };
        let f = search_part(plan, &part, sopts, lead_now, out)?;
        total.add(&f);
    }
    Ok(total)
}

/// Searches `file` as `plan` says; `lead` is written before the file's
/// first output, if it has any.
pub fn search_file(
    plan: &Plan,
    file: &Path,
    lead: &[u8],
    out: &mut impl Write,
) -> lidx::Result<Found> {
    let index = crate::time::open(file, &plan.query, &plan.time)?;
    let mut ranges = plan
        .specs
        .iter()
        .map(|s| s.resolve_in(&index))
        .collect::<Result<Vec<_>, _>>()?;
    for b in &plan.byte_ranges {
        let c = index.chunk_for_bytes(b.clone())?;
        if c.start < c.end {
            let last = index.line_at(c.end - 1)?;
            ranges.push(c.first_line..last + 1);
        }
    }
    let mut ranges: Vec<Range<u64>> = if plan.whole {
        std::iter::once(0..index.line_count()).collect()
    } else {
        merge(ranges)
    };
    // --since/--until: only the lines of the time range, too.
    if let Some(t) = plan.time.range(&index)? {
        ranges = ranges
            .into_iter()
            .map(|r| r.start.max(t.start)..r.end.min(t.end))
            .filter(|r| r.start < r.end)
            .collect();
    }
    let part = Part {
        index: &index,
        name: file,
        line_base: 0,
        byte_base: 0,
        ranges,
    };
    search_part(plan, &part, plan.sopts, lead, out)
}

/// Searches one part with scan options `sopts` (a family's `-m` counts
/// across its members).
pub fn search_part(
    plan: &Plan,
    part: &Part<'_>,
    sopts: ScanOptions,
    lead: &[u8],
    out: &mut impl Write,
) -> lidx::Result<Found> {
    let (index, file, ranges) = (part.index, part.name, &part.ranges);
    // A remote source starts fetching the first chunk while the first
    // bytes are read (for gzip, span 0 is decoded for them).
    if let Some(r) = ranges.first() {
        let c = index.chunk_for_lines(r.clone())?;
        index
            .source()
            .will_need(c.start..c.end.min(c.start.saturating_add(plan.chunk_bytes)));
    }
    // A byte-order mark, as ripgrep's automatic encoding detection sees it.
    let mut head = [0u8; 3];
    let got = index.source().read_full_at(&mut head, 0)?;
    let head = &head[..got];
    let shift = if !plan.encoding_none && head.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    if !plan.encoding_none && (head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF")) {
        return Err(Error::InvalidArgument(format!(
            "{}: UTF-16 text (byte-order mark {:02X} {:02X}): lidx splits lines at byte 0x0A and cannot search UTF-16; convert it (iconv -f UTF-16 -t UTF-8) or search the raw bytes with -E none",
            file.display(),
            head[0],
            head[1]
        )));
    }

    let mut chunks: Vec<Chunk> = Vec::new();
    for r in ranges {
        let mut c = index.chunk_for_lines(r.clone())?;
        if c.start == 0 {
            c.start = shift.min(c.end);
        }
        if c.start < c.end {
            chunks.push(c);
        }
    }
    let mut found = Found::default();
    if plan.binary_skip {
        for c in &chunks {
            if contains_nul(index.source(), c)? {
                return Ok(found);
            }
        }
    }
    // --stop-on-nonmatch: the search ends at `stop` (see `stop_point`).
    let mut stopped_at = None;
    if plan.stop_on_nonmatch
        && let Some(stop) = stop_point(plan, index.source(), &chunks, &sopts)?
    {
        chunks.retain(|c| c.start < stop);
        if let Some(last) = chunks.last_mut() {
            last.end = last.end.min(stop);
        }
        stopped_at = Some(stop);
    }
    let facts = Arc::new(LineFacts {
        shift,
        line_base: part.line_base,
        byte_base: part.byte_base,
        starts: chunks.iter().map(|c| c.start).collect(),
    });
    let path = path_bytes(file, plan.path_separator);
    let popts = Arc::new(StandardOptions {
        path: (plan.with_filename && !plan.heading).then(|| path.clone()),
        ..plan.standard.clone()
    });
    let jopts = Arc::new(JsonOptions {
        path,
        ..plan.json.clone()
    });
    let (mode, quiet, matcher) = (plan.mode, plan.quiet, &plan.matcher);
    // Statistics count matches in every mode.
    let count_matches = mode == Mode::Json || mode == Mode::CountMatches || plan.stats;
    let make = || -> Printer {
        if quiet {
            // Quiet JSON and --stats still report statistics.
            return Printer::Count(Counter::new(matcher.clone(), facts.clone(), count_matches));
        }
        match mode {
            Mode::Standard => {
                Printer::Standard(Standard::new(popts.clone(), facts.clone(), matcher.clone()))
            }
            Mode::Json => Printer::Json(Json::new(jopts.clone(), facts.clone(), matcher.clone())),
            _ => Printer::Count(Counter::new(matcher.clone(), facts.clone(), count_matches)),
        }
    };

    let out_err = |e| Error::io("write", Path::new("<stdout>"), e);
    let json_out = mode == Mode::Json && !quiet;
    let search_started = Instant::now();
    let mut done = false;
    let mut write = |bytes: &[u8], found: &mut Found| -> std::io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        if !found.begun {
            found.begun = true;
            out.write_all(lead)?;
            found.printed += lead.len() as u64;
        }
        found.printed += bytes.len() as u64;
        out.write_all(bytes)
    };
    let totals = if plan.sequential {
        let mut printer = make();
        let mut search = Search::new(matcher, sopts);
        search.exact_bytes_searched(json_out || plan.stats);
        let mut buf = Vec::new();
        let capped = plan.stop_on_nonmatch.then_some(sopts.max_count).flatten();
        for c in &chunks {
            match capped {
                Some(left) => {
                    let mut sink = Capped {
                        inner: &mut printer,
                        left: left.saturating_sub(search.selected()),
                    };
                    search.scan(index.source(), *c, &mut buf, &mut sink)?;
                }
                None => search.scan(index.source(), *c, &mut buf, &mut printer)?,
            }
            if search.is_done() {
                break;
            }
        }
        done = search.is_done();
        let rendered = printer.finish();
        write(&rendered.bytes, &mut found).map_err(out_err)?;
        lidx::search::parallel::Totals {
            // What the printer saw as selected (a capped line is context).
            selected: if capped.is_some() {
                rendered.selected
            } else {
                search.selected()
            },
            matches: rendered.matches,
            searched: search.bytes_searched(),
        }
    } else {
        let mut pieces = Vec::new();
        for c in &chunks {
            pieces.extend(index.split_chunk(*c, plan.chunk_bytes)?);
        }
        lidx::search::parallel::run(
            index.source(),
            &pieces,
            plan.threads,
            matcher,
            &sopts,
            make,
            &mut |bytes| write(bytes, &mut found).map_err(out_err),
        )?
    };
    found.elapsed = search_started.elapsed();
    found.selected = totals.selected;
    found.matches = totals.matches;
    found.searched = totals.searched;
    if stopped_at.is_some() && (sopts.after > 0 || sopts.passthru) {
        // The line the search stopped at was read as context (after the
        // limit of -m too, where the scan itself would not count it).
        found.searched = chunks.iter().map(|c| c.end - c.start).sum();
    }

    // A damaged or truncated archive: the search covered only the lines
    // before the damage. An answer that needs the rest (a count, the
    // absence of a match) is an error; lines already printed stand, as
    // with `zcat | rg`.
    let needs_rest = plan.whole
        || ranges.iter().any(|r| r.end > index.line_count())
        || !plan.byte_ranges.is_empty();
    // Stopped by -m (or -q, -l) before the end: the answer is complete.
    let stopped_early =
        done || (!plan.sequential && sopts.max_count.is_some_and(|m| found.selected >= m));
    if needs_rest
        && !stopped_early
        && let Some(e) = index.damaged_error()
    {
        return Err(e);
    }
    Ok(found)
}

/// `--stop-on-nonmatch`: where the search of `chunks` ends, if it ends
/// early (the end of the line it stops at), as ripgrep's search ends: at
/// the first line not selected after a selected one, and with `-m` at the
/// line after the last selected one. That line is still after context (a
/// context line then, see [`Capped`]), and searched.
///
/// Searching up to there is the whole search, in parallel or not.
fn stop_point(
    plan: &Plan,
    src: &dyn lidx::io::ReadAt,
    chunks: &[Chunk],
    sopts: &ScanOptions,
) -> lidx::Result<Option<u64>> {
    /// Sees every line (a passthru scan) and notes where the search
    /// stops.
    struct Watch {
        max_count: Option<u64>,
        /// Lines selected so far.
        selected: u64,
        stop: Option<u64>,
    }
    impl Sink for Watch {
        fn line(&mut self, l: &Line<'_>) -> lidx::Result<bool> {
            let selected = l.kind == Kind::Match;
            if self.selected > 0
                && (!selected || self.max_count.is_some_and(|m| self.selected >= m))
            {
                self.stop = Some(l.offset + l.bytes.len() as u64);
                return Ok(false);
            }
            self.selected += u64::from(selected);
            Ok(true)
        }
    }
    let opts = ScanOptions {
        passthru: true,
        ..ScanOptions::default()
    };
    let mut search = Search::new(&plan.matcher, opts);
    let mut watch = Watch {
        max_count: sopts.max_count,
        selected: 0,
        stop: None,
    };
    let mut buf = Vec::new();
    for c in chunks {
        search.scan(src, *c, &mut buf, &mut watch)?;
        if watch.stop.is_some() {
            break;
        }
    }
    Ok(watch.stop)
}

/// With `--stop-on-nonmatch` and `-m`: the line after the last selected
/// one is context even where the pattern matches it (ripgrep's search has
/// stopped selecting), so it is passed on as context.
struct Capped<'a, S: Sink> {
    inner: &'a mut S,
    left: u64,
}

impl<S: Sink> Sink for Capped<'_, S> {
    fn line(&mut self, l: &Line<'_>) -> lidx::Result<bool> {
        if l.kind != Kind::Match {
            return self.inner.line(l);
        }
        if self.left == 0 {
            return self.inner.line(&Line {
                kind: Kind::Context,
                ..*l
            });
        }
        self.left -= 1;
        self.inner.line(l)
    }
}

pub fn parse_bytes(s: &str) -> Result<std::ops::Range<u64>, Error> {
    let bad = || {
        Error::InvalidArgument(format!(
            "invalid byte range {s:?}: expected A:B with A < B (0-based, end exclusive)"
        ))
    };
    let (a, b) = s.split_once(':').ok_or_else(bad)?;
    let num = |t: &str| -> Result<u64, Error> {
        if t.is_empty() || !t.bytes().all(|c| c.is_ascii_digit()) {
            return Err(bad());
        }
        t.parse().map_err(|_| bad())
    };
    let a = if a.is_empty() { 0 } else { num(a)? };
    let b = if b.is_empty() { u64::MAX } else { num(b)? };
    if a >= b {
        return Err(bad());
    }
    Ok(a..b)
}

/// Sorted, merged line ranges (0-based, half-open).
fn merge(mut v: Vec<std::ops::Range<u64>>) -> Vec<std::ops::Range<u64>> {
    v.sort_by_key(|r| r.start);
    let mut out: Vec<std::ops::Range<u64>> = Vec::new();
    for r in v {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// Counts selected lines and, if asked, their matches (the count modes).
pub(super) struct Counter {
    matcher: Arc<Matcher>,
    facts: Arc<LineFacts>,
    count_matches: bool,
    done: Rendered,
}

impl Counter {
    pub(super) fn new(
        matcher: Arc<Matcher>,
        facts: Arc<LineFacts>,
        count_matches: bool,
    ) -> Counter {
        Counter {
            matcher,
            facts,
            count_matches,
            done: Rendered::default(),
        }
    }
}

impl Sink for Counter {
    fn line(&mut self, l: &Line<'_>) -> lidx::Result<bool> {
        if l.kind == Kind::Match && self.count_matches {
            // As ripgrep's summary printer: every match, at least one.
            let content = self.matcher.content(l.bytes);
            let (mut n, len) = (0u64, l.bytes.len());
            let preceded = self.facts.preceded(l.offset);
            self.matcher.for_each_match(content, preceded, |s, _| {
                n += u64::from(s < len);
                s < len
            });
            self.done.matches += n.max(1);
        }
        self.done.rendered(l.kind);
        Ok(true)
    }
}

impl Render for Counter {
    fn finish(self) -> ChunkOutput {
        self.done.finish()
    }
}

/// The renderers of the modes, behind one type for the scan.
pub(super) enum Printer {
    Standard(Standard),
    Json(Json),
    Count(Counter),
}

impl Sink for Printer {
    fn line(&mut self, l: &Line<'_>) -> lidx::Result<bool> {
        match self {
            Printer::Standard(p) => p.line(l),
            Printer::Json(p) => p.line(l),
            Printer::Count(p) => p.line(l),
        }
    }
}

impl Render for Printer {
    fn finish(self) -> ChunkOutput {
        match self {
            Printer::Standard(p) => p.finish(),
            Printer::Json(p) => p.finish(),
            Printer::Count(p) => p.finish(),
        }
    }
}

fn contains_nul(src: &dyn lidx::io::ReadAt, c: &Chunk) -> lidx::Result<bool> {
    let mut buf = lidx::io::AlignedBuf::zeroed(1 << 16);
    let mut at = c.start;
    while at < c.end {
        let n = buf.len().min((c.end - at) as usize);
        let got = src.read_full_at(&mut buf[..n], at)?;
        if got == 0 {
            break;
        }
        if memchr::memchr(0, &buf[..got]).is_some() {
            return Ok(true);
        }
        at += got as u64;
    }
    Ok(false)
}
