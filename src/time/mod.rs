//! Timestamps of log lines, and the time expressions of queries.
//!
//! A [`TimeFormat`] says how a line's timestamp is written (RFC 3339/ISO
//! 8601, `2026-11-30 19:32:00,123` as log4j and Python write it, syslog
//! `Nov 30 19:32:00`, the common log format `[30/Nov/2026:19:32:00
//! +0000]`, epoch seconds or milliseconds, nginx's, Spark's, HDFS's and
//! `ctime`'s forms, a JSON or logfmt time key, or a `strptime` format at a
//! place in the line);
//! [`TimeFormat::detect`] picks one from a file's first lines, and a
//! [`Stamper`] reads the time of each line as nanoseconds since the Unix
//! epoch (UTC). A stamp without a zone is read in the format's time zone
//! (the system's by default). Lines without a stamp have none: the time
//! index gives them the time of the stamped line before them.
//!
//! [`parse_expr`] turns what a user types (`2026-11-30T10:32`, `10:32`,
//! `yesterday 10:32`, `-15m`) into an instant.
//!
//! Times are `i64` nanoseconds since 1970-01-01T00:00:00Z, which covers the
//! years 1678 to 2261; [`digest`] maps them to order-preserving `u64` keys
//! for the time index (spec §12).

mod detect;
mod expr;
mod format;
mod readers;
mod stamper;
mod strptime;

pub use expr::parse_expr;
pub use format::{ISO_WINDOW, TimeFormat, TimeKind};
pub use readers::Abbr;

/// A zone abbreviation of Table 26a and its offset in seconds (`None`:
/// several zones use it); `None` for a word that is not one (for the
/// spec's conformance test).
#[doc(hidden)]
pub fn abbreviation_offset(word: &str) -> Option<Option<i32>> {
    readers::abbreviation(format!(" {word}").as_bytes(), 0).map(|a| a.offset)
}
pub(crate) use stamper::QuickIso;
pub use stamper::{Stamper, ZoneConflict};
pub use strptime::{Place, Strptime};

/// Nanoseconds since the Unix epoch, UTC.
pub type Nanos = i64;

/// The order-preserving 8-byte key of an instant: the sign bit flipped, so
/// that unsigned order is time order (spec §12).
#[inline]
pub fn digest(t: Nanos) -> u64 {
    (t as u64) ^ (1 << 63)
}

/// The instant of a key made by [`digest`].
#[inline]
pub fn undigest(k: u64) -> Nanos {
    (k ^ (1 << 63)) as i64
}

const NS: i64 = 1_000_000_000;

/// An instant as RFC 3339 in UTC, `2026-11-30T19:32:00Z`, with as many
/// fraction digits as it needs (none, 3, 6 or 9).
pub fn format_instant(t: Nanos) -> String {
    let secs = t.div_euclid(NS);
    let ns = t.rem_euclid(NS);
    let (y, mo, d) = civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    let frac = if ns == 0 {
        String::new()
    } else if ns % 1_000_000 == 0 {
        format!(".{:03}", ns / 1_000_000)
    } else if ns % 1_000 == 0 {
        format!(".{:06}", ns / 1_000)
    } else {
        format!(".{ns:09}")
    };
    format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}{frac}Z",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// Days since 1970-01-01 of a proleptic Gregorian date (the civil-to-days
/// algorithm: exact for every year `i64` can hold here).
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of day `z` since 1970-01-01.
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// The (UTC) year of instant `t`.
pub(crate) fn year_of(t: Nanos) -> i32 {
    civil_from_days(t.div_euclid(NS).div_euclid(86_400)).0 as i32
}

/// Days in month `m` of year `y`.
pub(crate) fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

/// A wall-clock date and time, as written in a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Civil {
    pub y: i64,
    pub mo: u32,
    pub d: u32,
    pub h: u32,
    pub mi: u32,
    pub s: u32,
    pub ns: u32,
}

impl Civil {
    /// For tests: a date and time.
    #[cfg(test)]
    pub(crate) fn at(y: i64, mo: u32, d: u32, h: u32, mi: u32, s: u32, ns: u32) -> Civil {
        Civil {
            y,
            mo,
            d,
            h,
            mi,
            s,
            ns,
        }
    }

    /// True for a real calendar date and time (second 60, a leap second, is
    /// accepted and read as the next second's start, as most parsers do).
    pub fn valid(&self) -> bool {
        (1..=12).contains(&self.mo)
            && self.d >= 1
            && self.d <= days_in_month(self.y, self.mo)
            && self.h < 24
            && self.mi < 60
            && self.s <= 60
            && self.ns < NS as u32
            && (1678..=2261).contains(&self.y)
    }

    /// Seconds since the epoch if this wall-clock time were UTC.
    pub fn utc_seconds(&self) -> i64 {
        days_from_civil(self.y, self.mo, self.d) * 86_400
            + self.h as i64 * 3600
            + self.mi as i64 * 60
            + self.s as i64
    }

    /// The instant when the clock reads this at UTC offset `offset_s`.
    pub fn at_offset(&self, offset_s: i32) -> Option<Nanos> {
        (self.utc_seconds() - offset_s as i64)
            .checked_mul(NS)?
            .checked_add(self.ns as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_match_known_dates() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(2026, 11, 30), 20_787);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
        assert_eq!(days_from_civil(2024, 2, 29), 19_782);
        assert_eq!(days_in_month(2024, 2), 29);
        assert_eq!(days_in_month(1900, 2), 28);
        assert_eq!(days_in_month(2000, 2), 29);
    }

    #[test]
    fn digests_keep_order() {
        let ts = [i64::MIN, -NS, -1, 0, 1, NS, i64::MAX];
        for w in ts.windows(2) {
            assert!(digest(w[0]) < digest(w[1]));
        }
        for t in ts {
            assert_eq!(undigest(digest(t)), t);
        }
    }
}
