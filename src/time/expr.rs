//! Time expressions of queries (`--since`, `--until`, `line-at-time`).
//!
//! The grammar, for an instant:
//! - `now`; `@SECONDS` (since the epoch, a fraction allowed);
//! - relative to now: a sign and a number with a unit, `-15m`, `-2h`,
//!   `+30s`, `-1d`, `-1w` (s, m, h, d, w);
//! - an ISO 8601 date and time, `2026-11-30T10:32`, `2026-11-30 10:32:05.5`,
//!   with a zone (`Z`, `+01:00`) or without (then in the given time zone);
//!   a date alone is its midnight;
//! - a time of day, `10:32` or `10:32:05`, optionally after `today` or
//!   `yesterday` (alone, those are the day's midnight): that day in the
//!   given time zone.

use super::{Civil, NS, Nanos};
use crate::error::{Error, Result};

fn bad(s: &str, why: &str) -> Error {
    Error::InvalidArgument(format!(
        "invalid time {s:?}: {why} (give 2026-11-30T10:32, 10:32, yesterday 10:32, -15m, @SECONDS or now)"
    ))
}

/// The instant `s` stands for; zoneless times are read in `tz` (an IANA
/// name, `UTC`, an offset such as `+01:00`, or `local`), and relative ones
/// from `now`.
pub fn parse_expr(s: &str, tz: &str, now: Nanos) -> Result<Nanos> {
    let t = s.trim();
    if t == "now" {
        return Ok(now);
    }
    if let Some(rest) = t.strip_prefix('@') {
        return seconds(rest).ok_or_else(|| bad(s, "not a number of seconds"));
    }
    if let Some(first) = t.chars().next()
        && (first == '-' || first == '+')
        && t.len() > 1
    {
        // The unit is the last character (not byte: `-3é` is an error,
        // never a cut inside a character).
        let body = &t[1..];
        let cut = body.char_indices().last().map_or(0, |(i, _)| i);
        let (num, unit) = body.split_at(cut);
        let n: i64 = num
            .parse()
            .map_err(|_| bad(s, "a relative time is a number and a unit"))?;
        let scale = match unit {
            "s" => 1,
            "m" => 60,
            "h" => 3600,
            "d" => 86_400,
            "w" => 7 * 86_400,
            _ => return Err(bad(s, "the unit of a relative time is s, m, h, d or w")),
        };
        let d = n.checked_mul(scale * NS).ok_or_else(|| bad(s, "too far"))?;
        return Ok(if first == '-' { now - d } else { now + d });
    }
    let fmt = super::TimeFormat::new(super::TimeKind::Iso, tz, 0)?;
    let mut st = fmt.stamper();
    // A full date and time.
    if t.len() >= 16
        && let Some(v) = st.stamp(t.as_bytes())
    {
        return Ok(v);
    }
    // A date alone.
    if t.len() == 10
        && let Some(v) = st.stamp(format!("{t}T00:00").as_bytes())
    {
        return Ok(v);
    }
    // [today|yesterday] [HH:MM[:SS[.frac]]]
    let (day, clock) = match t.split_once(' ') {
        Some((d @ ("today" | "yesterday"), c)) => (d, c.trim()),
        None if t == "today" || t == "yesterday" => (t, "00:00"),
        None => ("today", t),
        Some(_) => return Err(bad(s, "not a time")),
    };
    let today = local_date(now, &fmt);
    let date = if day == "yesterday" {
        let days = super::days_from_civil(today.0, today.1, today.2) - 1;
        super::civil_from_days(days)
    } else {
        today
    };
    let clock = if clock.len() == 5 {
        format!("{clock}:00")
    } else {
        clock.to_string()
    };
    let stamp = format!("{:04}-{:02}-{:02}T{clock}", date.0, date.1, date.2);
    st.stamp(stamp.as_bytes())
        .filter(|_| stamp.len() >= 19)
        .ok_or_else(|| bad(s, "not a time"))
}

/// `[-]SECONDS[.FRACTION]` as nanoseconds, exactly (digits past the ninth
/// of the fraction are dropped).
fn seconds(s: &str) -> Option<Nanos> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.is_empty() || !int.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    if !frac.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut ns: i64 = 0;
    for (i, c) in frac.bytes().take(9).enumerate() {
        ns += (c - b'0') as i64 * 10i64.pow(8 - i as u32);
    }
    let v = int.parse::<i64>().ok()?.checked_mul(NS)?.checked_add(ns)?;
    Some(if neg { -v } else { v })
}

/// The date (in `fmt`'s zone) at instant `now`.
fn local_date(now: Nanos, fmt: &super::TimeFormat) -> (i64, u32, u32) {
    // The zone's offset at `now`: the difference between the wall clock of
    // a stamp read in the zone and its UTC reading.
    let days = now.div_euclid(NS).div_euclid(86_400);
    let (y, m, d) = super::civil_from_days(days);
    let mut st = fmt.stamper();
    let c = Civil {
        y,
        mo: m,
        d,
        h: 12,
        mi: 0,
        s: 0,
        ns: 0,
    };
    let noon = format!("{y:04}-{m:02}-{d:02}T12:00:00");
    let off = st
        .stamp(noon.as_bytes())
        .map_or(0, |t| (c.utc_seconds() * NS - t) / NS);
    let local = now.div_euclid(NS) + off;
    super::civil_from_days(local.div_euclid(86_400))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-11-30T19:32:00Z.
    const NOW: Nanos = 1_796_067_120 * NS;

    #[test]
    fn grammar() {
        let p = |s: &str| parse_expr(s, "UTC", NOW).unwrap();
        assert_eq!(p("now"), NOW);
        assert_eq!(p("-15m"), NOW - 900 * NS);
        assert_eq!(p("+2h"), NOW + 7200 * NS);
        assert_eq!(p("-1d"), NOW - 86_400 * NS);
        assert_eq!(p("@1796067120"), NOW);
        assert_eq!(p("@1796067120.000000001"), NOW + 1);
        assert_eq!(p("@1796067120.123456789"), NOW + 123_456_789);
        assert_eq!(p("@-1.5"), -1_500_000_000);
        // Found by the `parsers` fuzz target: a multi-byte last character
        // of a relative time was cut inside.
        for bad in ["-30\r\r\u{fffd}", "-3é", "+\u{fffd}", "-é"] {
            assert!(parse_expr(bad, "UTC", NOW).is_err(), "{bad:?}");
        }
        assert_eq!(
            super::super::format_instant(NOW + 123_000_000),
            "2026-11-30T19:32:00.123Z"
        );
        assert_eq!(
            super::super::format_instant(NOW + 1),
            "2026-11-30T19:32:00.000000001Z"
        );
        assert_eq!(
            super::super::format_instant(-1_500_000_000),
            "1969-12-31T23:59:58.500Z"
        );
        assert_eq!(p("2026-11-30T19:32"), NOW);
        assert_eq!(p("2026-11-30 19:32:00Z"), NOW);
        assert_eq!(p("2026-11-30T20:32+01:00"), NOW);
        assert_eq!(p("2026-11-30"), NOW - 70_320 * NS);
        assert_eq!(p("19:32"), NOW);
        assert_eq!(p("today 19:32:00"), NOW);
        assert_eq!(p("yesterday 19:32"), NOW - 86_400 * NS);
        assert_eq!(p("yesterday"), NOW - (86_400 + 70_320) * NS);
        for bad in [
            "",
            "soon",
            "-15q",
            "25:00",
            "2026-13-01",
            "tomorrow 10:00",
            "-m",
            "@",
            "@1.2.3",
            "@x",
        ] {
            assert!(parse_expr(bad, "UTC", NOW).is_err(), "{bad:?}");
        }
        // A zone for zoneless times: 10:32 in Paris (UTC+1 in November).
        assert_eq!(
            parse_expr("2026-11-30 20:32", "Europe/Paris", NOW).unwrap(),
            NOW
        );
    }

    #[test]
    fn days_round_trip() {
        for d in [-1_000_000, -1, 0, 1, 11_017, 20_787, 100_000] {
            let (y, m, dd) = crate::time::civil_from_days(d);
            assert_eq!(super::super::days_from_civil(y, m, dd), d);
        }
    }
}
