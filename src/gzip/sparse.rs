//! Sparse windows: which bytes of an access point's window the deflate
//! stream after it actually refers to.
//!
//! A deflate match copies from at most 32 KiB back, so only the first
//! 32 KiB of output after an access point can reach into its window, and
//! only through the matches made there. [`zero_unreferenced`] parses that
//! stretch of the stream — Huffman codes, lengths and distances, without
//! producing any output — marks the window bytes each match copies, and
//! zeroes all the others. The zeros compress to almost nothing, and a
//! reader needs nothing new: an unreferenced byte is never read, so the
//! decoded text is the same with either window (rapidgzip's idea; the
//! proof is `tests::sparse_windows_decode_the_same` and the CLI tests).
//!
//! Whenever the parse cannot finish (damaged or truncated data, an
//! unexpected code, more input than [`INPUT`]) the window is left whole: the decoder will find the
//! damage itself, and a whole window is always correct.

/// Compressed bytes after an access point that [`zero_unreferenced`] is
/// given: 32 KiB of output needs far less in any real stream (a stored
/// copy 32 KiB and a few bytes; literals of 15 bits each 60 KiB); a stream
/// that needs more keeps its whole window.
pub const INPUT: usize = 96 * 1024;

/// Zeroes the bytes of `window` (the output just before a deflate block)
/// that no match in the following 32 KiB of output copies. `input` holds
/// the compressed bytes from the one holding the block's first bit, which
/// is bit `skip_bits` (0..=7) of `input[0]`. Returns the number of bytes
/// kept, or `None` when the stream could not be parsed within `input` (the
/// window is unchanged).
pub fn zero_unreferenced(input: &[u8], skip_bits: u8, window: &mut [u8]) -> Option<usize> {
    if window.is_empty() {
        return Some(0);
    }
    let mut used = vec![false; window.len()];
    let mut bits = Bits {
        data: input,
        at: 0,
        acc: 0,
        n: 0,
    };
    bits.take(u32::from(skip_bits))?;
    mark_references(&mut bits, &mut used)?;
    let mut kept = 0;
    for (b, &u) in window.iter_mut().zip(&used) {
        if u {
            kept += 1;
        } else {
            *b = 0;
        }
    }
    Some(kept)
}

/// A little-endian bit reader over a byte slice.
struct Bits<'a> {
    data: &'a [u8],
    /// Next byte of `data` to load.
    at: usize,
    acc: u64,
    n: u32,
}

impl Bits<'_> {
    /// Ensures `k` (≤ 32) bits in the accumulator; `None` at the end of
    /// the input.
    fn need(&mut self, k: u32) -> Option<()> {
        while self.n < k {
            let b = *self.data.get(self.at)?;
            self.acc |= u64::from(b) << self.n;
            self.at += 1;
            self.n += 8;
        }
        Some(())
    }

    fn peek(&self, k: u32) -> u32 {
        (self.acc & ((1u64 << k) - 1)) as u32
    }

    fn drop_bits(&mut self, k: u32) {
        self.acc >>= k;
        self.n -= k;
    }

    fn take(&mut self, k: u32) -> Option<u32> {
        if k == 0 {
            return Some(0);
        }
        self.need(k)?;
        let v = self.peek(k);
        self.drop_bits(k);
        Some(v)
    }

    /// Drops the bits up to the next byte boundary.
    fn align(&mut self) {
        let k = self.n % 8;
        self.drop_bits(k);
    }

    /// Skips `len` whole bytes (after [`Bits::align`]).
    fn skip_bytes(&mut self, mut len: usize) -> Option<()> {
        while len > 0 && self.n >= 8 {
            self.drop_bits(8);
            len -= 1;
        }
        self.at += len;
        (self.at <= self.data.len()).then_some(())
    }
}

/// The shape of a canonical Huffman code (RFC 1951 §3.2.2) given by its
/// code lengths: how many codes of each length, the longest, and what is
/// left of the code space (Kraft's sum: negative when over-subscribed,
/// 0 when complete). Shared with [`super::marker`]'s tables.
pub(super) struct Canonical {
    count: [u32; 16],
    pub(super) max: usize,
    pub(super) left: i32,
}

impl Canonical {
    pub(super) fn of(lengths: &[u8]) -> Canonical {
        let mut count = [0u32; 16];
        for &l in lengths {
            count[usize::from(l)] += 1;
        }
        count[0] = 0;
        let max = (1..16).rev().find(|&l| count[l] > 0).unwrap_or(0);
        // Once negative, it stays so.
        let left = count[1..]
            .iter()
            .fold(1i32, |left, &c| (left << 1) - c as i32);
        Canonical { count, max, left }
    }

    /// Each coded symbol of `lengths`, its length and its code reversed:
    /// codes are sent most significant bit first, and a reader takes
    /// bits least significant first, so tables are indexed that way.
    pub(super) fn reversed<'a>(
        &self,
        lengths: &'a [u8],
    ) -> impl Iterator<Item = (usize, u32, usize)> + 'a {
        // The first code of each length.
        let mut next = [0u32; 16];
        let mut code = 0u32;
        for (n, &c) in next[1..].iter_mut().zip(&self.count) {
            code = (code + c) << 1;
            *n = code;
        }
        lengths
            .iter()
            .enumerate()
            .filter(|&(_, &l)| l > 0)
            .map(move |(sym, &l)| {
                let l = u32::from(l);
                let c = next[l as usize];
                next[l as usize] += 1;
                (sym, l, (c.reverse_bits() >> (32 - l)) as usize)
            })
    }
}

/// A canonical Huffman code as a full lookup table indexed by the next
/// `max` input bits: entry = symbol << 4 | code length (0: no code).
struct Huffman {
    table: Vec<u16>,
    max: u32,
}

impl Huffman {
    /// Builds the code of `lengths` (deflate's canonical rule); `None` if
    /// the lengths are over-subscribed or empty.
    fn new(lengths: &[u8]) -> Option<Huffman> {
        let code = Canonical::of(lengths);
        if lengths.is_empty() {
            return None;
        }
        if code.max == 0 {
            // No codes: decoding any symbol is an error (an empty
            // distance code is legal while only literals follow).
            return Some(Huffman {
                table: vec![0; 2],
                max: 1,
            });
        }
        // Over-subscribed lengths are invalid (incomplete codes are legal).
        if code.left < 0 {
            return None;
        }
        let max = code.max as u32;
        let size = 1usize << max;
        let mut table = vec![0u16; size];
        for (sym, l, rev) in code.reversed(lengths) {
            let entry = (sym as u16) << 4 | l as u16;
            let mut i = rev;
            while i < size {
                table[i] = entry;
                i += 1 << l;
            }
        }
        Some(Huffman { table, max })
    }

    fn decode(&self, b: &mut Bits) -> Option<u16> {
        // Near the end of the input fewer than `max` bits may remain; the
        // code itself may still be shorter (then its entry is found with
        // the missing bits taken as zeros).
        let _ = b.need(self.max);
        let e = self.table[b.peek(self.max.min(b.n)) as usize];
        let len = u32::from(e & 15);
        if len == 0 || len > b.n {
            return None;
        }
        b.drop_bits(len);
        Some(e >> 4)
    }
}

pub(super) const LEN_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
pub(super) const LEN_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
pub(super) const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
pub(super) const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];
/// The order in which code-length code lengths are sent.
pub(super) const CL_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// Parses blocks from `b` until 32 KiB of output (or the end of the
/// deflate stream), setting `used[i]` for every window byte a match copies.
fn mark_references(b: &mut Bits, used: &mut [bool]) -> Option<()> {
    let wlen = used.len() as u64;
    let limit = super::inflate::WINDOW as u64;
    // Output produced since the access point.
    let mut p = 0u64;
    while p < limit {
        let last = b.take(1)? == 1;
        match b.take(2)? {
            0 => {
                b.align();
                let len = b.take(16)?;
                let nlen = b.take(16)?;
                if len != !nlen & 0xffff {
                    return None;
                }
                // Skip the stored bytes (only their count matters).
                b.skip_bytes(len as usize)?;
                p += u64::from(len);
            }
            1 => {
                let mut l = [0u8; 288];
                l[..144].fill(8);
                l[144..256].fill(9);
                l[256..280].fill(7);
                l[280..].fill(8);
                let lit = Huffman::new(&l)?;
                let dist = Huffman::new(&[5u8; 30])?;
                codes(b, &lit, &dist, &mut p, used, wlen)?;
            }
            2 => {
                let (lit, dist) = dynamic_codes(b)?;
                codes(b, &lit, &dist, &mut p, used, wlen)?;
            }
            _ => return None,
        }
        if last {
            break;
        }
    }
    Some(())
}

/// Reads a dynamic block's code definitions.
fn dynamic_codes(b: &mut Bits) -> Option<(Huffman, Huffman)> {
    let hlit = b.take(5)? as usize + 257;
    let hdist = b.take(5)? as usize + 1;
    let hclen = b.take(4)? as usize + 4;
    if hlit > 286 || hdist > 30 {
        return None;
    }
    let mut cl = [0u8; 19];
    for &i in &CL_ORDER[..hclen] {
        cl[i] = b.take(3)? as u8;
    }
    let clh = Huffman::new(&cl)?;
    let mut lengths = [0u8; 286 + 30];
    let mut i = 0;
    while i < hlit + hdist {
        let sym = clh.decode(b)?;
        let (value, repeat) = match sym {
            0..=15 => (sym as u8, 1),
            16 => (*lengths[..i].last()?, 3 + b.take(2)? as usize),
            17 => (0, 3 + b.take(3)? as usize),
            18 => (0, 11 + b.take(7)? as usize),
            _ => return None,
        };
        if i + repeat > hlit + hdist {
            return None;
        }
        lengths[i..i + repeat].fill(value);
        i += repeat;
    }
    if lengths[256] == 0 {
        return None;
    }
    Some((
        Huffman::new(&lengths[..hlit])?,
        Huffman::new(&lengths[hlit..hlit + hdist])?,
    ))
}

/// Decodes one Huffman-coded block's symbols, counting output in `p` and
/// marking the window bytes that matches copy.
fn codes(
    b: &mut Bits,
    lit: &Huffman,
    dist: &Huffman,
    p: &mut u64,
    used: &mut [bool],
    wlen: u64,
) -> Option<()> {
    let limit = super::inflate::WINDOW as u64;
    loop {
        let sym = lit.decode(b)?;
        match sym {
            0..=255 => *p += 1,
            256 => return Some(()),
            257..=285 => {
                let s = (sym - 257) as usize;
                let len = u64::from(LEN_BASE[s]) + u64::from(b.take(u32::from(LEN_EXTRA[s]))?);
                let ds = dist.decode(b)? as usize;
                if ds >= 30 {
                    return None;
                }
                let d = u64::from(DIST_BASE[ds]) + u64::from(b.take(u32::from(DIST_EXTRA[ds]))?);
                if d > *p {
                    // Copies from the window: bytes p-d .. p-d+len that lie
                    // before the access point, window index wlen-(d-p)..
                    if d - *p > wlen {
                        return None;
                    }
                    let from = (wlen - (d - *p)) as usize;
                    let n = len.min(d - *p) as usize;
                    used[from..from + n].fill(true);
                }
                *p += len;
            }
            _ => return None,
        }
        if *p >= limit {
            return Some(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gzip::{AccessPoint, Event, Inflater};
    use crate::io::{MemSource, ReadAt};

    /// Every access point of `archive`, with its full window.
    fn access_points(src: &dyn ReadAt) -> Vec<AccessPoint> {
        let mut inf = Inflater::new(src);
        let mut aps = Vec::new();
        while let Some(ev) = inf.next_event().unwrap() {
            if let Event::Boundary {
                comp_bit,
                uncomp,
                member_start,
            } = ev
            {
                aps.push(AccessPoint {
                    comp_bit,
                    uncomp,
                    window: inf.window(),
                    member_start,
                    span_crc: None,
                });
            }
        }
        aps
    }

    /// Decodes from `ap` to the next access point (or 64 KiB, or the end).
    fn span(src: &dyn ReadAt, ap: &AccessPoint, end: u64) -> Vec<u8> {
        let mut inf = Inflater::resume(src, ap).unwrap();
        let mut out = Vec::new();
        inf.data_until(end, &mut |d| out.extend_from_slice(d))
            .unwrap();
        out
    }

    /// Checks every block boundary of `archive` (text `text`): the span
    /// after it decodes to the same bytes with the sparse window as with
    /// the full one and as the text itself; returns (window bytes, kept).
    pub(crate) fn check_all_spans(name: &str, archive: Vec<u8>, text: &[u8]) -> (usize, usize) {
        let src = MemSource::new(archive.clone());
        let aps = access_points(&src);
        assert!(aps.len() > 1, "{name}: boundaries");
        let (mut total, mut kept) = (0, 0);
        for (i, ap) in aps.iter().enumerate() {
            let end = aps
                .get(i + 1)
                .map_or(text.len() as u64, |n| n.uncomp)
                .max(ap.uncomp + 2 * super::super::inflate::WINDOW as u64)
                .min(text.len() as u64);
            let mut sparse = ap.clone();
            let input = &archive[(ap.comp_bit / 8) as usize..];
            let input = &input[..input.len().min(INPUT)];
            let k = zero_unreferenced(input, (ap.comp_bit % 8) as u8, &mut sparse.window)
                .unwrap_or_else(|| panic!("{name}: parse failed at {}", ap.comp_bit));
            total += ap.window.len();
            kept += k;
            let want = &text[ap.uncomp as usize..end as usize];
            let full = span(&src, ap, end);
            assert!(full == want, "{name}: full window at {} differs", ap.uncomp);
            let got = span(&src, &sparse, end);
            assert!(
                got == want,
                "{name}: sparse window at {} differs",
                ap.uncomp
            );
        }
        (total, kept)
    }

    #[test]
    fn sparse_windows_decode_the_same() {
        use crate::gzip::inflate::tests::gz;
        let mut t = Vec::new();
        let mut s = 7u64;
        while t.len() < 600_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            t.extend_from_slice(
                format!("{} line {} err {}\n", s % 9973, s >> 40, s % 7).as_bytes(),
            );
        }
        for level in [0, 1, 6, 9] {
            let (total, kept) = check_all_spans(&format!("level {level}"), gz(&t, level), &t);
            assert!(kept < total || level == 0, "level {level}: nothing zeroed");
        }
    }

    /// Every block boundary of archives written by gzip and pigz (pigz
    /// writes a stored block every 128 KiB; `-i` resets the history), with
    /// some incompressible stretches (stored blocks).
    #[test]
    fn sparse_windows_of_gzip_and_pigz_archives() {
        let mut t = Vec::new();
        let mut s = 11u64;
        while t.len() < 1_500_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            if s.is_multiple_of(97) {
                t.extend((0..3000).map(|k| (s >> (k % 50)) as u8));
            }
            t.extend_from_slice(format!("{} GET /a/{} {}\n", s % 99991, s >> 44, s % 5).as_bytes());
        }
        for (tool, args) in [
            ("gzip", &["-1", "-c"][..]),
            ("gzip", &["-6", "-c"]),
            ("gzip", &["-9", "-c"]),
            ("pigz", &["-c"]),
            ("pigz", &["-c", "-i", "-b", "64"]),
        ] {
            let Some(archive) = crate::gzip::compress_with(tool, args, &t) else {
                continue;
            };
            let name = format!("{tool} {args:?}");
            let (total, kept) = check_all_spans(&name, archive, &t);
            assert!(kept < total, "{name}: nothing zeroed");
        }
    }

    #[test]
    fn damage_keeps_the_whole_window() {
        let w = vec![7u8; 100];
        // A block type of 3 is invalid.
        let mut win = w.clone();
        assert_eq!(zero_unreferenced(&[0b111, 0, 0, 0], 0, &mut win), None);
        assert_eq!(win, w);
        // No input, or input that ends inside a block.
        assert_eq!(zero_unreferenced(&[], 0, &mut win), None);
        assert_eq!(zero_unreferenced(&[0b010, 0xff], 3, &mut win), None);
        assert_eq!(win, w);
    }
}
