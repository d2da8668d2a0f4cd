//! Several logs as one numbered whole (the core's `lidx::join`): their
//! lines one source after the other, or merged by time, read through an
//! ordinary index handle, with the way back from each line to its source.

use crate::boundary::{Fail, guard};
use crate::ffi;
use crate::index::{LIDX_ACTION_OPENED, Shared, lidx_index};
use crate::merge::lidx_merge_source;
use lidx_core::join::{Joined, Log, Order};
use std::ffi::c_int;
use std::sync::Arc;

/// Several logs as one: made by lidx_collection_open(), freed by
/// lidx_collection_close(). Its lines are read through the index handle
/// lidx_collection_index() lends, with every function that reads an index
/// (lidx_read_lines(), lidx_line_at(), searches, ...).
///
/// Thread safety: as a lidx_index; only lidx_collection_close() must not
/// run concurrently with, or be followed by, any other use of the
/// collection or of its index handle.
pub struct lidx_collection {
    joined: Arc<Joined>,
    /// The whole as an index handle, lent by lidx_collection_index().
    index: lidx_index,
}

/// Opens `n` sources as one numbered whole. Each source is a file's index
/// or a rotation family, as for lidx_merge_by_time(), with the lines of it
/// to take (`first`, `count`: a time range's from lidx_time_range(), or 0
/// and UINT64_MAX for all). With `merge` 0 the whole holds the sources'
/// lines one source after the other; nonzero, interleaved by time through
/// their time indexes (as lidx_merge_by_time(): ties in the order of the
/// sources, then of the lines; every index needs a time index). A
/// source's last line without `\n` is given one in the whole.
///
/// The collection shares the sources' indexes: they may be closed before
/// it. A family member's handle (from lidx_family_member()) is not taken:
/// give its family. A concatenation reads nothing; a merge reads every
/// line once, for its time, and holds about 70 bytes each time the whole
/// goes from one source to another (more than 4,194,304 such turns is
/// LIDX_ERROR_INVALID: merge a narrower time range).
///
/// - `out`: receives the new handle on success (unchanged on error); the
///   caller frees it with lidx_collection_close().
///
/// Returns LIDX_OK; LIDX_ERROR_INVALID (no source, a source without
/// exactly one of `index` and `family`, a member handle, a merge with an
/// index without a time index: the message names it); or an error as
/// lidx_read_lines().
///
/// # Safety
/// `sources` points to `n` readable lidx_merge_source, each naming live
/// handles; `out` points to writable memory for a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_collection_open(
    sources: *const lidx_merge_source,
    n: usize,
    merge: c_int,
    out: *mut *mut lidx_collection,
) -> c_int {
    guard("lidx_collection_open", || {
        if out.is_null() {
            return Err(Fail::invalid("out is NULL"));
        }
        if n == 0 || sources.is_null() {
            return Err(Fail::invalid("a collection needs at least one source"));
        }
        // SAFETY: non-NULL, `n` readable structs by the caller's contract.
        let sources = unsafe { std::slice::from_raw_parts(sources, n) };
        let (mut logs, mut windows) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for (i, s) in sources.iter().enumerate() {
            // SAFETY (both): NULL or live handles, by the caller's contract.
            let (index, family) = unsafe { (s.index.as_ref(), s.family.as_ref()) };
            let log = match (index, family) {
                (Some(h), None) => match &h.index {
                    Shared::Own(i) => Log::File(Arc::clone(i)),
                    Shared::Member(..) => {
                        return Err(Fail::invalid(format!(
                            "sources[{i}].index is a member of a rotation family: give its family"
                        )));
                    }
                },
                (None, Some(f)) => Log::Family(Arc::clone(f.family())),
                _ => {
                    return Err(Fail::invalid(format!(
                        "sources[{i}] must have exactly one of index and family"
                    )));
                }
            };
            let all = log.lines();
            let end = s.first.saturating_add(s.count);
            let start = s.first.clamp(all.start, all.end);
            windows.push(start..end.clamp(start, all.end));
            logs.push(log);
        }
        let order = if merge != 0 {
            Order::Time
        } else {
            Order::Concat
        };
        let cache = lidx_core::DEFAULT_CACHE_BYTES;
        let joined = Arc::new(Joined::new(
            logs,
            Some(windows),
            order,
            cache,
            &mut |_, _| true,
        )?);
        let index = lidx_index::lent(Arc::clone(joined.index()), LIDX_ACTION_OPENED);
        let c = Box::new(lidx_collection { joined, index });
        // SAFETY: checked non-NULL; the caller's contract for out.
        unsafe { *out = Box::into_raw(c) };
        Ok(())
    })
}

/// The whole as an index handle, owned by the collection (valid until
/// lidx_collection_close(); lidx_close() refuses it). Its lines are the
/// whole's, numbered from 0; it has no time index (see
/// lidx_collection_line_at_time()). NULL when `c` is NULL.
///
/// # Safety
/// `c` is NULL or a live collection.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_collection_index(c: *const lidx_collection) -> *const lidx_index {
    // SAFETY: the caller's contract.
    match unsafe { c.as_ref() } {
        Some(c) => &c.index,
        None => std::ptr::null(),
    }
}

/// Where line `line` of the whole (0-based) comes from: `*source` receives
/// its source's position in the array given to lidx_collection_open(),
/// `*line_no` its 0-based number there (a family's global number).
///
/// Returns LIDX_OK, or LIDX_PAST_END past the last line.
///
/// # Safety
/// `c` is a live collection; `source` and `line_no` are writable (or NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_collection_origin(
    c: *const lidx_collection,
    line: u64,
    source: *mut usize,
    line_no: *mut u64,
) -> c_int {
    guard("lidx_collection_origin", || {
        // SAFETY: the caller's contract.
        let c = unsafe { ffi::obj(c, "collection") }?;
        let Some((k, own)) = c.joined.origin(line) else {
            return Err(Fail::new(
                crate::status::LIDX_PAST_END,
                format!(
                    "line {line} is past the collection's last line (it has {} lines)",
                    c.joined.index().line_count()
                ),
            ));
        };
        // SAFETY: the caller's contract for both.
        unsafe {
            ffi::put(source, k);
            ffi::put(line_no, own);
        }
        Ok(())
    })
}

/// The line of the whole (0-based) that holds line `line_no` (0-based; a
/// family's global number) of source `source`, or the first line after it
/// of that source that the whole holds; the whole's line count when it
/// holds none.
///
/// Returns LIDX_OK, or LIDX_PAST_END for a source past the last.
///
/// # Safety
/// `c` is a live collection; `line` is writable (or NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_collection_line_of(
    c: *const lidx_collection,
    source: usize,
    line_no: u64,
    line: *mut u64,
) -> c_int {
    guard("lidx_collection_line_of", || {
        // SAFETY: the caller's contract.
        let c = unsafe { ffi::obj(c, "collection") }?;
        let n = c.joined.logs().len();
        if source >= n {
            return Err(Fail::new(
                crate::status::LIDX_PAST_END,
                format!("source {source}: the collection has {n} sources"),
            ));
        }
        let l = c
            .joined
            .line_of(source, line_no)
            .unwrap_or(c.joined.index().line_count());
        // SAFETY: the caller's contract.
        unsafe { ffi::put(line, l) };
        Ok(())
    })
}

/// The first line of the whole (0-based) at or after time `t`
/// (nanoseconds since 1970-01-01T00:00:00Z) in any source: the earliest in
/// the whole of each source's first line at or after `t`; the whole's
/// line count when no source has one. Sources without a time index are
/// passed over.
///
/// Returns LIDX_OK, or LIDX_ERROR_INVALID when no source has a time index.
///
/// # Safety
/// `c` is a live collection; `line` is writable (or NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_collection_line_at_time(
    c: *const lidx_collection,
    t: i64,
    line: *mut u64,
) -> c_int {
    guard("lidx_collection_line_at_time", || {
        // SAFETY: the caller's contract.
        let c = unsafe { ffi::obj(c, "collection") }?;
        if !c.joined.logs().iter().any(|l| l.has_time_index()) {
            return Err(Fail::invalid(
                "no source of the collection has a time index (open them with LIDX_OPEN_TIME)",
            ));
        }
        let l = c
            .joined
            .line_at_time(t)?
            .unwrap_or(c.joined.index().line_count());
        // SAFETY: the caller's contract.
        unsafe { ffi::put(line, l) };
        Ok(())
    })
}

/// Frees a collection and its index handle (the sources stay open). NULL
/// does nothing. It must not be in use by another thread, nor used after.
///
/// # Safety
/// `c` is NULL or a live collection, given back once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_collection_close(c: *mut lidx_collection) -> c_int {
    guard("lidx_collection_close", || {
        // SAFETY: the caller's contract: a live handle given back once.
        drop(unsafe { ffi::take(c) });
        Ok(())
    })
}
