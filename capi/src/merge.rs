//! Several logs read as one, merged by time (the core's `lidx::merge`):
//! a k-way merge through each log's time index, pushing each line to a
//! callback as a search does.

use crate::boundary::{Fail, guard};
use crate::family::lidx_family;
use crate::ffi;
use crate::index::lidx_index;
use lidx_core::merge::{Input, MergedLine, Part, merge_by_time};
use std::ffi::{c_int, c_void};

/// One log of a merge: a file's index or a rotation family (exactly one of
/// the two), and the lines of it to merge. Read only during
/// lidx_merge_by_time().
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct lidx_merge_source {
    /// A file's index (a member handle of a family too), or NULL.
    pub index: *const lidx_index,
    /// A rotation family, or NULL.
    pub family: *const lidx_family,
    /// The first line to merge: 0-based, a family's global number (lines
    /// below a family's oldest are skipped).
    pub first: u64,
    /// How many lines from `first`, clamped to the end: UINT64_MAX for all
    /// (a time range's, from lidx_time_range(), selects by time).
    pub count: u64,
}

/// One line of a merge, as its callback sees it. Valid only during the
/// callback: the bytes live in the library's buffers; copy what you keep.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct lidx_merged_line {
    /// The position of its source in the array given.
    pub source: usize,
    /// Its 0-based line number in its source (a family's global number).
    pub line: u64,
    /// The byte offset of its first byte in its source's text (a family's
    /// global offset).
    pub offset: u64,
    /// Its time, nanoseconds since 1970-01-01T00:00:00Z, when `has_time`:
    /// its stamp's, or for a line without one the last stamp's before it.
    pub time: i64,
    /// 1 when `time` is set; 0 for a line before its source's first stamp
    /// (`time` is then 0).
    pub has_time: i32,
    /// Reserved, 0.
    pub reserved: i32,
    /// The line's bytes, its newline included when it has one (not
    /// NUL-terminated; the last line of a source may have none).
    pub bytes: *const u8,
    /// Number of bytes at `bytes`.
    pub len: usize,
}

/// A merge callback: called once per line, in merged order, on the thread
/// that called lidx_merge_by_time(). Returns 0 to go on, nonzero to stop
/// the merge (lidx_merge_by_time() then returns LIDX_OK). It may call
/// other lidx functions on the sources (not a close). It must return
/// normally: not longjmp() or throw across the library.
pub type lidx_merge_fn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, line: *const lidx_merged_line) -> c_int>;

/// The parts of one source: the lines `first .. first + count` of an
/// index, or of each family member that holds some of them.
fn parts<'a>(s: &lidx_merge_source, i: usize) -> Result<Vec<Part<'a>>, Fail> {
    let want = s.first..s.first.saturating_add(s.count);
    // SAFETY (both): the caller's contract: each is NULL or a live handle
    // for the duration of the call, which outlives the parts.
    let (index, family) = unsafe { (s.index.as_ref(), s.family.as_ref()) };
    let parts = match (index, family) {
        (Some(h), None) => vec![Part {
            index: &h.index,
            base: 0,
            byte_base: 0,
            lines: want,
        }],
        (None, Some(f)) => f.family().parts(want),
        _ => {
            return Err(Fail::invalid(format!(
                "sources[{i}] must have exactly one of index and family"
            )));
        }
    };
    // Every index of the source has a time index, those out of range too.
    let all: Vec<&lidx_core::Index> = match (index, family) {
        (Some(h), _) => vec![&*h.index],
        (_, Some(f)) => f.family().members().iter().map(|m| &m.index).collect(),
        _ => Vec::new(),
    };
    if let Some(index) = all.iter().find(|x| !x.has_time_index()) {
        return Err(Fail::invalid(format!(
            "sources[{i}]: {}: its sidecar has no time index (open it with LIDX_OPEN_TIME)",
            index.source_path().display()
        )));
    }
    Ok(parts)
}

/// Merges the lines of `n` sources by time, on the calling thread, and
/// calls `callback` (may be NULL: only count) with each in time order: a
/// k-way merge driven by each source's time index, reading a batch of
/// lines per source at a time (memory does not grow with the sources'
/// size). A line's time is its stamp's, or for a line without one (a stack
/// trace's) the last stamp's before it, so a record stays whole. Lines
/// before a source's first stamp (no time) come first; ties keep the order
/// of the sources, then of the lines. A source whose times are not in
/// order is still read in its own order: the merge interleaves, it never
/// sorts a source. `*merged` (may be NULL) receives the number of lines
/// given to the callback.
///
/// Every index (and every family member) must have a time index (open
/// with LIDX_OPEN_TIME); the same handle may appear in several sources.
///
/// Returns LIDX_OK (also when the callback stopped the merge), or
/// LIDX_ERROR_INVALID (a source without exactly one of `index` and
/// `family`, or without a time index: the message names it), or an error
/// as lidx_read_lines(). Thread-safe: the sources may be used by other
/// threads meanwhile.
///
/// # Safety
/// `sources` points to `n` readable lidx_merge_source (or `n` is 0), each
/// naming live handles; `callback` is NULL or a function of that type;
/// `merged` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_merge_by_time(
    sources: *const lidx_merge_source,
    n: usize,
    callback: lidx_merge_fn,
    ctx: *mut c_void,
    merged: *mut u64,
) -> c_int {
    guard("lidx_merge_by_time", || {
        let sources: &[lidx_merge_source] = if n == 0 {
            &[]
        } else if sources.is_null() {
            return Err(Fail::invalid(format!("sources is NULL with n = {n}")));
        } else {
            // SAFETY: non-NULL, `n` readable structs by the caller's
            // contract, not changed during the call.
            unsafe { std::slice::from_raw_parts(sources, n) }
        };
        let inputs = sources
            .iter()
            .enumerate()
            .map(|(i, s)| {
                Ok(Input {
                    parts: parts(s, i)?,
                })
            })
            .collect::<Result<Vec<_>, Fail>>()?;
        let mut each = |l: &MergedLine<'_>| -> lidx_core::Result<bool> {
            let Some(f) = callback else {
                return Ok(true);
            };
            let line = lidx_merged_line {
                source: l.input,
                line: l.line,
                offset: l.offset,
                time: l.time.unwrap_or(0),
                has_time: i32::from(l.time.is_some()),
                reserved: 0,
                bytes: l.bytes.as_ptr(),
                len: l.bytes.len(),
            };
            // SAFETY: a function the caller gave for this purpose, with its
            // context; `line` and the bytes it points to outlive the call.
            Ok((unsafe { f(ctx, &line) }) == 0)
        };
        let given = merge_by_time(&inputs, &mut each)?;
        // SAFETY: the caller's contract for merged.
        unsafe { ffi::put(merged, given) };
        Ok(())
    })
}
