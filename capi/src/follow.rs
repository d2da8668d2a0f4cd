//! Following a growing file: each poll says which new complete lines
//! arrived (and hands out an index that reads them), or that the file was
//! truncated or replaced.

use crate::boundary::{Fail, guard};
use crate::ffi;
use crate::index::{LIDX_ACTION_FOLLOWED, Policy, core_options, lidx_index, lidx_open_options};
use crate::status::LIDX_ERROR_INTERNAL;
use lidx_core::{FollowEvent, Follower};
use std::ffi::{c_char, c_int};
use std::sync::{Arc, Mutex};

/// Follows one file as it grows (`tail -f` with line numbers). Opaque; made
/// by lidx_follow_open(), freed by lidx_follow_close().
///
/// Thread safety: any thread may use it; calls on one follower from several
/// threads at once are serialised (each poll sees the previous one's
/// result).
pub struct lidx_follower {
    inner: Mutex<Follower>,
}

/// Nothing new since the last poll.
pub const LIDX_FOLLOW_IDLE: i32 = 0;
/// New complete lines arrived: lines `first` .. `first + count - 1`.
pub const LIDX_FOLLOW_LINES: i32 = 1;
/// The file was truncated or replaced (rotated, rewritten): following
/// restarted at its first line, which the next polls report.
pub const LIDX_FOLLOW_RESTARTED: i32 = 2;
/// The file does not exist now (deleted, or rotated away and not made
/// again yet). Each poll says so while it lasts; following goes on if a
/// file of that name appears (LIDX_FOLLOW_RESTARTED). A caller that
/// follows a file that is deleted for good stops here.
pub const LIDX_FOLLOW_MISSING: i32 = 3;

/// What one lidx_follow_poll() saw.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct lidx_follow_event {
    /// LIDX_FOLLOW_IDLE, LIDX_FOLLOW_LINES, LIDX_FOLLOW_RESTARTED or
    /// LIDX_FOLLOW_MISSING.
    pub kind: i32,
    /// Reserved, 0.
    pub reserved: i32,
    /// LIDX_FOLLOW_LINES: the 0-based number of the first new line (else 0).
    pub first: u64,
    /// LIDX_FOLLOW_LINES: how many new complete lines (else 0).
    pub count: u64,
}

/// Starts following `path` (a local file) at 0-based line `from`: lines
/// before it are never reported; a poll reports the complete lines from it
/// on as they exist. To follow only what is appended from now on, pass the
/// current line count (lidx_line_count()). A last line without its newline
/// yet is reported once the newline arrives.
///
/// `opts` (NULL for the defaults) is used for every poll's open, except its
/// progress callback and LIDX_POLICY_INSPECT, which do not apply (the
/// default LIDX_POLICY_REFRESH is what following needs: each poll extends
/// the sidecar over the new bytes only). Opening the index first with
/// lidx_open() builds the sidecar with progress reporting.
///
/// `out` receives the new follower (unchanged on error); the caller owns it
/// and frees it with lidx_follow_close(). Returns LIDX_OK,
/// LIDX_ERROR_INVALID or LIDX_ERROR_IO. Thread-safe.
///
/// # Safety
/// `path` is a NUL-terminated string; `opts` is NULL or valid; `out` points
/// to writable memory for a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_follow_open(
    path: *const c_char,
    opts: *const lidx_open_options,
    from: u64,
    out: *mut *mut lidx_follower,
) -> c_int {
    guard("lidx_follow_open", || {
        if out.is_null() {
            return Err(Fail::invalid("out is NULL"));
        }
        // SAFETY: the caller's contract for path.
        let path = unsafe { ffi::path(path, "path") }?;
        // SAFETY: the caller's contract for opts.
        let (oo, policy, _) = unsafe { core_options(opts) }?;
        if policy == Policy::Inspect {
            return Err(Fail::invalid(
                "LIDX_POLICY_INSPECT cannot follow a file (a poll must refresh the sidecar)",
            ));
        }
        let follower = Follower::new(path, from, &oo)?;
        let raw = Box::into_raw(Box::new(lidx_follower {
            inner: Mutex::new(follower),
        }));
        // SAFETY: out is non-NULL and writable by the caller's contract.
        unsafe { ffi::put(out, raw) };
        Ok(())
    })
}

/// Checks the file once. `*event` receives what was seen. On
/// LIDX_FOLLOW_LINES, when `index` is not NULL, `*index` receives a new
/// handle that reads those lines (and every line before them): the file as
/// it was at this poll, its sidecar extended over the new bytes. The caller
/// owns it and frees it with lidx_close(); it stays valid after later polls
/// (a viewer replaces its handle with it). Otherwise `*index` is set to
/// NULL. The new lines count as reported once returned: the next poll
/// starts after them, whether or not the caller reads them.
///
/// Returns LIDX_OK (whatever the event), or an error as lidx_open(); an
/// error leaves the follower as it was (the next poll tries again).
/// Thread-safe (see lidx_follower).
///
/// # Safety
/// `follower` is a live follower; `event` points to writable memory for a
/// lidx_follow_event; `index` is NULL or points to writable memory for a
/// pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_follow_poll(
    follower: *const lidx_follower,
    event: *mut lidx_follow_event,
    index: *mut *mut lidx_index,
) -> c_int {
    guard("lidx_follow_poll", || {
        // SAFETY: the caller's contract for follower.
        let f = unsafe { ffi::obj(follower, "follower") }?;
        if event.is_null() {
            return Err(Fail::invalid("event is NULL"));
        }
        let mut follower = f.inner.lock().map_err(|_| {
            Fail::new(
                LIDX_ERROR_INTERNAL,
                "the follower is unusable after an internal error in an earlier poll",
            )
        })?;
        // The first new line is where the follower stood before the poll.
        let first = follower.next_line();
        let (seen, polled) = follower.poll_index()?;
        drop(follower);
        let mut ev = lidx_follow_event {
            kind: LIDX_FOLLOW_IDLE,
            reserved: 0,
            first: 0,
            count: 0,
        };
        let mut handle = std::ptr::null_mut();
        match seen {
            FollowEvent::Idle => {}
            FollowEvent::Restarted => ev.kind = LIDX_FOLLOW_RESTARTED,
            FollowEvent::Missing => ev.kind = LIDX_FOLLOW_MISSING,
            FollowEvent::Lines(count) => {
                ev.kind = LIDX_FOLLOW_LINES;
                ev.first = first;
                ev.count = count;
                if let (Some(ix), false) = (polled, index.is_null()) {
                    handle = Box::into_raw(Box::new(lidx_index::new(
                        Arc::new(ix),
                        LIDX_ACTION_FOLLOWED,
                        None,
                    )));
                }
            }
        }
        // SAFETY: the caller's contract for event and index.
        unsafe {
            ffi::put(event, ev);
            ffi::put(index, handle);
        }
        Ok(())
    })
}

/// Stops following and frees `follower`. NULL is allowed. Returns LIDX_OK.
/// Handles it gave out stay valid (close them with lidx_close()).
///
/// Not thread-safe with respect to `follower`: no poll may be using it,
/// and it must not be used afterwards.
///
/// # Safety
/// `follower` is NULL or a follower from lidx_follow_open() not closed yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_follow_close(follower: *mut lidx_follower) -> c_int {
    guard("lidx_follow_close", || {
        // SAFETY: the caller's contract: a live follower given back once.
        drop(unsafe { ffi::take(follower) });
        Ok(())
    })
}
