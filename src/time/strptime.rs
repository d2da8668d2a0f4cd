//! `strptime` stamps (spec §12.2, R-124, R-125): a format of C's `strptime`
//! directives, read with the jiff library's `strtime` parser, at a
//! **place** in the line: the start of its `K`-th blank-separated field,
//! `N` bytes in. A build finds the place from the file's first lines when
//! it is not given (the leftmost place where the format reads plausible
//! times), so `--time-format %s` finds the epoch field of
//! `134681 node-246 action start 1077804742 …`, not the sequence number
//! before it.
//!
//! Beyond jiff's parser: `%Nf` with a width `N` (1 … 9) reads up to `N`
//! digits as an integer count of `10^-N` seconds (`%3f` reads `7` as 7 ms,
//! where a fraction would be 0.7 s), and a format without a year (no `%Y`,
//! `%y`, `%G`, `%g`, `%s`, `%F`, `%D`, `%c`, `%+`) reads its stamps with
//! syslog's year rule.
//!
//! The older `strftime:` format (format 1.2) is read at the start of the
//! line only, with jiff's own `%Nf`, and needs a year; it is kept for the
//! sidecars that name it.

use super::Civil;
use super::readers::Reading;
use jiff::fmt::strtime::{BrokenDownTime, Meridiem};

/// Where a [`Strptime`] format is read in a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Place {
    /// The field: 0 is the line's start; field `k + 1` starts after the
    /// first run of spaces and tabs at or after field `k`'s start.
    pub field: u8,
    /// Bytes into the field (fewer than the field has).
    pub skip: u8,
}

impl Place {
    /// The start of the line.
    pub const START: Place = Place { field: 0, skip: 0 };

    /// Where this place is in `line`, if the line has it.
    pub fn find(self, line: &[u8]) -> Option<usize> {
        let blank = |c: &u8| *c == b' ' || *c == b'\t';
        let mut at = 0;
        for _ in 0..self.field {
            at += line[at..].iter().position(blank)?;
            at += line[at..].iter().take_while(|c| blank(c)).count();
        }
        // Bytes into a field stay in it: a place never starts on the
        // blanks after a field.
        if self.skip > 0 {
            let len = line[at..].iter().take_while(|c| !blank(c)).count();
            if len <= self.skip as usize {
                return None;
            }
        }
        let at = at + self.skip as usize;
        (at <= line.len()).then_some(at)
    }
}

/// One piece of a format: jiff directives, then maybe `%Nf`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Piece {
    jiff: String,
    /// The width of a `%Nf` after them.
    frac: Option<u8>,
}

/// A `strptime` format and its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Strptime {
    format: String,
    place: Option<Place>,
    pieces: Vec<Piece>,
    has_year: bool,
}

impl Strptime {
    /// The format `format` read at `place` (`None`: to be found).
    pub fn new(format: &str, place: Option<Place>) -> Strptime {
        let (pieces, has_year) = split(format);
        Strptime {
            format: format.to_string(),
            place,
            pieces,
            has_year,
        }
    }

    /// The format as given.
    pub fn format(&self) -> &str {
        &self.format
    }

    /// Where it is read, once known.
    pub fn place(&self) -> Option<Place> {
        self.place
    }

    /// The same format at `place`.
    pub fn at(&self, place: Place) -> Strptime {
        Strptime {
            place: Some(place),
            ..self.clone()
        }
    }

    /// True when the format gives a year (or an instant): otherwise its
    /// stamps take syslog's year rule.
    pub fn has_year(&self) -> bool {
        self.has_year
    }

    /// The name recorded in the sidecar: `strptime:F`, `strptime@K:F` or
    /// `strptime@K+N:F`.
    pub fn name(&self) -> String {
        match self.place.unwrap_or(Place::START) {
            Place { field: 0, skip: 0 } => format!("strptime:{}", self.format),
            Place { field, skip: 0 } => format!("strptime@{field}:{}", self.format),
            Place { field, skip } => format!("strptime@{field}+{skip}:{}", self.format),
        }
    }

    /// The format named `name` (`strptime…:F`), if it is one.
    pub fn parse_name(name: &str) -> Option<Result<Strptime, String>> {
        let rest = name.strip_prefix("strptime")?;
        let (place, format) = if let Some(f) = rest.strip_prefix(':') {
            (Place::START, f)
        } else {
            let Some((p, f)) = rest.strip_prefix('@').and_then(|r| r.split_once(':')) else {
                return Some(Err(format!("bad strptime place in {name:?}")));
            };
            let (field, skip) = p.split_once('+').unwrap_or((p, "0"));
            let num = |s: &str| {
                s.parse::<u8>()
                    .ok()
                    .filter(|_| s.bytes().all(|b| b.is_ascii_digit()))
            };
            match (num(field), num(skip)) {
                (Some(field), Some(skip)) => (Place { field, skip }, f),
                _ => return Some(Err(format!("bad strptime place in {name:?}"))),
            }
        };
        if format.is_empty() {
            return Some(Err(format!("empty format in {name:?}")));
        }
        Some(Ok(Strptime::new(format, Some(place))))
    }

    /// The stamp of `line` at the format's place (the start if not known).
    pub(crate) fn read(&self, line: &[u8]) -> Option<Reading> {
        let at = self.place.unwrap_or(Place::START).find(line)?;
        self.read_at(&line[at..])
    }

    /// The stamp at the start of `input`.
    pub(crate) fn read_at(&self, input: &[u8]) -> Option<Reading> {
        let mut tm: Option<BrokenDownTime> = None;
        let mut pos = 0;
        let mut subsec = None;
        for p in &self.pieces {
            if !p.jiff.is_empty() {
                let (t, n) = BrokenDownTime::parse_prefix(&p.jiff, &input[pos..]).ok()?;
                pos += n;
                tm = Some(match tm {
                    None => t,
                    Some(mut acc) => {
                        merge(&mut acc, &t);
                        acc
                    }
                });
            }
            if let Some(w) = p.frac {
                let digits = input[pos..]
                    .iter()
                    .take(w as usize)
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                if digits == 0 {
                    return None;
                }
                let mut v = 0u32;
                for &c in &input[pos..pos + digits] {
                    v = v * 10 + (c - b'0') as u32;
                }
                subsec = Some(v * 10u32.pow(9 - w as u32));
                pos += digits;
            }
        }
        let tm = tm.unwrap_or_default();
        if let Some(ts) = tm.timestamp() {
            let t = i64::try_from(ts.as_nanosecond()).ok()?;
            return Some(Reading::Instant(t.checked_add(subsec.unwrap_or(0) as i64)?));
        }
        let mut h = tm.hour().unwrap_or(0) as u32;
        match tm.meridiem() {
            Some(Meridiem::PM) if h < 12 => h += 12,
            Some(Meridiem::AM) if h == 12 => h = 0,
            _ => {}
        }
        let c = Civil {
            y: tm.year().map_or(0, i64::from),
            mo: tm.month()? as u32,
            d: tm.day()? as u32,
            h,
            mi: tm.minute().unwrap_or(0) as u32,
            s: tm.second().unwrap_or(0) as u32,
            ns: subsec.unwrap_or_else(|| tm.subsec_nanosecond().unwrap_or(0) as u32),
        };
        let off = tm.offset().map(|o| o.seconds());
        if !self.has_year {
            return Reading::year_less(c, off);
        }
        tm.year()?;
        Reading::civil(c, off, None)
    }
}

/// Copies the fields `b` has into `a`.
fn merge(a: &mut BrokenDownTime, b: &BrokenDownTime) {
    if b.year().is_some() {
        let _ = a.set_year(b.year());
    }
    if b.month().is_some() {
        let _ = a.set_month(b.month());
    }
    if b.day().is_some() {
        let _ = a.set_day(b.day());
    }
    if b.hour().is_some() {
        let _ = a.set_hour(b.hour());
    }
    if b.minute().is_some() {
        let _ = a.set_minute(b.minute());
    }
    if b.second().is_some() {
        let _ = a.set_second(b.second());
    }
    if b.subsec_nanosecond().is_some() {
        let _ = a.set_subsec_nanosecond(b.subsec_nanosecond());
    }
    if b.offset().is_some() {
        a.set_offset(b.offset());
    }
    if b.meridiem().is_some() {
        a.set_meridiem(b.meridiem());
    }
    if b.timestamp().is_some() {
        a.set_timestamp(b.timestamp());
    }
}

/// `format` cut at each `%Nf` (N in 1 … 9), and whether it gives a year.
fn split(format: &str) -> (Vec<Piece>, bool) {
    let b = format.as_bytes();
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut has_year = false;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'%' {
            i += 1;
            continue;
        }
        let d = i;
        i += 1;
        if b.get(i) == Some(&b'%') {
            i += 1;
            continue;
        }
        while matches!(b.get(i), Some(b'-' | b'_' | b'0' | b'^' | b'#')) {
            i += 1;
        }
        let w0 = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let width = format[w0..i].parse::<u32>().ok();
        // `%.f`, `%.3f`: jiff's fraction after a dot.
        let dotted = b.get(i) == Some(&b'.');
        if dotted {
            i += 1;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
        while matches!(b.get(i), Some(b':' | b'E' | b'O')) {
            i += 1;
        }
        let Some(&conv) = b.get(i) else { break };
        i += 1;
        match conv {
            b'Y' | b'y' | b'G' | b'g' | b's' | b'F' | b'D' | b'c' | b'+' => has_year = true,
            b'f' if !dotted && matches!(width, Some(1..=9)) => {
                pieces.push(Piece {
                    jiff: format[start..d].to_string(),
                    frac: width.map(|w| w as u8),
                });
                start = i;
            }
            _ => {}
        }
    }
    pieces.push(Piece {
        jiff: format[start..].to_string(),
        frac: None,
    });
    (pieces, has_year)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places() {
        let line = b"134681 node-246  action\tstart 1077804742 1";
        let at = |field, skip| Place { field, skip }.find(line);
        assert_eq!(at(0, 0), Some(0));
        assert_eq!(at(1, 0), Some(7));
        assert_eq!(at(2, 0), Some(17));
        assert_eq!(at(3, 0), Some(24));
        assert_eq!(at(4, 0), Some(30));
        assert_eq!(at(4, 2), Some(32));
        assert_eq!(at(6, 0), None);
        assert_eq!(Place { field: 1, skip: 0 }.find(b"  x"), Some(2));
        // Not past the end of the field.
        assert_eq!(Place { field: 0, skip: 1 }.find(b"- 1131566461"), None);
        assert_eq!(Place { field: 0, skip: 1 }.find(b"I0517 x"), Some(1));
    }

    #[test]
    fn names_round_trip() {
        for name in ["strptime:%s", "strptime@4:%s", "strptime@0+1:%m%d %H:%M:%S"] {
            let s = Strptime::parse_name(name).unwrap().unwrap();
            assert_eq!(s.name(), name);
        }
        assert!(Strptime::parse_name("strptime@x:%s").unwrap().is_err());
        assert!(Strptime::parse_name("strptime@1:").unwrap().is_err());
        assert!(Strptime::parse_name("strftime:%s").is_none());
    }

    #[test]
    fn integer_fractions_and_years() {
        let s = Strptime::new("%Y%m%d-%H:%M:%S:%3f", None);
        assert!(s.has_year());
        for (line, ns) in [
            (&b"20171223-22:15:29:606|Step_LSC|x"[..], 606_000_000),
            (b"20171223-22:15:29:7|Step_LSC|x", 7_000_000),
            (b"20171223-22:15:29:60|x", 60_000_000),
        ] {
            assert_eq!(
                s.read(line),
                Some(Reading::Civil {
                    c: Civil::at(2017, 12, 23, 22, 15, 29, ns),
                    off: None,
                    abbr: None
                })
            );
        }
        let s = Strptime::new("%m-%d %H:%M:%S%.f", None);
        assert!(!s.has_year());
        assert_eq!(
            s.read(b"03-17 16:13:38.811  1702  2395 D x"),
            Some(Reading::YearLess {
                c: Civil::at(0, 3, 17, 16, 13, 38, 811_000_000),
                off: None
            })
        );
        let s = Strptime::new("%s", Some(Place { field: 4, skip: 0 }));
        assert_eq!(
            s.read(b"134681 node-246 action start 1077804742 1 x"),
            Some(Reading::Instant(1_077_804_742_000_000_000))
        );
        let s = Strptime::new("%m%d %H:%M:%S%.f", Some(Place { field: 0, skip: 1 }));
        assert_eq!(
            s.read(b"I0517 15:04:22.123456 12 f.cc:3] x"),
            Some(Reading::YearLess {
                c: Civil::at(0, 5, 17, 15, 4, 22, 123_456_000),
                off: None
            })
        );
        let s = Strptime::new("%I:%M %p %d.%m.%Y", None);
        assert_eq!(
            s.read(b"01:30 PM 02.03.2024"),
            Some(Reading::Civil {
                c: Civil::at(2024, 3, 2, 13, 30, 0, 0),
                off: None,
                abbr: None
            })
        );
        assert!(!split("%%Y %d").1);
        assert!(split("%-d.%-m.%Y").1);
    }
}
