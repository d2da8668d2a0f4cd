//! Reading a zstd sidecar's frame records (spec §13) for [`ZstText`].

use super::ContentCheck;
use crate::error::{Error, Result};
use crate::format::zstd::{self as fmt, FrameRecord};
use crate::format::{PAGE_HEADER_LEN, PageKind, Superblock};
use crate::io::ReadAt;
use crate::zstd::{FrameRecords, ZstText};
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::sync::Arc;

/// Frame-record pages [`SidecarFrames`] keeps.
const RECENT_PAGES: usize = 16;

/// A checked frame-record page: (page id, bytes, record count).
type CheckedPage = (u32, Arc<Vec<u8>>, usize);

/// The frame records stored in a sidecar, read with `pread` on demand; the
/// last few checked pages are kept.
pub struct SidecarFrames {
    file: Arc<dyn ReadAt>,
    sb: Superblock,
    recent: Mutex<VecDeque<CheckedPage>>,
}

impl SidecarFrames {
    /// Frame records of the sidecar `file` whose superblock is `sb`.
    pub fn new(file: Arc<dyn ReadAt>, sb: &Superblock) -> SidecarFrames {
        SidecarFrames {
            file,
            sb: sb.clone(),
            recent: Mutex::new(VecDeque::with_capacity(RECENT_PAGES)),
        }
    }

    fn corrupt(&self, page: u32, what: impl Into<String>) -> Error {
        Error::corrupt(self.file.path(), page as u64, what)
    }

    /// Frame-record page `id`, checked: CRC, kind, its own number,
    /// and a count that fills every page but the last.
    fn page(&self, id: u32) -> Result<(Arc<Vec<u8>>, usize)> {
        if let Some((_, page, n)) = self.recent.lock().iter().find(|e| e.0 == id) {
            return Ok((Arc::clone(page), *n));
        }
        let per = fmt::records_per_page(self.sb.page_size);
        let mut buf = vec![0u8; self.sb.page_size as usize];
        crate::cache::read_checked(&*self.file, id, &mut buf)?;
        let n = crate::format::gzip::check_page(&buf, PageKind::Frames, id, per)
            .map_err(|w| self.corrupt(id, w))?;
        let g = &self.sb.gzip;
        let want = if id + 1 == g.ap_first_page + g.ap_pages {
            g.ap_count as usize - (g.ap_pages as usize - 1) * per
        } else {
            per
        };
        if n != want {
            return Err(self.corrupt(id, format!("count {n} where R-133 implies {want}")));
        }
        let page = Arc::new(buf);
        let mut recent = self.recent.lock();
        if recent.len() == RECENT_PAGES {
            recent.pop_front();
        }
        recent.push_back((id, Arc::clone(&page), n));
        Ok((page, n))
    }

    /// The page holding record `i`.
    fn page_of(&self, i: usize) -> u32 {
        self.sb.gzip.ap_first_page + (i / fmt::records_per_page(self.sb.page_size)) as u32
    }

    /// Every record in order, checked against its neighbours (for
    /// `verify`): the first at text offset 0 and archive offset 0 or after
    /// a table, each frame's text following the previous one's, the last
    /// ending at the text length. Returns the number of records.
    pub(crate) fn check_all(&self) -> Result<u64> {
        let n = self.count();
        let mut text_end = 0u64;
        let mut comp_end = 0u64;
        for i in 0..n {
            let r = self.record(i)?;
            if r.uncomp != text_end || r.comp < comp_end {
                return Err(self.out_of_order(i));
            }
            text_end = r.uncomp + r.text_len as u64;
            comp_end = r.comp + r.comp_len as u64;
        }
        if text_end != self.sb.gzip.text_len {
            return Err(self.corrupt(
                self.sb.gzip.ap_first_page,
                format!(
                    "the frames hold {text_end} bytes of text, the superblock says {}",
                    self.sb.gzip.text_len
                ),
            ));
        }
        Ok(n as u64)
    }

    /// Compares the content checksum at the end of at most `limit` frames
    /// of `zst` (spread evenly, read together) with the seek table's
    /// checksum the records hold.
    pub(crate) fn check_sums(&self, zst: &dyn ReadAt, limit: usize) -> Result<ContentCheck> {
        use crate::ingest::fingerprint::{FrameSum, check_frames, spread};
        let n = self.count();
        let picks = spread(n, limit.max(2));
        let ps = self.sb.page_size as u64;
        let g = &self.sb.gzip;
        self.file
            .will_need(g.ap_first_page as u64 * ps..(g.ap_first_page + g.ap_pages) as u64 * ps);
        let mut sums = Vec::with_capacity(picks.len());
        let both = fmt::FRAME_HAS_XXH | fmt::FRAME_CONTENT_CHECKSUM;
        for &i in &picks {
            let r = self.record(i)?;
            if r.flags & both != both {
                return Ok(ContentCheck::Unprovable);
            }
            sums.push(FrameSum {
                comp: r.comp,
                comp_len: r.comp_len,
                xxh: r.xxh,
            });
        }
        Ok(match check_frames(zst, &sums, usize::MAX)? {
            Some(checked) => ContentCheck::Same(crate::Proof::ZstdFrames {
                checked,
                frames: n as u64,
            }),
            None => ContentCheck::Differs,
        })
    }
}

impl FrameRecords for SidecarFrames {
    fn count(&self) -> usize {
        self.sb.gzip.ap_count as usize
    }

    fn record(&self, i: usize) -> Result<FrameRecord> {
        let id = self.page_of(i);
        let (page, n) = self.page(id)?;
        let k = i % fmt::records_per_page(self.sb.page_size);
        if k >= n {
            return Err(self.corrupt(id, format!("record {k} missing (page holds {n})")));
        }
        let at = PAGE_HEADER_LEN + k * fmt::FRAME_RECORD_LEN;
        let Some(r) = FrameRecord::decode(&page[at..at + fmt::FRAME_RECORD_LEN]) else {
            return Err(self.corrupt(id, format!("frame record {i} sets reserved bits")));
        };
        if (i == 0 && r.uncomp != 0)
            || r.text_len > fmt::MAX_FRAME_TEXT
            || r.uncomp.saturating_add(r.text_len as u64) > self.sb.gzip.text_len
            || r.comp.saturating_add(r.comp_len as u64) > self.sb.fingerprint.size
        {
            return Err(self.corrupt(id, format!("frame record {i} is out of range")));
        }
        Ok(r)
    }

    fn out_of_order(&self, i: usize) -> Error {
        self.corrupt(
            self.page_of(i),
            format!("frame record {i} does not follow the one before it"),
        )
    }
}

/// The text of zstd source `src` as described by sidecar `file`.
pub fn text(
    src: Box<dyn ReadAt>,
    file: Arc<dyn ReadAt>,
    sb: &Superblock,
    cache_bytes: usize,
) -> ZstText<SidecarFrames> {
    ZstText::new(
        src,
        SidecarFrames::new(file, sb),
        sb.gzip.text_len,
        cache_bytes,
    )
}
