//! Choosing a format for a text from its first lines (informative in the
//! spec: a writer's choice, recorded in the sidecar's name for it).
//!
//! - Which format: the one whose stamps begin the most lines, counted among
//!   the lines that can begin a record. A Java, Python or PHP log is mostly
//!   stack trace (`\tat …`, `  File …`, `#12 /var/www/…`, `Caused by:`);
//!   counting those would bury a format that stamps every record.
//! - Where a `strptime` format is read: the leftmost place (field, bytes
//!   into it) where it reads the most plausible stamps, so `%s` finds an
//!   epoch field after a sequence number rather than reading the number.

use super::format::{TimeKind, plausible_epoch, read};
use super::readers::Reading;
use super::strptime::{Place, Strptime};

/// True for a line that can begin a record: not empty, not indented, and
/// not one of the continuation lines stack traces are made of.
pub(super) fn begins_record(line: &[u8]) -> bool {
    match line.first() {
        None | Some(b' ' | b'\t' | b'\r' | b'\n') => false,
        Some(b'#') => !line.get(1).is_some_and(u8::is_ascii_digit),
        Some(_) => {
            !(line.starts_with(b"Caused by")
                || line.starts_with(b"Traceback (")
                || line.starts_with(b"... ")
                || line.starts_with(b"at "))
        }
    }
}

/// True when `kind` reads a stamp in `line` (an epoch number only between
/// 2001 and 2100, for detection: a number outside is likely something
/// else).
fn matches(kind: &TimeKind, line: &[u8]) -> bool {
    match read(kind, line) {
        None => false,
        Some(Reading::Instant(t)) => plausible_epoch(t),
        Some(_) => true,
    }
}

/// The kind among `kinds` (in the order preferred on ties) whose stamps
/// begin the most of `lines`, if they begin at least a tenth of the lines
/// that can begin a record, and at least three of them or half.
pub(super) fn best(kinds: &[TimeKind], lines: &[&[u8]]) -> Option<TimeKind> {
    let starts = lines.iter().filter(|l| begins_record(l)).count();
    let mut best: Option<(usize, &TimeKind)> = None;
    for k in kinds {
        let hits = lines.iter().filter(|l| matches(k, l)).count();
        if hits > 0
            && (hits >= 3 || hits * 2 >= starts)
            && hits * 10 >= starts
            && best.is_none_or(|b| hits > b.0)
        {
            best = Some((hits, k));
        }
    }
    best.map(|(_, k)| k.clone())
}

/// Fields tried for a `strptime` format's place, and bytes into each.
const FIELDS: u8 = 16;
const SKIPS: u8 = 4;
/// Lines a place is judged on.
const PLACE_LINES: usize = 200;

/// Plausible times for a place: from 1980 to a day after the file was
/// last modified (to 2100 when that is not known).
fn plausible(r: &Reading, mtime: i64) -> bool {
    const Y1980: i64 = 315_532_800;
    let latest = if mtime > 0 {
        mtime + 86_400
    } else {
        4_102_444_800
    };
    match r {
        Reading::Civil { c, .. } => (Y1980..=latest).contains(&c.utc_seconds()),
        Reading::Instant(t) => (Y1980..=latest).contains(&t.div_euclid(super::NS)),
        Reading::YearLess { .. } => true,
    }
}

/// Where `s` reads the most plausible stamps among the first lines of
/// `lines`: fields 0 … 15, 0 … 3 bytes into each; the leftmost on ties.
/// `None` when it reads none anywhere.
pub(super) fn place(s: &Strptime, lines: &[&[u8]], mtime: i64) -> Option<Place> {
    let lines = &lines[..lines.len().min(PLACE_LINES)];
    let mut best: Option<(usize, Place)> = None;
    for field in 0..FIELDS {
        for skip in 0..SKIPS {
            let p = Place { field, skip };
            let at = s.at(p);
            let hits = lines
                .iter()
                .filter(|l| at.read(l).is_some_and(|r| plausible(&r, mtime)))
                .count();
            if hits > 0 && best.is_none_or(|b| hits > b.0) {
                best = Some((hits, p));
            }
        }
    }
    best.map(|(_, p)| p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_traces_do_not_count() {
        let mut log: Vec<&[u8]> = vec![
            b"[2019-05-14 10:41:57] local.ERROR: boom {\"exception\":\"x\"}\n",
            b"[stacktrace]\n",
        ];
        log.extend(std::iter::repeat_n(
            &b"#0 /var/www/vendor/laravel/framework/src/Foo.php(54): x\n"[..],
            40,
        ));
        log.push(b"\"}\n");
        let log: Vec<&[u8]> = log.iter().cycle().take(log.len() * 5).copied().collect();
        assert_eq!(best(&[TimeKind::Iso], &log), Some(TimeKind::Iso));
        let java: Vec<&[u8]> = vec![
            b"2020-01-01 10:00:00,123 ERROR [main] Foo - boom\n",
            b"java.lang.NullPointerException: x\n",
            b"\tat com.foo.Bar(Bar.java:10)\n",
            b"\tat com.foo.Bar(Bar.java:11)\n",
            b"Caused by: y\n",
            b"\t... 12 more\n",
        ];
        assert!(begins_record(java[1]) && !begins_record(java[2]) && !begins_record(java[4]));
        let plain: Vec<&[u8]> = vec![b"hello\n", b"world\n", b"2026-11-30T19:32:00Z\n"];
        assert_eq!(best(&[TimeKind::Iso], &plain), None);
    }

    #[test]
    fn places_skip_implausible_numbers() {
        let lines: Vec<&[u8]> = vec![
            b"134681 node-246 action start 1077804742 1 clusterAddMember\n",
            b"134682 node-109 action start 1077804743 1 x\n",
            b"134683 node-246 boot_cmd new 1077804744 1 x\n",
        ];
        let s = Strptime::new("%s", None);
        assert_eq!(
            place(&s, &lines, 1_700_000_000),
            Some(Place { field: 4, skip: 0 })
        );
        // Not one byte into a one-byte field (onto the blank after it).
        let tbird: Vec<&[u8]> = vec![b"- 1131566461 2005.11.09 dn228 Nov 9 12:01:01 x\n"];
        assert_eq!(
            place(&Strptime::new("%s", None), &tbird, 0),
            Some(Place { field: 1, skip: 0 })
        );
        let glog: Vec<&[u8]> = vec![b"I0517 15:04:22.123456 12 f.cc:3] x\n"];
        let s = Strptime::new("%m%d %H:%M:%S%.f", None);
        assert_eq!(place(&s, &glog, 0), Some(Place { field: 0, skip: 1 }));
        assert_eq!(place(&Strptime::new("%Y-%m-%d", None), &glog, 0), None);
    }
}
