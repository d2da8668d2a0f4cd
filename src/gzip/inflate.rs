//! Streaming gzip decoding with resumable access points.
//!
//! Decodes all members of a gzip file with zlib-rs's raw inflate
//! (`src/gzip/zlib.rs`, `inflate(Z_BLOCK)`), stopping at every
//! deflate block boundary. At a boundary the decoder's
//! whole state is the compressed **bit offset** of the next block plus the
//! 32 KiB of output before it (the window), so decoding can later resume
//! there ([`Inflater::resume`]) instead of at the start — zran's idea, kept
//! decoder-neutral (a bit offset and a window, nothing engine-specific), and
//! without the stored-block prefix trick, so archives that contain stored
//! blocks (pigz emits one every 128 KiB) are handled. Every member's CRC-32
//! and ISIZE are checked when decoding started at its beginning.

use super::header::{self, HeaderError};
use super::zlib::{RawInflate, Status};
use crate::error::{Error, Result, SourceDamage};
use crate::io::ReadAt;

/// Bytes of history a deflate stream may refer back to.
pub const WINDOW: usize = 32 * 1024;
const OUT_SIZE: usize = 256 * 1024;
const IN_SIZE: usize = 128 * 1024;
/// Compressed bytes the decoder may read past its position (it refills to
/// half its input buffer): what a caller prefetching a span adds to it.
pub(crate) const READ_AHEAD: u64 = IN_SIZE as u64 / 2;

/// A point where decoding can start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessPoint {
    /// Bit offset in the compressed file of the next deflate block (a
    /// multiple of 8 at a member start: the first byte after its header).
    pub comp_bit: u64,
    /// Offset in the uncompressed stream.
    pub uncomp: u64,
    /// The output preceding `uncomp` within its member (at most 32 KiB;
    /// empty at a member start).
    pub window: Vec<u8>,
    /// True at the start of a member's deflate data: decoding from here can
    /// check the member's CRC-32 and length.
    pub member_start: bool,
    /// CRC-32 of the text from here to the next access point, when known.
    pub span_crc: Option<u32>,
}

/// What the decoder reports, in stream order.
#[derive(Debug)]
pub enum Event<'a> {
    /// Decoded bytes that follow the previous ones.
    Data(&'a [u8]),
    /// A point where decoding could resume: the next deflate block of a
    /// member starts at compressed bit `comp_bit`, output offset `uncomp`.
    /// `member_start` is true at the first block of a member.
    Boundary {
        /// Compressed bit offset.
        comp_bit: u64,
        /// Uncompressed offset.
        uncomp: u64,
        /// At a member's first block.
        member_start: bool,
    },
}

/// A streaming gzip decoder over a positional source.
pub struct Inflater<'s> {
    src: &'s dyn ReadAt,
    inb: Vec<u8>,
    /// File offset of `inb[0]`.
    in_base: u64,
    in_start: usize,
    in_end: usize,
    out: Vec<u8>,
    out_pos: usize,
    r: RawInflate,
    /// Compressed bit offset of the last boundary reported (a decoder
    /// may stop twice at one).
    last_boundary: u64,
    total_out: u64,
    member_out: u64,
    crc: Option<crc32fast::Hasher>,
    in_member: bool,
    /// A member has ended (or decoding resumed inside one): what follows
    /// is another member, zero padding, or trailing garbage.
    after_member: bool,
    /// Uncompressed offset at the end of the last member whose CRC-32 and
    /// length this decoder checked.
    checked_end: u64,
    pending_start: bool,
    pending: Option<Boundary>,
    /// An error found in the same call that produced the last data: the
    /// data is delivered first (zcat-like), the error next.
    pending_err: Option<Error>,
    /// The most output one step produces ([`Inflater::data_until`] lowers
    /// it near its end, so that a decode stops close to where it must).
    max_step: usize,
    /// Input read for [`Inflater::input_from`] outside the buffer.
    aside: Vec<u8>,
}

impl std::fmt::Debug for Inflater<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inflater")
            .field("total_out", &self.total_out)
            .finish()
    }
}

impl<'s> Inflater<'s> {
    /// A decoder at the start of the file (which must begin with a member).
    pub fn new(src: &'s dyn ReadAt) -> Inflater<'s> {
        Inflater {
            src,
            inb: vec![0; IN_SIZE],
            in_base: 0,
            in_start: 0,
            in_end: 0,
            out: vec![0; OUT_SIZE],
            out_pos: 0,
            r: RawInflate::new(),
            last_boundary: u64::MAX,
            total_out: 0,
            member_out: 0,
            crc: None,
            in_member: false,
            after_member: false,
            checked_end: 0,
            pending_start: false,
            pending: None,
            pending_err: None,
            max_step: OUT_SIZE,
            aside: Vec::new(),
        }
    }

    /// A decoder positioned at `ap` (from a previous decode of the same
    /// file). Events start with the data at `ap.uncomp`.
    pub fn resume(src: &'s dyn ReadAt, ap: &AccessPoint) -> Result<Inflater<'s>> {
        let mut me = Inflater::new(src);
        let num_bits = ((8 - ap.comp_bit % 8) % 8) as u8;
        let next = ap.comp_bit.div_ceil(8);
        let mut bit_buf = 0u8;
        if num_bits > 0 {
            let mut b = [0u8];
            src.read_exact_at(&mut b, next - 1)?;
            bit_buf = b[0];
        }
        me.r.resume(num_bits, bit_buf, &ap.window);
        me.last_boundary = ap.comp_bit;
        let w = ap.window.len().min(WINDOW);
        let window = &ap.window[ap.window.len() - w..];
        // The window ends where a decode from the start of the file would
        // have written it in the ring, so that every later call into
        // zlib-rs has the same room for output as that decode's (and
        // damage is found at the same input offset).
        let at = (ap.uncomp % OUT_SIZE as u64) as usize;
        if at >= w {
            me.out[at - w..at].copy_from_slice(window);
        } else {
            me.out[OUT_SIZE - (w - at)..].copy_from_slice(&window[..w - at]);
            me.out[..at].copy_from_slice(&window[w - at..]);
        }
        me.out_pos = at;
        me.in_base = next;
        me.total_out = ap.uncomp;
        me.member_out = w as u64;
        me.in_member = true;
        me.after_member = true;
        me.crc = ap.member_start.then(crc32fast::Hasher::new);
        Ok(me)
    }

    /// As [`Inflater::resume`], inside a member whose text so far
    /// (`member_out` bytes) hashes to `crc`: the member's CRC-32 and
    /// length are checked at its end, as if decoding had started there.
    pub(crate) fn resume_member(
        src: &'s dyn ReadAt,
        ap: &AccessPoint,
        crc: crc32fast::Hasher,
        member_out: u64,
    ) -> Result<Inflater<'s>> {
        let mut me = Inflater::resume(src, ap)?;
        me.crc = Some(crc);
        me.member_out = member_out;
        Ok(me)
    }

    /// The CRC-32 of the current member's text so far (when this decoder
    /// saw all of it) and that text's length.
    pub(crate) fn member_state(&self) -> (Option<crc32fast::Hasher>, u64) {
        (self.crc.clone(), self.member_out)
    }

    /// A decoder at the start of a member that begins at file offset
    /// `offset`, after members whose text (`uncomp` bytes) checked: it
    /// decodes from there on exactly as a decode from the start of the file
    /// does on reaching it (so zero padding or trailing garbage may follow
    /// instead of a member when `offset > 0`).
    pub fn at_member(src: &'s dyn ReadAt, offset: u64, uncomp: u64) -> Inflater<'s> {
        let mut me = Inflater::new(src);
        me.in_base = offset;
        me.total_out = uncomp;
        me.checked_end = uncomp;
        me.after_member = offset > 0;
        me
    }

    /// Bytes of output produced so far (the uncompressed offset).
    pub fn position(&self) -> u64 {
        self.total_out
    }

    /// The uncompressed offset where the last member whose CRC-32 and
    /// length this decoder checked ends (0 before any): the text before it
    /// is known intact, from a decode started with [`Inflater::new`]. The
    /// text of a member that turns out damaged, decoded before the damage
    /// was found, lies after it.
    pub fn checked_end(&self) -> u64 {
        self.checked_end
    }

    /// The last `min(32 KiB, member output)` bytes of output: the window an
    /// access point at the current position needs.
    pub fn window(&self) -> Vec<u8> {
        let w = (self.member_out.min(WINDOW as u64)) as usize;
        let mut v = Vec::with_capacity(w);
        if self.out_pos >= w {
            v.extend_from_slice(&self.out[self.out_pos - w..self.out_pos]);
        } else {
            v.extend_from_slice(&self.out[OUT_SIZE - (w - self.out_pos)..]);
            v.extend_from_slice(&self.out[..self.out_pos]);
        }
        v
    }

    /// The compressed bytes from file offset `at` on: at least `want` of
    /// them unless the file ends first, read ahead as decoding reads (so a
    /// remote source sees one sequential stream). For the boundary just
    /// reported: `at` is the byte holding its first bit, which the decoder
    /// buffers but in a rare case (then it is read anew).
    pub fn input_from(&mut self, at: u64, want: usize) -> Result<&[u8]> {
        let end = self.in_base + self.in_end as u64;
        if at < self.in_base || at > end {
            // Not buffered (the byte holding a boundary's first bits may
            // have been let go when the buffer was refilled): read it.
            self.aside.resize(want, 0);
            let n = self.src.read_full_at(&mut self.aside, at)?;
            return Ok(&self.aside[..n]);
        }
        if end - at < want as u64 && !self.eof() {
            // Keep the bytes from `at` (at or before the decoder's
            // position) and read on after them.
            let keep = (at - self.in_base) as usize;
            self.inb.copy_within(keep..self.in_end, 0);
            self.in_base += keep as u64;
            self.in_start -= keep;
            self.in_end -= keep;
            if self.inb.len() < want {
                self.inb.resize(want.next_power_of_two(), 0);
            }
            while self.in_end < want && !self.eof() {
                let cap = self.inb.len();
                let n = self.src.read_at(
                    &mut self.inb[self.in_end..cap],
                    self.in_base + self.in_end as u64,
                )?;
                if n == 0 {
                    break;
                }
                self.in_end += n;
            }
        }
        let s = (at - self.in_base) as usize;
        Ok(&self.inb[s..self.in_end.min(s + want)])
    }

    fn at_file(&self) -> u64 {
        self.in_base + self.in_start as u64
    }

    fn eof(&self) -> bool {
        self.in_base + self.in_end as u64 >= self.src.len()
    }

    /// Ensures at least `want` unconsumed input bytes, unless the file ends
    /// first; returns the number available.
    fn fill(&mut self, want: usize) -> Result<usize> {
        if self.in_end - self.in_start >= want || self.eof() {
            return Ok(self.in_end - self.in_start);
        }
        self.inb.copy_within(self.in_start..self.in_end, 0);
        self.in_base += self.in_start as u64;
        self.in_end -= self.in_start;
        self.in_start = 0;
        if self.inb.len() < want {
            self.inb.resize(want.next_power_of_two(), 0);
        }
        while self.in_end < want && !self.eof() {
            let end = self.inb.len();
            let n = self.src.read_at(
                &mut self.inb[self.in_end..end],
                self.in_base + self.in_end as u64,
            )?;
            if n == 0 {
                break;
            }
            self.in_end += n;
        }
        Ok(self.in_end - self.in_start)
    }

    fn corrupt(&self, what: impl std::fmt::Display) -> Error {
        Error::CorruptSource {
            path: self.src.path().to_path_buf(),
            offset: self.at_file(),
            what: what.to_string(),
            kind: SourceDamage::Corrupt,
        }
    }

    /// The archive ends before the current member does.
    fn truncated(&self, what: &str) -> Error {
        Error::CorruptSource {
            path: self.src.path().to_path_buf(),
            offset: self.at_file(),
            what: format!("truncated {what} (the archive ends early)"),
            kind: SourceDamage::Truncated,
        }
    }

    /// Starts the next member at the current input position. Returns false
    /// at the end of the file. After a member, any number of zero bytes to
    /// the end of the file is padding (as gzip accepts: `tests/trailing-nul`
    /// and tape blocks); other bytes that do not start with the gzip magic
    /// are trailing garbage ([`SourceDamage::TrailingGarbage`]: zcat
    /// ignores them with a warning).
    fn start_member(&mut self) -> Result<bool> {
        let have = self.fill(64)?;
        if have == 0 {
            return Ok(false);
        }
        if self.after_member {
            let first = self.inb[self.in_start];
            let second = (have >= 2).then(|| self.inb[self.in_start + 1]);
            if first == 0 && self.rest_is_zero()? {
                return Ok(false);
            }
            if first != header::MAGIC[0] || second.is_some_and(|b| b != header::MAGIC[1]) {
                return Err(self.garbage());
            }
        }
        loop {
            match header::parse(&self.inb[self.in_start..self.in_end]) {
                Ok(len) => {
                    self.in_start += len;
                    self.r.reset();
                    self.member_out = 0;
                    self.crc = Some(crc32fast::Hasher::new());
                    self.in_member = true;
                    self.pending_start = true;
                    return Ok(true);
                }
                Err(HeaderError::Incomplete) => {
                    let have = self.in_end - self.in_start;
                    if self.eof() || self.fill((have * 2).max(1024))? == have {
                        return Err(self.truncated("member header"));
                    }
                }
                Err(HeaderError::Invalid(why)) => return Err(self.corrupt(why)),
                Err(HeaderError::BadCrc { stored, computed }) => {
                    return Err(self.corrupt(format!(
                        "member header CRC is {computed:#06x}, its FHCRC field says {stored:#06x}"
                    )));
                }
            }
        }
    }

    /// The error for bytes after the last member that are not a member.
    fn garbage(&self) -> Error {
        let n = self.src.len() - self.at_file();
        Error::CorruptSource {
            path: self.src.path().to_path_buf(),
            offset: self.at_file(),
            what: format!(
                "{} that {} neither a gzip member nor zero padding",
                crate::error::count_of(n, "byte", "bytes"),
                if n == 1 { "is" } else { "are" }
            ),
            kind: SourceDamage::TrailingGarbage,
        }
    }

    fn rest_is_zero(&self) -> Result<bool> {
        let mut at = self.at_file();
        let mut buf = vec![0u8; 1 << 16];
        while at < self.src.len() {
            let n = self.src.read_at(&mut buf, at)?;
            if n == 0 {
                break;
            }
            if buf[..n].iter().any(|&b| b != 0) {
                return Ok(false);
            }
            at += n as u64;
        }
        Ok(true)
    }

    fn finish_member(&mut self) -> Result<()> {
        if self.fill(8)? < 8 {
            return Err(self.truncated("member trailer"));
        }
        let t = &self.inb[self.in_start..self.in_start + 8];
        let crc = u32::from_le_bytes(t[0..4].try_into().expect("4 bytes"));
        let isize = u32::from_le_bytes(t[4..8].try_into().expect("4 bytes"));
        let checked = self.crc.is_some();
        if let Some(h) = self.crc.take() {
            let got = h.finalize();
            if got != crc {
                return Err(self.corrupt(format!(
                    "member CRC-32 is {got:#010x}, the trailer says {crc:#010x}"
                )));
            }
            if self.member_out as u32 != isize {
                return Err(self.corrupt(format!(
                    "member length is {}, the trailer says {isize} (mod 2^32)",
                    self.member_out
                )));
            }
        }
        self.in_start += 8;
        self.in_member = false;
        self.after_member = true;
        if checked {
            self.checked_end = self.total_out;
        }
        Ok(())
    }

    /// Passes the decoded bytes up to uncompressed offset `end` (or the end
    /// of the file) to `f`, skipping boundaries; returns the offset reached.
    pub fn data_until(&mut self, end: u64, f: &mut dyn FnMut(&[u8])) -> Result<u64> {
        while self.position() < end {
            let at = self.position();
            // Decode little past `end`: what is left, in whole 4 KiB.
            self.max_step = (end - at)
                .div_ceil(4096)
                .saturating_mul(4096)
                .min(OUT_SIZE as u64) as usize;
            match self.next_event()? {
                Some(Event::Data(d)) => f(&d[..d.len().min((end - at) as usize)]),
                Some(Event::Boundary { .. }) => {}
                None => break,
            }
        }
        self.max_step = OUT_SIZE;
        Ok(self.position().min(end))
    }

    /// The next event, or `None` at the end of the file. Between events the
    /// caller may take [`Inflater::window`] (e.g. at a boundary).
    pub fn next_event(&mut self) -> Result<Option<Event<'_>>> {
        loop {
            if let Some(b) = self.pending.take() {
                return Ok(Some(b.take_event()));
            }
            if let Some(e) = self.pending_err.take() {
                return Err(e);
            }
            if !self.in_member && !self.start_member()? {
                return Ok(None);
            }
            if self.pending_start {
                self.pending_start = false;
                self.last_boundary = self.at_file() * 8;
                return Ok(Some(Event::Boundary {
                    comp_bit: self.at_file() * 8,
                    uncomp: self.total_out,
                    member_start: true,
                }));
            }
            self.fill(IN_SIZE / 2)?;
            let start = self.out_pos;
            let stop = (start + self.max_step).min(OUT_SIZE);
            let step = self.r.inflate_block(
                &self.inb[self.in_start..self.in_end],
                &mut self.out[start..stop],
            );
            let produced = step.produced;
            self.in_start += step.used;
            if produced > 0 {
                if let Some(h) = self.crc.as_mut() {
                    h.update(&self.out[start..start + produced]);
                }
                self.total_out += produced as u64;
                self.member_out += produced as u64;
                self.out_pos = (start + produced) & (OUT_SIZE - 1);
            }
            let outcome: Result<()> = match step.status {
                Status::End { unused_bits } => {
                    // The trailer starts at the byte after the end code.
                    self.in_start -= usize::from(unused_bits / 8);
                    self.finish_member()
                }
                Status::Boundary { unused_bits } => {
                    let comp_bit = self.at_file() * 8 - u64::from(unused_bits);
                    if comp_bit != self.last_boundary {
                        self.last_boundary = comp_bit;
                        self.pending = Some(Boundary {
                            comp_bit,
                            uncomp: self.total_out,
                            member_start: false,
                        });
                    }
                    Ok(())
                }
                Status::More => Ok(()),
                Status::Stuck if self.eof() => Err(self.truncated("deflate stream")),
                Status::Stuck => Err(self.corrupt("invalid deflate data (no progress)")),
                Status::Invalid(why) => Err(self.corrupt(format!("invalid deflate data ({why})"))),
            };
            if let Err(e) = outcome {
                if produced == 0 {
                    return Err(e);
                }
                self.pending_err = Some(e);
            }
            if produced > 0 {
                return Ok(Some(Event::Data(&self.out[start..start + produced])));
            }
        }
    }
}

/// A boundary waiting to be reported after the data decoded before it.
#[derive(Debug, Clone, Copy)]
struct Boundary {
    comp_bit: u64,
    uncomp: u64,
    member_start: bool,
}

impl Boundary {
    fn take_event(self) -> Event<'static> {
        Event::Boundary {
            comp_bit: self.comp_bit,
            uncomp: self.uncomp,
            member_start: self.member_start,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::io::MemSource;
    use std::io::Write;

    /// gzip-compresses `data` with flate2 (shared with the other gzip tests).
    pub(crate) fn gz(data: &[u8], level: u32) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// Log-like lines of numbers and words, `n` bytes.
    pub(crate) fn text(n: usize, seed: u64) -> Vec<u8> {
        let mut s = seed | 1;
        let mut v = Vec::with_capacity(n + 100);
        let words = ["alpha", "beta", "gamma", "delta", "error", "timeout", "x"];
        while v.len() < n {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            v.extend_from_slice(
                format!(
                    "{} {} {}\n",
                    s % 100_000,
                    words[(s >> 20) as usize % 7],
                    (s >> 30) % 977
                )
                .as_bytes(),
            );
        }
        v.truncate(n);
        v
    }

    fn noise(n: usize, seed: u64) -> Vec<u8> {
        let mut s = seed | 1;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 24) as u8
            })
            .collect()
    }

    fn decode_all(src: &dyn ReadAt) -> Result<(Vec<u8>, Vec<AccessPoint>)> {
        let mut inf = Inflater::new(src);
        let mut out = Vec::new();
        let mut aps = Vec::new();
        while let Some(ev) = inf.next_event()? {
            match ev {
                Event::Data(d) => out.extend_from_slice(d),
                Event::Boundary {
                    comp_bit,
                    uncomp,
                    member_start,
                } => {
                    let window = inf.window();
                    aps.push(AccessPoint {
                        comp_bit,
                        uncomp,
                        window,
                        member_start,
                        span_crc: None,
                    });
                }
            }
        }
        Ok((out, aps))
    }

    fn check(name: &str, archive: Vec<u8>, original: &[u8]) {
        let src = MemSource::new(archive);
        let (out, aps) = decode_all(&src).unwrap();
        assert!(out == original, "{name}: full decode differs");
        assert!(!aps.is_empty(), "{name}: no boundaries");
        let step = (aps.len() / 25).max(1);
        for ap in aps.iter().step_by(step).chain(aps.iter().rev().take(3)) {
            let mut inf = Inflater::resume(&src, ap).unwrap();
            let mut tail = Vec::new();
            while let Some(ev) = inf.next_event().unwrap() {
                if let Event::Data(d) = ev {
                    tail.extend_from_slice(d);
                }
            }
            assert!(
                tail == original[ap.uncomp as usize..],
                "{name}: resume at {ap:?} differs",
                ap = (ap.comp_bit, ap.uncomp)
            );
        }
    }

    #[test]
    fn levels_and_resume_points() {
        let t = text(3 << 20, 7);
        for level in [1, 6, 9] {
            check(&format!("level {level}"), gz(&t, level), &t);
        }
    }

    #[test]
    fn stored_blocks_resume() {
        // Incompressible data makes deflate emit stored blocks.
        let mut d = text(300_000, 3);
        d.extend(noise(700_000, 5));
        d.extend(text(300_000, 9));
        check("stored", gz(&d, 6), &d);
        check("level 0", gz(&d, 0), &d);
    }

    #[test]
    fn multi_member_with_an_empty_member() {
        let (a, b, c) = (text(500_000, 1), Vec::new(), text(700_000, 2));
        let mut archive = gz(&a, 6);
        archive.extend(gz(&b, 6));
        archive.extend(gz(&c, 1));
        let mut all = a.clone();
        all.extend(&c);
        check("members", archive.clone(), &all);
        // Any number of trailing zero bytes is padding (GNU gzip's
        // `tests/trailing-nul` has one).
        for zeros in [1, 2, 7, 100, 70_000] {
            let mut padded = archive.clone();
            padded.extend(vec![0u8; zeros]);
            check(&format!("{zeros} zeros"), padded, &all);
        }
        // Anything else after the last member is trailing garbage, unless
        // it starts with the gzip magic: then it is a (damaged or cut)
        // member, as gzip sees it.
        use SourceDamage::*;
        for (tail, kind) in [
            (&b"garbage!!!"[..], TrailingGarbage),
            (b"\0\0x", TrailingGarbage),
            (b"\x1fX1234567890", TrailingGarbage),
            (b"\n", TrailingGarbage),
            (b"\x1f", Truncated),
            (b"\x1f\x8b", Truncated),
            (b"\x1f\x8b\x08\x00\0\0\0\0\0\x03", Truncated),
            (b"\x1f\x8b\x08\x00\0\0\0\0\0\x03\xff\xff\xff\xff", Corrupt),
            (b"\x1f\x8b\x07\x00\0\0\0\0\0\x03", Corrupt),
        ] {
            let mut bad = archive.clone();
            bad.extend(tail);
            let src = MemSource::new(bad.clone());
            let mut inf = Inflater::new(&src);
            let mut out = Vec::new();
            let err = loop {
                match inf.next_event() {
                    Ok(Some(Event::Data(d))) => out.extend_from_slice(d),
                    Ok(Some(Event::Boundary { .. })) => {}
                    Ok(None) => panic!("{tail:?}: decoded without an error"),
                    Err(e) => break e,
                }
            };
            assert!(out == all, "{tail:?}: the members' text comes first");
            assert_eq!(inf.checked_end(), all.len() as u64, "{tail:?}");
            match err {
                Error::CorruptSource {
                    offset, kind: k, ..
                } => {
                    assert_eq!(k, kind, "{tail:?}");
                    if kind == TrailingGarbage {
                        assert_eq!(offset, archive.len() as u64, "{tail:?}");
                    }
                }
                other => panic!("{tail:?}: {other}"),
            }
        }
    }

    /// `checked_end` advances at each member whose trailer checks, and not
    /// at a member whose CRC is wrong.
    #[test]
    fn input_outside_the_buffer_is_read() {
        let text = text(1 << 20, 3);
        let archive = gz(&text, 6);
        let src = MemSource::new(archive.clone());
        let mut inf = Inflater::new(&src);
        while let Some(Event::Data(_)) | Some(Event::Boundary { .. }) = inf.next_event().unwrap() {
            if inf.position() > 300_000 {
                break;
            }
        }
        // Before the buffered input, and after it.
        assert_eq!(inf.input_from(5, 100).unwrap(), &archive[5..105]);
        let n = archive.len() as u64;
        assert_eq!(
            inf.input_from(n - 10, 100).unwrap(),
            &archive[n as usize - 10..]
        );
    }

    #[test]
    fn checked_end_stops_before_a_bad_member() {
        let (a, b, c) = (text(100_000, 1), text(50_000, 2), text(70_000, 3));
        let mut archive = gz(&a, 6);
        let second = archive.len();
        archive.extend(gz(&b, 6));
        let third = archive.len();
        archive.extend(gz(&c, 6));
        // The CRC-32 in the second member's trailer.
        archive[third - 8] ^= 1;
        let src = MemSource::new(archive);
        let mut inf = Inflater::new(&src);
        let mut ends = Vec::new();
        let err = loop {
            match inf.next_event() {
                Ok(Some(_)) => {
                    if ends.last() != Some(&inf.checked_end()) {
                        ends.push(inf.checked_end());
                    }
                }
                Ok(None) => panic!("decoded without an error"),
                Err(e) => break e,
            }
        };
        assert_eq!(ends, [0, a.len() as u64]);
        assert!(
            matches!(err, Error::CorruptSource { kind: SourceDamage::Corrupt, offset, .. } if offset as usize >= second),
            "{err}"
        );
    }

    #[test]
    fn damage_is_an_error_never_wrong_bytes() {
        let t = text(200_000, 11);
        let archive = gz(&t, 6);
        for cut in [5, 20, archive.len() / 2, archive.len() - 4] {
            let r = decode_all(&MemSource::new(archive[..cut].to_vec()));
            assert!(r.is_err(), "truncated at {cut} decoded");
        }
        let mut flips = 0;
        for at in (12..archive.len()).step_by(archive.len() / 40) {
            let mut bad = archive.clone();
            bad[at] ^= 0x10;
            match decode_all(&MemSource::new(bad)) {
                Err(_) => flips += 1,
                Ok((out, _)) => assert!(out == t, "flip at {at} gave wrong bytes"),
            }
        }
        assert!(flips > 30);
    }

    #[test]
    fn gzip_and_pigz_archives() {
        let mut d = text(2 << 20, 21);
        d.extend(noise(300_000, 4));
        d.extend(text(1 << 20, 22));
        for (tool, args) in [
            ("gzip", vec!["-1", "-c"]),
            ("gzip", vec!["-9", "-c"]),
            ("pigz", vec!["-c"]),
            ("pigz", vec!["-c", "-b", "128"]),
        ] {
            let Some(archive) = crate::gzip::compress_with(tool, &args, &d) else {
                continue;
            };
            check(&format!("{tool} {args:?}"), archive, &d);
        }
    }
}
