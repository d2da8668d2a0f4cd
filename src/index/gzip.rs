//! Reading a gzip sidecar's access points (spec §11) for [`GzText`].

use crate::error::{Error, Result};
use crate::format::gzip::{self as fmt, AP_MEMBER_START, ApRecord};
use crate::format::{PageKind, Superblock};
use crate::gzip::{AccessPoint, AccessPoints, GzText};
use crate::io::ReadAt;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::io::Read;
use std::sync::Arc;

/// The access points stored in a sidecar, read with `pread` on demand. Every
/// read of the text looks up its access point (a binary search over the
/// records), so the last few checked access-point pages are kept.
pub struct SidecarAps {
    file: Arc<dyn ReadAt>,
    sb: Superblock,
    /// The first record has been checked to be at offset 0.
    first_checked: std::sync::atomic::AtomicBool,
    /// Recently read access-point pages, checked.
    recent: Mutex<VecDeque<CheckedPage>>,
}

/// An access-point page that passed R-98: (page id, bytes, record count).
type CheckedPage = (u32, Arc<Vec<u8>>, usize);

/// Access-point pages [`SidecarAps`] keeps (128 KiB with 4 KiB pages).
const RECENT_AP_PAGES: usize = 32;

impl SidecarAps {
    /// Access points of the sidecar `file` whose superblock is `sb`.
    pub fn new(file: Arc<dyn ReadAt>, sb: &Superblock) -> SidecarAps {
        SidecarAps {
            file,
            sb: sb.clone(),
            first_checked: std::sync::atomic::AtomicBool::new(false),
            recent: Mutex::new(VecDeque::with_capacity(RECENT_AP_PAGES)),
        }
    }

    /// Access-point page `id`, checked, from the recent pages or
    /// the file.
    fn ap_page(&self, id: u32) -> Result<(Arc<Vec<u8>>, usize)> {
        if let Some((_, page, n)) = self.recent.lock().iter().find(|e| e.0 == id) {
            return Ok((Arc::clone(page), *n));
        }
        let per = fmt::records_per_page(self.sb.page_size);
        let (page, n) = self.page(id, PageKind::AccessPoints, per)?;
        let page = Arc::new(page);
        let mut recent = self.recent.lock();
        if recent.len() == RECENT_AP_PAGES {
            recent.pop_front();
        }
        recent.push_back((id, Arc::clone(&page), n));
        Ok((page, n))
    }

    pub(crate) fn corrupt(&self, page: u32, what: impl Into<String>) -> Error {
        Error::corrupt(self.file.path(), page as u64, what)
    }

    /// Reads page `id`, checks its CRC and header; returns it and
    /// its count. Every page of its kind but the last is full, and
    /// the last access-point page holds the rest of `ap_count`, so a page
    /// that holds fewer cannot shift the records after it.
    fn page(&self, id: u32, kind: PageKind, max: usize) -> Result<(Vec<u8>, usize)> {
        let mut buf = vec![0u8; self.sb.page_size as usize];
        crate::cache::read_checked(&*self.file, id, &mut buf)?;
        let n = fmt::check_page(&buf, kind, id, max).map_err(|w| self.corrupt(id, w))?;
        let g = &self.sb.gzip;
        let want = match kind {
            PageKind::AccessPoints if id + 1 == g.ap_first_page + g.ap_pages => {
                Some(g.ap_count as usize - (g.ap_pages as usize - 1) * max)
            }
            PageKind::Blob if id + 1 == g.ap_first_page + g.ap_pages + g.blob_pages => None,
            _ => Some(max),
        };
        if let Some(want) = want
            && n != want
        {
            return Err(self.corrupt(id, format!("count {n} where R-94 implies {want}")));
        }
        Ok((buf, n))
    }

    /// Access-point record `i`, as stored.
    /// The access-point page holding record `i`.
    fn page_of(&self, i: usize) -> u32 {
        self.sb.gzip.ap_first_page + (i / fmt::records_per_page(self.sb.page_size)) as u32
    }

    /// Checks that the first access point is at offset 0, once.
    pub(crate) fn check_first(&self) -> Result<()> {
        if self
            .first_checked
            .load(std::sync::atomic::Ordering::Relaxed)
        {
            return Ok(());
        }
        if self.raw_record(0)?.uncomp != 0 {
            return Err(self.corrupt(
                self.sb.gzip.ap_first_page,
                "the first access point is not at offset 0",
            ));
        }
        self.first_checked
            .store(true, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    pub(crate) fn record(&self, i: usize) -> Result<ApRecord> {
        self.check_first()?;
        self.raw_record(i)
    }

    /// Record `i`, checked on its own but not against record 0.
    fn raw_record(&self, i: usize) -> Result<ApRecord> {
        let id = self.page_of(i);
        let (page, n) = self.ap_page(id)?;
        let k = i % fmt::records_per_page(self.sb.page_size);
        if k >= n {
            return Err(self.corrupt(id, format!("record {k} missing (page holds {n})")));
        }
        let at = crate::format::PAGE_HEADER_LEN + k * fmt::AP_RECORD_LEN;
        let r = ApRecord::decode(&page[at..at + fmt::AP_RECORD_LEN]);
        // a longer blob is damage, not something to allocate; a
        // window is stored (blob_len > 0) exactly when it is not empty.
        if r.uncomp > self.sb.gzip.text_len
            || r.window_len as usize > crate::gzip::inflate::WINDOW
            || r.blob_len > fmt::MAX_BLOB_LEN
            || (r.blob_len == 0) != (r.window_len == 0)
        {
            return Err(self.corrupt(id, format!("access point {i} is out of range")));
        }
        Ok(r)
    }

    /// The members of the archive that produced text, as the records
    /// describe them: where each one's deflate data starts, and the CRC-32
    /// and length of its text (the span CRCs of its access points
    /// combined). Reads every access-point page.
    pub(crate) fn members(&self) -> Result<Vec<crate::ingest::fingerprint::Member>> {
        use crate::ingest::fingerprint::Member;
        let n = self.sb.gzip.ap_count as usize;
        // Every record page, asked for at once (one round trip for a
        // remote sidecar).
        let (ps, g) = (self.sb.page_size as u64, &self.sb.gzip);
        self.file
            .will_need(g.ap_first_page as u64 * ps..(g.ap_first_page + g.ap_pages) as u64 * ps);
        let mut out: Vec<(Member, crc32fast::Hasher)> = Vec::new();
        let mut next = self.record(0)?;
        for i in 0..n {
            let r = next;
            let end = if i + 1 < n {
                next = self.record(i + 1)?;
                next.uncomp
            } else {
                self.sb.gzip.text_len
            };
            if end < r.uncomp {
                return Err(self.out_of_order(i + 1));
            }
            let len = end - r.uncomp;
            if i == 0 || r.flags & AP_MEMBER_START != 0 {
                out.push((
                    Member {
                        data_start: r.comp_bit / 8,
                        crc: 0,
                        len: 0,
                    },
                    crc32fast::Hasher::new(),
                ));
            }
            let (m, h) = out.last_mut().expect("record 0 starts a member");
            h.combine(&crc32fast::Hasher::new_with_initial_len(r.span_crc, len));
            m.len += len;
        }
        Ok(out
            .into_iter()
            .map(|(mut m, h)| {
                m.crc = h.finalize();
                m
            })
            .collect())
    }
    /// Reads `buf.len()` bytes of the piece array (spec §11.9) from its
    /// byte `at`: the blob stream from the start of page `piece_page` on
    /// . A read past the array is damage.
    pub(crate) fn piece_bytes(&self, at: u64, buf: &mut [u8]) -> Result<()> {
        self.stream_bytes(self.piece_base().saturating_add(at), buf, "piece CRC")
    }

    /// Where the piece array starts in the blob stream: at page
    /// `piece_page`, a blob page (checked when the superblock was read,
    ///
    fn piece_base(&self) -> u64 {
        let g = &self.sb.gzip;
        (g.piece_page.saturating_sub(g.ap_first_page + g.ap_pages) as u64)
            .saturating_mul(fmt::blob_payload(self.sb.page_size) as u64)
    }

    /// R-141, for a full verification: every record's `first_piece` is
    /// the number of pieces of the spans before it, and the piece array
    /// fills the blob pages from `piece_page` to the end of the file
    /// exactly, each page's CRC checked. Reads every record and piece page.
    pub(crate) fn check_pieces(&self) -> Result<()> {
        if self.sb.piece_len().is_none() {
            return Ok(());
        }
        let shift = self.sb.gzip.piece_shift;
        let n = self.sb.gzip.ap_count as usize;
        let mut slots = 0u64;
        for i in 0..n {
            let r = self.record(i)?;
            if r.first_piece as u64 != slots {
                return Err(self.corrupt(
                    self.page_of(i),
                    format!(
                        "access point {i}'s first piece is {}, the spans before it have {slots}",
                        r.first_piece
                    ),
                ));
            }
            let end = if i + 1 < n {
                self.record(i + 1)?.uncomp
            } else {
                self.sb.gzip.text_len
            };
            slots += fmt::pieces_of(end.saturating_sub(r.uncomp), shift);
        }
        // The piece array starts at the page after the windows' last.
        let payload = fmt::blob_payload(self.sb.page_size) as u64;
        let last = self.record(n - 1)?;
        let windows = last.blob_offset.saturating_add(last.blob_len as u64);
        let first_blob = (self.sb.gzip.ap_first_page + self.sb.gzip.ap_pages) as u64;
        if self.sb.gzip.piece_page as u64 != first_blob.saturating_add(windows.div_ceil(payload)) {
            return Err(self.corrupt(
                self.sb.gzip.piece_page,
                "the piece CRCs do not start at the page after the windows",
            ));
        }
        let per = fmt::pieces_per_page(self.sb.page_size) as u64;
        let pages = (self.sb.page_count - self.sb.gzip.piece_page) as u64;
        if slots == 0 || pages != slots.div_ceil(per) {
            return Err(self.corrupt(
                self.sb.gzip.piece_page,
                format!("{slots} piece CRCs do not fill the {pages} pages from the piece page"),
            ));
        }
        // Every page (each read checks its CRC) and its count.
        let payload = payload as usize;
        for k in 0..pages {
            let id = self.sb.gzip.piece_page + k as u32;
            let (_, count) = self.page(id, PageKind::Blob, payload)?;
            let want = if k + 1 == pages {
                (slots * 4 - k * per * 4) as usize
            } else {
                payload
            };
            if count != want {
                return Err(self.corrupt(id, format!("count {count} where R-141 implies {want}")));
            }
        }
        Ok(())
    }

    /// Reads `len` bytes of the blob stream at `off`.
    pub(crate) fn blob(&self, off: u64, len: usize) -> Result<Vec<u8>> {
        let mut out = vec![0u8; len];
        self.stream_bytes(off, &mut out, "window")?;
        Ok(out)
    }

    /// Reads `buf.len()` bytes of the blob stream from its byte `at`, each
    /// page checked; bytes past the pages' payloads are damage,
    /// named as `what` (a window, a piece CRC).
    fn stream_bytes(&self, at: u64, buf: &mut [u8], what: &str) -> Result<()> {
        let payload = fmt::blob_payload(self.sb.page_size) as u64;
        let first = self.sb.gzip.ap_first_page + self.sb.gzip.ap_pages;
        let mut done = 0usize;
        while done < buf.len() {
            let x = at + done as u64;
            let idx = x / payload;
            if idx >= self.sb.gzip.blob_pages as u64 {
                return Err(self.corrupt(first, format!("{what} beyond the blob pages")));
            }
            let id = first + idx as u32;
            let (page, n) = self.page(id, PageKind::Blob, payload as usize)?;
            let s = (x % payload) as usize;
            if s >= n {
                return Err(self.corrupt(id, format!("{what} beyond the blob page's payload")));
            }
            let take = (n - s).min(buf.len() - done);
            let base = crate::format::PAGE_HEADER_LEN + s;
            buf[done..done + take].copy_from_slice(&page[base..base + take]);
            done += take;
        }
        Ok(())
    }

    /// Announces the pages holding blob-stream bytes `from..to` (a hint;
    /// offsets as stored, so saturating).
    fn hint_stream(&self, from: u64, to: u64) {
        if to <= from {
            return;
        }
        let payload = fmt::blob_payload(self.sb.page_size) as u64;
        let first = self.sb.gzip.ap_first_page as u64 + self.sb.gzip.ap_pages as u64;
        let pages = self.sb.page_count as u64;
        let ps = self.sb.page_size as u64;
        let p0 = first.saturating_add(from / payload).min(pages);
        let p1 = first.saturating_add((to - 1) / payload + 1).min(pages);
        if p0 < p1 {
            self.file.will_need(p0 * ps..p1 * ps);
        }
    }
}

impl AccessPoints for SidecarAps {
    fn count(&self) -> usize {
        self.sb.gzip.ap_count as usize
    }

    fn offset(&self, i: usize) -> Result<u64> {
        Ok(self.record(i)?.uncomp)
    }

    fn comp_bit(&self, i: usize) -> Result<u64> {
        Ok(self.record(i)?.comp_bit)
    }

    fn will_need(&self, range: std::ops::Range<usize>) {
        // The blob pages holding the windows of `range` (stored in record
        // order, so one run of pages).
        let (Ok(a), Ok(b)) = (self.record(range.start), self.record(range.end - 1)) else {
            return;
        };
        // Offsets as stored: a damaged record must not overflow here (the
        // read that follows reports it).
        let (from, to) = (
            a.blob_offset,
            b.blob_offset.saturating_add(b.blob_len as u64),
        );
        self.hint_stream(from, to);
        // Their piece CRCs (§11.9): from the first one's first slot to the
        // next record's (or the end of the array).
        if self.sb.piece_len().is_some() {
            // (Record `range.end` only if there is one: a hint must not
            // read a page that is not a record page.)
            let next = if range.end < self.count() {
                self.record(range.end)
                    .map_or(u64::MAX, |r| r.first_piece as u64)
            } else {
                u64::MAX
            };
            let base = self.piece_base();
            self.hint_stream(
                base.saturating_add(a.first_piece as u64 * 4),
                base.saturating_add(next.saturating_mul(4)),
            );
        }
    }

    fn piece_len(&self) -> Option<u64> {
        self.sb.piece_len()
    }

    fn piece_crcs(&self, i: usize, k: std::ops::Range<u64>) -> Result<Vec<u32>> {
        let r = self.record(i)?;
        let mut b = vec![0u8; (k.end - k.start) as usize * 4];
        self.piece_bytes((r.first_piece as u64 + k.start) * 4, &mut b)?;
        Ok(b.chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect())
    }

    fn out_of_order(&self, i: usize) -> Error {
        self.corrupt(
            self.page_of(i),
            format!("access point {i} is out of order (its text offset does not increase)"),
        )
    }

    fn get(&self, i: usize) -> Result<AccessPoint> {
        let r = self.record(i)?;
        let page = self.page_of(i);
        let mut window = Vec::with_capacity(r.window_len as usize);
        if r.blob_len > 0 {
            let blob = self.blob(r.blob_offset, r.blob_len as usize)?;
            flate2::read::DeflateDecoder::new(&blob[..])
                .take(crate::gzip::inflate::WINDOW as u64 + 1)
                .read_to_end(&mut window)
                .map_err(|e| self.corrupt(page, format!("window of access point {i}: {e}")))?;
        }
        if window.len() != r.window_len as usize {
            return Err(self.corrupt(
                page,
                format!("window of access point {i} has the wrong length"),
            ));
        }
        Ok(AccessPoint {
            comp_bit: r.comp_bit,
            uncomp: r.uncomp,
            window,
            member_start: r.flags & AP_MEMBER_START != 0,
            span_crc: Some(r.span_crc),
        })
    }
}

/// The text of gzip source `gz` as described by sidecar `file`.
///
/// `check_now`: check the first access point now (the reference's open,
/// R-54), or at the first lookup that reads access points (a remote
/// sidecar, whose open reads as little as it may).
pub fn text(
    gz: Box<dyn ReadAt>,
    file: Arc<dyn ReadAt>,
    sb: &Superblock,
    cache_bytes: usize,
    check_now: bool,
) -> Result<GzText<SidecarAps>> {
    let aps = SidecarAps::new(file, sb);
    if check_now {
        aps.check_first()?;
    }
    GzText::new(gz, aps, sb.gzip.text_len, sb.gzip.span as u64, cache_bytes)
}

/// Where a remote gzip sidecar's access points lie, to announce the pages
/// a lookup will need before it descends the tree: the page of record 0
/// (checked at first use) and the pages around the record that the
/// target's share of the text makes likely (access points are about
/// evenly spread over the text). A guess: a wrong one costs a round trip,
/// never an answer.
pub(crate) struct ApHints {
    file: Arc<dyn ReadAt>,
    first_page: u64,
    pages: u64,
    per_page: u64,
    ap_count: u64,
    text_len: u64,
    page_size: u64,
    first_announced: std::sync::atomic::AtomicBool,
}

impl ApHints {
    pub(crate) fn new(file: Arc<dyn ReadAt>, sb: &Superblock) -> ApHints {
        ApHints {
            file,
            first_page: sb.gzip.ap_first_page as u64,
            pages: sb.gzip.ap_pages as u64,
            per_page: fmt::records_per_page(sb.page_size) as u64,
            ap_count: sb.gzip.ap_count as u64,
            text_len: sb.gzip.text_len,
            page_size: sb.page_size as u64,
            first_announced: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Before looking up text offset `offset`.
    pub(crate) fn for_offset(&self, offset: u64) {
        if self.text_len == 0 || self.pages == 0 {
            return;
        }
        let guess = (offset as u128 * self.ap_count as u128 / self.text_len as u128) as u64;
        // A margin of a quarter page either side: the guess's error.
        let margin = self.per_page / 4;
        let lo = guess.saturating_sub(margin).min(self.ap_count - 1) / self.per_page;
        let hi = (guess + margin).min(self.ap_count - 1) / self.per_page;
        let ps = self.page_size;
        if !self
            .first_announced
            .swap(true, std::sync::atomic::Ordering::Relaxed)
            && lo > 0
        {
            self.file
                .will_need(self.first_page * ps..(self.first_page + 1) * ps);
        }
        self.file
            .will_need((self.first_page + lo) * ps..(self.first_page + hi + 1) * ps);
    }

    /// Before looking up line `line` of `lines`: its offset, guessed from
    /// its share of the lines.
    pub(crate) fn for_line(&self, line: u64, lines: u64) {
        if lines > 0 {
            self.for_offset(
                (line.min(lines) as u128 * self.text_len as u128 / lines as u128) as u64,
            );
        }
    }
}
