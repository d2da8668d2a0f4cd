//! [`Stamper`]: the time of each line, in file order.
//!
//! It applies what a single line does not tell: the zone of a stamp without
//! an offset (the zone's rules converted once per minute), the year of a
//! stamp without one (the line before decides, R-114), the short way for
//! ISO 8601 lines of the same minute, and, in a build, the check that a
//! zone abbreviation written after a stamp is the zone's.

use super::format::{FALLBACK, TimeFormat, TimeKind, read};
use super::readers::{self, Abbr, ISO_WINDOW, Reading};
use super::{Civil, Nanos};
use jiff::tz::TimeZone;

/// A wall-clock minute: year, month, day, hour, minute.
type Minute = (i64, u32, u32, u32, u32);

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
    /// The shape of the rest of the last stamp of the minute read in full.
    tail: Option<Tail>,
}

/// Words of [`Tail`].
const TAIL_WORDS: usize = 4;

/// The bytes after an ISO 8601 minute that its reading looked at (from
/// the `:` before the seconds: the seconds, the fraction and the offset),
/// as 8-byte words. A line of the same minute whose bytes there are the
/// same but for other digits in the seconds' and fraction's places reads
/// the same way (the readers branch on those bytes only, and on the
/// digits only through the seconds' range), so it takes the shortest way:
/// compare, check digits, add them up (and look for a zone abbreviation
/// after the stamp, which reads other bytes, as the long way does).
#[derive(Debug, Clone, Copy)]
struct Tail {
    bytes: [u64; TAIL_WORDS],
    /// 0xFF in the bytes of the seconds' and fraction's digits.
    digits: [u64; TAIL_WORDS],
    /// 0xFF in the other bytes the reading looked at.
    fixed: [u64; TAIL_WORDS],
    /// Bytes the reading looked at (from the stamp's byte 16), and the
    /// words holding them.
    looked: usize,
    words: usize,
    /// Whether the stamp has seconds (a `:` at its byte 16), and its
    /// fraction's digits (from its byte 20).
    seconds: bool,
    fraction: usize,
    /// What the reading gave after the digits: the offset, and the
    /// stamp's end.
    off: Option<i32>,
    end: usize,
}

/// Every byte `b`.
const fn bytes(b: u8) -> u64 {
    u64::from_ne_bytes([b; 8])
}

/// The words of `b[..8 * n]`.
#[inline]
fn load_words(b: &[u8], n: usize) -> [u64; TAIL_WORDS] {
    let mut w = [0u64; TAIL_WORDS];
    for (k, c) in b[..8 * n].as_chunks::<8>().0.iter().enumerate() {
        w[k] = u64::from_le_bytes(*c);
    }
    w
}

impl Tail {
    /// The shape of stamp `b` (from its first byte) whose reading from
    /// byte 16 on gave `(off, end)`; `None` when the line ends before
    /// what the reading could have looked at.
    fn new(b: &[u8], off: Option<i32>, end: usize) -> Option<Tail> {
        let seconds = b.get(16) == Some(&b':');
        // A point or comma after the seconds, maybe before a fraction.
        let point = seconds && matches!(b.get(19), Some(b'.' | b','));
        let (fraction, digits_end) = if seconds {
            let n = b
                .get(20..)
                .map_or(0, |r| r.iter().take_while(|c| c.is_ascii_digit()).count());
            if point && n > 0 { (n, 20 + n) } else { (0, 19) }
        } else {
            (0, 16)
        };
        // The offset's reader looks at the byte after the digits, and at
        // up to 5 more after a sign; the seconds' reader, after a point or
        // comma, at the byte after it (a fraction's digit, or not).
        let offset_end = match b.get(digits_end) {
            Some(b'+' | b'-') => digits_end + 6,
            _ => digits_end + 1,
        };
        let looked = offset_end.max(if point { 21 } else { 0 }) - 16;
        let words = looked.div_ceil(8);
        if words > TAIL_WORDS || b.len() < 16 + looked {
            return None;
        }
        // (A line may end within the last word: its bytes past `looked`
        // are not looked at.)
        let mut tail = [0u8; 8 * TAIL_WORDS];
        tail[..looked].copy_from_slice(&b[16..16 + looked]);
        let mut digits = [0u8; 8 * TAIL_WORDS];
        let mut fixed = [0u8; 8 * TAIL_WORDS];
        for (i, (d, f)) in digits.iter_mut().zip(&mut fixed).enumerate().take(looked) {
            let at = 16 + i;
            if (seconds && (17..19).contains(&at)) || (20..20 + fraction).contains(&at) {
                *d = 0xFF;
            } else {
                *f = 0xFF;
            }
        }
        Some(Tail {
            bytes: load_words(&tail, words),
            digits: load_words(&digits, words),
            fixed: load_words(&fixed, words),
            looked,
            words,
            seconds,
            fraction,
            off,
            end,
        })
    }

    /// Whether a stamp whose words from its byte 16 on are `w` has this
    /// shape: `n` is [`Tail::words`], given by a caller that knows it as
    /// a constant (the words past it are not looked at, nor are their
    /// bytes past [`Tail::looked`]).
    #[inline(always)]
    fn fits_words(&self, w: &[u64; TAIL_WORDS], n: usize) -> bool {
        debug_assert_eq!(n, self.words);
        let mut bad = 0u64;
        for (k, &w) in w.iter().enumerate().take(n) {
            bad |= (w ^ self.bytes[k]) & self.fixed[k];
            // The digits' places hold digits (the others are made '0'):
            // a byte below '0' or above '9' sets its top bit in one of the
            // two (a borrow or carry across bytes comes only from such a
            // byte, and can only set more).
            let d = (w & self.digits[k]) | (bytes(b'0') & !self.digits[k]);
            bad |= (d.wrapping_add(bytes(0x46)) | d.wrapping_sub(bytes(b'0'))) & bytes(0x80);
        }
        bad == 0
    }

    /// The seconds and nanoseconds of stamp `b`, whose words
    /// [`Tail::fits_words`].
    #[inline(always)]
    fn read(&self, b: &[u8]) -> (u32, u32) {
        if !self.seconds {
            return (0, 0);
        }
        let s = (b[17] - b'0') as u32 * 10 + (b[18] - b'0') as u32;
        let n = self.fraction.min(9);
        let ns = match b.get(20..28) {
            // Up to 8 digits at once: moved to the word's top (its
            // bottom bytes, the leading digits, become zeros), then
            // summed in pairs, fours and eights.
            Some(w) if n > 0 => {
                let m = n.min(8);
                let x =
                    u64::from_le_bytes(w.try_into().expect("8 bytes")).wrapping_sub(bytes(b'0'));
                let v = eight_digits(x << (8 * (8 - m)));
                if n == 9 {
                    v * 10 + (b[28] - b'0') as u32
                } else {
                    v
                }
            }
            _ => b[20..20 + n]
                .iter()
                .fold(0u32, |v, &c| v * 10 + (c - b'0') as u32),
        };
        (s, ns * readers::FRACTION_SCALE[n])
    }
}

/// The number whose decimal digits are the bytes of `x` (each 0 to 9),
/// its lowest byte the most significant digit.
#[inline(always)]
fn eight_digits(x: u64) -> u32 {
    let x = (x & bytes(0x0F)).wrapping_mul(10 * 256 + 1) >> 8;
    let x = (x & 0x00FF_00FF_00FF_00FF).wrapping_mul(100 * 65536 + 1) >> 16;
    ((x & 0x0000_FFFF_0000_FFFF).wrapping_mul(10000 * (1 << 32) + 1) >> 32) as u32
}

/// `a == b` for slices of one length, compared 8 bytes at a time: the
/// minute's prefix (16 bytes and the stamp's offset in the line) is
/// compared on every line of a time build, where a call to `memcmp` costs
/// more than the comparison.
#[inline]
fn same_prefix(a: &[u8], b: &[u8]) -> bool {
    debug_assert_eq!(a.len(), b.len());
    let (ca, ta) = a.as_chunks::<8>();
    let (cb, tb) = b.as_chunks::<8>();
    ca.iter()
        .zip(cb)
        .all(|(x, y)| u64::from_ne_bytes(*x) == u64::from_ne_bytes(*y))
        && ta.iter().zip(tb).all(|(x, y)| x == y)
}

impl IsoMinute {
    /// The minute of the stamp at `at` in `line`, if lines that begin as
    /// `line` does up to its end can take the short way.
    fn new(line: &[u8], at: usize, c: &Civil) -> Option<IsoMinute> {
        // A place before `at` that passes the first 16 bytes' checks could
        // hold a stamp in another line with the same beginning.
        if (0..at)
            .any(|i| line[i].is_ascii_digit() && readers::ymd_head(&line[i..], b'-').is_some())
        {
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
            tail: None,
        })
    }
}

/// Words of [`QuickIso`]'s copy of a minute's line.
const PREFIX_WORDS: usize = (ISO_WINDOW + 16).div_ceil(8);

/// The short way to read the lines of the last ISO 8601 minute read in
/// full (its bytes and the rest's [`Tail`], as words held at hand): what
/// [`State::iso_quick`] reads with, and a copy of it for a loop over the
/// lines of a block ([`Stamper::quick`]), valid until the stamper reads
/// another line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct QuickIso {
    /// The minute's line's first `at + 16` bytes, as words, and which of
    /// their bytes count.
    prefix: [u64; PREFIX_WORDS],
    mask: [u64; PREFIX_WORDS],
    words: usize,
    /// Where the stamp starts.
    at: usize,
    tail: Tail,
    /// Bytes a line needs: what the reading looks at.
    need: usize,
    /// The minute's instant (its offset applied), if a minute's seconds
    /// and fraction cannot take it out of range (else no line takes the
    /// short way).
    base: Option<Nanos>,
    /// The minute's wall-clock year.
    pub(crate) year: i32,
    /// Whether a zone abbreviation after the stamp is to be looked for
    /// (a stamp without an offset, in a build).
    abbr: bool,
}

impl QuickIso {
    /// The time of the stamp of the line at `buf[s..]`, whose first
    /// bytes (as [`Stamper::stamp_alone`] is given them) are `head`, when
    /// the stamper reads it the short way, without a zone abbreviation
    /// after it (the same time as [`Stamper::stamp_alone`]'s); `None`:
    /// read it so.
    #[inline(always)]
    pub(crate) fn read(&self, buf: &[u8], s: usize, head: &[u8]) -> Option<Nanos> {
        self.read_as(self.base?, self.words, self.tail.words, buf, s, head)
    }

    /// [`QuickIso::read`] with the minute's instant `base`, and the words
    /// of the prefix (`p`) and of the tail (`t`), which a caller that
    /// knows them as constants gives so (the loops then have a known
    /// length).
    #[inline(always)]
    fn read_as(
        &self,
        base: Nanos,
        p: usize,
        t: usize,
        buf: &[u8],
        s: usize,
        head: &[u8],
    ) -> Option<Nanos> {
        debug_assert_eq!((p, t), (self.words, self.tail.words));
        if head.len() < self.need {
            return None;
        }
        let at = self.at;
        let line = buf.get(s..s + (8 * p).max(at + 16 + 8 * t))?;
        let word = |i: usize| u64::from_le_bytes(line[i..i + 8].try_into().expect("8 bytes"));
        let mut diff = 0u64;
        for i in 0..p {
            diff |= (word(8 * i) ^ self.prefix[i]) & self.mask[i];
        }
        let mut tail = [0u64; TAIL_WORDS];
        for (i, w) in tail.iter_mut().enumerate().take(t) {
            *w = word(at + 16 + 8 * i);
        }
        if diff != 0 || !self.tail.fits_words(&tail, t) {
            return None;
        }
        let (sec, ns) = self.tail.read(&buf[s + at..]);
        if sec > 60 || (self.abbr && readers::abbreviation(&head[at..], self.tail.end).is_some()) {
            return None;
        }
        // (`base` leaves room for a minute's seconds and fraction.)
        Some(base + sec as i64 * super::NS + ns as i64)
    }

    /// Reads the short way, in order, the lines between newlines `nl` of
    /// the bytes at `buf[pre..]` (line `k` from after `nl[k]` to after
    /// `nl[k + 1]`; its head, as [`QuickIso::read`] is given it, its
    /// first `head` bytes at most), giving each one's start in `buf` and
    /// its time to `each`, until a line does not take it. Returns how
    /// many it read. The loop of a time build's workers: one call per
    /// run of lines of one minute, not one per line, made for the common
    /// sizes of the minute's prefix and the stamp's tail.
    #[inline]
    pub(crate) fn read_between(
        &self,
        buf: &[u8],
        pre: usize,
        nl: &[u32],
        head: usize,
        each: impl FnMut(usize, Nanos),
    ) -> usize {
        let Some(b) = self.base else {
            return 0;
        };
        match (self.words, self.tail.words) {
            (2, 1) => self.between(b, 2, 1, buf, pre, nl, head, each),
            (2, 2) => self.between(b, 2, 2, buf, pre, nl, head, each),
            (2, 3) => self.between(b, 2, 3, buf, pre, nl, head, each),
            (3, 1) => self.between(b, 3, 1, buf, pre, nl, head, each),
            (3, 2) => self.between(b, 3, 2, buf, pre, nl, head, each),
            (3, 3) => self.between(b, 3, 3, buf, pre, nl, head, each),
            (p, t) => self.between(b, p, t, buf, pre, nl, head, each),
        }
    }

    /// [`QuickIso::read_between`]'s loop, with [`QuickIso::read_as`]'s
    /// `base`, `p` and `t`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn between(
        &self,
        base: Nanos,
        p: usize,
        t: usize,
        buf: &[u8],
        pre: usize,
        nl: &[u32],
        head: usize,
        mut each: impl FnMut(usize, Nanos),
    ) -> usize {
        for (k, w) in nl.windows(2).enumerate() {
            let (s, end) = (pre + w[0] as usize + 1, pre + w[1] as usize + 1);
            match self.read_as(base, p, t, buf, s, &buf[s..end.min(s + head)]) {
                Some(time) => each(s, time),
                None => return k,
            }
        }
        nl.len().saturating_sub(1)
    }
}

/// A stamp followed by a zone abbreviation that the index's zone does not
/// give that time: reading it in the zone would be wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZoneConflict {
    /// The abbreviation written.
    pub written: Abbr,
    /// The instant the stamp is read as in the zone.
    pub at: Nanos,
    /// The zone's abbreviation and offset (seconds) at that instant.
    pub zone_abbr: String,
    /// The zone's offset at that instant, in seconds.
    pub zone_offset: i32,
}

/// What a reader gave, once the zone is applied.
enum Read {
    /// An instant, its wall-clock year, and a zone abbreviation after it.
    Time(Nanos, i32, Option<Abbr>),
    /// A month, day and time (and maybe an offset): the line before
    /// gives its year.
    YearLess(Civil, Option<i32>),
}

/// Reads the stamps of lines in one format, in file order (it remembers
/// the last minute's UTC offset, and the last line's time for stamps
/// without a year).
pub struct Stamper {
    f: TimeFormat,
    s: State,
}

/// What a [`Stamper`] remembers from line to line (apart from its format,
/// so that reading borrows the one and changes the other).
struct State {
    /// The last wall-clock minute converted, and its UTC offset.
    minute: Option<(Minute, i32)>,
    /// The last ISO 8601 minute read, for the lines after it.
    iso_minute: Option<Box<IsoMinute>>,
    /// What reads its lines the short way, if they can be.
    quick: Option<QuickIso>,
    /// The time of the last stamped line (years follow it).
    prev: Option<Nanos>,
    /// The wall-clock year of the last stamped line.
    prev_year: i32,
    /// A build's stamper checks zone abbreviations.
    check_zones: bool,
    /// The first conflict found.
    conflict: Option<ZoneConflict>,
}

/// Half a year: a stamp without a year read in the year of the line before
/// it is the closest reading when it lies within this of that line.
const HALF_YEAR: i64 = 182 * 86_400 * super::NS;

impl Stamper {
    pub(super) fn new(f: TimeFormat) -> Stamper {
        let prev_year = f.syslog_year();
        Stamper {
            f,
            s: State {
                minute: None,
                iso_minute: None,
                quick: None,
                prev: None,
                prev_year,
                check_zones: false,
                conflict: None,
            },
        }
    }

    /// Continues from a line stamped `anchor`, written in wall-clock year
    /// `year` (stamps without a year get the year that puts them closest
    /// to the anchor). For reading from the middle of a file: the anchor is
    /// the last stamp before the place read from.
    pub fn anchor(&mut self, anchor: Nanos, year: i32) {
        self.s.prev = Some(anchor);
        self.s.prev_year = year;
    }

    /// The format.
    pub fn format(&self) -> &TimeFormat {
        &self.f
    }

    /// The time of the last stamped line read (or the anchor).
    pub fn last(&self) -> Option<Nanos> {
        self.s.prev
    }

    /// The wall-clock year of the last stamped line read (or the anchor's;
    /// before any, the format's first year).
    pub fn last_year(&self) -> i32 {
        self.s.prev_year
    }

    /// Checks from now on that a zone abbreviation written after a stamp
    /// without an offset is the one the zone gives that time (a build's
    /// check, R-126); the first that is not is kept
    /// ([`Stamper::zone_conflict`]).
    pub fn check_zones(&mut self, yes: bool) {
        self.s.check_zones = yes;
        self.s.quick = self.s.quick_of();
    }

    /// The first stamp whose zone abbreviation the zone contradicts.
    pub fn zone_conflict(&self) -> Option<&ZoneConflict> {
        self.s.conflict.as_ref()
    }

    /// Takes the conflict [`Stamper::zone_conflict`] holds: the next one
    /// is kept from now on.
    pub(crate) fn take_zone_conflict(&mut self) -> Option<ZoneConflict> {
        self.s.conflict.take()
    }

    /// The time of `line`'s stamp as it was read when the line was written
    /// in wall-clock year `year` (stamps without a year; other stamps carry
    /// their year or need none); forgets the lines before.
    pub fn stamp_in_year(&mut self, line: &[u8], year: i32) -> Option<Nanos> {
        self.s.prev = None;
        self.s.prev_year = year;
        self.stamp(line)
    }

    /// The time of `line`'s stamp, or `None` if it has none.
    pub fn stamp(&mut self, line: &[u8]) -> Option<Nanos> {
        let (f, s) = (&self.f, &mut self.s);
        let r = match s.iso_quick(f, line) {
            Some(r) => r,
            None => s.read_any(f, line)?,
        };
        let (t, year) = match r {
            Read::Time(t, year, abbr) => {
                if let Some(a) = abbr
                    && s.check_zones
                {
                    s.check_abbr(&f.tz, t, a);
                }
                (t, year)
            }
            Read::YearLess(c, off) => s.year_less_time(&f.tz, &c, off)?,
        };
        s.prev = Some(t);
        s.prev_year = year;
        Some(t)
    }

    /// What the stamper reads lines the short way with now (an ISO 8601
    /// stamp of the minute of the last read, of its shape), if it reads
    /// any so, for a loop over lines that reads the others with this
    /// stamper (and asks again after each).
    pub(crate) fn quick(&self) -> Option<QuickIso> {
        if !matches!(self.f.kind, TimeKind::Iso) {
            return None;
        }
        self.s.quick
    }

    /// What [`Stamper::stamp`] would say of `line` whatever lines came
    /// before: `Some(time and wall-clock year, or None)`, or `None` when
    /// that depends on them (a stamp without a year, whose year follows
    /// the line before). Checks a zone abbreviation as [`Stamper::stamp`]
    /// does. Leaves [`Stamper::last`] as it is. For reading lines out of
    /// order (the parallel ingest).
    pub(crate) fn stamp_alone(&mut self, line: &[u8]) -> Option<Option<(Nanos, i32)>> {
        let s = &mut self.s;
        let r = match s.iso_quick(&self.f, line) {
            Some(r) => Some(r),
            None => s.read_any(&self.f, line),
        };
        match r {
            None => Some(None),
            Some(Read::Time(t, y, abbr)) => {
                if let Some(a) = abbr
                    && s.check_zones
                {
                    s.check_abbr(&self.f.tz, t, a);
                }
                Some(Some((t, y)))
            }
            Some(Read::YearLess(..)) => None,
        }
    }

    /// True when every stamp is read in order (stamps without a year):
    /// reading lines out of order gains nothing.
    pub(crate) fn reads_in_order(&self) -> bool {
        self.f.kind.year_less()
    }
}

impl State {
    /// The stamp of `line` in `f`'s format or, for a detected format,
    /// the first of its fallbacks that reads one.
    fn read_any(&mut self, f: &TimeFormat, line: &[u8]) -> Option<Read> {
        if let Some(r) = self.read(&f.tz, &f.kind, line) {
            return Some(r);
        }
        if !f.auto {
            return None;
        }
        FALLBACK
            .iter()
            .filter(|k| **k != f.kind)
            .find_map(|k| self.read(&f.tz, k, line))
    }

    /// The stamp of `line` in format `kind`, its zone (`tz`) applied.
    fn read(&mut self, tz: &TimeZone, kind: &TimeKind, line: &[u8]) -> Option<Read> {
        let r = match kind {
            TimeKind::Iso => {
                if let Some(r) = self.iso_same_minute(tz, line) {
                    return Some(r);
                }
                let (at, r) = readers::ymd_pos(line, b'-')?;
                if let Reading::Civil { c, .. } = &r {
                    self.iso_minute = IsoMinute::new(line, at, c).map(Box::new);
                    self.quick = None;
                }
                r
            }
            k => read(k, line)?,
        };
        match r {
            Reading::Civil { c, off, abbr } => {
                Some(Read::Time(self.resolve(tz, c, off)?, c.y as i32, abbr))
            }
            Reading::Instant(t) => Some(Read::Time(t, super::year_of(t), None)),
            Reading::YearLess { c, off } => Some(Read::YearLess(c, off)),
        }
    }

    /// Keeps the first conflict between abbreviation `a`, written after a
    /// stamp read as `t` in the zone, and the zone at `t`.
    fn check_abbr(&mut self, tz: &TimeZone, t: Nanos, a: Abbr) {
        if self.conflict.is_some() {
            return;
        }
        let Ok(ts) = jiff::Timestamp::from_nanosecond(t as i128) else {
            return;
        };
        let info = tz.to_offset_info(ts);
        let zone_offset = info.offset().seconds();
        if info.abbreviation() == a.name || a.offset == Some(zone_offset) {
            return;
        }
        self.conflict = Some(ZoneConflict {
            written: a,
            at: t,
            zone_abbr: info.abbreviation().to_string(),
            zone_offset,
        });
    }

    /// The instant of wall-clock time `c` at offset `off`, or in the zone.
    fn resolve(&mut self, tz: &TimeZone, c: Civil, off: Option<i32>) -> Option<Nanos> {
        let o = match off {
            Some(o) => o,
            None => self.zone_offset(tz, &c)?,
        };
        c.at_offset(o)
    }

    /// The zone's UTC offset for the wall-clock minute of `c` (R-113: the
    /// earlier of a repeated minute, the offset before a skipped one).
    fn zone_offset(&mut self, tz: &TimeZone, c: &Civil) -> Option<i32> {
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
        let ts = tz.to_ambiguous_timestamp(dt).compatible().ok()?;
        let o = (Civil { s: 0, ns: 0, ..*c }.utc_seconds() - ts.as_second()) as i32;
        self.minute = Some((key, o));
        Some(o)
    }

    /// [`State::read_any`]'s reading of `line` when its format is ISO
    /// 8601, `line` begins as the line of the last minute read did, and
    /// the rest of its stamp has the [`Tail`] of the last read in full; or
    /// `None` (then it may still have a stamp). Small, to be inlined where
    /// every line is read.
    #[inline(always)]
    fn iso_quick(&self, f: &TimeFormat, line: &[u8]) -> Option<Read> {
        if !matches!(f.kind, TimeKind::Iso) {
            return None;
        }
        let q = self.quick.as_ref()?;
        let t = q.read(line, 0, line)?;
        Some(Read::Time(t, q.year, None))
    }

    /// What reads the lines of the last ISO 8601 minute the short way, if
    /// they can be (kept in [`State::quick`], made again whenever what it
    /// copies changes).
    fn quick_of(&self) -> Option<QuickIso> {
        let m = self.iso_minute.as_deref()?;
        let tail = m.tail?;
        let off = tail.off.or(m.zone)?;
        let mut prefix = [0u64; PREFIX_WORDS];
        let mut mask = [0u64; PREFIX_WORDS];
        for i in 0..m.len {
            prefix[i / 8] |= u64::from(m.prefix[i]) << (8 * (i % 8));
            mask[i / 8] |= 0xFF << (8 * (i % 8));
        }
        Some(QuickIso {
            prefix,
            mask,
            words: m.len.div_ceil(8),
            at: m.at,
            tail,
            need: m.at + 16 + tail.looked,
            base: (m.utc - off as i64)
                .checked_mul(super::NS)
                .filter(|b| b.checked_add(62 * super::NS).is_some()),
            year: m.civil.y as i32,
            abbr: tail.off.is_none() && self.check_zones,
        })
    }

    /// The stamp of `line` when it begins as the line of the last ISO 8601
    /// minute did (the same bytes up to the end of the minute): only its
    /// seconds, fraction and offset are read. `None`: read it in full
    /// (another beginning, or a stamp that is not one there, in which case
    /// a later place may hold one).
    fn iso_same_minute(&mut self, tz: &TimeZone, line: &[u8]) -> Option<Read> {
        let m = self.iso_minute.as_deref()?;
        if line.len() < m.len || !same_prefix(&line[..m.len], &m.prefix[..m.len]) {
            return None;
        }
        let (at, utc, zone) = (m.at, m.utc, m.zone);
        let mut c = m.civil;
        let stamp = &line[at..];
        let (off, end) = readers::ymd_tail(stamp, &mut c)?;
        let tail = Tail::new(stamp, off, end);
        if let Some(m) = self.iso_minute.as_deref_mut() {
            m.tail = tail;
        }
        self.quick = self.quick_of();
        if c.s > 60 {
            return None;
        }
        let o = match (off, zone) {
            (Some(o), _) => o,
            (None, Some(z)) => z,
            (None, None) => {
                let z = self.zone_offset(tz, &c)?;
                if let Some(m) = self.iso_minute.as_deref_mut() {
                    m.zone = Some(z);
                }
                self.quick = self.quick_of();
                z
            }
        };
        let t = (utc + c.s as i64 - o as i64)
            .checked_mul(super::NS)?
            .checked_add(c.ns as i64)?;
        let abbr = match off {
            None if self.check_zones => readers::abbreviation(stamp, end),
            _ => None,
        };
        Some(Read::Time(t, c.y as i32, abbr))
    }

    /// A stamp without a year: in the first line, the format's first year;
    /// after it, the year (the last line's, or one either side) that puts
    /// it closest to the last stamped line.
    fn year_less_time(
        &mut self,
        tz: &TimeZone,
        c: &Civil,
        off: Option<i32>,
    ) -> Option<(Nanos, i32)> {
        let at = |this: &mut Self, y: i32| {
            let c = Civil { y: y as i64, ..*c };
            if c.valid() {
                this.resolve(tz, c, off)
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::format::first_syslog_year;

    fn civil(mo: u32, d: u32, h: u32) -> Civil {
        Civil {
            y: 0,
            mo,
            d,
            h,
            mi: 0,
            s: 0,
            ns: 0,
        }
    }

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
            first_syslog_year(&civil(12, 31, 23), T0 / super::super::NS),
            2025
        );
        assert_eq!(
            first_syslog_year(&civil(11, 30, 19), T0 / super::super::NS),
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
