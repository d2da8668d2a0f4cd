//! The page cache: sidecar pages read with `pread`, kept under a hard byte
//! budget with S3-FIFO eviction.
//!
//! [`s3fifo`] is the pure policy (queues of page numbers, no I/O, no locks),
//! shared with the hit-ratio benchmark. [`PageCache`] owns the pages: a slot
//! per page number (the sidecar is immutable, so page numbers are dense and
//! the lookup is an array index, not a hash), a read lock per slot on the hit
//! path, and one mutex around the policy taken only on a miss. Pages are
//! handed out as `Arc`s, so an evicted page lives until its last reader
//! drops it. This module is not a general-purpose cache: values are
//! fixed-size pages and every inserted page has passed its CRC check.

mod page_cache;
pub mod s3fifo;

pub(crate) use page_cache::read_checked;
pub use page_cache::{CacheStats, Page, PageCache};
