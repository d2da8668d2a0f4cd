//! The newline scanner: turns buffers of source bytes into checkpoints.
//!
//! Rule (spec §5): the first line start at or after `last + spacing` becomes
//! a checkpoint, where `last` is the previous checkpoint's offset; a line
//! longer than `spacing` (the final one too) also gets a checkpoint at its
//! own start, so both of its ends are known without scanning it. Line 0 at offset 0 is always a
//! checkpoint. The scanner's state right after it emits a checkpoint depends
//! on that checkpoint only, which is what makes incremental extension from
//! the last checkpoint give the same tree as a fresh build.

use crate::tree::Checkpoint;

/// Streaming scanner state.
#[derive(Debug, Clone)]
pub struct Scanner {
    spacing: u64,
    /// End of the indexed range: no checkpoint is emitted at this offset.
    end: u64,
    /// Newlines seen so far = 0-based number of the current line.
    line: u64,
    /// Offset of the current line's first byte.
    line_start: u64,
    /// Offset of the last checkpoint emitted.
    last_cp: u64,
    /// Checkpoint target: first line start at or after this offset.
    target: u64,
}

impl Scanner {
    /// A scanner resuming right after checkpoint `cp` (use line 0 offset 0
    /// for a fresh scan; the caller emits `cp` itself). `end` is the source
    /// length that will be scanned.
    pub fn resume(cp: Checkpoint, spacing: u64, end: u64) -> Scanner {
        Scanner {
            spacing,
            end,
            line: cp.line,
            line_start: cp.offset,
            last_cp: cp.offset,
            target: cp.offset.saturating_add(spacing),
        }
    }

    /// Sets the end of the scanned range once it is known (a gzip source's
    /// text length is known only after decoding it).
    pub fn set_end(&mut self, end: u64) {
        self.end = end;
    }

    /// Offset where the current line starts (just after the last newline
    /// seen).
    pub fn line_start(&self) -> u64 {
        self.line_start
    }

    /// Newlines counted so far (from the start of the source).
    pub fn newlines(&self) -> u64 {
        self.line
    }

    /// Scans `buf`, which holds source bytes starting at offset `base`;
    /// buffers must be fed in order without gaps.
    #[inline]
    pub fn feed<E>(
        &mut self,
        buf: &[u8],
        base: u64,
        emit: &mut impl FnMut(Checkpoint) -> Result<(), E>,
    ) -> Result<(), E> {
        self.feed_counted(buf, base, &Memchr, emit)
    }

    /// [`Scanner::feed`] with the newlines between checkpoints counted by
    /// `counter` (which may know them already: [`Prefix`]).
    #[inline]
    pub(crate) fn feed_counted<E>(
        &mut self,
        buf: &[u8],
        base: u64,
        counter: &impl Newlines,
        emit: &mut impl FnMut(Checkpoint) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut pos = 0usize;
        let len = buf.len();
        loop {
            // A line start >= target means a newline at >= target - 1.
            let search_from = self.target - 1;
            let s = if search_from <= base + pos as u64 {
                pos
            } else if search_from >= base + len as u64 {
                self.count(buf, pos, len, base, counter);
                return Ok(());
            } else {
                (search_from - base) as usize
            };
            self.count(buf, pos, s, base, counter);
            let Some(k) = memchr::memchr(b'\n', &buf[s..]) else {
                return Ok(());
            };
            let e = base + (s + k) as u64;
            let next = e + 1;
            if next - self.line_start > self.spacing && self.line_start > self.last_cp {
                emit(Checkpoint {
                    line: self.line,
                    offset: self.line_start,
                })?;
                self.last_cp = self.line_start;
            }
            self.line += 1;
            self.line_start = next;
            if next < self.end {
                emit(Checkpoint {
                    line: self.line,
                    offset: next,
                })?;
                self.last_cp = next;
                self.target = next.saturating_add(self.spacing);
            } else {
                self.target = u64::MAX;
            }
            pos = s + k + 1;
        }
    }

    /// Ends the scan at `self.end`: a final line without `\n` that is
    /// longer than the spacing gets its checkpoint here.
    pub fn finish<E>(
        &mut self,
        emit: &mut impl FnMut(Checkpoint) -> Result<(), E>,
    ) -> Result<(), E> {
        if self.end > self.line_start
            && self.end - self.line_start > self.spacing
            && self.line_start > self.last_cp
        {
            emit(Checkpoint {
                line: self.line,
                offset: self.line_start,
            })?;
            self.last_cp = self.line_start;
        }
        Ok(())
    }

    /// Counts the newlines of `buf[from..to]` (`buf` starts at offset
    /// `base`) and tracks the start of the line that contains its end.
    #[inline]
    fn count(&mut self, buf: &[u8], from: usize, to: usize, base: u64, counter: &impl Newlines) {
        if from >= to {
            return;
        }
        let n = counter.count(buf, from, to);
        if n > 0 {
            self.line += n;
            let last = memchr::memrchr(b'\n', &buf[from..to]).expect("counted at least one");
            self.line_start = base + (from + last) as u64 + 1;
        }
    }
}

/// Counts the newlines in a range of a buffer.
pub(crate) trait Newlines {
    /// Newlines in `buf[from..to]`.
    fn count(&self, buf: &[u8], from: usize, to: usize) -> u64;
}

/// Counts by reading the bytes.
pub(crate) struct Memchr;

impl Newlines for Memchr {
    #[inline]
    fn count(&self, buf: &[u8], from: usize, to: usize) -> u64 {
        count_newlines(&buf[from..to])
    }
}

/// Newlines in `bytes`.
#[inline]
pub(crate) fn count_newlines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

/// Writes the offsets of the newlines in `bytes`, plus `base`, in order,
/// to `out` from `out[n]` on (growing it as needed; what lies past the
/// last is unspecified); returns the index after the last. A mask of 64
/// bytes at a time, whose bits become offsets without a branch per
/// newline (two are written whether there are or not, and the index
/// advances by as many as there are): where lines are short (a log's
/// hundred bytes), a search per newline costs a mispredicted branch or
/// two per line, and this costs none.
pub(crate) fn newlines_into(bytes: &[u8], base: u32, out: &mut Vec<u32>, n: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("popcnt")
        && std::is_x86_feature_detected!("bmi1")
    {
        #[allow(unsafe_code)]
        // SAFETY: the CPU has the features the function is compiled for
        // (checked just now).
        return unsafe { newlines_avx2(bytes, base, out, n) };
    }
    flatten(bytes, base, out, n, newline_mask)
}

/// [`newlines_into`] with 32-byte compares and the bit instructions
/// (a count and a trailing zero count of one instruction each: without
/// them, the count's dozen instructions were the loop's longest chain).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,bmi1")]
fn newlines_avx2(bytes: &[u8], base: u32, out: &mut Vec<u32>, n: usize) -> usize {
    use std::arch::x86_64::{__m256i, _mm256_cmpeq_epi8, _mm256_movemask_epi8, _mm256_set1_epi8};
    flatten(bytes, base, out, n, |c: &[u8; 64]| {
        let nl = _mm256_set1_epi8(b'\n' as i8);
        let (halves, _) = c.as_chunks::<32>();
        let lo: __m256i = bytemuck::cast(halves[0]);
        let hi: __m256i = bytemuck::cast(halves[1]);
        let lo = _mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, nl)) as u32;
        let hi = _mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, nl)) as u32;
        u64::from(lo) | (u64::from(hi) << 32)
    })
}

/// [`newlines_into`] with `mask` giving a chunk's newlines.
#[inline(always)]
fn flatten(
    bytes: &[u8],
    base: u32,
    out: &mut Vec<u32>,
    mut n: usize,
    mask: impl Fn(&[u8; 64]) -> u64,
) -> usize {
    let (chunks, rest) = bytes.as_chunks::<64>();
    for (k, c) in chunks.iter().enumerate() {
        if out.len() < n + 66 {
            out.resize((2 * out.len()).max(n + 66), 0);
        }
        let mut m = mask(c);
        let at = base + (k * 64) as u32;
        let count = m.count_ones() as usize;
        out[n] = at + m.trailing_zeros();
        m &= m.wrapping_sub(1);
        out[n + 1] = at + m.trailing_zeros();
        m &= m.wrapping_sub(1);
        let mut i = n + 2;
        while m != 0 {
            out[i] = at + m.trailing_zeros();
            m &= m - 1;
            i += 1;
        }
        n += count;
    }
    let at = base + (chunks.len() * 64) as u32;
    for (i, &b) in rest.iter().enumerate() {
        if b == b'\n' {
            if out.len() <= n {
                out.resize(2 * n + 1, 0);
            }
            out[n] = at + i as u32;
            n += 1;
        }
    }
    n
}

/// Bit `i` set where `c[i]` is a newline: four SSE2 compares and masks
/// (every x86-64 has them).
#[cfg(target_arch = "x86_64")]
#[inline]
#[allow(unsafe_code)]
fn newline_mask(c: &[u8; 64]) -> u64 {
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_movemask_epi8, _mm_set1_epi8};
    let mut m = 0u64;
    for (g, part) in c.as_chunks::<16>().0.iter().enumerate() {
        let v: __m128i = bytemuck::cast(*part);
        // SAFETY: SSE2 is part of x86-64 itself (every x86-64 CPU has
        // it, and the compiler assumes it): these only compute on values.
        let bits = unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8))) };
        m |= u64::from(bits as u16) << (16 * g);
    }
    m
}

/// Bit `i` set where `c[i]` is a newline.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn newline_mask(c: &[u8; 64]) -> u64 {
    c.iter()
        .enumerate()
        .fold(0u64, |m, (i, &b)| m | (u64::from(b == b'\n') << i))
}

/// Counts from a block's prefix counts, made beforehand (by another
/// thread: the parallel ingest): `counts[k]` is the number of newlines in
/// the block's first `min(k * grain, len)` bytes, for `k` in
/// `0..=len.div_ceil(grain)`. A count then reads at most half a grain at
/// each end of the range.
pub(crate) struct Prefix<'a> {
    /// The prefix counts.
    pub counts: &'a [u32],
    /// Bytes per count.
    pub grain: usize,
}

impl Prefix<'_> {
    /// Newlines in `buf[..x]`: from the nearer of the two counts around
    /// `x`.
    #[inline]
    fn upto(&self, buf: &[u8], x: usize) -> u64 {
        let k = x / self.grain;
        let lo = k * self.grain;
        let hi = (lo + self.grain).min(buf.len());
        if x - lo <= hi - x {
            u64::from(self.counts[k]) + count_newlines(&buf[lo..x])
        } else {
            u64::from(self.counts[k + 1]) - count_newlines(&buf[x..hi])
        }
    }
}

impl Newlines for Prefix<'_> {
    #[inline]
    fn count(&self, buf: &[u8], from: usize, to: usize) -> u64 {
        if to - from <= self.grain {
            count_newlines(&buf[from..to])
        } else {
            self.upto(buf, to) - self.upto(buf, from)
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The spec's rule, written the slow obvious way.
    pub(crate) fn naive_checkpoints(data: &[u8], spacing: u64) -> Vec<Checkpoint> {
        let mut spans = Vec::new();
        let mut s = 0usize;
        for (i, &b) in data.iter().enumerate() {
            if b == b'\n' {
                spans.push((s as u64, i as u64 + 1));
                s = i + 1;
            }
        }
        if s < data.len() {
            spans.push((s as u64, data.len() as u64));
        }
        let mut out = vec![Checkpoint { line: 0, offset: 0 }];
        for (l, &(start, end)) in spans.iter().enumerate() {
            let last = out.last().unwrap().offset;
            if l > 0 && start >= last + spacing {
                out.push(Checkpoint {
                    line: l as u64,
                    offset: start,
                });
            }
            let last = out.last().unwrap().offset;
            if end - start > spacing && start > last {
                out.push(Checkpoint {
                    line: l as u64,
                    offset: start,
                });
            }
        }
        out
    }

    fn scan(data: &[u8], spacing: u64, chunk: usize) -> Vec<Checkpoint> {
        let first = Checkpoint { line: 0, offset: 0 };
        let mut out = vec![first];
        out.extend(scan_from(data, first, spacing, chunk).0);
        out
    }

    /// The checkpoints after `cp` of a scan of `data` resumed there, fed
    /// `chunk` bytes at a time, and the newlines counted.
    pub(crate) fn scan_from(
        data: &[u8],
        cp: Checkpoint,
        spacing: u64,
        chunk: usize,
    ) -> (Vec<Checkpoint>, u64) {
        let mut out = Vec::new();
        let mut sc = Scanner::resume(cp, spacing, data.len() as u64);
        let from = cp.offset as usize;
        for (i, c) in data[from..].chunks(chunk.max(1)).enumerate() {
            sc.feed(c, (from + i * chunk) as u64, &mut |cp| {
                out.push(cp);
                Ok::<(), ()>(())
            })
            .unwrap();
        }
        sc.finish(&mut |cp| {
            out.push(cp);
            Ok::<(), ()>(())
        })
        .unwrap();
        (out, sc.newlines())
    }

    #[test]
    fn matches_naive_rule() {
        let mut seed = 7u64;
        for round in 0..300 {
            let mut data = Vec::new();
            let lines = round % 40;
            for _ in 0..lines {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let len = (seed >> 33) % if round % 3 == 0 { 200 } else { 12 };
                data.extend(std::iter::repeat_n(b'a', len as usize));
                data.push(b'\n');
            }
            if round % 2 == 1 {
                data.extend_from_slice(b"tail");
            }
            for spacing in [1, 2, 3, 7, 16, 64, 1000] {
                let want = naive_checkpoints(&data, spacing);
                for chunk in [1, 3, 8, 64, 4096] {
                    assert_eq!(
                        scan(&data, spacing, chunk),
                        want,
                        "round {round} spacing {spacing} chunk {chunk}"
                    );
                }
            }
        }
    }
}
