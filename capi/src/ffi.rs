//! Turning the caller's raw pointers into Rust values, in one place.
//!
//! Every function here is `unsafe`: its contract is the one the header
//! states for the argument (a NUL-terminated string, a handle from this
//! library, writable memory of a size), and the entry points call them
//! with that contract as their `SAFETY` argument. A NULL pointer is never
//! dereferenced: it is an error ([`Fail::invalid`]) or, for optional
//! outputs, skipped.

use crate::boundary::Fail;
use std::ffi::{CStr, OsStr, c_char};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The string at `p`, or an error naming `what` for NULL.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that stays valid and
/// unchanged for `'a`.
pub(crate) unsafe fn cstr<'a>(p: *const c_char, what: &str) -> Result<&'a CStr, Fail> {
    if p.is_null() {
        return Err(Fail::invalid(format!("{what} is NULL")));
    }
    // SAFETY: non-NULL, and the caller guarantees a valid NUL-terminated
    // string for 'a.
    Ok(unsafe { CStr::from_ptr(p) })
}

/// The path at `p` (any bytes but NUL, as the file system takes them; a URL
/// is a path too), or an error for NULL or an empty string.
///
/// # Safety
/// As [`cstr`].
pub(crate) unsafe fn path<'a>(p: *const c_char, what: &str) -> Result<&'a Path, Fail> {
    // SAFETY: same contract as ours.
    let s = unsafe { cstr(p, what) }?;
    if s.is_empty() {
        return Err(Fail::invalid(format!("{what} is empty")));
    }
    Ok(Path::new(OsStr::from_bytes(s.to_bytes())))
}

/// The object behind `p`, or an error naming `what` for NULL.
///
/// # Safety
/// `p` is NULL or points to a live, initialised `T` that is not mutated
/// for `'a` (a handle this library returned and that is not closed).
pub(crate) unsafe fn obj<'a, T>(p: *const T, what: &str) -> Result<&'a T, Fail> {
    // SAFETY: the caller guarantees a valid T for 'a when non-NULL.
    unsafe { p.as_ref() }.ok_or_else(|| Fail::invalid(format!("{what} is NULL")))
}

/// Stores `value` at `p` unless `p` is NULL (an output the caller does not
/// want).
///
/// # Safety
/// `p` is NULL or points to writable memory for a `T`, suitably aligned
/// (what it holds is overwritten without being read or dropped).
pub(crate) unsafe fn put<T: Copy>(p: *mut T, value: T) {
    if !p.is_null() {
        // SAFETY: non-NULL, writable and aligned by the caller's contract;
        // T is Copy, so nothing is dropped.
        unsafe { p.write(value) }
    }
}

/// Stores `value` at the required output `p`.
///
/// # Safety
/// As [`put`].
pub(crate) unsafe fn put_required<T: Copy>(p: *mut T, value: T, what: &str) -> Result<(), Fail> {
    if p.is_null() {
        return Err(Fail::invalid(format!("{what} is NULL")));
    }
    // SAFETY: same contract as ours, and p is non-NULL.
    unsafe { put(p, value) };
    Ok(())
}

/// The caller's buffer of `cap` bytes at `p` (NULL is allowed when `cap` is
/// 0).
///
/// # Safety
/// `p` points to `cap` writable bytes that nothing else reads or writes
/// for `'a` (or `cap` is 0).
pub(crate) unsafe fn buffer<'a>(p: *mut u8, cap: usize) -> Result<&'a mut [u8], Fail> {
    if cap == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(Fail::invalid(format!(
            "buf is NULL with a capacity of {cap} bytes"
        )));
    }
    // SAFETY: non-NULL, `cap` writable bytes exclusively ours for 'a by the
    // caller's contract; u8 has no alignment or validity requirement.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, cap) })
}

/// Takes back a handle made by [`Box::into_raw`]; `None` for NULL.
///
/// # Safety
/// `p` is NULL or a pointer this library returned from `Box::into_raw` for
/// a `T`, not freed yet, and used by no other call now or later.
pub(crate) unsafe fn take<T>(p: *mut T) -> Option<Box<T>> {
    // SAFETY: by the caller's contract, p came from Box::into_raw and is
    // given back exactly once.
    (!p.is_null()).then(|| unsafe { Box::from_raw(p) })
}
