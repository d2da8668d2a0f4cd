//! Rotation families: `app.log`, `app.log.1`, `app.log.2.gz`, ... read as
//! one log with global line numbers that never change (the core's
//! `lidx::family`). A family handle answers as an index handle does, in
//! global numbers, and lends out one index handle per member, so that
//! every index function works on a member too.

use crate::boundary::{Fail, guard};
use crate::ffi;
use crate::index::{LIDX_POLICY_FORCE, LIDX_POLICY_NO_REFRESH, Policy, c_path, core_options};
use crate::index::{instant, lidx_index, lidx_open_options};
use crate::status::{LIDX_ERROR_BUFFER, LIDX_PAST_END};
use lidx_core::family::{Family, FamilyAction};
use lidx_core::{Error, OpenOptions};
use std::ffi::{CString, c_char, c_int};
use std::path::Path;
use std::sync::Arc;

/// An open rotation family. Opaque; made by lidx_family_open(), freed by
/// lidx_family_close() (which frees its member handles too).
///
/// Thread safety: as a lidx_index: every function that takes a
/// `const lidx_family *` may be called concurrently on the same handle
/// (and on its member handles); only lidx_family_close() must not run
/// concurrently with, or be followed by, any other use of the family or
/// of its member handles.
pub struct lidx_family {
    family: Arc<Family>,
    /// One handle per member, lent out by lidx_family_member(). Never
    /// reallocated: the pointers lent stay valid until the family is
    /// closed.
    members: Vec<lidx_index>,
    /// The members' paths now, as lidx_family_member() gives them.
    paths: Vec<CString>,
    manifest: CString,
}

/// The family's manifest was current: nothing was written.
pub const LIDX_FAMILY_OPENED: i32 = 0;
/// There was no manifest: the members were numbered from line 0 and one
/// was written.
pub const LIDX_FAMILY_NUMBERED: i32 = 1;
/// Members were added (a rotation), dropped (the oldest deleted) or
/// sealed; the manifest was rewritten and no line number changed.
pub const LIDX_FAMILY_UPDATED: i32 = 2;
/// The members were numbered from line 0 again, as `renumber` asked.
pub const LIDX_FAMILY_RENUMBERED: i32 = 3;

/// Builds, extends or refreshes the sidecars of the family's files before
/// the family is opened, so that `progress` sees the whole set (bytes of
/// every file, in turn). A file that fails here is left to
/// `Family::open`, which reports it; a cancellation is returned.
fn build_members(
    live: &Path,
    oo: &OpenOptions,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<(), Error> {
    let files = lidx_core::family::prepare(live)?;
    let sizes: Vec<u64> = files
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .collect();
    let total: u64 = sizes.iter().sum();
    let mut finished = 0u64;
    for (file, &size) in files.iter().zip(&sizes) {
        let r = oo.open_cancellable(file, &mut |done, _| {
            progress((finished + done.min(size)).min(total), total)
        });
        if let Err(e @ Error::Cancelled { .. }) = r {
            return Err(e);
        }
        finished += size;
    }
    Ok(())
}

/// Opens the rotation family whose live file is `live` (a local path; the
/// live file itself may be missing for a moment after a rotation): its
/// files are found by name (`app.log.1`, `app.log.2.gz`, logrotate's dated
/// names), each member's sidecar is opened, built or extended as `opts`
/// says, and the family's manifest (`LIVE.family.lidx`, or in the user
/// cache directory) is read, checked against the files and brought up to
/// date. Each member keeps the global line numbers it was given when
/// first seen, however it is renamed or compressed; when the oldest
/// member is deleted, the numbers of the others do not change (the
/// family's first line is then above 0).
///
/// - `live`: NUL-terminated, borrowed for the call only.
/// - `opts`: NULL for the defaults, or filled by lidx_open_options_init():
///   the policy (LIDX_POLICY_NO_REFRESH: every sidecar must be fresh;
///   LIDX_POLICY_FORCE: every one is rebuilt), the flags (LIDX_OPEN_TIME
///   for time queries), the cache budget (per member), spacing and span
///   apply to every member, and `progress` sees the bytes of every file
///   built in turn. `opts->sidecar` must be NULL (each member has its own)
///   and LIDX_POLICY_INSPECT is refused (LIDX_ERROR_INVALID).
/// - `renumber`: nonzero discards the manifest and numbers the members
///   from line 0 again: the way out of LIDX_ERROR_FAMILY.
/// - `out`: receives the new handle on success (left unchanged on error);
///   the caller owns it and frees it with lidx_family_close().
///
/// When a rotation happened less than 2 seconds ago, the call waits for
/// the rotated file to be left alone (a writer may still append to it)
/// before counting its lines.
///
/// Returns LIDX_OK; LIDX_ERROR_FAMILY when the files do not match the
/// recorded numbering (a member missing between others, one replaced, a
/// rotated member that grew: the message names the file); or an error as
/// lidx_open() (LIDX_ERROR_IO when no file of the family exists).
///
/// Thread-safe: any number of threads may open families at once; the
/// manifest, as a sidecar, is written to a temporary file and renamed.
///
/// # Safety
/// `live` is a NUL-terminated string; `opts` is NULL or a valid options
/// struct; `out` points to writable memory for a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_family_open(
    live: *const c_char,
    opts: *const lidx_open_options,
    renumber: c_int,
    out: *mut *mut lidx_family,
) -> c_int {
    guard("lidx_family_open", || {
        if out.is_null() {
            return Err(Fail::invalid("out is NULL"));
        }
        // SAFETY: the caller's contract for live.
        let live = unsafe { ffi::path(live, "live") }?;
        // SAFETY: the caller's contract for opts.
        let (mut oo, policy, o) = unsafe { core_options(opts) }?;
        if policy == Policy::Inspect {
            return Err(Fail::invalid(
                "LIDX_POLICY_INSPECT cannot open a rotation family (its members are \
                 recognised and numbered as they are now)",
            ));
        }
        if o.is_some_and(|o| !o.sidecar.is_null()) {
            return Err(Fail::invalid(
                "opts->sidecar names one file's sidecar; each member of a rotation family \
                 has its own (leave it NULL)",
            ));
        }
        if lidx_core::io::is_url(live) {
            return Err(Fail::invalid(format!(
                "{}: a rotation family is a local directory's files, not a URL",
                live.display()
            )));
        }
        let policy = o.map_or(0, |o| o.policy);
        if policy != LIDX_POLICY_NO_REFRESH {
            let (callback, ctx) = o.map_or((None, std::ptr::null_mut()), |o| {
                (o.progress, o.progress_ctx)
            });
            let mut progress = |done: u64, total: u64| match callback {
                // SAFETY: a function the caller gave for this purpose,
                // with the context it gave; it returns normally.
                Some(f) => (unsafe { f(ctx, done, total) }) == 0,
                None => true,
            };
            build_members(live, &oo, &mut progress)?;
        }
        if policy == LIDX_POLICY_FORCE {
            // Rebuilt just above: the family's open uses them as they are.
            oo.force(false);
        }
        let family = Arc::new(Family::open(live, &oo, renumber != 0)?);
        let members = (0..family.members().len())
            .map(|k| lidx_index::member(Arc::clone(&family), k))
            .collect();
        let paths = family.members().iter().map(|m| c_path(&m.path)).collect();
        let handle = lidx_family {
            manifest: c_path(family.manifest_path()),
            family,
            members,
            paths,
        };
        let raw = Box::into_raw(Box::new(handle));
        // SAFETY: out is non-NULL and writable by the caller's contract.
        unsafe { ffi::put(out, raw) };
        Ok(())
    })
}

/// Closes `family` and frees everything it owns: its member handles (from
/// lidx_family_member()) and the strings it gave out included. NULL is
/// allowed (nothing is done). Returns LIDX_OK.
///
/// Not thread-safe with respect to `family`: no other call may be using
/// it or one of its member handles, and none of them may be used
/// afterwards.
///
/// # Safety
/// `family` is NULL or a handle from lidx_family_open() not closed yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_family_close(family: *mut lidx_family) -> c_int {
    guard("lidx_family_close", || {
        // SAFETY: the caller's contract: a live handle given back once.
        drop(unsafe { ffi::take(family) });
        Ok(())
    })
}

/// The handle behind `p`.
///
/// # Safety
/// `p` is NULL or a live family handle.
unsafe fn handle<'a>(p: *const lidx_family) -> Result<&'a lidx_family, Fail> {
    // SAFETY: the caller's contract.
    unsafe { ffi::obj(p, "family") }
}

/// A line that is not in the family, said in this interface's terms.
fn not_present(f: &Family, what: &str) -> Fail {
    let (first, end) = (f.first_line(), f.end_line());
    let lines = if first < end {
        format!("lines {first}..{} are, numbered from 0", end - 1)
    } else {
        "it has no lines".to_string()
    };
    Fail::new(
        LIDX_PAST_END,
        format!(
            "{}: {what} is not in the rotation family ({lines})",
            f.live_path().display()
        ),
    )
}

/// Stores the family's global line numbers: `*first` the oldest line
/// present (above 0 once members were deleted), `*end` the number just
/// past the newest line (`*end - *first` lines are present). Either
/// output may be NULL. No I/O. Returns LIDX_OK or LIDX_ERROR_INVALID.
/// Thread-safe.
///
/// # Safety
/// `family` is a live handle; `first`, `end` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_family_lines(
    family: *const lidx_family,
    first: *mut u64,
    end: *mut u64,
) -> c_int {
    guard("lidx_family_lines", || {
        // SAFETY: the caller's contract for family.
        let f = &unsafe { handle(family) }?.family;
        // SAFETY: the caller's contract for first and end.
        unsafe {
            ffi::put(first, f.first_line());
            ffi::put(end, f.end_line());
        }
        Ok(())
    })
}

/// Stores the number of members in `*count` (at least 1: the live file,
/// or the newest rotated one while the live file is missing). No I/O.
/// Returns LIDX_OK or LIDX_ERROR_INVALID. Thread-safe.
///
/// # Safety
/// `family` is a live handle; `count` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_family_member_count(
    family: *const lidx_family,
    count: *mut usize,
) -> c_int {
    guard("lidx_family_member_count", || {
        // SAFETY: the caller's contract for family.
        let h = unsafe { handle(family) }?;
        // SAFETY: the caller's contract for count.
        unsafe { ffi::put(count, h.members.len()) };
        Ok(())
    })
}

/// Describes member `i` (0-based, oldest first; the live file is the
/// last): `*path` its file now (NUL-terminated), `*base_line` the global
/// number of its first line, `*base_byte` the global offset of its first
/// byte of text, `*index` its index handle. Its local line `k` is global
/// line `*base_line + k`. Any output may be NULL.
///
/// The path and the index handle are BORROWED from the family: valid until
/// lidx_family_close(), never to be freed by the caller (lidx_close()
/// refuses a member handle with LIDX_ERROR_INVALID). Every function that
/// takes a `const lidx_index *` works on the member handle, in the
/// member's own numbers (lidx_info() reports LIDX_ACTION_MEMBER).
///
/// No I/O. Returns LIDX_OK, or LIDX_ERROR_INVALID (also when `i` >= the
/// member count). Thread-safe.
///
/// # Safety
/// `family` is a live handle; `path`, `base_line`, `base_byte` and `index`
/// are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_family_member(
    family: *const lidx_family,
    i: usize,
    path: *mut *const c_char,
    base_line: *mut u64,
    base_byte: *mut u64,
    index: *mut *const lidx_index,
) -> c_int {
    guard("lidx_family_member", || {
        // SAFETY: the caller's contract for family.
        let h = unsafe { handle(family) }?;
        let Some(m) = h.family.members().get(i) else {
            return Err(Fail::invalid(format!(
                "member {i} does not exist (the family has {})",
                lidx_core::count_of(h.members.len() as u64, "member", "members")
            )));
        };
        // SAFETY: the caller's contract for the outputs.
        unsafe {
            ffi::put(path, h.paths[i].as_ptr());
            ffi::put(base_line, m.base_line);
            ffi::put(base_byte, m.base_byte);
            ffi::put(index, &h.members[i] as *const lidx_index);
        }
        Ok(())
    })
}

/// Stores in `*member` the position (as lidx_family_member() takes it) of
/// the member that holds global line `line`. No I/O.
///
/// Returns LIDX_OK; LIDX_PAST_END when no member holds it (at or past the
/// end, or below the oldest line: rotated away) (output unchanged); or
/// LIDX_ERROR_INVALID. Thread-safe.
///
/// # Safety
/// `family` is a live handle; `member` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_family_member_of(
    family: *const lidx_family,
    line: u64,
    member: *mut usize,
) -> c_int {
    guard("lidx_family_member_of", || {
        // SAFETY: the caller's contract for family.
        let f = &unsafe { handle(family) }?.family;
        let i = f
            .member_of(line)
            .ok_or_else(|| not_present(f, &format!("line {line}")))?;
        // SAFETY: the caller's contract for member.
        unsafe { ffi::put(member, i) };
        Ok(())
    })
}

/// Reads global lines `first` .. `first + count - 1` (clamped to the lines
/// present: those below the oldest line are skipped, so the lines read
/// start at the larger of `first` and lidx_family_lines()'s `*first`) into
/// `buf`, back to back, as lidx_read_lines() reads a file's: all or
/// nothing, `*needed` the bytes they take, `*lines_read` their number,
/// LIDX_ERROR_BUFFER when `cap` is too short (nothing written; call again
/// with `*needed` bytes). A member's last line without its newline is
/// given one when a line of the next member follows it in the buffer, so
/// that each line read ends with a newline except, possibly, the family's
/// very last.
///
/// Other errors: as lidx_read_lines(). Thread-safe; `buf` belongs to the
/// caller and is not kept.
///
/// # Safety
/// `family` is a live handle; `buf` points to `cap` writable bytes (or
/// `cap` is 0); `needed` and `lines_read` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_family_read_lines(
    family: *const lidx_family,
    first: u64,
    count: u64,
    buf: *mut u8,
    cap: usize,
    needed: *mut usize,
    lines_read: *mut u64,
) -> c_int {
    guard("lidx_family_read_lines", || {
        // SAFETY: the caller's contract for family.
        let f = &unsafe { handle(family) }?.family;
        // SAFETY: the caller's contract for buf and cap.
        let buf = unsafe { ffi::buffer(buf, cap) }?;
        let got = f.read_lines_into(first..first.saturating_add(count), buf)?;
        let len = usize::try_from(got.len).unwrap_or(usize::MAX);
        // SAFETY: the caller's contract for needed and lines_read.
        unsafe {
            ffi::put(needed, len);
            ffi::put(lines_read, if got.read { got.lines } else { 0 });
        }
        if got.read {
            Ok(())
        } else {
            Err(Fail::new(
                LIDX_ERROR_BUFFER,
                format!(
                    "{}: lines {}..{} take {} bytes; the buffer holds {cap}",
                    f.live_path().display(),
                    got.first_line,
                    got.first_line + got.lines,
                    got.len
                ),
            ))
        }
    })
}

/// Stores in `*line` the global number of the line that holds global byte
/// offset `offset` (member `i`'s text starts at its `base_byte`; a newline
/// belongs to the line it ends).
///
/// Returns LIDX_OK; LIDX_PAST_END when no member holds that offset (at or
/// past the end of the newest member's text, or below the oldest
/// member's) (output unchanged); or an error as lidx_line_span().
/// Thread-safe.
///
/// # Safety
/// `family` is a live handle; `line` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_family_line_at(
    family: *const lidx_family,
    offset: u64,
    line: *mut u64,
) -> c_int {
    guard("lidx_family_line_at", || {
        // SAFETY: the caller's contract for family.
        let f = &unsafe { handle(family) }?.family;
        let n = f
            .line_at(offset)?
            .ok_or_else(|| not_present(f, &format!("offset {offset}")))?;
        // SAFETY: the caller's contract for line.
        unsafe { ffi::put(line, n) };
        Ok(())
    })
}

/// Stores in `*line` the global number of the first line, in family order
/// (oldest member first), whose time is at or after `t` (nanoseconds since
/// 1970-01-01T00:00:00Z), or lidx_family_lines()'s `*end` when no line's
/// is. Times as lidx_line_at_time(); every member must have a time index
/// (open with LIDX_OPEN_TIME; else LIDX_ERROR_INVALID).
///
/// Returns LIDX_OK, or an error as lidx_line_span(). Thread-safe.
///
/// # Safety
/// `family` is a live handle; `line` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_family_line_at_time(
    family: *const lidx_family,
    t: i64,
    line: *mut u64,
) -> c_int {
    guard("lidx_family_line_at_time", || {
        // SAFETY: the caller's contract for family.
        let f = &unsafe { handle(family) }?.family;
        let n = f.line_at_time(t)?;
        // SAFETY: the caller's contract for line.
        unsafe { ffi::put(line, n) };
        Ok(())
    })
}

/// The global lines of a time range, as lidx_time_range() gives a file's:
/// `*first` and `*count` cover every member's own range (from the first
/// line at or after `*since` to the last before `*until`; NULL: no bound),
/// `*count` 0 when no line is in it; pass them to
/// lidx_family_read_lines(). Every member must have a time index
/// (LIDX_OPEN_TIME; else LIDX_ERROR_INVALID). Either output may be NULL.
///
/// Returns LIDX_OK, or an error as lidx_line_span(). Thread-safe.
///
/// # Safety
/// `family` is a live handle; `since` and `until` are NULL or readable;
/// `first` and `count` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_family_time_range(
    family: *const lidx_family,
    since: *const i64,
    until: *const i64,
    first: *mut u64,
    count: *mut u64,
) -> c_int {
    guard("lidx_family_time_range", || {
        // SAFETY: the caller's contract for family.
        let f = &unsafe { handle(family) }?.family;
        // SAFETY: the caller's contract for since and until.
        let (since, until) = unsafe { (instant(since), instant(until)) };
        let r = f.time_range(since, until)?;
        // SAFETY: the caller's contract for first and count.
        unsafe {
            ffi::put(first, r.start);
            ffi::put(count, r.end - r.start);
        }
        Ok(())
    })
}

/// Where the family's manifest is (`*path`, NUL-terminated, owned by the
/// family: valid until lidx_family_close()) and what opening did to it
/// (`*action`, a LIDX_FAMILY_*). Either output may be NULL. No I/O.
/// Returns LIDX_OK or LIDX_ERROR_INVALID. Thread-safe.
///
/// # Safety
/// `family` is a live handle; `path` and `action` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_family_manifest(
    family: *const lidx_family,
    path: *mut *const c_char,
    action: *mut i32,
) -> c_int {
    guard("lidx_family_manifest", || {
        // SAFETY: the caller's contract for family.
        let h = unsafe { handle(family) }?;
        let a = match h.family.action() {
            FamilyAction::Opened => LIDX_FAMILY_OPENED,
            FamilyAction::Numbered => LIDX_FAMILY_NUMBERED,
            FamilyAction::Updated => LIDX_FAMILY_UPDATED,
            FamilyAction::Renumbered => LIDX_FAMILY_RENUMBERED,
        };
        // SAFETY: the caller's contract for path and action.
        unsafe {
            ffi::put(path, h.manifest.as_ptr());
            ffi::put(action, a);
        }
        Ok(())
    })
}

impl lidx_family {
    /// The core family (for the merge).
    pub(crate) fn family(&self) -> &Arc<Family> {
        &self.family
    }
}
