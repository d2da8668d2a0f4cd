//! Deflate decoding from a block boundary without its window.
//!
//! A deflate block refers back into the 32 KiB of output before it. A
//! decoder that starts at a block boundary in the middle of a stream does
//! not know those bytes yet, but it can still decode: each byte it would
//! copy from the unknown window is written as a *marker*, a 16-bit symbol
//! naming the window position ([`MARK`] + index), and a match that copies
//! a marker copies the marker. Once the window is known, [`resolve`]
//! replaces every marker by its byte in one pass (rapidgzip's idea:
//! Knespel & Brunst, HPDC 2023). So chunks of one gzip member can be
//! decoded at the same time, each from the first block boundary in it
//! ([`find_and_decode`] finds one by trying to decode at every bit).
//!
//! Nothing here decides that a boundary is real: a bit pattern inside a
//! block may decode as a block too. The caller uses a chunk only when the
//! exact decode of the stream before it reaches its first bit at a block
//! boundary (`crate::ingest::speculative`). The decoder follows zlib's
//! rules for what is invalid, so that a chunk is accepted exactly when
//! zlib would decode the same bits; any doubt makes it stop early, and
//! the caller then decodes sequentially.

use super::sparse::{CL_ORDER, Canonical, DIST_BASE, DIST_EXTRA, LEN_BASE, LEN_EXTRA};

/// Bytes of history a deflate stream may refer back to.
pub(crate) const WINDOW: usize = 32 * 1024;
/// Symbol `MARK + i` stands for byte `i` of the window (0: the oldest);
/// symbols below it are bytes.
pub(crate) const MARK: u16 = 256;

/// Index bits of each primary table.
const LIT_BITS: u32 = 11;
const DIST_BITS: u32 = 8;
const CL_BITS: u32 = 7;

// A table entry (u32): bits 0..5 the codeword's length, bits 5..8 its
// kind, bits 8..12 the extra bits that follow it (a length or distance)
// or a subtable's index bits, bits 16..32 its value (a byte, a length or
// distance base, a subtable's offset).
const INVALID: u32 = 0;
const LIT: u32 = 1 << 5;
const LEN: u32 = 2 << 5;
const EOB: u32 = 3 << 5;
const SUB: u32 = 4 << 5;
const KIND: u32 = 7 << 5;

/// Room a Huffman step may write past the output position: the longest
/// match, plus the overshoot of 8-symbol copies.
const SLACK: usize = 258 + 64;

/// A little-endian bit reader (libdeflate's refill: whole words while
/// the input lasts, zero bytes past its end, which [`Bits::overrun`]
/// reports).
struct Bits<'a> {
    data: &'a [u8],
    /// The next byte to load (may pass the end: zeros were loaded).
    pos: usize,
    buf: u64,
    /// Valid bits in `buf`.
    left: u32,
}

impl<'a> Bits<'a> {
    fn at(data: &'a [u8], bit: usize) -> Bits<'a> {
        let mut b = Bits {
            data,
            pos: bit / 8,
            buf: 0,
            left: 0,
        };
        b.refill();
        b.consume((bit % 8) as u32);
        b
    }

    /// The bit offset of the next unread bit.
    fn bit_pos(&self) -> usize {
        self.pos * 8 - self.left as usize
    }

    /// True when bits past the end of the data were consumed.
    fn overrun(&self) -> bool {
        self.bit_pos() > self.data.len() * 8
    }

    /// At least 56 valid bits.
    #[inline(always)]
    fn refill(&mut self) {
        if let Some(w) = self.data.get(self.pos..self.pos + 8) {
            let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
            self.buf |= w << self.left;
            self.pos += ((63 - self.left) >> 3) as usize;
            self.left |= 56;
        } else {
            while self.left <= 56 {
                let b = self.data.get(self.pos).copied().unwrap_or(0);
                self.buf |= u64::from(b) << self.left;
                self.pos += 1;
                self.left += 8;
            }
        }
    }

    #[inline(always)]
    fn consume(&mut self, n: u32) {
        debug_assert!(n <= self.left);
        self.buf >>= n;
        self.left -= n;
    }

    fn get(&mut self, n: u32) -> u32 {
        if self.left < n {
            self.refill();
        }
        let v = (self.buf & ((1u64 << n) - 1)) as u32;
        self.consume(n);
        v
    }
}

/// A canonical Huffman code as lookup tables: a primary table indexed by
/// the next `bits` input bits, then the subtables of longer codes.
struct Table {
    e: Vec<u32>,
    bits: u32,
}

impl Table {
    fn new(bits: u32) -> Table {
        Table {
            e: Vec::with_capacity(1 << (bits + 1)),
            bits,
        }
    }

    /// Builds the code of `lens`, with `entry(symbol)` giving each
    /// symbol's entry without its length. Follows zlib's `inflate_table`:
    /// over-subscribed lengths are invalid, and so are incomplete ones,
    /// except a single code of length 1 outside the code-length code; no
    /// lengths at all make a table of invalid codes.
    fn build(&mut self, lens: &[u8], entry: impl Fn(usize) -> u32, code_lengths: bool) -> bool {
        let code = Canonical::of(lens);
        if code.max > 0 && (code.left < 0 || code.left > 0 && (code_lengths || code.max != 1)) {
            return false;
        }
        self.e.clear();
        self.e.resize(1 << self.bits, INVALID);
        let bits = self.bits;
        let sub_bits = (code.max as u32).saturating_sub(bits);
        for (sym, l, rev) in code.reversed(lens) {
            let e = entry(sym) | l;
            if l <= bits {
                let mut i = rev;
                while i < 1 << bits {
                    self.e[i] = e;
                    i += 1 << l;
                }
            } else {
                let p = rev & ((1 << bits) - 1);
                if self.e[p] & KIND != SUB {
                    let at = self.e.len();
                    self.e.resize(at + (1 << sub_bits), INVALID);
                    self.e[p] = (at as u32) << 16 | sub_bits << 8 | SUB | bits;
                }
                let base = (self.e[p] >> 16) as usize;
                let mut i = rev >> bits;
                while i < 1 << sub_bits {
                    self.e[base + i] = e;
                    i += 1 << (l - bits);
                }
            }
        }
        true
    }

    /// The entry of the code at the start of `buf`.
    #[inline(always)]
    fn lookup(&self, buf: u64) -> u32 {
        let e = self.e[(buf & ((1 << self.bits) - 1)) as usize];
        if e & KIND != SUB {
            return e;
        }
        let sub = (e >> 8) & 15;
        self.e[(e >> 16) as usize + ((buf >> self.bits) & ((1 << sub) - 1)) as usize]
    }
}

fn lit_entry(sym: usize) -> u32 {
    match sym {
        0..=255 => (sym as u32) << 16 | LIT,
        256 => EOB,
        257..=285 => {
            let s = sym - 257;
            u32::from(LEN_BASE[s]) << 16 | u32::from(LEN_EXTRA[s]) << 8 | LEN
        }
        _ => INVALID,
    }
}

fn dist_entry(sym: usize) -> u32 {
    match sym {
        0..=29 => u32::from(DIST_BASE[sym]) << 16 | u32::from(DIST_EXTRA[sym]) << 8 | LEN,
        _ => INVALID,
    }
}

/// Reusable decoding state: the tables.
pub(crate) struct Decoder {
    lit: Table,
    dist: Table,
    cl: Table,
}

impl Default for Decoder {
    fn default() -> Decoder {
        Decoder {
            lit: Table::new(LIT_BITS),
            dist: Table::new(DIST_BITS),
            cl: Table::new(CL_BITS),
        }
    }
}

/// A chunk decoded by [`Decoder::decode`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Decoded {
    /// The bit where decoding started (a block start, if the chunk is
    /// ever used).
    pub start: usize,
    /// The block start where decoding stopped, not decoded.
    pub end: usize,
    /// The starts of the blocks after the first, before `end`: (bit,
    /// symbols decoded before it).
    pub blocks: Vec<(usize, usize)>,
    /// Symbols decoded before `end`, in the output after its
    /// [`WINDOW`]-symbol prefix of markers.
    pub len: usize,
}

/// How a block ended.
enum BlockEnd {
    Done,
    /// The output is full.
    Full,
    /// Invalid data, or the input ran out.
    Bad,
}

/// An output buffer for [`Decoder::decode`]: its first [`WINDOW`]
/// symbols are the markers.
pub(crate) fn output(cap: usize) -> Vec<u16> {
    let mut out = vec![0u16; WINDOW + cap + SLACK];
    for (i, s) in out[..WINDOW].iter_mut().enumerate() {
        *s = MARK + i as u16;
    }
    out
}

impl Decoder {
    /// Decodes the blocks of `input` from bit `start` into `out` (from
    /// [`output`], whose capacity bounds the chunk), up to the first
    /// block that starts at or after bit `stop`, is final, is invalid, is
    /// cut by the end of `input`, or would not fit in `out`. `None` when
    /// not even the first block decodes. Calls `between` after each block
    /// (a worker does other work there).
    pub(crate) fn decode(
        &mut self,
        input: &[u8],
        start: usize,
        stop: usize,
        out: &mut [u16],
        between: &mut dyn FnMut(),
    ) -> Option<Decoded> {
        let mut d = Decoded {
            start,
            end: start,
            blocks: Vec::new(),
            len: 0,
        };
        let mut bits = Bits::at(input, start);
        let mut pos = WINDOW;
        loop {
            bits.refill();
            let here = bits.bit_pos();
            if here >= stop || bits.buf & 1 == 1 || here >= input.len() * 8 {
                break;
            }
            bits.consume(1);
            let ok = match bits.get(2) {
                0 => self.stored(&mut bits, out, &mut pos),
                1 => {
                    self.fixed();
                    self.codes(&mut bits, out, &mut pos)
                }
                2 => {
                    if self.dynamic(&mut bits) {
                        self.codes(&mut bits, out, &mut pos)
                    } else {
                        BlockEnd::Bad
                    }
                }
                _ => BlockEnd::Bad,
            };
            match ok {
                BlockEnd::Done if !bits.overrun() => {
                    if here != start {
                        d.blocks.push((here, d.len));
                    }
                    d.end = bits.bit_pos();
                    d.len = pos - WINDOW;
                    between();
                }
                _ => break,
            }
        }
        (d.end > start).then_some(d)
    }

    fn stored(&mut self, bits: &mut Bits, out: &mut [u16], pos: &mut usize) -> BlockEnd {
        let byte = bits.bit_pos().div_ceil(8);
        let Some(h) = bits.data.get(byte..byte + 4) else {
            return BlockEnd::Bad;
        };
        let len = usize::from(u16::from_le_bytes([h[0], h[1]]));
        if len != usize::from(!u16::from_le_bytes([h[2], h[3]])) {
            return BlockEnd::Bad;
        }
        let Some(src) = bits.data.get(byte + 4..byte + 4 + len) else {
            return BlockEnd::Bad;
        };
        if *pos + len + SLACK > out.len() {
            return BlockEnd::Full;
        }
        for (o, &b) in out[*pos..*pos + len].iter_mut().zip(src) {
            *o = u16::from(b);
        }
        *pos += len;
        *bits = Bits::at(bits.data, (byte + 4 + len) * 8);
        BlockEnd::Done
    }

    fn fixed(&mut self) {
        let mut l = [0u8; 288];
        l[..144].fill(8);
        l[144..256].fill(9);
        l[256..280].fill(7);
        l[280..].fill(8);
        self.lit.build(&l, lit_entry, false);
        self.dist.build(&[5u8; 32], dist_entry, false);
    }

    /// Reads a dynamic block's codes (zlib's checks).
    fn dynamic(&mut self, bits: &mut Bits) -> bool {
        let nlit = bits.get(5) as usize + 257;
        let ndist = bits.get(5) as usize + 1;
        let ncl = bits.get(4) as usize + 4;
        if nlit > 286 || ndist > 30 {
            return false;
        }
        let mut cl = [0u8; 19];
        for &i in &CL_ORDER[..ncl] {
            cl[i] = bits.get(3) as u8;
        }
        if !self.cl.build(&cl, |s| (s as u32) << 16 | LIT, true) {
            return false;
        }
        let mut lens = [0u8; 286 + 30];
        let mut i = 0;
        while i < nlit + ndist {
            bits.refill();
            let e = self.cl.lookup(bits.buf);
            if e & KIND == INVALID {
                return false;
            }
            bits.consume(e & 31);
            let sym = (e >> 16) as u8;
            let (value, repeat) = match sym {
                0..=15 => (sym, 1),
                16 if i > 0 => (lens[i - 1], 3 + bits.get(2) as usize),
                17 => (0, 3 + bits.get(3) as usize),
                18 => (0, 11 + bits.get(7) as usize),
                _ => return false,
            };
            if i + repeat > nlit + ndist {
                return false;
            }
            lens[i..i + repeat].fill(value);
            i += repeat;
        }
        lens[256] != 0
            && self.lit.build(&lens[..nlit], lit_entry, false)
            && self
                .dist
                .build(&lens[nlit..nlit + ndist], dist_entry, false)
    }

    /// Decodes a Huffman block's symbols, up to its end-of-block code.
    #[inline(never)]
    fn codes(&self, bits: &mut Bits, out: &mut [u16], pos: &mut usize) -> BlockEnd {
        let limit = bits.data.len() + 8;
        let mut p = *pos;
        let end = out.len() - SLACK;
        let r = loop {
            if p >= end {
                break BlockEnd::Full;
            }
            if bits.pos > limit {
                break BlockEnd::Bad;
            }
            bits.refill();
            let mut e = self.lit.lookup(bits.buf);
            if e & KIND == LIT {
                bits.consume(e & 31);
                out[p] = (e >> 16) as u16;
                p += 1;
                // A second literal fits in the bits left (56 - 15).
                e = self.lit.lookup(bits.buf);
                if e & KIND == LIT {
                    bits.consume(e & 31);
                    out[p] = (e >> 16) as u16;
                    p += 1;
                    continue;
                }
                bits.refill();
            }
            match e & KIND {
                LEN => {
                    let n = e & 31;
                    let extra = (e >> 8) & 15;
                    let len = (e >> 16) as usize + ((bits.buf >> n) & ((1 << extra) - 1)) as usize;
                    bits.consume(n + extra);
                    let d = self.dist.lookup(bits.buf);
                    if d & KIND != LEN {
                        break BlockEnd::Bad;
                    }
                    let n = d & 31;
                    let extra = (d >> 8) & 15;
                    let dist = (d >> 16) as usize + ((bits.buf >> n) & ((1 << extra) - 1)) as usize;
                    bits.consume(n + extra);
                    if dist > p {
                        break BlockEnd::Bad;
                    }
                    copy_match(out, p, dist, len);
                    p += len;
                }
                EOB => {
                    bits.consume(e & 31);
                    break BlockEnd::Done;
                }
                _ => break BlockEnd::Bad,
            }
        };
        *pos = p;
        r
    }
}

/// Copies `len` symbols from `dist` back to `at` (the ranges may overlap:
/// the copy repeats the last `dist` symbols). May write up to 31 symbols
/// past the end.
#[inline(always)]
fn copy_match(out: &mut [u16], at: usize, dist: usize, len: usize) {
    let from = at - dist;
    if dist >= 32 {
        let mut s = from;
        let mut d = at;
        while d < at + len {
            let v: [u16; 32] = out[s..s + 32].try_into().expect("32 symbols");
            out[d..d + 32].copy_from_slice(&v);
            s += 32;
            d += 32;
        }
    } else if dist >= 16 {
        // Whole 16-symbol blocks: each reads symbols written before it.
        let mut s = from;
        let mut d = at;
        while d < at + len {
            let v: [u16; 16] = out[s..s + 16].try_into().expect("16 symbols");
            out[d..d + 16].copy_from_slice(&v);
            s += 16;
            d += 16;
        }
    } else if dist >= 8 {
        let mut s = from;
        let mut d = at;
        while d < at + len {
            let v: [u16; 8] = out[s..s + 8].try_into().expect("8 symbols");
            out[d..d + 8].copy_from_slice(&v);
            s += 8;
            d += 8;
        }
    } else if dist == 1 {
        let v = out[from];
        out[at..at + len].fill(v);
    } else {
        for i in 0..len {
            out[at + i] = out[from + i];
        }
    }
}

/// For a bit `p` of `input` whose first 13 bits pass [`HEADS`]: true
/// when the block header's code-length code there is complete (Kraft's
/// sum, four lengths at a time; past 128 it is over-subscribed).
#[inline(always)]
fn code_lengths_complete(input: &[u8], p: usize) -> bool {
    let at = p / 8;
    let Some(w) = input.get(at..at + 16) else {
        return false;
    };
    let w = u128::from_le_bytes(w.try_into().expect("16 bytes")) >> (p % 8);
    let ncl = ((w >> 13) & 15) as usize + 4;
    let mut kraft = 0u32;
    for i in (0..ncl).step_by(4) {
        // The last group may hold fewer than four lengths.
        let mask = (1u128 << (3 * (ncl - i).min(4))) - 1;
        kraft += u32::from(KRAFT4[((w >> (17 + 3 * i)) & mask) as usize]);
        if kraft > 128 {
            return false;
        }
    }
    kraft == 128
}

impl Decoder {
    /// Decodes from the first bit in `from..to` where a non-final dynamic
    /// block decodes (as [`Decoder::decode`], up to `stop`), or `None`.
    pub(crate) fn find_and_decode(
        &mut self,
        input: &[u8],
        from: usize,
        to: usize,
        stop: usize,
        out: &mut [u16],
        between: &mut dyn FnMut(),
    ) -> Option<Decoded> {
        let to = to.min(input.len() * 8);
        let mut p = from;
        while p < to {
            // The 13 header bits at each of a byte's 8 bit offsets.
            let b = p / 8;
            let mut w = [0u8; 8];
            let n = input.len().saturating_sub(b).min(8);
            w[..n].copy_from_slice(&input[b..b + n]);
            let word = u64::from_le_bytes(w);
            for k in p % 8..8 {
                let q = b * 8 + k;
                if q >= to {
                    break;
                }
                if HEADS[((word >> k) & 0x1fff) as usize]
                    && code_lengths_complete(input, q)
                    && let Some(d) = self.decode(input, q, stop, out, between)
                {
                    return Some(d);
                }
            }
            p = (b + 1) * 8;
        }
        None
    }
}

/// Kraft's sum (in 128ths) of four 3-bit code lengths.
static KRAFT4: [u16; 1 << 12] = {
    let mut t = [0u16; 1 << 12];
    let mut i = 0;
    while i < 1 << 12 {
        let mut k = 0;
        let mut sum = 0u16;
        while k < 4 {
            let l = (i >> (3 * k)) & 7;
            if l > 0 {
                sum += 128 >> l;
            }
            k += 1;
        }
        t[i] = sum;
        i += 1;
    }
    t
};

/// The 13 first header bits of a non-final dynamic block with counts in
/// range (BFINAL 0, BTYPE 2, HLIT and HDIST at most 29).
static HEADS: [bool; 1 << 13] = {
    let mut t = [false; 1 << 13];
    let mut i = 0;
    while i < 1 << 13 {
        t[i] = i & 7 == 4 && (i >> 3) & 31 <= 29 && (i >> 8) & 31 <= 29;
        i += 1;
    }
    t
};

/// Writes the bytes of `symbols` to `text`, markers replaced by the bytes
/// of `window` (the output before the chunk, at most [`WINDOW`] bytes,
/// its last byte just before the chunk). False (and `text` unspecified)
/// when a marker refers to a byte before the window, which a real stream
/// with that much history cannot.
pub(crate) fn resolve(symbols: &[u16], window: &[u8], text: &mut Vec<u8>) -> bool {
    let w = window.len().min(WINDOW);
    let window = &window[window.len() - w..];
    let mark = usize::from(MARK);
    if !within(symbols, w) {
        return false;
    }
    // Symbol → byte, for every u16 (so the lookup needs no bounds check).
    let mut table = vec![0u8; 1 << 16];
    for (i, t) in table.iter_mut().enumerate().take(256) {
        *t = i as u8;
    }
    table[mark + WINDOW - w..mark + WINDOW].copy_from_slice(window);
    let table: &[u8; 1 << 16] = table.as_slice().try_into().expect("64 KiB");
    text.clear();
    text.extend(symbols.iter().map(|&s| table[usize::from(s)]));
    true
}

/// True when every marker of `symbols` refers to one of the last `w`
/// bytes of the window.
pub(crate) fn within(symbols: &[u16], w: usize) -> bool {
    let low = MARK as usize + WINDOW - w.min(WINDOW);
    w >= WINDOW
        || !symbols
            .iter()
            .any(|&s| (usize::from(MARK)..low).contains(&usize::from(s)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gzip::inflate::tests::text;
    use crate::gzip::{Event, Inflater};
    use crate::io::MemSource;

    /// The block boundaries of a one-member archive: (bit in the deflate
    /// data, text offset).
    fn boundaries(gz: &[u8]) -> (usize, Vec<(usize, usize)>) {
        let src = MemSource::new(gz.to_vec());
        let mut inf = Inflater::new(&src);
        let mut data_start = 0;
        let mut v = Vec::new();
        while let Some(e) = inf.next_event().unwrap() {
            if let Event::Boundary {
                comp_bit,
                uncomp,
                member_start,
            } = e
            {
                if member_start {
                    data_start = comp_bit as usize;
                } else {
                    v.push((comp_bit as usize - data_start, uncomp as usize));
                }
            }
        }
        (data_start / 8, v)
    }

    fn check_archive(name: &str, gz: &[u8], plain: &[u8]) {
        let (head, bounds) = boundaries(gz);
        let deflate = &gz[head..gz.len() - 8];
        assert!(bounds.len() >= 3, "{name}: too few blocks");
        let mut dec = Decoder::default();
        let mut out = output(plain.len());
        // From every real boundary to the third after it: exact output
        // once resolved, and the same block starts.
        let last = bounds.len() - 1;
        for (k, &(bit, uncomp)) in bounds[..last].iter().enumerate() {
            let (stop, end) = bounds[(k + 3).min(last)];
            let d = dec
                .decode(deflate, bit, stop, &mut out, &mut || {})
                .unwrap_or_else(|| panic!("{name}: block {k} did not decode"));
            let mut got = Vec::new();
            let window = &plain[uncomp.saturating_sub(WINDOW)..uncomp];
            assert!(resolve(&out[WINDOW..WINDOW + d.len], window, &mut got));
            assert_eq!(d.end, stop, "{name}: stops at the block asked for");
            assert_eq!(got, &plain[uncomp..end], "{name}: from block {k}");
            let want: Vec<(usize, usize)> = bounds[k + 1..(k + 3).min(last)]
                .iter()
                .map(|&(b, u)| (b, u - uncomp))
                .collect();
            assert_eq!(d.blocks, want, "{name}: block starts from block {k}");
        }
        // The finder, from a bit before each dynamic block, finds it (or
        // one before it, which must then be real or decode the same).
        let dynamic = |bit: usize| {
            (deflate[bit / 8] as u16 | (deflate[bit / 8 + 1] as u16) << 8) >> (bit % 8) & 7 == 4
        };
        for &(bit, uncomp) in bounds[1..last].iter().filter(|b| dynamic(b.0)) {
            let from = bit.saturating_sub(3000);
            let d = dec
                .find_and_decode(deflate, from, bit + 1, usize::MAX, &mut out, &mut || {})
                .unwrap_or_else(|| panic!("{name}: no block found before {bit}"));
            if d.start == bit {
                let mut got = Vec::new();
                let window = &plain[uncomp.saturating_sub(WINDOW)..uncomp];
                assert!(resolve(&out[WINDOW..WINDOW + d.len], window, &mut got));
                assert_eq!(got, &plain[uncomp..uncomp + d.len]);
            }
        }
    }

    #[test]
    fn decodes_from_any_block_like_zlib() {
        let plain = text(3 << 20, 7);
        for level in [1, 6, 9] {
            let gz = crate::gzip::inflate::tests::gz(&plain, level);
            check_archive(&format!("flate2 -{level}"), &gz, &plain);
        }
        for (tool, args) in [("gzip", ["-1c"]), ("gzip", ["-9c"]), ("pigz", ["-6c"])] {
            if let Some(gz) = crate::gzip::compress_with(tool, &args, &plain) {
                check_archive(&format!("{tool} {}", args[0]), &gz, &plain);
            }
        }
    }

    #[test]
    fn stops_where_told_and_when_full() {
        let plain = text(2 << 20, 9);
        let gz = crate::gzip::inflate::tests::gz(&plain, 6);
        let (head, bounds) = boundaries(&gz);
        let deflate = &gz[head..gz.len() - 8];
        let mut dec = Decoder::default();
        let (b0, u0) = bounds[0];
        let (b2, u2) = bounds[2];
        let mut out = output(plain.len());
        let d = dec.decode(deflate, b0, b2, &mut out, &mut || {}).unwrap();
        assert_eq!((d.end, d.len), (b2, u2 - u0));
        // An output too small for two blocks stops after one.
        let mut out = output(bounds[1].1 - u0 + 10);
        let d = dec
            .decode(deflate, b0, usize::MAX, &mut out, &mut || {})
            .unwrap();
        assert_eq!(d.end, bounds[1].0);
        // Cut input: stops at the last whole block.
        let cut = &deflate[..bounds[3].0 / 8 - 2];
        let mut out = output(plain.len());
        let d = dec
            .decode(cut, b0, usize::MAX, &mut out, &mut || {})
            .unwrap();
        assert_eq!(d.end, bounds[2].0);
    }

    #[test]
    fn markers_before_a_short_window_are_refused() {
        let syms = [b'a' as u16, MARK + WINDOW as u16 - 1, MARK + 5];
        let mut t = Vec::new();
        assert!(!resolve(&syms, b"xyz", &mut t));
        assert!(resolve(&syms[..2], b"xyz", &mut t));
        assert_eq!(t, b"az");
    }

    #[test]
    fn invalid_codes_are_refused() {
        // An over-subscribed and an incomplete code, a lone length-1 code.
        let mut t = Table::new(7);
        assert!(!t.build(&[1, 1, 1], lit_entry, false));
        assert!(!t.build(&[1, 2, 0], lit_entry, false));
        assert!(t.build(&[1, 0, 0], lit_entry, false));
        assert!(!t.build(&[1, 0, 0], lit_entry, true));
        assert!(t.build(&[0, 0], lit_entry, false));
    }
}
