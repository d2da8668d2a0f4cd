//! Partition plans (`format-spec/partitions-v1.md`): a file's lines split
//! into parts that workers read apart, each decoding from its own access
//! point or frame.

use crate::boundary::{Fail, guard};
use crate::ffi;
use crate::index::{handle, lidx_index};
use crate::status::LIDX_ERROR_BUFFER;
use std::ffi::c_int;

/// One partition of a plan (lidx_partitions()).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct lidx_partition {
    /// Its first line (0-based).
    pub first_line: u64,
    /// Its number of lines (at least 1).
    pub line_count: u64,
    /// Its text: bytes `text_start` .. `text_end` (uncompressed for an
    /// archive), from its first line's start to its last line's end.
    pub text_start: u64,
    /// End (exclusive) of its text.
    pub text_end: u64,
    /// The bytes of the file a reader of it decodes: from the access point
    /// or frame at or before `text_start` to the first at or after
    /// `text_end` (equal to the text's for a plain file).
    pub source_start: u64,
    /// End (exclusive) of the bytes of the file it needs.
    pub source_end: u64,
    /// With `has_time`: every line's time `t` (nanoseconds since the
    /// epoch; its stamp's, or the last stamp's before it) has `time_min <=
    /// t <= time_max`. Bounds: exact for a log written in time order.
    pub time_min: i64,
    /// Upper bound of its lines' times (with `has_time`).
    pub time_max: i64,
    /// 1 when the time bounds hold; 0 without a time index, or when no
    /// line of the partition has a time.
    pub has_time: u32,
    /// Reserved, 0.
    pub reserved: u32,
}

/// Splits lines `first` .. `first + count - 1` (0-based; clamped to the
/// line count) into partitions of about `target_bytes` (>= 1) of text
/// each, in order: every line of the range is in exactly one partition,
/// none is split, and each partition after the first starts at a
/// checkpoint just after a gzip access point or zstd frame (any
/// checkpoint of a plain file), so a reader decodes it from there, never
/// from the start of an archive. Reads only the sidecar (but for a range
/// whose ends are not checkpoints: one line lookup each). All or nothing,
/// as lidx_read_lines():
///
/// - `*n` (may be NULL) receives the number of partitions, always (0 for
///   an empty range);
/// - when `cap` >= that, they are written to `parts[0 .. *n]` and LIDX_OK
///   is returned;
/// - otherwise nothing is written to `parts` and LIDX_ERROR_BUFFER is
///   returned: call again with room for `*n`. `parts` may be NULL with
///   `cap` 0 to learn the number only.
///
/// Other errors: _INVALID (`target_bytes` 0), _IO, _STALE, _FOREIGN,
/// _CORRUPT, _SOURCE, _REMOTE. Thread-safe.
///
/// # Safety
/// `index` is a live handle; `parts` points to `cap` writable
/// lidx_partition (or `cap` is 0); `n` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_partitions(
    index: *const lidx_index,
    first: u64,
    count: u64,
    target_bytes: u64,
    parts: *mut lidx_partition,
    cap: usize,
    n: *mut usize,
) -> c_int {
    guard("lidx_partitions", || {
        // SAFETY: the caller's contract for index.
        let h = unsafe { handle(index) }?;
        if target_bytes == 0 {
            return Err(Fail::invalid("target_bytes is 0"));
        }
        let plan = h
            .index
            .partitions(first..first.saturating_add(count), target_bytes)?;
        // SAFETY: the caller's contract for n.
        unsafe { ffi::put(n, plan.len()) };
        if plan.len() > cap {
            return Err(Fail::new(
                LIDX_ERROR_BUFFER,
                format!(
                    "{}: the plan has {} partitions; the array holds {cap}",
                    h.index.source_path().display(),
                    plan.len()
                ),
            ));
        }
        if plan.is_empty() {
            return Ok(());
        }
        if parts.is_null() {
            return Err(Fail::invalid(format!(
                "parts is NULL with a capacity of {cap}"
            )));
        }
        // SAFETY: non-NULL, `cap` >= plan.len() writable elements by the
        // caller's contract.
        let out = unsafe { std::slice::from_raw_parts_mut(parts, plan.len()) };
        for (o, p) in out.iter_mut().zip(&plan) {
            *o = lidx_partition {
                first_line: p.lines.start,
                line_count: p.lines.end - p.lines.start,
                text_start: p.text.start,
                text_end: p.text.end,
                source_start: p.source.start,
                source_end: p.source.end,
                time_min: p.time.map_or(0, |t| t.0),
                time_max: p.time.map_or(0, |t| t.1),
                has_time: u32::from(p.time.is_some()),
                reserved: 0,
            };
        }
        Ok(())
    })
}
