//! Timestamp formats: what they are called, and how a format is chosen for
//! a text.
//!
//! Each format has a fixed place in the line (the start, the first `[`,
//! the first 64 bytes for an ISO 8601 stamp, a time key for JSON and
//! logfmt, a field found by the build for a `strptime` format) and a
//! reader ([`super::readers`], [`super::strptime`]). A format's name is
//! what the sidecar records (spec Table 26): a name always reads stamps
//! the same way, so a new way of reading is a new name.

use super::readers::{self, Reading};
use super::strptime::Strptime;
use super::{Civil, Nanos};
use crate::error::{Error, Result};

pub use super::readers::ISO_WINDOW;

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
    /// the line, with a year (format 1.2; kept for the sidecars that name
    /// it: a format given now is a [`TimeKind::Strptime`]).
    Strftime(String),
    /// A `strptime` format at a place in the line, which a build finds
    /// when it is not given ([`Strptime`]).
    Strptime(Strptime),
    /// `2024/01/02 03:04:05` (nginx's error log): as ISO 8601 with `/`
    /// between the date's fields, within the first 64 bytes.
    YmdSlash,
    /// `17/06/09 20:10:40` (log4j's `yy/MM/dd HH:mm:ss`: Spark, Hadoop) at
    /// the start; the year is 2000 + `yy`.
    YySlash,
    /// `081109 203615` (HDFS's `yyMMdd HHmmss`) at the start.
    Yymmdd,
    /// C's `ctime`, `Sun Dec 04 04:47:44 2005` (Apache's error log, `date`),
    /// at the start or after the first `[`.
    Ctime,
    /// JSON and logfmt lines: the value of a time key (`time`,
    /// `timestamp`, `ts`, `@timestamp`, …), an ISO 8601 stamp or an epoch
    /// number, anywhere in the line's first 512 bytes.
    Keyed,
}

impl TimeKind {
    /// True when stamps carry no year: it follows the line before.
    pub fn year_less(&self) -> bool {
        match self {
            TimeKind::Syslog => true,
            TimeKind::Strptime(s) => !s.has_year(),
            _ => false,
        }
    }
}

/// A timestamp format and how to read stamps without a zone.
#[derive(Debug, Clone)]
pub struct TimeFormat {
    pub(super) kind: TimeKind,
    /// Detected rather than given: a line without a stamp in `kind` is
    /// also read as ISO 8601, the common log format and syslog, in that
    /// order (a log whose format changes part way through).
    pub(super) auto: bool,
    pub(super) tz: jiff::tz::TimeZone,
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
pub(super) const FALLBACK: [TimeKind; 3] = [TimeKind::Iso, TimeKind::Clf, TimeKind::Syslog];

/// The formats detection chooses from, in the order preferred on ties.
const DETECTED: [TimeKind; 10] = [
    TimeKind::Iso,
    TimeKind::Clf,
    TimeKind::Syslog,
    TimeKind::EpochMillis,
    TimeKind::EpochSeconds,
    TimeKind::YmdSlash,
    TimeKind::Ctime,
    TimeKind::YySlash,
    TimeKind::Yymmdd,
    TimeKind::Keyed,
];

impl TimeFormat {
    /// A format of `kind`, reading stamps without a zone in `tz` (an IANA
    /// name such as `Europe/Paris`, `UTC`, or `local` for the system's), and
    /// stamps without a year from year `syslog_year` on (see
    /// [`TimeFormat::syslog_year`]; ignored by other kinds).
    pub fn new(kind: TimeKind, tz: &str, syslog_year: i32) -> Result<TimeFormat> {
        let (zone, name) = zone(tz)?;
        let empty = match &kind {
            TimeKind::Strftime(f) => f.is_empty(),
            TimeKind::Strptime(s) => s.format().is_empty(),
            _ => false,
        };
        if empty {
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

    /// For stamps without a year (syslog's, a `strptime` format without
    /// one): the year of the first stamped line. The year of each later
    /// line is the one that puts it closest to the line before (so it goes
    /// up by one at a December→January turn).
    pub fn syslog_year(&self) -> i32 {
        self.syslog_year
    }

    /// The format's name as the sidecar records it: `iso8601`, `syslog`,
    /// `clf`, `epoch-s`, `epoch-ms`, `ymd-slash`, `yy-slash`, `yymmdd`,
    /// `ctime`, `keyed`, `strptime:` (or `strptime@K:`, `strptime@K+N:`)
    /// and the format, or `strftime:` and the format (format 1.2); a
    /// detected format is `auto:` and its kind's name.
    pub fn name(&self) -> String {
        let kind = kind_name(&self.kind);
        if self.auto {
            format!("auto:{kind}")
        } else {
            kind
        }
    }

    /// The format version that defines this format's name (spec §9): 2
    /// for the names of 1.2, 4 for those new in 1.4.
    pub fn minor_version(&self) -> u16 {
        match self.kind {
            TimeKind::Iso
            | TimeKind::Syslog
            | TimeKind::Clf
            | TimeKind::EpochSeconds
            | TimeKind::EpochMillis
            | TimeKind::Strftime(_) => 2,
            _ => 4,
        }
    }

    /// The kind named by [`TimeFormat::name`] (also what `--time-format`
    /// takes: a name, or a `strptime` format with a `%`).
    pub fn kind_of(name: &str) -> Result<TimeKind> {
        let bad = |why: String| Error::InvalidArgument(why);
        Ok(match name.strip_prefix("auto:").unwrap_or(name) {
            "iso8601" | "iso" | "rfc3339" | "log4j" => TimeKind::Iso,
            "syslog" => TimeKind::Syslog,
            "clf" | "apache" | "nginx" => TimeKind::Clf,
            "epoch-s" | "epoch" => TimeKind::EpochSeconds,
            "epoch-ms" => TimeKind::EpochMillis,
            "ymd-slash" | "nginx-error" => TimeKind::YmdSlash,
            "yy-slash" | "spark" => TimeKind::YySlash,
            "yymmdd" | "hdfs" => TimeKind::Yymmdd,
            "ctime" | "apache-error" => TimeKind::Ctime,
            "keyed" | "json" | "logfmt" => TimeKind::Keyed,
            s if s.starts_with("strftime:") => TimeKind::Strftime(s["strftime:".len()..].into()),
            s if s.starts_with("strptime") => match Strptime::parse_name(s) {
                Some(Ok(p)) => TimeKind::Strptime(p),
                Some(Err(why)) => return Err(bad(why)),
                None => return Err(bad(format!("unknown time format {s:?}"))),
            },
            s if s.contains('%') => TimeKind::Strptime(Strptime::new(s, None)),
            s => {
                return Err(bad(format!(
                    "unknown time format {s:?}: give iso8601, syslog, clf, epoch-s, epoch-ms, \
                     ymd-slash, yy-slash, yymmdd, ctime, keyed, or a strptime format such as \
                     '%d.%m.%Y %H:%M:%S'"
                )));
            }
        })
    }

    /// The format of most stamped lines among `lines` (a file's first
    /// lines), if stamps begin at least a tenth of the lines that can begin
    /// a record, and at least three of them or half (see
    /// the module `detect`). `mtime` (seconds) fixes the first year of
    /// stamps without one: the latest year that does not put the first
    /// stamp after the file's modification time (plus a day).
    pub fn detect(lines: &[&[u8]], tz: &str, mtime: i64) -> Result<Option<TimeFormat>> {
        let Some(kind) = super::detect::best(&DETECTED, lines) else {
            return Ok(None);
        };
        let year = first_year(&kind, lines, mtime);
        Ok(Some(TimeFormat::new(kind, tz, year)?.with_auto(true)))
    }

    /// The format `kind` (`None`: detected, see [`TimeFormat::detect`]) for
    /// a text whose first lines are `lines`: a `strptime` format without a
    /// place gets the place where it reads plausible times, and stamps
    /// without a year their first year from the first of them and `mtime`.
    /// `Ok(None)`: no format found (detection); an explicit format that no
    /// line among `lines` has a stamp in is an error.
    pub fn for_lines(
        kind: Option<TimeKind>,
        tz: &str,
        lines: &[&[u8]],
        mtime: i64,
    ) -> Result<Option<TimeFormat>> {
        let Some(mut kind) = kind else {
            return TimeFormat::detect(lines, tz, mtime);
        };
        if let TimeKind::Strptime(s) = &kind
            && s.place().is_none()
        {
            let place = super::detect::place(s, lines, mtime).ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "none of the first {} lines has a stamp in format {:?} (at the start of \
                     a field, or up to 3 bytes into one)",
                    lines.len(),
                    s.format()
                ))
            })?;
            kind = TimeKind::Strptime(s.at(place));
        } else if !matches!(kind, TimeKind::Strftime(_))
            && !lines.is_empty()
            && !lines.iter().any(|l| read(&kind, l).is_some())
        {
            return Err(Error::InvalidArgument(format!(
                "none of the first {} lines has a stamp in format {}",
                lines.len(),
                kind_name(&kind)
            )));
        }
        let year = if kind.year_less() {
            let year = first_year(&kind, lines, mtime);
            if year == 0 {
                super::year_of(mtime.saturating_mul(super::NS))
            } else {
                year
            }
        } else {
            0
        };
        TimeFormat::new(kind, tz, year).map(Some)
    }

    /// A reader of stamps in this format.
    pub fn stamper(&self) -> super::Stamper {
        super::Stamper::new(self.clone())
    }
}

/// The name of `kind` in a sidecar (without `auto:`).
fn kind_name(kind: &TimeKind) -> String {
    match kind {
        TimeKind::Iso => "iso8601".into(),
        TimeKind::Syslog => "syslog".into(),
        TimeKind::Clf => "clf".into(),
        TimeKind::EpochSeconds => "epoch-s".into(),
        TimeKind::EpochMillis => "epoch-ms".into(),
        TimeKind::Strftime(f) => format!("strftime:{f}"),
        TimeKind::Strptime(s) => s.name(),
        TimeKind::YmdSlash => "ymd-slash".into(),
        TimeKind::YySlash => "yy-slash".into(),
        TimeKind::Yymmdd => "yymmdd".into(),
        TimeKind::Ctime => "ctime".into(),
        TimeKind::Keyed => "keyed".into(),
    }
}

/// The stamp of `line` in `kind` as its reader finds it (no zone applied,
/// no year given). `Strftime` stamps are read by the [`super::Stamper`].
pub(super) fn read(kind: &TimeKind, line: &[u8]) -> Option<Reading> {
    match kind {
        TimeKind::Iso => readers::iso(line),
        TimeKind::Syslog => readers::syslog(line),
        TimeKind::Clf => readers::clf(line),
        TimeKind::EpochSeconds => readers::epoch(line, false),
        TimeKind::EpochMillis => readers::epoch(line, true),
        TimeKind::Strptime(s) => s.read(line),
        TimeKind::YmdSlash => readers::ymd_slash(line),
        TimeKind::YySlash => readers::yy_slash(line),
        TimeKind::Yymmdd => readers::yymmdd(line),
        TimeKind::Ctime => readers::ctime(line),
        TimeKind::Keyed => readers::keyed(line),
        TimeKind::Strftime(f) => {
            let (tm, _) = jiff::fmt::strtime::BrokenDownTime::parse_prefix(f, line).ok()?;
            if let Some(ts) = tm.timestamp() {
                return i64::try_from(ts.as_nanosecond()).ok().map(Reading::Instant);
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
            Reading::civil(c, tm.offset().map(|o| o.seconds()), None)
        }
    }
}

/// The year in which the first stamp without a year among `lines` is
/// read (R-114's `syslog_year`): the latest in which it is not after
/// `mtime` plus a day; 0 for a kind whose stamps have years, or when no
/// line has a stamp.
fn first_year(kind: &TimeKind, lines: &[&[u8]], mtime: i64) -> i32 {
    if !kind.year_less() {
        return 0;
    }
    lines
        .iter()
        .find_map(|l| match read(kind, l) {
            Some(Reading::YearLess { c, .. }) => Some(first_syslog_year(&c, mtime)),
            _ => None,
        })
        .unwrap_or(0)
}

/// The latest year in which month, day and time `c` are not after `mtime`
/// plus a day (the first line without a year: the file was written after
/// it).
pub(super) fn first_syslog_year(c: &Civil, mtime: i64) -> i32 {
    let day = 86_400;
    let y_m = 1970 + mtime.div_euclid(365 * day + day / 4) as i32;
    for y in [y_m + 1, y_m, y_m - 1, y_m - 2, y_m - 3, y_m - 4] {
        let c = Civil { y: y as i64, ..*c };
        if c.valid() && c.utc_seconds() <= mtime + day {
            return y;
        }
    }
    y_m - 1
}

/// Epoch stamps between 2001 and 2100: a 10- or 13-digit number outside
/// that is more likely something else (detection only).
pub(super) fn plausible_epoch(t: Nanos) -> bool {
    (978_307_200 * super::NS..4_102_444_800 * super::NS).contains(&t)
}

/// The zone named `tz` and its display name.
pub(super) fn zone(tz: &str) -> Result<(jiff::tz::TimeZone, String)> {
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
    if let Some(off) = readers::offset(tz.as_bytes(), 0).filter(|_| tz.len() > 1) {
        let o = jiff::tz::Offset::from_seconds(off).map_err(bad)?;
        return Ok((jiff::tz::TimeZone::fixed(o), tz.to_string()));
    }
    let z = jiff::tz::TimeZone::get(tz).map_err(bad)?;
    Ok((z, tz.to_string()))
}
