//! The hand-written stamp readers of the named formats (spec §12.2, Table
//! 26): each finds a stamp at its format's place in a line's head and reads
//! its fields, without allocating. An ingest reads every line once, so
//! these must cost nanoseconds. What they return is a [`Reading`]: a
//! wall-clock time (maybe with an offset or a zone abbreviation after it),
//! a month and day without a year, or an instant.

use super::{Civil, Nanos};

/// The bytes at the start of a line where an ISO 8601 stamp is looked for.
pub const ISO_WINDOW: usize = 64;

/// What a reader found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// A date and time; its UTC offset if written, else the zone
    /// abbreviation written after it, if any ([`abbreviation`]).
    Civil {
        c: Civil,
        off: Option<i32>,
        abbr: Option<Abbr>,
    },
    /// A month, day and time without a year (R-114 gives it one), and
    /// its UTC offset if written.
    YearLess { c: Civil, off: Option<i32> },
    /// An instant (epoch stamps).
    Instant(Nanos),
}

impl Reading {
    /// Date and time `c`, if valid.
    pub(crate) fn civil(c: Civil, off: Option<i32>, abbr: Option<Abbr>) -> Option<Reading> {
        c.valid().then_some(Reading::Civil { c, off, abbr })
    }

    /// Month, day and time `c` (its year not known), if each is in range.
    pub(crate) fn year_less(c: Civil, off: Option<i32>) -> Option<Reading> {
        let ok = (1..=12).contains(&c.mo) && (1..=31).contains(&c.d) && c.h < 24;
        (ok && c.mi < 60 && c.s <= 60).then_some(Reading::YearLess { c, off })
    }
}

/// A known zone abbreviation: its name and, when the name has one meaning,
/// its UTC offset in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Abbr {
    /// `PDT`, `CEST`, …
    pub name: &'static str,
    /// The offset it stands for; `None` for a name several zones use
    /// (`IST`, `CST`, `BST`, `AST`).
    pub offset: Option<i32>,
}

/// The zone abbreviations recognised after a stamp without an offset
/// (R-126, Table 26a): each with its offset in seconds, or `None` where
/// several zones use it. (A `match`: the compiler dispatches on the
/// length and bytes, so the common miss, a level such as `INFO` after a
/// stamp, costs a few comparisons.)
fn zone_offset(word: &[u8]) -> Option<(&'static str, Option<i32>)> {
    const H: i32 = 3600;
    Some(match word {
        b"UTC" => ("UTC", Some(0)),
        b"GMT" => ("GMT", Some(0)),
        b"UT" => ("UT", Some(0)),
        b"WET" => ("WET", Some(0)),
        b"WEST" => ("WEST", Some(H)),
        b"CET" => ("CET", Some(H)),
        b"MET" => ("MET", Some(H)),
        b"WAT" => ("WAT", Some(H)),
        b"CEST" => ("CEST", Some(2 * H)),
        b"MEST" => ("MEST", Some(2 * H)),
        b"EET" => ("EET", Some(2 * H)),
        b"SAST" => ("SAST", Some(2 * H)),
        b"CAT" => ("CAT", Some(2 * H)),
        b"EEST" => ("EEST", Some(3 * H)),
        b"MSK" => ("MSK", Some(3 * H)),
        b"EAT" => ("EAT", Some(3 * H)),
        b"PKT" => ("PKT", Some(5 * H)),
        b"ICT" => ("ICT", Some(7 * H)),
        b"WIB" => ("WIB", Some(7 * H)),
        b"HKT" => ("HKT", Some(8 * H)),
        b"SGT" => ("SGT", Some(8 * H)),
        b"AWST" => ("AWST", Some(8 * H)),
        b"PHT" => ("PHT", Some(8 * H)),
        b"JST" => ("JST", Some(9 * H)),
        b"KST" => ("KST", Some(9 * H)),
        b"ACST" => ("ACST", Some(9 * H + H / 2)),
        b"AEST" => ("AEST", Some(10 * H)),
        b"CHST" => ("CHST", Some(10 * H)),
        b"ACDT" => ("ACDT", Some(10 * H + H / 2)),
        b"AEDT" => ("AEDT", Some(11 * H)),
        b"NZST" => ("NZST", Some(12 * H)),
        b"NZDT" => ("NZDT", Some(13 * H)),
        b"HST" => ("HST", Some(-10 * H)),
        b"HDT" => ("HDT", Some(-9 * H)),
        b"AKST" => ("AKST", Some(-9 * H)),
        b"AKDT" => ("AKDT", Some(-8 * H)),
        b"PST" => ("PST", Some(-8 * H)),
        b"PDT" => ("PDT", Some(-7 * H)),
        b"MST" => ("MST", Some(-7 * H)),
        b"MDT" => ("MDT", Some(-6 * H)),
        b"EST" => ("EST", Some(-5 * H)),
        b"EDT" => ("EDT", Some(-4 * H)),
        b"ADT" => ("ADT", Some(-3 * H)),
        b"ART" => ("ART", Some(-3 * H)),
        b"NST" => ("NST", Some(-3 * H - H / 2)),
        b"NDT" => ("NDT", Some(-2 * H - H / 2)),
        b"BST" => ("BST", None),
        b"IST" => ("IST", None),
        b"CST" => ("CST", None),
        b"CDT" => ("CDT", None),
        b"AST" => ("AST", None),
        b"SST" => ("SST", None),
        _ => return None,
    })
}

/// A known zone abbreviation at `b[at..]` after one space, ending at a byte
/// that is not an ASCII letter (or the end).
#[inline]
pub(crate) fn abbreviation(b: &[u8], at: usize) -> Option<Abbr> {
    if b.get(at) != Some(&b' ') {
        return None;
    }
    let word = &b[at + 1..];
    if !word.first()?.is_ascii_uppercase() {
        return None;
    }
    // Every abbreviation of Table 26a has 2 to 4 letters and ends in T, C,
    // K or B: the word's length is the first such end that no letter
    // follows. The usual word after a stamp (INFO, WARN; ERROR is too
    // long) has none, and costs three byte comparisons.
    let n = (2..=4).find(|&n| {
        matches!(word.get(n - 1), Some(b'T' | b'C' | b'K' | b'B'))
            && !word.get(n).is_some_and(u8::is_ascii_alphabetic)
    })?;
    if !word[1..n].iter().all(u8::is_ascii_alphabetic) {
        return None;
    }
    zone_offset(&word[..n]).map(|(name, offset)| Abbr { name, offset })
}

pub(crate) fn month_of(b: &[u8]) -> Option<u32> {
    const M: [&[u8; 3]; 12] = [
        b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov",
        b"Dec",
    ];
    let b = b.get(..3)?;
    M.iter().position(|m| &m[..] == b).map(|i| i as u32 + 1)
}

#[inline]
pub(crate) fn digits(b: &[u8], at: usize, n: usize) -> Option<u32> {
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

/// 10^(9 − n): what `n` digits of a fraction of a second are multiplied
/// by for nanoseconds.
pub(crate) const FRACTION_SCALE: [u32; 10] = [
    1_000_000_000,
    100_000_000,
    10_000_000,
    1_000_000,
    100_000,
    10_000,
    1_000,
    100,
    10,
    1,
];

/// A fraction of a second at `b[at..]` after its separator: up to 9 digits
/// read, more ignored. Returns nanoseconds and the end.
pub(crate) fn fraction(b: &[u8], mut at: usize) -> (u32, usize) {
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
    // One multiplication, not 9 − n dependent ones (a stamp's fraction is
    // read on every line of a time build).
    (ns * FRACTION_SCALE[n], at)
}

/// A UTC offset `Z`, `±HH:MM`, `±HHMM` or `±HH` at `b[at..]`, and its end.
pub(crate) fn offset_end(b: &[u8], at: usize) -> Option<(i32, usize)> {
    match b.get(at)? {
        b'Z' | b'z' => Some((0, at + 1)),
        &s @ (b'+' | b'-') => {
            let h = digits(b, at + 1, 2)?;
            let (m, end) = if b.get(at + 3) == Some(&b':') {
                (digits(b, at + 4, 2)?, at + 6)
            } else {
                match digits(b, at + 3, 2) {
                    Some(m) => (m, at + 5),
                    None => (0, at + 3),
                }
            };
            if h > 23 || m > 59 {
                return None;
            }
            let v = (h * 3600 + m * 60) as i32;
            Some((if s == b'-' { -v } else { v }, end))
        }
        _ => None,
    }
}

/// A UTC offset at `b[at..]` (see [`offset_end`]).
pub(crate) fn offset(b: &[u8], at: usize) -> Option<i32> {
    offset_end(b, at).map(|(o, _)| o)
}

/// The date, hour and minute of a stamp `YYYY-MM-DDTHH:MM` starting at
/// `b[0]`, with `sep` between the date's fields (`-` for ISO 8601, `/` for
/// `ymd-slash`), not yet checked for range.
#[inline]
pub(crate) fn ymd_head(b: &[u8], sep: u8) -> Option<Civil> {
    if b.len() < 16 || b[4] != sep || b[7] != sep || b[13] != b':' {
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

/// The rest of a stamp starting at `b[0]`, after its minute: seconds and
/// fraction into `c`; returns the offset, if any, and the end of the stamp.
#[inline]
pub(crate) fn ymd_tail(b: &[u8], c: &mut Civil) -> Option<(Option<i32>, usize)> {
    let mut at = 16;
    if b.get(16) == Some(&b':') {
        c.s = digits(b, 17, 2)?;
        at = 19;
        if matches!(b.get(19), Some(b'.' | b',')) && b.get(20).is_some_and(u8::is_ascii_digit) {
            (c.ns, at) = fraction(b, 20);
        }
    }
    Some(match offset_end(b, at) {
        Some((o, end)) => (Some(o), end),
        None => (None, at),
    })
}

/// A stamp `YYYY{sep}MM{sep}DD…` starting at `b[0]`.
fn ymd_at(b: &[u8], sep: u8) -> Option<Reading> {
    let mut c = ymd_head(b, sep)?;
    let (off, end) = ymd_tail(b, &mut c)?;
    let abbr = if off.is_none() {
        abbreviation(b, end)
    } else {
        None
    };
    Reading::civil(c, off, abbr)
}

/// The first stamp `YYYY{sep}MM{sep}DD…` in the first [`ISO_WINDOW`] bytes
/// of `line`, and where it starts.
pub(crate) fn ymd_pos(line: &[u8], sep: u8) -> Option<(usize, Reading)> {
    let end = line.len().min(ISO_WINDOW);
    let mut i = 0;
    while i + 16 <= line.len() && i < end {
        // A year starts with a digit and has the separator 4 bytes later.
        if line[i].is_ascii_digit()
            && line[i + 4] == sep
            && let Some(r) = ymd_at(&line[i..], sep)
        {
            return Some((i, r));
        }
        i += 1;
    }
    None
}

/// The first ISO 8601 stamp in the first [`ISO_WINDOW`] bytes of `line`.
pub(crate) fn iso(line: &[u8]) -> Option<Reading> {
    ymd_pos(line, b'-').map(|(_, r)| r)
}

/// A syslog stamp `Mmm dd HH:MM:SS[.frac]` at the start of `line`.
pub(crate) fn syslog(line: &[u8]) -> Option<Reading> {
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
    let c = Civil {
        y: 0,
        mo,
        d,
        h,
        mi,
        s,
        ns,
    };
    Reading::year_less(c, None)
}

/// A common-log-format stamp `[dd/Mmm/yyyy:HH:MM:SS ±hhmm]` at the first
/// `[` of `line`.
pub(crate) fn clf(line: &[u8]) -> Option<Reading> {
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
    Reading::civil(c, Some(off), None)
}

/// Epoch seconds (10 digits, optional fraction) or milliseconds (13
/// digits) at the start of `line`.
pub(crate) fn epoch(line: &[u8], millis: bool) -> Option<Reading> {
    epoch_number(line, if millis { &[13] } else { &[10] }).map(Reading::Instant)
}

/// The epoch number at the start of `v`, if its run of digits has one of
/// the `lengths`: 10 digits are seconds (optionally `.` and a fraction),
/// 13 milliseconds, 16 microseconds, 19 nanoseconds.
fn epoch_number(v: &[u8], lengths: &[usize]) -> Option<Nanos> {
    let n = v.iter().take_while(|c| c.is_ascii_digit()).count();
    if !lengths.contains(&n) {
        return None;
    }
    let mut x: i64 = 0;
    for &c in &v[..n] {
        x = x.checked_mul(10)?.checked_add((c - b'0') as i64)?;
    }
    match n {
        10 => {
            let ns = if v.get(n) == Some(&b'.') {
                fraction(v, n + 1).0 as i64
            } else {
                0
            };
            x.checked_mul(super::NS)?.checked_add(ns)
        }
        13 => x.checked_mul(1_000_000),
        16 => x.checked_mul(1_000),
        _ => Some(x),
    }
}

/// `YYYY/MM/DD HH:MM[:SS[.frac]][offset]` (nginx's error log) at the first
/// place in the first [`ISO_WINDOW`] bytes of `line` (as ISO 8601, with
/// `/` between the date's fields).
pub(crate) fn ymd_slash(line: &[u8]) -> Option<Reading> {
    ymd_pos(line, b'/').map(|(_, r)| r)
}

/// `YY/MM/DD HH:MM:SS[.frac]` (log4j's `yy/MM/dd HH:mm:ss`, Spark's and
/// Hadoop's default) at the start of `line`: the year is `2000 + YY`.
pub(crate) fn yy_slash(line: &[u8]) -> Option<Reading> {
    if line.len() < 17 || line[2] != b'/' || line[5] != b'/' || line[8] != b' ' {
        return None;
    }
    if line[11] != b':' || line[14] != b':' {
        return None;
    }
    let mut c = Civil {
        y: 2000 + digits(line, 0, 2)? as i64,
        mo: digits(line, 3, 2)?,
        d: digits(line, 6, 2)?,
        h: digits(line, 9, 2)?,
        mi: digits(line, 12, 2)?,
        s: digits(line, 15, 2)?,
        ns: 0,
    };
    let mut end = 17;
    if matches!(line.get(17), Some(b'.' | b',')) && line.get(18).is_some_and(u8::is_ascii_digit) {
        (c.ns, end) = fraction(line, 18);
    }
    if line.get(end).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    Reading::civil(c, None, abbreviation(line, end))
}

/// `YYMMDD HHMMSS` (HDFS's) at the start of `line`, not followed by a
/// digit: the year is `2000 + YY`.
pub(crate) fn yymmdd(line: &[u8]) -> Option<Reading> {
    if line.len() < 13 || line[6] != b' ' || line.get(13).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let c = Civil {
        y: 2000 + digits(line, 0, 2)? as i64,
        mo: digits(line, 2, 2)?,
        d: digits(line, 4, 2)?,
        h: digits(line, 7, 2)?,
        mi: digits(line, 9, 2)?,
        s: digits(line, 11, 2)?,
        ns: 0,
    };
    Reading::civil(c, None, abbreviation(line, 13))
}

/// The day of the week's English abbreviation.
fn weekday(b: &[u8]) -> bool {
    const D: [&[u8; 3]; 7] = [b"Mon", b"Tue", b"Wed", b"Thu", b"Fri", b"Sat", b"Sun"];
    b.get(..3).is_some_and(|w| D.iter().any(|d| &d[..] == w))
}

/// C's `ctime`, `Www Mmm DD HH:MM:SS[.frac] [ABBR ]YYYY` (Apache's error
/// log, `date`), at the start of `line` or else right after its first `[`
/// within the first 256 bytes.
pub(crate) fn ctime(line: &[u8]) -> Option<Reading> {
    ctime_at(line).or_else(|| {
        let at = memchr::memchr(b'[', &line[..line.len().min(256)])? + 1;
        ctime_at(&line[at..])
    })
}

fn ctime_at(b: &[u8]) -> Option<Reading> {
    if b.len() < 24 || !weekday(b) || b[3] != b' ' || b[7] != b' ' || b[10] != b' ' {
        return None;
    }
    let mo = month_of(&b[4..])?;
    let d = if b[8] == b' ' {
        digits(b, 9, 1)?
    } else {
        digits(b, 8, 2)?
    };
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let mut c = Civil {
        y: 0,
        mo,
        d,
        h: digits(b, 11, 2)?,
        mi: digits(b, 14, 2)?,
        s: digits(b, 17, 2)?,
        ns: 0,
    };
    let mut at = 19;
    if b.get(19) == Some(&b'.') && b.get(20).is_some_and(u8::is_ascii_digit) {
        (c.ns, at) = fraction(b, 20);
    }
    let abbr = abbreviation(b, at);
    if let Some(a) = abbr {
        at += 1 + a.name.len();
    }
    if b.get(at) != Some(&b' ') || b.get(at + 5).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    c.y = digits(b, at + 1, 4)? as i64;
    Reading::civil(c, None, abbr)
}

/// The keys whose value [`keyed`] reads, as they are written.
pub(crate) const TIME_KEYS: [&str; 7] = [
    "@timestamp",
    "timestamp",
    "datetime",
    "time",
    "ts",
    "@t",
    "t",
];

/// The time of a JSON or logfmt line: the value of the first time key
/// ([`TIME_KEYS`]) in `line` whose value is a stamp: JSON's
/// `"KEY": "VALUE"` or `"KEY": NUMBER`, logfmt's `KEY=VALUE` (the key at
/// the line's start or after a space; the value optionally quoted). A
/// value is an ISO 8601 stamp at its start, or an epoch number: 10 digits
/// (seconds, optionally `.` and a fraction), 13 (milliseconds), 16
/// (microseconds) or 19 (nanoseconds), not followed by a digit.
pub(crate) fn keyed(line: &[u8]) -> Option<Reading> {
    let mut i = 0;
    while let Some(k) = memchr::memchr2(b'"', b'=', &line[i..]) {
        let at = i + k;
        i = at + 1;
        let value = if line[at] == b'"' {
            json_value(line, at)
        } else {
            logfmt_value(line, at)
        };
        if let Some(r) = value.and_then(stamp_value) {
            return Some(r);
        }
    }
    None
}

/// The value after JSON key `"KEY"` opening at `line[at]`, if KEY is a
/// time key.
fn json_value(line: &[u8], at: usize) -> Option<&[u8]> {
    let rest = &line[at + 1..];
    let key = TIME_KEYS
        .iter()
        .find(|k| rest.starts_with(k.as_bytes()) && rest.get(k.len()) == Some(&b'"'))?;
    let mut j = key.len() + 1;
    while matches!(rest.get(j), Some(b' ' | b'\t')) {
        j += 1;
    }
    if rest.get(j) != Some(&b':') {
        return None;
    }
    j += 1;
    while matches!(rest.get(j), Some(b' ' | b'\t')) {
        j += 1;
    }
    Some(unquote(&rest[j..]))
}

/// The value after logfmt's `KEY=` whose `=` is `line[at]`, if KEY is a
/// time key at the line's start or after a space.
fn logfmt_value(line: &[u8], at: usize) -> Option<&[u8]> {
    let before = &line[..at];
    let key = TIME_KEYS.iter().find(|k| before.ends_with(k.as_bytes()))?;
    let start = at - key.len();
    if start > 0 && line[start - 1] != b' ' {
        return None;
    }
    Some(unquote(&line[at + 1..]))
}

/// A value without its opening double quote, if it has one.
fn unquote(v: &[u8]) -> &[u8] {
    v.strip_prefix(b"\"").unwrap_or(v)
}

/// A time key's value: an ISO 8601 stamp or an epoch number at its start.
fn stamp_value(v: &[u8]) -> Option<Reading> {
    if !v.first()?.is_ascii_digit() {
        return None;
    }
    if v.len() >= 16 && v[4] == b'-' {
        return ymd_at(v, b'-');
    }
    epoch_number(v, &[10, 13, 16, 19]).map(Reading::Instant)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fractions of every length, against the digits scaled by hand.
    #[test]
    fn fractions_of_every_length() {
        assert_eq!(fraction(b"Z", 0), (0, 0));
        assert_eq!(fraction(b".5Z", 1), (500_000_000, 2));
        assert_eq!(fraction(b".103Z", 1), (103_000_000, 4));
        assert_eq!(fraction(b".000001", 1), (1_000, 7));
        assert_eq!(fraction(b".123456789", 1), (123_456_789, 10));
        // Digits past the ninth are read and dropped.
        assert_eq!(fraction(b".1234567891234 x", 1), (123_456_789, 14));
        for n in 1..=9usize {
            let digits = "7".repeat(n);
            let want: u32 = format!("{digits:0<9}").parse().unwrap();
            assert_eq!(fraction(digits.as_bytes(), 0), (want, n), "{n} digits");
        }
    }

    #[test]
    fn new_formats_read_their_examples() {
        let at = |c, off, abbr| Some(Reading::Civil { c, off, abbr });
        let pdt = abbreviation(b" PDT", 0);
        assert_eq!(pdt.map(|a| a.offset), Some(Some(-25200)));
        assert_eq!(abbreviation(b" INFO", 0), None);
        assert_eq!(abbreviation(b" PDTX", 0), None);
        for (line, f, want) in [
            (
                &b"2024/01/02 03:04:05 [error] 12#0: x"[..],
                ymd_slash as fn(&[u8]) -> Option<Reading>,
                at(Civil::at(2024, 1, 2, 3, 4, 5, 0), None, None),
            ),
            (
                b"17/06/09 20:10:40 INFO executor.Executor: x",
                yy_slash,
                at(Civil::at(2017, 6, 9, 20, 10, 40, 0), None, None),
            ),
            (
                b"17/06/09 20:10:40,5 PDT x",
                yy_slash,
                at(Civil::at(2017, 6, 9, 20, 10, 40, 500_000_000), None, pdt),
            ),
            (b"17/06/09 20:10:401 x", yy_slash, None),
            (
                b"081109 203615 148 INFO dfs.DataNode: x",
                yymmdd,
                at(Civil::at(2008, 11, 9, 20, 36, 15, 0), None, None),
            ),
            (b"0811090 203615 x", yymmdd, None),
            (b"081109 2036150 x", yymmdd, None),
            (
                b"[Sun Dec 04 04:47:44 2005] [notice] x",
                ctime,
                at(Civil::at(2005, 12, 4, 4, 47, 44, 0), None, None),
            ),
            (
                b"[Sun Dec 04 04:47:44.123456 2005] [core:error] x",
                ctime,
                at(Civil::at(2005, 12, 4, 4, 47, 44, 123_456_000), None, None),
            ),
            (
                b"Sun Dec  4 04:47:44 PST 2005",
                ctime,
                at(
                    Civil::at(2005, 12, 4, 4, 47, 44, 0),
                    None,
                    Some(Abbr {
                        name: "PST",
                        offset: Some(-28800),
                    }),
                ),
            ),
            (b"Sun Dec  4 04:47:44 20055", ctime, None),
            (
                b"{\"name\":\"app\",\"pid\":1,\"msg\":\"hi\",\"time\":\"2012-02-03T14:32:21.123Z\",\"v\":0}",
                keyed,
                at(Civil::at(2012, 2, 3, 14, 32, 21, 123_000_000), Some(0), None),
            ),
            (
                b"{\"level\":\"info\",\"ts\":1646861401.5241024,\"msg\":\"x\"}",
                keyed,
                Some(Reading::Instant(1_646_861_401_524_102_400)),
            ),
            (
                b"{\"level\":30,\"time\":1531171074631,\"pid\":1}",
                keyed,
                Some(Reading::Instant(1_531_171_074_631_000_000)),
            ),
            (
                b"level=info t=2024-01-02T03:04:05Z msg=x",
                keyed,
                at(Civil::at(2024, 1, 2, 3, 4, 5, 0), Some(0), None),
            ),
            (
                b"{\"log\":\"\\\"time\\\":1\",\"stream\":\"stdout\",\"time\":\"2019-01-01T00:00:00.000000001Z\"}",
                keyed,
                at(Civil::at(2019, 1, 1, 0, 0, 0, 1), Some(0), None),
            ),
            (b"uptime=1646861401 x", keyed, None),
            (b"{\"time\":\"soon\"}", keyed, None),
        ] {
            assert_eq!(f(line), want, "{}", String::from_utf8_lossy(line));
        }
    }
}
