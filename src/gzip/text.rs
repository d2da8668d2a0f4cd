//! The uncompressed text of a gzip source as a [`ReadAt`]: every layer above
//! (line lookups, `lines`, `grep`) reads a gzip source exactly as a plain
//! file, at uncompressed offsets.
//!
//! A read finds the access point at or before its offset, decodes the span
//! from there to the next access point (about `span` bytes of text), and
//! copies out. Decoded spans are kept in an S3-FIFO cache with a byte
//! budget, so a viewer scrolling back and forth, or a range scan reading a
//! span in several buffers, decodes each span once. Workers reading
//! different spans decode in parallel (no lock is held while decoding).

use super::inflate::{AccessPoint, Event, Inflater};
use crate::cache::s3fifo::{self, Loc, Meta, S3Fifo};
use crate::error::{Error, Result};
use crate::io::ReadAt;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// The most a span's buffer is sized for before decoding (it grows past
/// that only as text really decodes).
const SPAN_PREALLOC: usize = 4 << 20;

/// Access points of one gzip source, in increasing uncompressed offset;
/// the first is at offset 0.
pub trait AccessPoints: Send + Sync {
    /// Number of access points.
    fn count(&self) -> usize;
    /// Access point `i`.
    fn get(&self, i: usize) -> Result<AccessPoint>;
    /// Uncompressed offset of access point `i`.
    fn offset(&self, i: usize) -> Result<u64>;
    /// The error for access points whose offsets are not increasing at
    /// `i` (a damaged or crafted index).
    fn out_of_order(&self, i: usize) -> Error;
    /// Compressed bit offset of access point `i` (without reading its
    /// window).
    fn comp_bit(&self, i: usize) -> Result<u64> {
        Ok(self.get(i)?.comp_bit)
    }
    /// Says that the windows of access points `range` will be read soon
    /// (a hint for remote sidecars, see [`ReadAt::will_need`]).
    fn will_need(&self, range: std::ops::Range<usize>) {
        let _ = range;
    }
    /// The piece length (spec §11.9) when these access points come with
    /// the CRCs of their spans' pieces.
    fn piece_len(&self) -> Option<u64> {
        None
    }
    /// CRCs of pieces `k` of span `i` (with [`AccessPoints::piece_len`]).
    fn piece_crcs(&self, i: usize, k: std::ops::Range<u64>) -> Result<Vec<u32>> {
        let _ = k;
        Err(self.out_of_order(i))
    }
    /// Index of the last access point at or before uncompressed `off`.
    fn find(&self, off: u64) -> Result<usize> {
        let (mut lo, mut hi) = (0, self.count());
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if self.offset(mid)? <= off {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }
}

impl AccessPoints for Vec<AccessPoint> {
    fn count(&self) -> usize {
        self.len()
    }
    fn get(&self, i: usize) -> Result<AccessPoint> {
        Ok(self[i].clone())
    }
    fn offset(&self, i: usize) -> Result<u64> {
        Ok(self[i].uncomp)
    }
    fn comp_bit(&self, i: usize) -> Result<u64> {
        Ok(self[i].comp_bit)
    }
    fn out_of_order(&self, i: usize) -> Error {
        Error::InvalidArgument(format!("access point {i} is out of order"))
    }
}

#[derive(Default)]
struct SpanMeta {
    freq: Vec<u8>,
    loc: Vec<u8>,
    seq: Vec<u32>,
}

struct Spans {
    policy: S3Fifo,
    meta: std::cell::RefCell<SpanMeta>,
    data: HashMap<u32, Arc<Vec<u8>>>,
}

impl Meta for std::cell::RefCell<SpanMeta> {
    fn freq(&self, id: u32) -> u8 {
        self.borrow().freq[id as usize]
    }
    fn set_freq(&self, id: u32, f: u8) {
        self.borrow_mut().freq[id as usize] = f;
    }
    fn loc(&self, id: u32) -> Loc {
        Loc::from_u8(self.borrow().loc[id as usize])
    }
    fn set_loc(&self, id: u32, loc: Loc) {
        self.borrow_mut().loc[id as usize] = loc as u8;
    }
    fn ghost_seq(&self, id: u32) -> u32 {
        self.borrow().seq[id as usize]
    }
    fn set_ghost_seq(&self, id: u32, seq: u32) {
        self.borrow_mut().seq[id as usize] = seq;
    }
}

/// The text of a gzip source, readable at uncompressed offsets.
pub struct GzText<A: AccessPoints> {
    gz: Box<dyn ReadAt>,
    aps: A,
    len: u64,
    spans: Mutex<Spans>,
    budget_spans: usize,
}

impl<A: AccessPoints> std::fmt::Debug for GzText<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GzText")
            .field("path", &self.gz.path())
            .field("len", &self.len)
            .finish()
    }
}

impl<A: AccessPoints> GzText<A> {
    /// The text of gzip file `gz` (uncompressed length `len`), decoded from
    /// `aps`, caching about `cache_bytes` of decoded spans of about
    /// `span` bytes each.
    pub fn new(
        gz: Box<dyn ReadAt>,
        aps: A,
        len: u64,
        span: u64,
        cache_bytes: usize,
    ) -> Result<GzText<A>> {
        // That the first access point is at offset 0 is the access
        // points' own check (a sidecar's may wait for the first lookup).
        let n = aps.count();
        if n == 0 {
            return Err(Error::InvalidArgument(format!(
                "{}: no access point at offset 0",
                gz.path().display()
            )));
        }
        let budget_spans = (cache_bytes as u64 / span.max(1)).max(2) as usize;
        let meta = SpanMeta {
            freq: vec![0; n],
            loc: vec![0; n],
            seq: vec![0; n],
        };
        Ok(GzText {
            gz,
            aps,
            len,
            spans: Mutex::new(Spans {
                policy: S3Fifo::new(budget_spans),
                meta: meta.into(),
                data: HashMap::new(),
            }),
            budget_spans,
        })
    }

    /// Spans hinted at once by [`ReadAt::will_need`] (a scan's chunk is
    /// a few spans).
    const HINT_SPANS: usize = 16;

    /// Compressed bytes that decoding span `i` reads: from the byte
    /// holding its first bit to the next access point, plus what the
    /// inflater reads ahead of its position.
    fn comp_range(&self, i: usize) -> Result<std::ops::Range<u64>> {
        let from = self.aps.comp_bit(i)? / 8;
        let to = if i + 1 < self.aps.count() {
            (self.aps.comp_bit(i + 1)?.div_ceil(8) + super::inflate::READ_AHEAD).min(self.gz.len())
        } else {
            self.gz.len()
        };
        Ok(from..to.max(from))
    }

    /// Starts fetching what decoding spans `range` needs that is not
    /// cached: their compressed bytes and their windows, together (for a
    /// remote source, one round trip). A hint: errors are left to the read.
    fn prefetch(&self, range: std::ops::Range<usize>) -> Result<()> {
        let mut k = range.start;
        while k < range.end {
            let cached = |k: usize| self.spans.lock().data.contains_key(&(k as u32));
            if cached(k) {
                k += 1;
                continue;
            }
            let a = k;
            while k < range.end && !cached(k) {
                k += 1;
            }
            self.aps.will_need(a..k);
            let from = self.comp_range(a)?.start;
            let to = self.comp_range(k - 1)?.end;
            self.gz.will_need(from..to);
        }
        Ok(())
    }

    /// The decoded and checked text of span `i` (from access point `i` to
    /// `i + 1`) from its start to at least `want` (an uncompressed offset;
    /// the span's end if it ends first). That is the whole span, or, when
    /// the access points come with piece CRCs (spec §11.9) and nothing of
    /// the span is cached yet, its pieces up to the one holding `want − 1`:
    /// a goto decodes to its line, not to the span's end. A span asked for
    /// past a cached prefix is decoded whole, so no access pattern decodes
    /// a span more than twice.
    fn span(&self, i: usize, want: u64) -> Result<Arc<Vec<u8>>> {
        let id = i as u32;
        let start = self.aps.offset(i)?;
        let end = if i + 1 < self.aps.count() {
            self.aps.offset(i + 1)?
        } else {
            self.len
        };
        if end < start {
            return Err(self.aps.out_of_order(i + 1));
        }
        let want = want.clamp(start, end);
        let cached = {
            let s = self.spans.lock();
            match s.data.get(&id) {
                Some(d) if start + d.len() as u64 >= want => {
                    s3fifo::on_hit(&s.meta, id);
                    return Ok(Arc::clone(d));
                }
                Some(_) => true,
                None => false,
            }
        };
        let len = end - start;
        let pieces = self
            .aps
            .piece_len()
            .filter(|&l| l > 0 && len > l && !cached);
        let stop = match pieces {
            Some(l) => start
                .saturating_add((want - start).max(1).div_ceil(l).saturating_mul(l))
                .min(end),
            None => end,
        };
        // The window, its pieces' CRCs and the compressed bytes, fetched
        // together (also when a prefix of the span is cached).
        self.aps.will_need(i..i + 1);
        if let Ok(r) = self.comp_range(i) {
            self.gz.will_need(r);
        }
        let ap = self.aps.get(i)?;
        let mut inf = Inflater::resume(&*self.gz, &ap)?;
        // Sized by what the index says, but not beyond a few spans: the
        // buffer grows with what really decodes, so an index claiming a
        // huge span costs no more than the archive holds.
        let mut out = Vec::with_capacity(((stop - start) as usize).min(SPAN_PREALLOC));
        inf.data_until(stop, &mut |d| out.extend_from_slice(d))?;
        if (out.len() as u64) != stop - start {
            return Err(Error::SourceChanged {
                path: self.gz.path().to_path_buf(),
                what: format!(
                    "span {i} decodes to {}, the index says {}",
                    crate::error::count_of(out.len() as u64, "byte", "bytes"),
                    stop - start
                ),
            });
        }
        self.check(i, &ap, &out, stop == end)?;
        let data = Arc::new(out);
        let mut s = self.spans.lock();
        let Spans {
            policy,
            meta,
            data: map,
        } = &mut *s;
        if map.contains_key(&id) {
            s3fifo::on_hit(&*meta, id);
        } else {
            let mut evicted = Vec::new();
            policy.insert(&*meta, id, &mut evicted);
            for e in evicted {
                map.remove(&e);
            }
        }
        // A longer text replaces a shorter prefix.
        if map.get(&id).is_none_or(|d| d.len() < data.len()) {
            map.insert(id, Arc::clone(&data));
        }
        debug_assert!(map.len() <= self.budget_spans);
        Ok(data)
    }

    /// Checks the text `out` decoded from access point `i` (`ap`): the
    /// CRC of each of its pieces, when the access points have them, and,
    /// when `whole`, the span's CRC. A piece's text is
    /// hashed once: the span's CRC is its pieces' CRCs combined.
    fn check(&self, i: usize, ap: &AccessPoint, out: &[u8], whole: bool) -> Result<()> {
        let changed = |what: String| Error::SourceChanged {
            path: self.gz.path().to_path_buf(),
            what: format!(
                "the text decoded from compressed bit {} (access point {i}) {what}: the archive is damaged or was changed",
                ap.comp_bit
            ),
        };
        // A whole span no longer than a piece has no pieces.
        let piece = self
            .aps
            .piece_len()
            .filter(|&l| l > 0 && (!whole || out.len() as u64 > l));
        let mut span = crc32fast::Hasher::new();
        match piece {
            Some(l) => {
                let n = (out.len() as u64).div_ceil(l);
                let want = self.aps.piece_crcs(i, 0..n)?;
                if want.len() as u64 != n {
                    return Err(self.aps.out_of_order(i));
                }
                for (k, (text, &w)) in out.chunks(l as usize).zip(&want).enumerate() {
                    let got = crc32fast::hash(text);
                    if got != w {
                        return Err(changed(format!(
                            "has CRC-32 {got:#010x} in its piece {k}, the index says {w:#010x}"
                        )));
                    }
                    span.combine(&crc32fast::Hasher::new_with_initial_len(
                        got,
                        text.len() as u64,
                    ));
                }
            }
            None => span.update(out),
        }
        if whole && let Some(want) = ap.span_crc {
            let got = span.finalize();
            if got != want {
                return Err(changed(format!(
                    "has CRC-32 {got:#010x}, the index says {want:#010x}"
                )));
            }
        }
        Ok(())
    }
}

impl<A: AccessPoints> ReadAt for GzText<A> {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize> {
        if offset >= self.len || buf.is_empty() {
            return Ok(0);
        }
        let i = self.aps.find(offset)?;
        let start = self.aps.offset(i)?;
        let span = self.span(i, offset.saturating_add(buf.len() as u64))?;
        if offset < start || offset - start >= span.len() as u64 {
            // Only offsets out of order make the search land here.
            return Err(self.aps.out_of_order(i));
        }
        let at = (offset - start) as usize;
        let n = buf.len().min(span.len() - at);
        buf[..n].copy_from_slice(&span[at..at + n]);
        Ok(n)
    }

    fn path(&self) -> &Path {
        self.gz.path()
    }

    fn will_need(&self, range: std::ops::Range<u64>) {
        if range.start >= range.end.min(self.len) {
            return;
        }
        let (Ok(i), Ok(j)) = (
            self.aps.find(range.start),
            self.aps.find(range.end.min(self.len) - 1),
        ) else {
            return;
        };
        let _ = self.prefetch(i..(j + 1).min(i + Self::HINT_SPANS));
    }
}

/// Decodes all of `gz` once and returns its access points, one at the
/// first block boundary after every `span` bytes of text (and one at every
/// member start), and the text length. The ingest of a gzip source does
/// the same while it scans lines.
pub fn access_points(gz: &dyn ReadAt, span: u64) -> Result<(Vec<AccessPoint>, u64)> {
    let mut inf = Inflater::new(gz);
    let mut aps: Vec<AccessPoint> = Vec::new();
    let mut crc = crc32fast::Hasher::new();
    while let Some(ev) = inf.next_event()? {
        match ev {
            Event::Data(d) => crc.update(d),
            Event::Boundary {
                comp_bit,
                uncomp,
                member_start,
            } => {
                if super::access_point_due(aps.last().map(|l| l.uncomp), uncomp, member_start, span)
                {
                    let done = std::mem::replace(&mut crc, crc32fast::Hasher::new());
                    if let Some(prev) = aps.last_mut() {
                        prev.span_crc = Some(done.finalize());
                    }
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
    }
    if let Some(last) = aps.last_mut() {
        last.span_crc = Some(crc.finalize());
    }
    Ok((aps, inf.position()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gzip::inflate::tests::gz;
    use crate::io::MemSource;

    #[test]
    fn reads_anywhere_equal_the_text() {
        let mut text = Vec::new();
        for i in 0..200_000u32 {
            text.extend_from_slice(
                format!("line {i} {}\n", i.wrapping_mul(2654435761) % 1000).as_bytes(),
            );
        }
        let mut archive = gz(&text[..1_000_000], 6);
        archive.extend(gz(&text[1_000_000..], 1));
        let src = MemSource::new(archive);
        let (aps, len) = access_points(&src, 64 * 1024).unwrap();
        assert_eq!(len, text.len() as u64);
        assert!(aps.len() > 20, "{} access points", aps.len());
        assert!(
            aps.iter().any(|a| a.member_start && a.uncomp == 1_000_000),
            "member start recorded"
        );
        let t = GzText::new(Box::new(src), aps, len, 64 * 1024, 256 * 1024).unwrap();
        let mut seed = 1u64;
        let mut buf = vec![0u8; 100_000];
        for _ in 0..300 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            let off = (seed >> 16) % len;
            let want = ((seed >> 40) as usize % buf.len()).max(1);
            let n = t.read_full_at(&mut buf[..want], off).unwrap();
            let end = (off as usize + want).min(text.len());
            assert_eq!(&buf[..n], &text[off as usize..end], "read {want} at {off}");
        }
        // The whole text through an index built over it: line answers match.
        let index = crate::Index::build_in_memory(Box::new(t), &Default::default()).unwrap();
        assert_eq!(index.line_count(), 200_000);
        assert_eq!(index.line_span(123_456).unwrap(), {
            let s = text
                .split(|&b| b == b'\n')
                .take(123_456)
                .map(|l| l.len() + 1)
                .sum::<usize>() as u64;
            s..s + format!(
                "line 123456 {}\n",
                123_456u32.wrapping_mul(2654435761) % 1000
            )
            .len() as u64
        });
    }
}
