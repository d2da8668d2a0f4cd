//! Timestamp formats: finding and reading the stamp of a line.
//!
//! Each format has a fixed place in the line (the start, or the first `[`
//! for the common log format; an ISO 8601 stamp may start anywhere in the
//! first [`ISO_WINDOW`] bytes, as after a `[` or a JSON key) and a
//! hand-written reader: an ingest reads every line once, so the readers
//! must cost nanoseconds. Only a stamp without a zone goes through the time
//! zone rules (jiff's), once per distinct minute.

use super::{Civil, Nanos};
use crate::error::{Error, Result};

/// The bytes at the start of a line where an ISO 8601 stamp is looked for.
pub const ISO_WINDOW: usize = 64;

/// How a line's timestamp is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeKind {
    /// RFC 3339 / ISO 8601: `2026-11-30T19:32:00.123Z`, with `T` or a space,
    /// with or without seconds, a fraction (`.` or `,`, as log4j and
    /// Python's logging write `2026-11-30 19:32:00,123`) and a zone (`Z`,
    /// `+01:00`, `+0100`, `+01`); within the first 64 bytes of the line.
    Iso,
    /// syslog (RFC 3164): `Nov 30 19:32:00` at the start of the line, the
    /// day padded with a space or a zero, an optional fraction. No year: see
    /// [`TimeFormat::syslog_year`].
    Syslog,
    /// The common and combined log formats of Apache and nginx:
    /// `[30/Nov/2026:19:32:00 +0000]`, at the line's first `[`.
    Clf,
    /// Seconds since the epoch, 10 digits (optionally `.` and a fraction),
    /// at the start of the line.
    EpochSeconds,
    /// Milliseconds since the epoch, 13 digits, at the start of the line.
    EpochMillis,
    /// A strftime-like format (jiff's `strtime`), matched at the start of
    /// the line.
    Strftime(String),
}

/// A timestamp format and how to read stamps without a zone.
#[derive(Debug, Clone)]
pub struct TimeFormat {
    kind: TimeKind,
    /// Detected rather than given: a line without a stamp in `kind` is
    /// also read as ISO 8601, the common log format and syslog, in that
    /// order (a log whose format changes part way through).
    auto: bool,
    tz: jiff::tz::TimeZone,
    tz_name: String,
    syslog_year: i32,
}

impl PartialEq for TimeFormat {
    fn eq(&self, o: &TimeFormat) -> bool {
        self.kind == o.kind
            && self.auto == o.auto
            && self.tz_name == o.tz_name
            && self.syslog_year == o.syslog_year
    }
}

/// The formats an automatic format also reads, after its own.
const FALLBACK: [TimeKind; 3] = [TimeKind::Iso, TimeKind::Clf, TimeKind::Syslog];

fn month_of(b: &[u8]) -> Option<u32> {
    const M: [&[u8; 3]; 12] = [
        b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov",
        b"Dec",
    ];
    let b = b.get(..3)?;
    M.iter().position(|m| &m[..] == b).map(|i| i as u32 + 1)
}

#[inline]
fn digits(b: &[u8], at: usize, n: usize) -> Option<u32> {
    let s = b.get(at..at + n)?;
    let mut v = 0u32;
    for &c in s {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (c - b'0') as u32;
    }
    Some(v)
}

/// A fraction of a second at `b[at..]` after its separator: up to 9 digits
/// read, more ignored. Returns nanoseconds and the end.
fn fraction(b: &[u8], mut at: usize) -> (u32, usize) {
    let mut ns = 0u32;
    let mut n = 0;
    while let Some(&c) = b.get(at) {
        if !c.is_ascii_digit() {
            break;
        }
        if n < 9 {
            ns = ns * 10 + (c - b'0') as u32;
            n += 1;
        }
        at += 1;
    }
    for _ in n..9 {
        ns *= 10;
    }
    (ns, at)
}

/// A UTC offset `Z`, `±HH:MM`, `±HHMM` or `±HH` at `b[at..]`.
fn offset(b: &[u8], at: usize) -> Option<i32> {
    match b.get(at)? {
        b'Z' | b'z' => Some(0),
        &s @ (b'+' | b'-') => {
            let h = digits(b, at + 1, 2)?;
            let m = if b.get(at + 3) == Some(&b':') {
                digits(b, at + 4, 2)?
            } else {
                digits(b, at + 3, 2).unwrap_or(0)
            };
            if h > 23 || m > 59 {
                return None;
            }
            let v = (h * 3600 + m * 60) as i32;
            Some(if s == b'-' { -v } else { v })
        }
        _ => None,
    }
}

/// The date, hour and minute of an ISO 8601 stamp starting at `b[0]`
/// (its first 16 bytes, `YYYY-MM-DDTHH:MM`), not yet checked for range.
#[inline]
fn iso_head(b: &[u8]) -> Option<Civil> {
    if b.len() < 16 || b[4] != b'-' || b[7] != b'-' || b[13] != b':' {
        return None;
    }
    if !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    Some(Civil {
        y: digits(b, 0, 4)? as i64,
        mo: digits(b, 5, 2)?,
        d: digits(b, 8, 2)?,
        h: digits(b, 11, 2)?,
        mi: digits(b, 14, 2)?,
        s: 0,
        ns: 0,
    })
}

/// The rest of an ISO 8601 stamp starting at `b[0]`, after its minute:
/// seconds and fraction into `c`; returns the offset, if any.
#[inline]
fn iso_tail(b: &[u8], c: &mut Civil) -> Option<Option<i32>> {
    let mut at = 16;
    if b.get(16) == Some(&b':') {
        c.s = digits(b, 17, 2)?;
        at = 19;
        if matches!(b.get(19), Some(b'.' | b',')) && b.get(20).is_some_and(u8::is_ascii_digit) {
            (c.ns, at) = fraction(b, 20);
        }
    }
    Some(offset(b, at))
}

/// An ISO 8601 stamp starting at `b[0]`.
fn iso_at(b: &[u8]) -> Option<(Civil, Option<i32>)> {
    let mut c = iso_head(b)?;
    let off = iso_tail(b, &mut c)?;
    c.valid().then_some((c, off))
}

/// The first ISO 8601 stamp in the first [`ISO_WINDOW`] bytes of `line`,
/// and where it starts.
fn iso_pos(line: &[u8]) -> Option<(usize, Civil, Option<i32>)> {
    let end = line.len().min(ISO_WINDOW);
    let mut i = 0;
    while i + 16 <= line.len() && i < end {
        // A year starts with a digit and has '-' 4 bytes later.
        if line[i].is_ascii_digit()
            && line[i + 4] == b'-'
            && let Some((c, off)) = iso_at(&line[i..])
        {
            return Some((i, c, off));
        }
        i += 1;
    }
    None
}

/// The first ISO 8601 stamp in the first [`ISO_WINDOW`] bytes of `line`.
fn iso(line: &[u8]) -> Option<(Civil, Option<i32>)> {
    iso_pos(line).map(|(_, c, off)| (c, off))
}

/// The last ISO 8601 minute read: the bytes of its line up to the end of
/// `YYYY-MM-DDTHH:MM`, and what they mean. A line that begins with the
/// same bytes has its stamp at the same place with the same minute (no
/// earlier place can hold one: [`IsoMinute::new`] checks that no earlier
/// place could, whatever follows), so only its seconds, fraction and
/// offset need reading. Logs write many lines a minute.
#[derive(Debug, Clone)]
struct IsoMinute {
    prefix: [u8; ISO_WINDOW + 16],
    len: usize,
    /// Where the stamp starts.
    at: usize,
    /// The minute (seconds and fraction zero) and its seconds since the
    /// epoch as if UTC.
    civil: Civil,
    utc: i64,
    /// The zone's offset for the minute, once a stamp without an offset
    /// needed it.
    zone: Option<i32>,
}

impl IsoMinute {
    /// The minute of the stamp at `at` in `line`, if lines that begin as
    /// `line` does up to its end can take the short way.
    fn new(line: &[u8], at: usize, c: &Civil) -> Option<IsoMinute> {
        // A place before `at` that passes the first 16 bytes' checks could
        // hold a stamp in another line with the same beginning.
        if (0..at).any(|i| line[i].is_ascii_digit() && iso_head(&line[i..]).is_some()) {
            return None;
        }
        let len = at + 16;
        let mut prefix = [0u8; ISO_WINDOW + 16];
        prefix[..len].copy_from_slice(&line[..len]);
        let civil = Civil { s: 0, ns: 0, ..*c };
        Some(IsoMinute {
            prefix,
            len,
            at,
            civil,
            utc: civil.utc_seconds(),
            zone: None,
        })
    }
}
/// A syslog stamp `Mmm dd HH:MM:SS[.frac]` at the start of `line`: the
/// month, day and time (no year).
fn syslog(line: &[u8]) -> Option<(u32, u32, u32, u32, u32, u32)> {
    if line.len() < 15 || line[3] != b' ' || line[9] != b':' || line[12] != b':' {
        return None;
    }
    let mo = month_of(line)?;
    let d = if line[4] == b' ' {
        digits(line, 5, 1)?
    } else {
        digits(line, 4, 2)?
    };
    if line[6] != b' ' {
        return None;
    }
    let (h, mi, s) = (
        digits(line, 7, 2)?,
        digits(line, 10, 2)?,
        digits(line, 13, 2)?,
    );
    let ns = if line.get(15) == Some(&b'.') {
        fraction(line, 16).0
    } else {
        0
    };
    ((1..=31).contains(&d) && h < 24 && mi < 60 && s <= 60).then_some((mo, d, h, mi, s, ns))
}

/// A common-log-format stamp `[dd/Mmm/yyyy:HH:MM:SS ±hhmm]` at the first
/// `[` of `line`.
fn clf(line: &[u8]) -> Option<(Civil, Option<i32>)> {
    let at = memchr::memchr(b'[', &line[..line.len().min(256)])? + 1;
    let b = &line[at..];
    if b.len() < 26 || b[2] != b'/' || b[6] != b'/' || b[11] != b':' || b[20] != b' ' {
        return None;
    }
    let c = Civil {
        y: digits(b, 7, 4)? as i64,
        mo: month_of(&b[3..])?,
        d: digits(b, 0, 2)?,
        h: digits(b, 12, 2)?,
        mi: digits(b, 15, 2)?,
        s: digits(b, 18, 2)?,
        ns: 0,
    };
    let off = offset(b, 21)?;
    c.valid().then_some((c, Some(off)))
}

/// Epoch seconds (10 digits, optional fraction) or milliseconds (13
/// digits) at the start of `line`.
fn epoch(line: &[u8], millis: bool) -> Option<Nanos> {
    let n = line.iter().take_while(|c| c.is_ascii_digit()).count();
    let want = if millis { 13 } else { 10 };
    if n != want {
        return None;
    }
    let mut v: i64 = 0;
    for &c in &line[..n] {
        v = v * 10 + (c - b'0') as i64;
    }
    if millis {
        return v.checked_mul(1_000_000);
    }
    let ns = if line.get(n) == Some(&b'.') {
        fraction(line, n + 1).0 as i64
    } else {
        0
    };
    v.checked_mul(super::NS)?.checked_add(ns)
}

impl TimeFormat {
    /// A format of `kind`, reading stamps without a zone in `tz` (an IANA
    /// name such as `Europe/Paris`, `UTC`, or `local` for the system's), and
    /// syslog stamps from year `syslog_year` on (see
    /// [`TimeFormat::syslog_year`]; ignored by other kinds).
    pub fn new(kind: TimeKind, tz: &str, syslog_year: i32) -> Result<TimeFormat> {
        let (zone, name) = zone(tz)?;
        if let TimeKind::Strftime(f) = &kind
            && f.is_empty()
        {
            return Err(Error::InvalidArgument("empty --time-format".into()));
        }
        Ok(TimeFormat {
            kind,
            auto: false,
            tz: zone,
            tz_name: name,
            syslog_year,
        })
    }

    /// What kind of stamp.
    pub fn kind(&self) -> &TimeKind {
        &self.kind
    }

    /// True for a detected format: lines without a stamp of its kind are
    /// also tried as ISO 8601, the common log format and syslog (see
    /// [`TimeFormat::name`]).
    pub fn is_auto(&self) -> bool {
        self.auto
    }

    /// The same format, detected ([`TimeFormat::is_auto`]) or not.
    pub fn with_auto(mut self, auto: bool) -> TimeFormat {
        self.auto = auto;
        self
    }

    /// The time zone of stamps without one (an IANA name, or a fixed offset
    /// as `UTC+01:00`).
    pub fn tz_name(&self) -> &str {
        &self.tz_name
    }

    /// For syslog stamps, which carry no year: the year of the first stamped
    /// line. The year of each later line is the one that puts it closest to
    /// the line before (so it goes up by one at a December→January turn).
    pub fn syslog_year(&self) -> i32 {
        self.syslog_year
    }

    /// The format's name as the sidecar records it: `iso8601`, `syslog`,
    /// `clf`, `epoch-s`, `epoch-ms`, or `strftime:` and the format; a
    /// detected format is `auto:` and its kind's name.
    pub fn name(&self) -> String {
        let kind = self.kind_name();
        if self.auto {
            format!("auto:{kind}")
        } else {
            kind
        }
    }

    fn kind_name(&self) -> String {
        match &self.kind {
            TimeKind::Iso => "iso8601".into(),
            TimeKind::Syslog => "syslog".into(),
            TimeKind::Clf => "clf".into(),
            TimeKind::EpochSeconds => "epoch-s".into(),
            TimeKind::EpochMillis => "epoch-ms".into(),
            TimeKind::Strftime(f) => format!("strftime:{f}"),
        }
    }

    /// The kind named by [`TimeFormat::name`] (also what `--time-format`
    /// takes: a name, or a strftime format with a `%`).
    pub fn kind_of(name: &str) -> Result<TimeKind> {
        Ok(match name.strip_prefix("auto:").unwrap_or(name) {
            "iso8601" | "iso" | "rfc3339" | "log4j" => TimeKind::Iso,
            "syslog" => TimeKind::Syslog,
            "clf" | "apache" | "nginx" => TimeKind::Clf,
            "epoch-s" | "epoch" => TimeKind::EpochSeconds,
            "epoch-ms" => TimeKind::EpochMillis,
            s if s.starts_with("strftime:") => TimeKind::Strftime(s["strftime:".len()..].into()),
            s if s.contains('%') => TimeKind::Strftime(s.into()),
            s => {
                return Err(Error::InvalidArgument(format!(
                    "unknown time format {s:?}: give iso8601, syslog, clf, epoch-s, epoch-ms or a strftime format such as '%d.%m.%Y %H:%M:%S'"
                )));
            }
        })
    }

    /// The format of most stamped lines among `lines` (a file's first
    /// lines), if at least a tenth of the non-empty ones have a stamp in
    /// it (a Java log's stack traces may outnumber its stamped lines), and
    /// at least three or half of them.
    /// ISO 8601 is preferred on ties, then the common log format, syslog
    /// and epoch times. `mtime` (seconds) fixes a syslog file's first year:
    /// the latest year that does not put its first stamp after the file's
    /// modification time (plus a day).
    pub fn detect(lines: &[&[u8]], tz: &str, mtime: i64) -> Result<Option<TimeFormat>> {
        let kinds = [
            TimeKind::Iso,
            TimeKind::Clf,
            TimeKind::Syslog,
            TimeKind::EpochMillis,
            TimeKind::EpochSeconds,
        ];
        let nonempty = lines.iter().filter(|l| !l.is_empty()).count();
        let mut best: Option<(usize, TimeKind)> = None;
        for k in kinds {
            let hits = lines.iter().filter(|l| matches_kind(&k, l)).count();
            if hits > 0
                && (hits >= 3 || hits * 2 >= nonempty)
                && hits * 10 >= nonempty
                && best.as_ref().is_none_or(|b| hits > b.0)
            {
                best = Some((hits, k));
            }
        }
        let Some((_, kind)) = best else {
            return Ok(None);
        };
        let year = if kind == TimeKind::Syslog {
            let first = lines.iter().find_map(|l| syslog(l));
            first.map_or(1970, |(mo, d, h, mi, s, _)| {
                first_syslog_year(mo, d, h, mi, s, mtime)
            })
        } else {
            0
        };
        Ok(Some(TimeFormat::new(kind, tz, year)?.with_auto(true)))
    }

    /// The format `kind` (`None`: detected, see [`TimeFormat::detect`]) for
    /// a text whose first lines are `lines`; its syslog year from the
    /// first syslog stamp among them and `mtime`.
    pub fn for_lines(
        kind: Option<TimeKind>,
        tz: &str,
        lines: &[&[u8]],
        mtime: i64,
    ) -> Result<Option<TimeFormat>> {
        let Some(kind) = kind else {
            return TimeFormat::detect(lines, tz, mtime);
        };
        let year = if kind == TimeKind::Syslog {
            let first = lines.iter().find_map(|l| syslog(l));
            first.map_or(
                super::year_of(mtime.saturating_mul(super::NS)),
                |(mo, d, h, mi, s, _)| first_syslog_year(mo, d, h, mi, s, mtime),
            )
        } else {
            0
        };
        TimeFormat::new(kind, tz, year).map(Some)
    }

    /// A reader of stamps in this format.
    pub fn stamper(&self) -> Stamper {
        Stamper {
            f: self.clone(),
            minute: None,
            iso_minute: None,
            prev: None,
            prev_year: self.syslog_year,
        }
    }
}

/// The latest year in which month `mo` day `d` at the given time is not
/// after `mtime` plus a day (syslog's first line: the file was written
/// after it).
fn first_syslog_year(mo: u32, d: u32, h: u32, mi: u32, s: u32, mtime: i64) -> i32 {
    let day = 86_400;
    let y_m = 1970 + mtime.div_euclid(365 * day + day / 4) as i32;
    for y in [y_m + 1, y_m, y_m - 1, y_m - 2] {
        let c = Civil {
            y: y as i64,
            mo,
            d,
            h,
            mi,
            s,
            ns: 0,
        };
        if c.valid() && c.utc_seconds() <= mtime + day {
            return y;
        }
    }
    y_m - 1
}

fn matches_kind(k: &TimeKind, l: &[u8]) -> bool {
    match k {
        TimeKind::Iso => iso(l).is_some(),
        TimeKind::Syslog => syslog(l).is_some(),
        TimeKind::Clf => clf(l).is_some(),
        TimeKind::EpochSeconds => epoch(l, false).is_some_and(plausible_epoch),
        TimeKind::EpochMillis => epoch(l, true).is_some_and(plausible_epoch),
        TimeKind::Strftime(_) => false,
    }
}

/// Epoch stamps between 2001 and 2100: a 10- or 13-digit number outside
/// that is more likely something else.
fn plausible_epoch(t: Nanos) -> bool {
    (978_307_200 * super::NS..4_102_444_800 * super::NS).contains(&t)
}

/// The zone named `tz` and its display name.
fn zone(tz: &str) -> Result<(jiff::tz::TimeZone, String)> {
    let bad = |e: jiff::Error| Error::InvalidArgument(format!("unknown time zone {tz:?}: {e}"));
    if tz.is_empty() || tz == "local" {
        // The index records the zone by name, so that a later reader
        // reads stamps as this build did: a system zone without one (a
        // POSIX TZ string, an unnamed /etc/localtime) cannot be recorded.
        let z = jiff::tz::TimeZone::system();
        let Some(name) = z.iana_name().map(str::to_string) else {
            return Err(Error::InvalidArgument(
                "the system's time zone has no IANA name to record in the index: give --tz (an IANA name such as Europe/Paris, UTC, or an offset such as +01:00)".into(),
            ));
        };
        return Ok((z, name));
    }
    if tz == "UTC" || tz == "utc" || tz == "Z" {
        return Ok((jiff::tz::TimeZone::UTC, "UTC".into()));
    }
    if let Some(off) = offset(tz.as_bytes(), 0).filter(|_| tz.len() > 1) {
        let o = jiff::tz::Offset::from_seconds(off).map_err(bad)?;
        return Ok((jiff::tz::TimeZone::fixed(o), tz.to_string()));
    }
    let z = jiff::tz::TimeZone::get(tz).map_err(bad)?;
    Ok((z, tz.to_string()))
}

/// A wall-clock minute: year, month, day, hour, minute.
type Minute = (i64, u32, u32, u32, u32);

/// Reads the stamps of lines in one format, in file order (it remembers
/// the last minute's UTC offset, and for syslog the last line's time).
pub struct Stamper {
    f: TimeFormat,
    /// The last wall-clock minute converted, and its UTC offset.
    minute: Option<(Minute, i32)>,
    /// The last ISO 8601 minute read, for the lines after it.
    iso_minute: Option<Box<IsoMinute>>,
    /// The time of the last stamped line (syslog years follow it).
    prev: Option<Nanos>,
    /// The wall-clock year of the last stamped line.
    prev_year: i32,
}

/// Half a year: a syslog stamp read in the year of the line before it is
/// the closest reading when it lies within this of that line.
const HALF_YEAR: i64 = 182 * 86_400 * super::NS;

impl Stamper {
    /// Continues from a line stamped `anchor`, written in wall-clock year
    /// `year` (syslog stamps carry no year: the next one gets the year that
    /// puts it closest to the anchor). For reading from the middle of a
    /// file: the anchor is the last stamp before the place read from.
    pub fn anchor(&mut self, anchor: Nanos, year: i32) {
        self.prev = Some(anchor);
        self.prev_year = year;
    }

    /// The format.
    pub fn format(&self) -> &TimeFormat {
        &self.f
    }

    /// The time of the last stamped line read (or the anchor).
    pub fn last(&self) -> Option<Nanos> {
        self.prev
    }

    /// The wall-clock year of the last stamped line read (or the anchor's;
    /// before any, the format's first syslog year).
    pub fn last_year(&self) -> i32 {
        self.prev_year
    }

    /// The time of `line`'s stamp as it was read when the line was written
    /// in wall-clock year `year` (syslog stamps; other stamps carry their
    /// year or need none); forgets the lines before.
    pub fn stamp_in_year(&mut self, line: &[u8], year: i32) -> Option<Nanos> {
        self.prev = None;
        self.prev_year = year;
        self.stamp(line)
    }

    /// The time of `line`'s stamp, or `None` if it has none.
    pub fn stamp(&mut self, line: &[u8]) -> Option<Nanos> {
        let kind = std::mem::replace(&mut self.f.kind, TimeKind::Iso);
        let mut t = self.read(&kind, line);
        if t.is_none() && self.f.auto {
            for k in FALLBACK.iter().filter(|k| **k != kind) {
                t = self.read(k, line);
                if t.is_some() {
                    break;
                }
            }
        }
        self.f.kind = kind;
        let (t, year) = t?;
        self.prev = Some(t);
        self.prev_year = year;
        Some(t)
    }

    /// What [`Stamper::stamp`] would say of `line` whatever lines came
    /// before: `Some(time and wall-clock year, or None)`, or `None` when
    /// that depends on them (the line would be read as a syslog stamp,
    /// whose year follows the line before). Leaves [`Stamper::last`] as
    /// it is. For reading lines out of order (the parallel ingest).
    pub(crate) fn stamp_alone(&mut self, line: &[u8]) -> Option<Option<(Nanos, i32)>> {
        let kind = std::mem::replace(&mut self.f.kind, TimeKind::Iso);
        let mut out = Some(None);
        let auto = self.f.auto;
        let rest = FALLBACK.iter().filter(|k| auto && **k != kind);
        for k in std::iter::once(&kind).chain(rest) {
            if *k == TimeKind::Syslog {
                if syslog(line).is_some() {
                    out = None;
                    break;
                }
                continue;
            }
            if let Some(t) = self.read(k, line) {
                out = Some(Some(t));
                break;
            }
        }
        self.f.kind = kind;
        out
    }

    /// True when every stamp is read in order (syslog's): reading lines
    /// out of order gains nothing.
    pub(crate) fn reads_in_order(&self) -> bool {
        self.f.kind == TimeKind::Syslog
    }

    /// The time of `line`'s stamp in format `kind`, and its wall-clock year.
    fn read(&mut self, kind: &TimeKind, line: &[u8]) -> Option<(Nanos, i32)> {
        match kind {
            TimeKind::Iso => {
                if let Some(r) = self.iso_same_minute(line) {
                    return Some(r);
                }
                let (at, c, off) = iso_pos(line)?;
                self.iso_minute = IsoMinute::new(line, at, &c).map(Box::new);
                Some((self.resolve(c, off)?, c.y as i32))
            }
            TimeKind::Clf => {
                let (c, off) = clf(line)?;
                Some((self.resolve(c, off)?, c.y as i32))
            }
            TimeKind::Syslog => {
                let (mo, d, h, mi, s, ns) = syslog(line)?;
                self.syslog_time(mo, d, h, mi, s, ns)
            }
            TimeKind::EpochSeconds => epoch(line, false).map(|t| (t, super::year_of(t))),
            TimeKind::EpochMillis => epoch(line, true).map(|t| (t, super::year_of(t))),
            TimeKind::Strftime(f) => self.strftime(f, line),
        }
    }

    /// The instant of wall-clock time `c` at offset `off`, or in the zone.
    fn resolve(&mut self, c: Civil, off: Option<i32>) -> Option<Nanos> {
        let o = match off {
            Some(o) => o,
            None => self.zone_offset(&c)?,
        };
        c.at_offset(o)
    }

    /// The zone's UTC offset for the wall-clock minute of `c` (R-113: the
    /// earlier of a repeated minute, the offset before a skipped one).
    fn zone_offset(&mut self, c: &Civil) -> Option<i32> {
        let key = (c.y, c.mo, c.d, c.h, c.mi);
        if let Some((k, o)) = self.minute
            && k == key
        {
            return Some(o);
        }
        let dt = jiff::civil::DateTime::new(
            c.y as i16, c.mo as i8, c.d as i8, c.h as i8, c.mi as i8, 0, 0,
        )
        .ok()?;
        let ts = self.f.tz.to_ambiguous_timestamp(dt).compatible().ok()?;
        let o = (Civil { s: 0, ns: 0, ..*c }.utc_seconds() - ts.as_second()) as i32;
        self.minute = Some((key, o));
        Some(o)
    }

    /// The stamp of `line` when it begins as the line of the last ISO 8601
    /// minute did (the same bytes up to the end of the minute): only its
    /// seconds, fraction and offset are read. `None`: read it in full
    /// (another beginning, or a stamp that is not one there, in which case
    /// a later place may hold one).
    fn iso_same_minute(&mut self, line: &[u8]) -> Option<(Nanos, i32)> {
        let m = self.iso_minute.as_deref()?;
        if line.len() < m.len || line[..m.len] != m.prefix[..m.len] {
            return None;
        }
        let (at, utc, zone) = (m.at, m.utc, m.zone);
        let mut c = m.civil;
        let off = iso_tail(&line[at..], &mut c)?;
        if c.s > 60 {
            return None;
        }
        let o = match (off, zone) {
            (Some(o), _) => o,
            (None, Some(z)) => z,
            (None, None) => {
                let z = self.zone_offset(&c)?;
                if let Some(m) = self.iso_minute.as_deref_mut() {
                    m.zone = Some(z);
                }
                z
            }
        };
        let t = (utc + c.s as i64 - o as i64)
            .checked_mul(super::NS)?
            .checked_add(c.ns as i64)?;
        Some((t, c.y as i32))
    }

    /// A syslog stamp's time: in the first line, the format's first year;
    /// after it, the year (the last line's, or one either side) that puts
    /// it closest to the last stamped line.
    fn syslog_time(
        &mut self,
        mo: u32,
        d: u32,
        h: u32,
        mi: u32,
        s: u32,
        ns: u32,
    ) -> Option<(Nanos, i32)> {
        let at = |this: &mut Self, y: i32| {
            let c = Civil {
                y: y as i64,
                mo,
                d,
                h,
                mi,
                s,
                ns,
            };
            if c.valid() {
                this.resolve(c, None)
            } else {
                None
            }
        };
        let py = self.prev_year;
        let Some(prev) = self.prev else {
            return at(self, py).map(|t| (t, py));
        };
        if let Some(t) = at(self, py)
            && (t - prev).abs() <= HALF_YEAR
        {
            return Some((t, py));
        }
        let mut best: Option<(Nanos, i32)> = None;
        for y in [py - 1, py, py + 1] {
            if let Some(t) = at(self, y)
                && best.is_none_or(|b| (t - prev).abs() < (b.0 - prev).abs())
            {
                best = Some((t, y));
            }
        }
        best
    }

    fn strftime(&mut self, fmt: &str, line: &[u8]) -> Option<(Nanos, i32)> {
        let (tm, _) = jiff::fmt::strtime::BrokenDownTime::parse_prefix(fmt, line).ok()?;
        if let Some(ts) = tm.timestamp() {
            let t = i64::try_from(ts.as_nanosecond()).ok()?;
            return Some((t, super::year_of(t)));
        }
        let c = Civil {
            y: tm.year()? as i64,
            mo: tm.month()? as u32,
            d: tm.day()? as u32,
            h: tm.hour().unwrap_or(0) as u32,
            mi: tm.minute().unwrap_or(0) as u32,
            s: tm.second().unwrap_or(0) as u32,
            ns: tm.subsec_nanosecond().unwrap_or(0) as u32,
        };
        if !c.valid() {
            return None;
        }
        Some((
            self.resolve(c, tm.offset().map(|o| o.seconds()))?,
            c.y as i32,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(kind: TimeKind) -> TimeFormat {
        TimeFormat::new(kind, "UTC", 2026).unwrap()
    }

    /// 2026-11-30T19:32:00Z.
    const T0: Nanos = 1_796_067_120 * super::super::NS;

    #[test]
    fn iso_variants() {
        let f = utc(TimeKind::Iso);
        let mut s = f.stamper();
        for (line, want) in [
            (&b"2026-11-30T19:32:00Z x"[..], Some(T0)),
            (b"2026-11-30 19:32:00 x", Some(T0)),
            (b"2026-11-30T19:32:00.123Z", Some(T0 + 123_000_000)),
            (b"2026-11-30 19:32:00,123 INFO", Some(T0 + 123_000_000)),
            (b"2026-11-30T20:32:00+01:00", Some(T0)),
            (b"2026-11-30T20:32:00+0100", Some(T0)),
            (b"2026-11-30T18:32:00-01", Some(T0)),
            (b"2026-11-30T19:32Z", Some(T0)),
            (b"[2026-11-30T19:32:00Z] x", Some(T0)),
            (b"{\"ts\":\"2026-11-30T19:32:00.000000001Z\"}", Some(T0 + 1)),
            (b"2026-13-30T19:32:00Z", None),
            (b"2026-02-30T19:32:00Z", None),
            (b"    at java.lang.Thread.run", None),
            (b"", None),
        ] {
            assert_eq!(s.stamp(line), want, "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn clf_syslog_epoch() {
        let mut c = utc(TimeKind::Clf);
        let mut s = c.stamper();
        assert_eq!(
            s.stamp(b"1.2.3.4 - - [30/Nov/2026:20:32:00 +0100] \"GET / HTTP/1.1\" 200"),
            Some(T0)
        );
        assert_eq!(s.stamp(b"no stamp"), None);
        c = utc(TimeKind::Syslog);
        let mut s = c.stamper();
        assert_eq!(s.stamp(b"Nov 30 19:32:00 host sshd[1]: x"), Some(T0));
        assert_eq!(
            s.stamp(b"Nov  1 00:00:00 host x"),
            Some(T0 - (29 * 86_400 + 70_320) * super::super::NS)
        );
        c = utc(TimeKind::EpochSeconds);
        assert_eq!(c.stamper().stamp(b"1796067120.5 x"), Some(T0 + 500_000_000));
        assert_eq!(c.stamper().stamp(b"17960671201 x"), None);
        c = utc(TimeKind::EpochMillis);
        assert_eq!(
            c.stamper().stamp(b"1796067120123 x"),
            Some(T0 + 123_000_000)
        );
    }

    #[test]
    fn syslog_years_turn_over() {
        let f = TimeFormat::new(TimeKind::Syslog, "UTC", 2025).unwrap();
        let mut s = f.stamper();
        let dec = s.stamp(b"Dec 31 23:59:59 h x").unwrap();
        let jan = s.stamp(b"Jan  1 00:00:01 h x").unwrap();
        assert_eq!(jan - dec, 2 * super::super::NS);
        // The first year from the file's time.
        assert_eq!(
            first_syslog_year(12, 31, 23, 0, 0, T0 / super::super::NS),
            2025
        );
        assert_eq!(
            first_syslog_year(11, 30, 19, 0, 0, T0 / super::super::NS),
            2026
        );
    }

    /// Reading lines in order (the same minute read the short way) gives
    /// what reading each line alone gives, whatever the lines.
    #[test]
    fn same_minute_shortcut_matches_a_full_read() {
        let mut seed = 7u64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let pieces: [&[u8]; 14] = [
            b"2026-11-30T10:00:",
            b"2026-11-30T10:00",
            b"2026-11-30 10:01:",
            b"2026-03-29 02:30:",
            b"[",
            b"0",
            b"5",
            b"59",
            b"60",
            b"61",
            b".123",
            b",5",
            b"Z ",
            b"+01:00 x ",
        ];
        for tz in ["UTC", "Europe/Paris"] {
            let f = TimeFormat::new(TimeKind::Iso, tz, 0).unwrap();
            let mut warm = f.stamper();
            let mut line = Vec::new();
            for _ in 0..20_000 {
                line.clear();
                for _ in 0..1 + next(6) {
                    line.extend_from_slice(pieces[next(pieces.len() as u64) as usize]);
                }
                let want = f.stamper().stamp(&line);
                assert_eq!(
                    warm.stamp(&line),
                    want,
                    "{tz}: {:?}",
                    String::from_utf8_lossy(&line)
                );
            }
        }
    }

    #[test]
    fn zones_and_dst() {
        let f = TimeFormat::new(TimeKind::Iso, "America/New_York", 0).unwrap();
        let mut s = f.stamper();
        // 2026-03-08 02:30 does not exist there (spring forward): read as
        // 03:30 EDT, jiff's "compatible" rule; 2026-11-01 01:30 happens
        // twice: the first, EDT.
        let before = s.stamp(b"2026-03-08 01:59:59").unwrap();
        let gap = s.stamp(b"2026-03-08 02:30:00").unwrap();
        assert_eq!(gap - before, 1801 * super::super::NS);
        let fold = s.stamp(b"2026-11-01 01:30:00").unwrap();
        let utc = s.stamp(b"2026-11-01T05:30:00Z").unwrap();
        assert_eq!(fold, utc);
        assert!(TimeFormat::new(TimeKind::Iso, "Mars/Olympus", 0).is_err());
        let f = TimeFormat::new(TimeKind::Iso, "+05:30", 0).unwrap();
        // 01:02 at +05:30 is 19:32 UTC the day before.
        assert_eq!(
            f.stamper().stamp(b"2026-11-30 01:02:00"),
            Some(T0 - 86_400 * super::super::NS)
        );
    }

    #[test]
    fn detection_picks_the_majority() {
        let iso: Vec<&[u8]> = vec![
            b"2026-11-30T19:32:00Z a",
            b"  continuation",
            b"2026-11-30T19:32:01Z b",
        ];
        let f = TimeFormat::detect(&iso, "UTC", 0).unwrap().unwrap();
        assert_eq!(f.kind(), &TimeKind::Iso);
        let none: Vec<&[u8]> = vec![b"hello", b"world", b"2026-11-30T19:32:00Z"];
        assert!(TimeFormat::detect(&none, "UTC", 0).unwrap().is_none());
        let sys: Vec<&[u8]> = vec![b"Nov 30 19:32:00 h a", b"Nov 30 19:32:01 h b"];
        let f = TimeFormat::detect(&sys, "UTC", T0 / super::super::NS)
            .unwrap()
            .unwrap();
        assert_eq!((f.kind(), f.syslog_year()), (&TimeKind::Syslog, 2026));
        let strf =
            TimeFormat::new(TimeKind::Strftime("%d.%m.%Y %H:%M:%S".into()), "UTC", 0).unwrap();
        assert_eq!(strf.stamper().stamp(b"30.11.2026 19:32:00 x"), Some(T0));
    }
}
