//! [`PageCache`]: the owner of sidecar pages in memory.

use super::s3fifo::{self, Loc, Meta, S3Fifo};
use crate::error::{Error, Result};
use crate::format::{self, PageKind, node::NodeView};
use crate::io::ReadAt;
use parking_lot::{Mutex, RwLock};
use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// One sidecar node page, verified (CRC and header) when it was read.
///
/// A cheap handle (one reference count): the words live in the same
/// allocation as the count, so a lookup follows one pointer from the slot to
/// the keys. Held as 8-byte words so the key arrays inside are aligned.
#[derive(Debug, Clone)]
pub struct Page {
    words: Arc<[u64]>,
}

impl Page {
    /// Wraps words whose header [`NodeView::parse`] accepted.
    fn checked(words: Box<[u64]>) -> Page {
        Page {
            words: Arc::from(words),
        }
    }

    /// The decoded node (no checks repeated: they ran when the page was read).
    #[inline]
    pub fn view(&self) -> NodeView<'_> {
        // Header word 0 (little-endian): crc u32, kind u8, level u8, count u16.
        let w0 = u64::from_le(self.words[0]);
        let kind = if (w0 >> 32) as u8 == PageKind::Leaf as u8 {
            PageKind::Leaf
        } else {
            PageKind::Internal
        };
        NodeView::from_checked(&self.words, kind, (w0 >> 40) as u8, (w0 >> 48) as usize)
    }

    /// The page number.
    pub fn id(&self) -> u32 {
        u64::from_le(self.words[1]) as u32
    }

    /// The page as words.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The page as bytes.
    pub fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(&self.words)
    }
}

/// Counters for `lidx info` and the benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Pages read from the sidecar (misses).
    pub misses: u64,
    /// Pages evicted.
    pub evictions: u64,
    /// Bytes of pages currently held by the cache.
    pub resident_bytes: usize,
    /// The byte budget.
    pub budget_bytes: usize,
}

const CHUNK: usize = 1024;

#[derive(Debug, Default)]
struct Slot {
    page: RwLock<Option<Page>>,
    freq: AtomicU8,
    loc: AtomicU8,
    ghost_seq: AtomicU32,
}

/// Slots indexed by page number, allocated in chunks on first touch so that
/// opening a huge sidecar costs nothing per page.
#[derive(Debug)]
struct SlotTable {
    chunks: Box<[OnceLock<Box<[Slot]>>]>,
}

impl SlotTable {
    fn new(pages: u32) -> SlotTable {
        let n = (pages as usize).div_ceil(CHUNK);
        SlotTable {
            chunks: (0..n).map(|_| OnceLock::new()).collect(),
        }
    }

    #[inline]
    fn slot(&self, id: u32) -> &Slot {
        let id = id as usize;
        let chunk =
            self.chunks[id / CHUNK].get_or_init(|| (0..CHUNK).map(|_| Slot::default()).collect());
        &chunk[id % CHUNK]
    }
}

// Only called with the policy mutex held (except `freq`, which is atomic and
// may race benignly with a hit: a lost bump only changes an eviction choice).
impl Meta for SlotTable {
    fn freq(&self, id: u32) -> u8 {
        self.slot(id).freq.load(Ordering::Relaxed)
    }
    fn set_freq(&self, id: u32, f: u8) {
        self.slot(id).freq.store(f, Ordering::Relaxed)
    }
    fn loc(&self, id: u32) -> Loc {
        Loc::from_u8(self.slot(id).loc.load(Ordering::Relaxed))
    }
    fn set_loc(&self, id: u32, loc: Loc) {
        self.slot(id).loc.store(loc as u8, Ordering::Relaxed)
    }
    fn ghost_seq(&self, id: u32) -> u32 {
        self.slot(id).ghost_seq.load(Ordering::Relaxed)
    }
    fn set_ghost_seq(&self, id: u32, seq: u32) {
        self.slot(id).ghost_seq.store(seq, Ordering::Relaxed)
    }
}

/// A page cache over one sidecar with a hard byte budget.
///
/// `Send + Sync`: one cache serves many threads. When the tree's pages (the
/// pages below the `pin_below` given to [`PageCache::new`]) fit in the
/// budget with a page to spare, each is *pinned* once read and checked: it
/// stays until the cache is dropped, and a hit is a plain load of its slot
/// (no lock, no reference count). Other pages, and every page of a tree
/// too large to pin, go through S3-FIFO: a hit takes the slot's read lock
/// and bumps an atomic frequency; a miss reads the page with `pread`
/// outside any lock, checks its CRC, then takes the policy mutex to insert
/// it. The budget counts pages held by the cache, pinned or not; pages
/// evicted while a reader still holds their `Arc` are that reader's until
/// it drops them.
pub struct PageCache {
    file: Box<dyn ReadAt>,
    page_size: usize,
    page_count: u32,
    /// Pages `1..pinned.len()` once read, when the tree is pinned; empty
    /// otherwise (slot 0, the superblock, stays empty).
    pinned: Box<[OnceLock<Page>]>,
    slots: SlotTable,
    policy: Mutex<S3Fifo>,
    resident: AtomicUsize,
    budget: usize,
    misses: AtomicU64,
    evictions: AtomicU64,
}

impl std::fmt::Debug for PageCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageCache")
            .field("path", &self.file.path())
            .field("page_size", &self.page_size)
            .field("page_count", &self.page_count)
            .field("budget", &self.budget)
            .finish()
    }
}

impl PageCache {
    /// A cache over `file` (a sidecar of `page_count` pages of `page_size`
    /// bytes) holding at most `budget_bytes` of pages (at least one page).
    /// Pages `1..pin_below` (the node pages: the line tree and the time
    /// tree) are pinned when they fit the budget with one page to spare.
    pub fn new(
        file: Box<dyn ReadAt>,
        page_size: u32,
        page_count: u32,
        pin_below: u32,
        budget_bytes: usize,
    ) -> PageCache {
        let page_size = page_size as usize;
        let pin_below = pin_below.min(page_count);
        let tree_bytes = (pin_below as usize).saturating_sub(1) * page_size;
        let pin = pin_below > 1 && tree_bytes + page_size <= budget_bytes;
        let pinned_bytes = if pin { tree_bytes } else { 0 };
        let capacity = ((budget_bytes - pinned_bytes) / page_size).max(1);
        PageCache {
            file,
            page_size,
            page_count,
            pinned: if pin {
                (0..pin_below).map(|_| OnceLock::new()).collect()
            } else {
                Box::new([])
            },
            slots: SlotTable::new(page_count),
            policy: Mutex::new(S3Fifo::new(capacity)),
            resident: AtomicUsize::new(0),
            budget: capacity * page_size + pinned_bytes,
            misses: AtomicU64::new(0),
            evictions: AtomicU64::new(0),
        }
    }

    /// The sidecar being cached.
    pub fn file(&self) -> &dyn ReadAt {
        &*self.file
    }

    /// Returns page `id`, reading and verifying it on a miss.
    pub fn get(&self, id: u32) -> Result<Page> {
        self.check_id(id)?;
        if let Some(cell) = self.pinned.get(id as usize) {
            return match cell.get() {
                Some(p) => Ok(p.clone()),
                None => self.load_pinned(id).cloned(),
            };
        }
        let slot = self.slots.slot(id);
        if let Some(p) = &*slot.page.read() {
            s3fifo::on_hit(&self.slots, id);
            return Ok(p.clone());
        }
        self.load(id)
    }

    /// Runs `f` on page `id` without cloning its handle on a hit (the slot's
    /// read lock keeps the page alive meanwhile). The hot path of descents.
    #[inline]
    pub fn with_page<R>(&self, id: u32, f: impl FnOnce(&Page) -> R) -> Result<R> {
        self.check_id(id)?;
        if let Some(cell) = self.pinned.get(id as usize) {
            return match cell.get() {
                Some(p) => Ok(f(p)),
                None => self.load_pinned(id).map(f),
            };
        }
        let slot = self.slots.slot(id);
        {
            let guard = slot.page.read();
            if let Some(p) = &*guard {
                s3fifo::on_hit(&self.slots, id);
                return Ok(f(p));
            }
        }
        let p = self.load(id)?;
        Ok(f(&p))
    }

    /// Reads page `id` from the sidecar and checks its CRC and header,
    /// bypassing the cache (for verification passes that must not pollute it).
    pub fn read_uncached(&self, id: u32) -> Result<Page> {
        self.check_id(id)?;
        // Read into an aligned buffer (io::aligned: a misaligned one costs
        // the kernel's copy 2 µs more per 4 KiB page here), then copy.
        let mut bytes = crate::io::AlignedBuf::zeroed(self.page_size);
        read_checked(&*self.file, id, &mut bytes)?;
        let mut words = vec![0u64; self.page_size / 8].into_boxed_slice();
        bytemuck::cast_slice_mut::<u64, u8>(&mut words).copy_from_slice(&bytes);
        NodeView::parse(&words, id)
            .map_err(|what| Error::corrupt(self.file.path(), id as u64, what))?;
        Ok(Page::checked(words))
    }

    fn check_id(&self, id: u32) -> Result<()> {
        if id == 0 || id >= self.page_count {
            return Err(Error::corrupt(
                self.file.path(),
                id as u64,
                format!("page number {id} outside 1..{}", self.page_count),
            ));
        }
        Ok(())
    }

    /// Reads, checks and pins page `id` (one of the pinned range); a page
    /// another thread pinned meanwhile is that one.
    #[cold]
    fn load_pinned(&self, id: u32) -> Result<&Page> {
        let page = self.read_uncached(id)?;
        let mut won = false;
        let p = self.pinned[id as usize].get_or_init(|| {
            won = true;
            page
        });
        if won {
            self.misses.fetch_add(1, Ordering::Relaxed);
            let now = self.resident.fetch_add(self.page_size, Ordering::Relaxed) + self.page_size;
            debug_assert!(
                now <= self.budget,
                "cache over budget: {now} > {}",
                self.budget
            );
        }
        Ok(p)
    }

    #[cold]
    fn load(&self, id: u32) -> Result<Page> {
        let page = self.read_uncached(id)?;
        self.misses.fetch_add(1, Ordering::Relaxed);
        let mut policy = self.policy.lock();
        let slot = self.slots.slot(id);
        if let Some(p) = &*slot.page.read() {
            // Another thread loaded it while we were reading.
            return Ok(p.clone());
        }
        let mut evicted = Vec::new();
        policy.insert(&self.slots, id, &mut evicted);
        for e in evicted {
            self.slots.slot(e).page.write().take();
            self.resident.fetch_sub(self.page_size, Ordering::Relaxed);
            self.evictions.fetch_add(1, Ordering::Relaxed);
        }
        *slot.page.write() = Some(page.clone());
        let now = self.resident.fetch_add(self.page_size, Ordering::Relaxed) + self.page_size;
        debug_assert!(
            now <= self.budget,
            "cache over budget: {now} > {}",
            self.budget
        );
        #[cfg(any(test, fuzzing))]
        policy.validate(&self.slots);
        Ok(page)
    }

    /// Current counters.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            misses: self.misses.load(Ordering::Relaxed),
            evictions: self.evictions.load(Ordering::Relaxed),
            resident_bytes: self.resident.load(Ordering::Relaxed),
            budget_bytes: self.budget,
        }
    }
}

/// Reads page `id` of `file` into `bytes` (one page long) and checks its
/// CRC before anything else looks at it: the one page read of tree,
/// access-point and blob pages alike.
pub(crate) fn read_checked(file: &dyn ReadAt, id: u32, bytes: &mut [u8]) -> Result<()> {
    file.read_exact_at(bytes, id as u64 * bytes.len() as u64)?;
    let stored = u32::from_le_bytes(bytes[0..4].try_into().expect("4 bytes"));
    let computed = format::page_crc(bytes);
    if stored != computed {
        return Err(Error::ChecksumMismatch {
            path: file.path().to_path_buf(),
            page: id as u64,
            expected: stored,
            got: computed,
        });
    }
    Ok(())
}
