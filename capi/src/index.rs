//! The index handle: opening (with options and a progress callback that can
//! cancel), the queries (time queries included), the verdict and the
//! summary, closing.

use crate::boundary::{Fail, guard};
use crate::ffi;
use crate::status::LIDX_ERROR_BUFFER;
use lidx_core::family::Family;
use lidx_core::{Action, Evidence, Index, OpenOptions, Opened, Proof, TimeOptions, Verdict};
use std::ffi::{CString, c_char, c_int, c_void};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;

/// The core index a handle reads: its own, or a member's of an open
/// rotation family (which the family owns).
#[derive(Debug, Clone)]
pub(crate) enum Shared {
    /// An index of its own.
    Own(Arc<Index>),
    /// Member `.1` of the family.
    Member(Arc<Family>, usize),
}

impl std::ops::Deref for Shared {
    type Target = Index;

    fn deref(&self) -> &Index {
        match self {
            Shared::Own(i) => i,
            Shared::Member(f, k) => &f.members()[*k].index,
        }
    }
}

/// An open index: a source (a file, a gzip archive, a URL) bound to its
/// sidecar. Opaque; made by lidx_open() or lidx_follow_poll(), freed by
/// lidx_close().
///
/// Thread safety: one handle may serve any number of threads at once; every
/// function that takes a `const lidx_index *` may be called concurrently on
/// the same handle. Only lidx_close() must not run concurrently with, or be
/// followed by, any other use of the handle.
pub struct lidx_index {
    pub(crate) index: Shared,
    /// A member handle of a family (lidx_family_member()): freed with the
    /// family, never by lidx_close().
    pub(crate) borrowed: bool,
    /// LIDX_ACTION_*.
    action: i32,
    warning: Option<CString>,
    source_path: CString,
    sidecar_path: CString,
    damage: Option<CString>,
}

pub(crate) fn c_path(p: &Path) -> CString {
    // A path has no NUL byte; an empty string is the fallback if one did.
    CString::new(p.as_os_str().as_bytes()).unwrap_or_default()
}

fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', "\\0")).unwrap_or_default()
}

impl lidx_index {
    pub(crate) fn new(index: Arc<Index>, action: i32, warning: Option<String>) -> lidx_index {
        lidx_index::with(Shared::Own(index), false, action, warning)
    }

    /// A handle of `index` owned by another handle (a collection's).
    pub(crate) fn lent(index: Arc<Index>, action: i32) -> lidx_index {
        lidx_index::with(Shared::Own(index), true, action, None)
    }

    /// The handle of member `k` of `family`, owned by the family's handle.
    pub(crate) fn member(family: Arc<Family>, k: usize) -> lidx_index {
        lidx_index::with(Shared::Member(family, k), true, LIDX_ACTION_MEMBER, None)
    }

    fn with(index: Shared, borrowed: bool, action: i32, warning: Option<String>) -> lidx_index {
        lidx_index {
            source_path: c_path(index.source_path()),
            sidecar_path: c_path(index.sidecar_path()),
            damage: index.damage().map(c_string),
            warning: warning.as_deref().map(c_string),
            index,
            borrowed,
            action,
        }
    }
}

/// A progress callback: called during a build, an extension or a content
/// check of the source with `done` bytes read of `total`, on the thread
/// that called the opening function. Returns 0 to go on, nonzero to cancel
/// (the open then fails with LIDX_ERROR_CANCELLED and nothing is written).
/// It must return normally: not longjmp() or throw across the library.
pub type lidx_progress_fn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, done: u64, total: u64) -> c_int>;

/// The version of lidx_open_options this header describes.
pub const LIDX_OPEN_OPTIONS_VERSION: u32 = 1;

/// Build, extend or rebuild the sidecar as needed (the default): a missing
/// sidecar is built, a grown source's sidecar extended over the new bytes
/// only, a rewritten source's sidecar rebuilt.
pub const LIDX_POLICY_REFRESH: u32 = 0;
/// Use only a sidecar that is fresh; never write. A missing one is
/// LIDX_ERROR_MISSING, a stale one LIDX_ERROR_STALE (the message says
/// whether the source was appended to or rewritten).
pub const LIDX_POLICY_NO_REFRESH: u32 = 1;
/// Rebuild the sidecar from scratch, even when it is fresh, and overwrite a
/// damaged or foreign one.
pub const LIDX_POLICY_FORCE: u32 = 2;
/// Open the existing sidecar whatever its freshness and never write: the
/// verdict (lidx_verdict()) tells appended from rewritten, and lidx_info()
/// describes the sidecar. Queries about the source (spans, lines, offsets,
/// searches) answer only where the sidecar describes its bytes: with
/// LIDX_VERDICT_UNCHANGED, and with LIDX_VERDICT_APPENDED for the lines
/// indexed (the source as it was indexed). With LIDX_VERDICT_REWRITTEN or
/// LIDX_VERDICT_UNVERIFIED they fail with LIDX_ERROR_STALE, or
/// LIDX_ERROR_FOREIGN for a sidecar built for a file of another name; a
/// query that finds the source changed fails with LIDX_ERROR_STALE.
pub const LIDX_POLICY_INSPECT: u32 = 3;

/// Index the source's bytes as they are, whatever its first bytes say (a
/// file that only starts like gzip; compressed data wanted as bytes).
/// Without it, a build refuses another compression format
/// (LIDX_ERROR_UNSUPPORTED). An explicit choice: a sidecar that indexes
/// the text of a gzip or zstd archive is not used for its bytes
/// (LIDX_ERROR_INVALID, the sidecar left as it is); LIDX_POLICY_FORCE
/// rebuilds it over the bytes, `sidecar` names another one.
pub const LIDX_OPEN_PLAIN: u32 = 1;

/// Builds also index the lines' times (a time index in the sidecar): then
/// lidx_line_at_time(), lidx_time_range() and lidx_merge_by_time() work.
/// The stamp format is detected from the first lines (ISO 8601, syslog,
/// common log format, epoch seconds or milliseconds, and others, as
/// `lidx index --time`); stamps without a zone are read in the system's
/// time zone (`TZ`). A fresh sidecar without a time index is built again
/// (LIDX_ACTION_TIME_ADDED), unless the policy forbids writing. Without
/// this flag, a sidecar that has a time index (built by `lidx index
/// --time`) still answers time queries.
pub const LIDX_OPEN_TIME: u32 = 2;

const OPEN_FLAGS: u32 = LIDX_OPEN_PLAIN | LIDX_OPEN_TIME;

/// How to open a source's index. Fill it with lidx_open_options_init(),
/// then change the fields wanted. The library reads it only during the call
/// it is passed to, and keeps no pointer into it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct lidx_open_options {
    /// LIDX_OPEN_OPTIONS_VERSION (set by lidx_open_options_init()).
    pub version: u32,
    /// LIDX_POLICY_REFRESH (default), LIDX_POLICY_NO_REFRESH,
    /// LIDX_POLICY_FORCE or LIDX_POLICY_INSPECT.
    pub policy: u32,
    /// LIDX_OPEN_* bits (default 0).
    pub flags: u32,
    /// Reserved, 0.
    pub reserved: u32,
    /// The sidecar's path, NUL-terminated; NULL (default) looks for
    /// `SOURCE.lidx` next to the source, then in the user cache directory
    /// (`$XDG_CACHE_HOME/lidx/`), and builds it next to the source when that
    /// directory is writable, else in the cache directory. Borrowed for the
    /// call only.
    pub sidecar: *const c_char,
    /// Page-cache budget in bytes; 0 (default) is 16 MiB. At least one page
    /// is always cached.
    pub cache_bytes: u64,
    /// For builds: bytes of source between checkpoints; 0 (default) is
    /// 64 KiB. An extension keeps the sidecar's spacing.
    pub spacing: u64,
    /// For builds of gzip sources: uncompressed bytes between access
    /// points; 0 (default) is 1.25 MiB.
    pub span: u64,
    /// Progress callback, or NULL (default).
    pub progress: lidx_progress_fn,
    /// Passed to `progress` as its first argument; never dereferenced by the
    /// library.
    pub progress_ctx: *mut c_void,
}

/// Fills `opts` with the defaults (see each field). Returns LIDX_OK, or
/// LIDX_ERROR_INVALID when `opts` is NULL. Thread-safe.
///
/// # Safety
/// `opts` is NULL or points to writable memory for a lidx_open_options.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_open_options_init(opts: *mut lidx_open_options) -> c_int {
    guard("lidx_open_options_init", || {
        let defaults = lidx_open_options {
            version: LIDX_OPEN_OPTIONS_VERSION,
            policy: LIDX_POLICY_REFRESH,
            flags: 0,
            reserved: 0,
            sidecar: std::ptr::null(),
            cache_bytes: 0,
            spacing: 0,
            span: 0,
            progress: None,
            progress_ctx: std::ptr::null_mut(),
        };
        // SAFETY: the caller's contract: NULL or writable memory for one.
        unsafe { ffi::put_required(opts, defaults, "opts") }
    })
}

/// The policy, as what to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Policy {
    Open,
    Inspect,
}

/// The core's options for `opts` (NULL: the defaults).
///
/// # Safety
/// `opts` is NULL or points to a lidx_open_options whose `sidecar` is NULL
/// or a NUL-terminated string, valid during the call.
pub(crate) unsafe fn core_options(
    opts: *const lidx_open_options,
) -> Result<(OpenOptions, Policy, Option<lidx_open_options>), Fail> {
    let mut oo = OpenOptions::new();
    // SAFETY: the caller's contract for opts.
    let Some(o) = (unsafe { opts.as_ref() }).copied() else {
        return Ok((oo, Policy::Open, None));
    };
    if o.version != LIDX_OPEN_OPTIONS_VERSION {
        return Err(Fail::invalid(format!(
            "lidx_open_options version {} is not {LIDX_OPEN_OPTIONS_VERSION} \
             (fill it with lidx_open_options_init())",
            o.version
        )));
    }
    if o.reserved != 0 {
        return Err(Fail::invalid(format!(
            "lidx_open_options.reserved is {}, not 0",
            o.reserved
        )));
    }
    if o.flags & !OPEN_FLAGS != 0 {
        return Err(Fail::invalid(format!(
            "unknown lidx_open_options flags {:#x}",
            o.flags & !OPEN_FLAGS
        )));
    }
    if !o.sidecar.is_null() {
        // SAFETY: the caller's contract for opts.sidecar.
        oo.sidecar(unsafe { ffi::path(o.sidecar, "opts->sidecar") }?);
    }
    if o.cache_bytes != 0 {
        oo.cache_bytes(usize::try_from(o.cache_bytes).unwrap_or(usize::MAX));
    }
    if o.spacing != 0 {
        oo.spacing(o.spacing);
    }
    if o.span != 0 {
        oo.span(o.span);
    }
    oo.plain(o.flags & LIDX_OPEN_PLAIN != 0);
    if o.flags & LIDX_OPEN_TIME != 0 {
        oo.time(TimeOptions::default());
    }
    let policy = match o.policy {
        LIDX_POLICY_REFRESH => Policy::Open,
        LIDX_POLICY_NO_REFRESH => {
            oo.refresh(false);
            Policy::Open
        }
        LIDX_POLICY_FORCE => {
            oo.force(true);
            Policy::Open
        }
        LIDX_POLICY_INSPECT => Policy::Inspect,
        p => return Err(Fail::invalid(format!("unknown policy {p}"))),
    };
    Ok((oo, policy, Some(o)))
}

/// Opens the index of `path`: a file, a gzip archive or a zstd seekable
/// archive (both recognised by their bytes, whatever their names; `lidx
/// pack` makes a zstd one) or a URL (http(s)://, with a query such as a
/// presigned URL's, s3://, gs://, az://), building, extending or
/// rebuilding its sidecar as `opts` says. A directory is
/// LIDX_ERROR_INVALID.
///
/// - `path`: NUL-terminated, borrowed for the call only.
/// - `opts`: NULL for the defaults, or filled by lidx_open_options_init().
/// - `out`: receives the new handle on success (left unchanged on error);
///   the caller owns it and frees it with lidx_close().
///
/// Opening a fresh sidecar reads only its first page and 2 × 64 KiB of the
/// source: its cost does not grow with the file. A build reads the whole
/// source once (calling `opts->progress`).
///
/// Returns LIDX_OK, or LIDX_ERROR_INVALID, _IO, _MISSING, _STALE, _CORRUPT,
/// _UNSUPPORTED, _FOREIGN, _SOURCE, _REMOTE, _CANCELLED.
///
/// Thread-safe: any number of threads may open (the same or different
/// files) at once; a sidecar is written to a temporary file and renamed
/// into place, so a concurrent open never sees half of one.
///
/// # Safety
/// `path` is a NUL-terminated string; `opts` is NULL or a valid options
/// struct; `out` points to writable memory for a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_open(
    path: *const c_char,
    opts: *const lidx_open_options,
    out: *mut *mut lidx_index,
) -> c_int {
    guard("lidx_open", || {
        if out.is_null() {
            return Err(Fail::invalid("out is NULL"));
        }
        // SAFETY: the caller's contract for path and opts.
        let path = unsafe { ffi::path(path, "path") }?;
        // SAFETY: as above.
        let (oo, policy, o) = unsafe { core_options(opts) }?;
        let handle = match policy {
            Policy::Inspect => {
                lidx_index::new(Arc::new(oo.inspect(path)?), LIDX_ACTION_OPENED, None)
            }
            Policy::Open => {
                let (callback, ctx) = o.map_or((None, std::ptr::null_mut()), |o| {
                    (o.progress, o.progress_ctx)
                });
                let mut progress = |done: u64, total: u64| match callback {
                    // SAFETY: a function the caller gave for this purpose,
                    // with the context it gave; it returns normally.
                    Some(f) => (unsafe { f(ctx, done, total) }) == 0,
                    None => true,
                };
                let Opened {
                    index,
                    action,
                    warning,
                } = oo.open_cancellable(path, &mut progress)?;
                lidx_index::new(Arc::new(index), action_code(action), warning)
            }
        };
        let raw = Box::into_raw(Box::new(handle));
        // SAFETY: out is non-NULL and writable by the caller's contract.
        unsafe { ffi::put(out, raw) };
        Ok(())
    })
}

/// Closes `index` and frees everything it owns (the strings lidx_info()
/// pointed to included). NULL is allowed (nothing is done). Returns LIDX_OK,
/// or LIDX_ERROR_INVALID (nothing freed) for a member handle of a rotation
/// family (lidx_family_member()), which its family owns and
/// lidx_family_close() frees.
///
/// Not thread-safe with respect to `index`: no other call may be using it,
/// and it must not be used afterwards. Other handles, including ones on the
/// same file, are not affected.
///
/// # Safety
/// `index` is NULL or a handle from this library that is not closed yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_close(index: *mut lidx_index) -> c_int {
    guard("lidx_close", || {
        // SAFETY: the caller's contract: NULL or a live handle.
        if unsafe { index.as_ref() }.is_some_and(|h| h.borrowed) {
            return Err(Fail::invalid(
                "index is owned by a rotation family (from lidx_family_member()) or a \
                 collection (from lidx_collection_index()): lidx_family_close() or \
                 lidx_collection_close() frees it",
            ));
        }
        // SAFETY: the caller's contract: a live handle given back once.
        drop(unsafe { ffi::take(index) });
        Ok(())
    })
}

/// A request past the end, said in this interface's terms (the core's
/// message numbers lines from 1, as the command line does).
fn zero_based(h: &lidx_index, e: lidx_core::Error, what: &str) -> Fail {
    match e {
        lidx_core::Error::OutOfRange { lines, size, .. } => Fail::new(
            crate::status::LIDX_PAST_END,
            format!(
                "{}: {what} is past the end (the file has {lines} lines, numbered from 0, \
                 and {size} bytes)",
                h.index.source_path().display()
            ),
        ),
        e => e.into(),
    }
}

/// The handle behind `p`.
///
/// # Safety
/// `p` is NULL or a live handle.
pub(crate) unsafe fn handle<'a>(p: *const lidx_index) -> Result<&'a lidx_index, Fail> {
    // SAFETY: the caller's contract.
    unsafe { ffi::obj(p, "index") }
}

/// Stores the number of lines of the source in `*lines` (as
/// `grep -a -c ''` counts them: a final line without a newline counts).
/// No I/O. Returns LIDX_OK or LIDX_ERROR_INVALID. Thread-safe.
///
/// # Safety
/// `index` is a live handle; `lines` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_line_count(index: *const lidx_index, lines: *mut u64) -> c_int {
    guard("lidx_line_count", || {
        // SAFETY: the caller's contract for index.
        let h = unsafe { handle(index) }?;
        // SAFETY: the caller's contract for lines.
        unsafe { ffi::put(lines, h.index.line_count()) };
        Ok(())
    })
}

/// Stores the size of the indexed source text in bytes in `*bytes` (for a
/// gzip archive, its uncompressed text). No I/O. Returns LIDX_OK or
/// LIDX_ERROR_INVALID. Thread-safe.
///
/// # Safety
/// `index` is a live handle; `bytes` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_source_len(index: *const lidx_index, bytes: *mut u64) -> c_int {
    guard("lidx_source_len", || {
        // SAFETY: the caller's contract for index.
        let h = unsafe { handle(index) }?;
        // SAFETY: the caller's contract for bytes.
        unsafe { ffi::put(bytes, h.index.source_len()) };
        Ok(())
    })
}

/// The byte span of line `line` (0-based): `*start` is the offset of its
/// first byte, `*end` the offset just past its newline (or the end of the
/// source for a final line without one). Either output may be NULL.
///
/// Returns LIDX_OK; LIDX_PAST_END when `line` >= the line count (outputs
/// unchanged); or an error (_INVALID, _IO, _STALE, _FOREIGN (both with
/// LIDX_POLICY_INSPECT: see there), _CORRUPT, _SOURCE, _REMOTE).
/// Thread-safe. Cost: a B+tree descent through the page cache
/// and a read of the source from the nearest checkpoint (at most about one
/// spacing, 64 KiB by default).
///
/// # Safety
/// `index` is a live handle; `start`, `end` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_line_span(
    index: *const lidx_index,
    line: u64,
    start: *mut u64,
    end: *mut u64,
) -> c_int {
    guard("lidx_line_span", || {
        // SAFETY: the caller's contract for index.
        let h = unsafe { handle(index) }?;
        let span = h
            .index
            .line_span(line)
            .map_err(|e| zero_based(h, e, &format!("line {line}")))?;
        // SAFETY: the caller's contract for start and end.
        unsafe {
            ffi::put(start, span.start);
            ffi::put(end, span.end);
        }
        Ok(())
    })
}

/// Stores in `*line` the 0-based number of the line that holds byte
/// `offset` (0-based; a newline belongs to the line it ends).
///
/// Returns LIDX_OK; LIDX_PAST_END when `offset` >= the source's length
/// (output unchanged); or an error as lidx_line_span(). Thread-safe.
///
/// # Safety
/// `index` is a live handle; `line` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_line_at(
    index: *const lidx_index,
    offset: u64,
    line: *mut u64,
) -> c_int {
    guard("lidx_line_at", || {
        // SAFETY: the caller's contract for index.
        let h = unsafe { handle(index) }?;
        let n = h
            .index
            .line_at(offset)
            .map_err(|e| zero_based(h, e, &format!("offset {offset}")))?;
        // SAFETY: the caller's contract for line.
        unsafe { ffi::put(line, n) };
        Ok(())
    })
}

/// Reads lines `first` .. `first + count - 1` (0-based; clamped to the line
/// count) into `buf`, exactly as they are in the source: back to back, each
/// with its newline (a final line of the file may have none; `\r` is
/// content). All or nothing:
///
/// - `*needed` (may be NULL) receives the bytes those lines take, always;
/// - when `cap` >= that, the lines are copied to `buf[0 .. *needed]`,
///   `*lines_read` (may be NULL) receives their number, and LIDX_OK is
///   returned (0 lines for a range past the end);
/// - otherwise nothing is written to `buf`, `*lines_read` receives 0, and
///   LIDX_ERROR_BUFFER is returned: call again with a buffer of `*needed`
///   bytes. `buf` may be NULL with `cap` 0 to learn the size only.
///
/// Other errors: _INVALID, _IO, _STALE (the bytes no longer hold the lines
/// the index promised), _FOREIGN, _CORRUPT, _SOURCE, _REMOTE. Thread-safe; `buf`
/// belongs to the caller and is not kept.
///
/// # Safety
/// `index` is a live handle; `buf` points to `cap` writable bytes (or `cap`
/// is 0); `needed` and `lines_read` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_read_lines(
    index: *const lidx_index,
    first: u64,
    count: u64,
    buf: *mut u8,
    cap: usize,
    needed: *mut usize,
    lines_read: *mut u64,
) -> c_int {
    guard("lidx_read_lines", || {
        // SAFETY: the caller's contract for index.
        let h = unsafe { handle(index) }?;
        // SAFETY: the caller's contract for buf and cap.
        let buf = unsafe { ffi::buffer(buf, cap) }?;
        let got = h
            .index
            .read_lines_into(first..first.saturating_add(count), buf)?;
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
                    h.index.source_path().display(),
                    got.first_line,
                    got.first_line + got.lines,
                    got.len
                ),
            ))
        }
    })
}

/// The optional instant at `p` (NULL: none).
///
/// # Safety
/// `p` is NULL or points to a readable int64_t.
pub(crate) unsafe fn instant(p: *const i64) -> Option<i64> {
    // SAFETY: the caller's contract.
    unsafe { p.as_ref() }.copied()
}

/// Stores in `*line` the 0-based number of the first line whose time is at
/// or after `t` (nanoseconds since 1970-01-01T00:00:00Z), or the line count
/// when no line's is. A line's time is its stamp's, or for a line without
/// one (a stack trace's) the last stamp's before it; lines before the
/// first stamp have none and are never at or after anything. The file's
/// times need not be in order: the answer is the first such line in file
/// order.
///
/// The sidecar must hold a time index (LIDX_OPEN_TIME; else
/// LIDX_ERROR_INVALID). Returns LIDX_OK, or an error as lidx_line_span().
/// Thread-safe. Cost: a descent of the time index and a read of one span
/// of the source (about one spacing).
///
/// # Safety
/// `index` is a live handle; `line` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_line_at_time(
    index: *const lidx_index,
    t: i64,
    line: *mut u64,
) -> c_int {
    guard("lidx_line_at_time", || {
        // SAFETY: the caller's contract for index.
        let h = unsafe { handle(index) }?;
        let n = h.index.line_at_time(t)?;
        // SAFETY: the caller's contract for line.
        unsafe { ffi::put(line, n) };
        Ok(())
    })
}

/// The lines of a time range: `*first` receives the first line at or after
/// `*since` (as lidx_line_at_time(); the first line when `since` is NULL),
/// and `*count` the number of lines from there to the last line whose time
/// is before `*until` (to the last line when `until` is NULL), 0 when
/// there are none: pass them to lidx_read_lines() or lidx_search(). Times
/// are nanoseconds since 1970-01-01T00:00:00Z. When the file's times are
/// not in order, every line between those two is in the range, whatever
/// its own time. Either output may be NULL.
///
/// The sidecar must hold a time index (LIDX_OPEN_TIME; else
/// LIDX_ERROR_INVALID). Returns LIDX_OK, or an error as lidx_line_span().
/// Thread-safe.
///
/// # Safety
/// `index` is a live handle; `since` and `until` are NULL or readable;
/// `first` and `count` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_time_range(
    index: *const lidx_index,
    since: *const i64,
    until: *const i64,
    first: *mut u64,
    count: *mut u64,
) -> c_int {
    guard("lidx_time_range", || {
        // SAFETY: the caller's contract for index.
        let h = unsafe { handle(index) }?;
        // SAFETY: the caller's contract for since and until.
        let (since, until) = unsafe { (instant(since), instant(until)) };
        let r = h.index.time_range(since, until)?;
        // SAFETY: the caller's contract for first and count.
        unsafe {
            ffi::put(first, r.start);
            ffi::put(count, r.end - r.start);
        }
        Ok(())
    })
}

/// The sidecar describes the source as it is.
pub const LIDX_VERDICT_UNCHANGED: i32 = 0;
/// The source grew since it was indexed (its indexed part is unchanged): a
/// log appended to.
pub const LIDX_VERDICT_APPENDED: i32 = 1;
/// The source changed otherwise: shorter, or different content.
pub const LIDX_VERDICT_REWRITTEN: i32 = 2;
/// Same size, head and tail but another modification time, and the content
/// not checked yet (only with LIDX_POLICY_INSPECT: the other policies check
/// it on open).
pub const LIDX_VERDICT_UNVERIFIED: i32 = 3;

/// No evidence: the verdict is not LIDX_VERDICT_UNCHANGED.
pub const LIDX_EVIDENCE_NONE: i32 = 0;
/// Size, modification time, head and tail are as recorded.
pub const LIDX_EVIDENCE_FINGERPRINT: i32 = 1;
/// The modification time differs; the plain file was read whole and every
/// checkpoint found as recorded.
pub const LIDX_EVIDENCE_RESCAN: i32 = 2;
/// The modification time differs; the gzip archive's trailer (CRC-32 and
/// length of its whole text) is as recorded.
pub const LIDX_EVIDENCE_GZIP_TRAILER: i32 = 3;
/// The modification time differs; the member trailers of the multi-member
/// gzip archive are as recorded.
pub const LIDX_EVIDENCE_GZIP_MEMBERS: i32 = 4;
/// The modification time differs; this very file was checked earlier and
/// found the same (remembered in the user cache directory).
pub const LIDX_EVIDENCE_REMEMBERED: i32 = 5;
/// The modification time differs; the content checksums at the ends of the
/// zstd seekable archive's frames are the ones its seek table gave them
/// when the sidecar was built.
pub const LIDX_EVIDENCE_ZSTD_FRAMES: i32 = 6;

/// The existing, fresh sidecar was used.
pub const LIDX_ACTION_OPENED: i32 = 0;
/// The existing sidecar was used after its content was checked (the
/// source's modification time differed).
pub const LIDX_ACTION_VERIFIED: i32 = 1;
/// There was no sidecar: one was built.
pub const LIDX_ACTION_BUILT: i32 = 2;
/// The source had grown: the sidecar was extended over the new bytes.
pub const LIDX_ACTION_EXTENDED: i32 = 3;
/// The source had been rewritten: the sidecar was rebuilt.
pub const LIDX_ACTION_REBUILT: i32 = 4;
/// A rebuild was forced (LIDX_POLICY_FORCE).
pub const LIDX_ACTION_FORCED: i32 = 5;
/// The source is a damaged gzip archive: its complete lines before the
/// damage were indexed in memory (lidx_info() `damage` says what and
/// where); nothing was written.
pub const LIDX_ACTION_DAMAGED: i32 = 6;
/// The sidecar was fresh but was built again to add a time index
/// (LIDX_OPEN_TIME).
pub const LIDX_ACTION_TIME_ADDED: i32 = 7;
/// A handle from lidx_follow_poll(): the poll opened the sidecar, built it
/// or extended it over the new bytes, as it needed.
pub const LIDX_ACTION_FOLLOWED: i32 = 8;
/// A member handle of a rotation family (lidx_family_member()): opening
/// the family opened the member's sidecar, built it or extended it, as it
/// needed.
pub const LIDX_ACTION_MEMBER: i32 = 9;

fn verdict_code(v: Verdict) -> i32 {
    match v {
        Verdict::Unchanged => LIDX_VERDICT_UNCHANGED,
        Verdict::Appended => LIDX_VERDICT_APPENDED,
        Verdict::Rewritten => LIDX_VERDICT_REWRITTEN,
        Verdict::Unverified => LIDX_VERDICT_UNVERIFIED,
    }
}

fn evidence_code(e: Option<Evidence>) -> i32 {
    match e {
        None => LIDX_EVIDENCE_NONE,
        Some(Evidence::Fingerprint) => LIDX_EVIDENCE_FINGERPRINT,
        Some(Evidence::Content(Proof::Rescan)) => LIDX_EVIDENCE_RESCAN,
        Some(Evidence::Content(Proof::GzipTrailer)) => LIDX_EVIDENCE_GZIP_TRAILER,
        Some(Evidence::Content(Proof::GzipMembers { .. })) => LIDX_EVIDENCE_GZIP_MEMBERS,
        Some(Evidence::Content(Proof::ZstdFrames { .. })) => LIDX_EVIDENCE_ZSTD_FRAMES,
        Some(Evidence::Remembered) => LIDX_EVIDENCE_REMEMBERED,
    }
}

fn action_code(a: Action) -> i32 {
    match a {
        Action::Opened => LIDX_ACTION_OPENED,
        Action::Verified => LIDX_ACTION_VERIFIED,
        Action::Built => LIDX_ACTION_BUILT,
        Action::Extended => LIDX_ACTION_EXTENDED,
        Action::Rebuilt(_) => LIDX_ACTION_REBUILT,
        Action::Forced => LIDX_ACTION_FORCED,
        Action::Damaged => LIDX_ACTION_DAMAGED,
        Action::TimeAdded => LIDX_ACTION_TIME_ADDED,
    }
}

/// How the source related to its sidecar when the handle was opened, and
/// what opening did about it: `*verdict` receives a LIDX_VERDICT_* (always
/// LIDX_VERDICT_UNCHANGED unless the policy was LIDX_POLICY_INSPECT: the
/// other policies refresh or refuse a stale sidecar), `*action` a
/// LIDX_ACTION_* (LIDX_ACTION_EXTENDED: the source was appended to;
/// LIDX_ACTION_REBUILT: it was rewritten). Either output may be NULL. No
/// I/O. Returns LIDX_OK or LIDX_ERROR_INVALID. Thread-safe.
///
/// # Safety
/// `index` is a live handle; `verdict`, `action` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_verdict(
    index: *const lidx_index,
    verdict: *mut i32,
    action: *mut i32,
) -> c_int {
    guard("lidx_verdict", || {
        // SAFETY: the caller's contract for index.
        let h = unsafe { handle(index) }?;
        // SAFETY: the caller's contract for verdict and action.
        unsafe {
            ffi::put(verdict, verdict_code(h.index.verdict()));
            ffi::put(action, h.action);
        }
        Ok(())
    })
}

/// lidx_index_info.source_kind: the source is plain text.
pub const LIDX_SOURCE_PLAIN: i32 = 0;
/// lidx_index_info.source_kind: a gzip archive (answers are about its
/// text).
pub const LIDX_SOURCE_GZIP: i32 = 1;
/// lidx_index_info.source_kind: a zstd seekable archive, such as
/// `lidx pack` writes (answers are about its text).
pub const LIDX_SOURCE_ZSTD: i32 = 2;

/// A summary of an open index (lidx_info()). The strings are owned by the
/// handle: valid until lidx_close() on it, never to be freed by the
/// caller.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct lidx_index_info {
    /// Lines in the indexed source.
    pub lines: u64,
    /// Indexed text size in bytes (uncompressed for a gzip source).
    pub source_size: u64,
    /// Size of the source file as indexed, on disk (the archive for a gzip
    /// source).
    pub file_size: u64,
    /// Sidecar size in bytes.
    pub sidecar_size: u64,
    /// Checkpoints stored.
    pub checkpoints: u64,
    /// Bytes of source between checkpoints.
    pub spacing: u64,
    /// Pages in the sidecar (its first page, the superblock, included).
    pub pages: u32,
    /// Page size in bytes.
    pub page_size: u32,
    /// Height of the B+tree (1: the root is a leaf).
    pub height: u32,
    /// Sidecar format version, major.
    pub format_major: u32,
    /// Sidecar format version, minor.
    pub format_minor: u32,
    /// 1 for a gzip source, else 0.
    pub gzip: u32,
    /// gzip sources: access points stored (else 0).
    pub gzip_access_points: u32,
    /// gzip sources: uncompressed bytes between access points (else 0).
    pub gzip_span: u32,
    /// LIDX_VERDICT_* (as lidx_verdict()).
    pub verdict: i32,
    /// LIDX_EVIDENCE_*: what an unchanged verdict rests on.
    pub evidence: i32,
    /// LIDX_ACTION_* (as lidx_verdict()).
    pub action: i32,
    /// LIDX_SOURCE_*: how the source is stored (plain text, gzip, zstd
    /// seekable). For a zstd seekable source, `file_size` is the archive's
    /// size and `gzip` is 0.
    pub source_kind: i32,
    /// The source's path or URL as opened (NUL-terminated).
    pub source_path: *const c_char,
    /// The sidecar's path or URL.
    pub sidecar_path: *const c_char,
    /// For a damaged gzip archive (LIDX_ACTION_DAMAGED): what and where the
    /// damage is; else NULL.
    pub damage: *const c_char,
    /// A warning from the build (the source does not look like text), or
    /// NULL.
    pub warning: *const c_char,
}

/// Fills `*info` with a summary of `index`. No I/O. Returns LIDX_OK or
/// LIDX_ERROR_INVALID. Thread-safe.
///
/// # Safety
/// `index` is a live handle; `info` points to writable memory for a
/// lidx_index_info.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_info(index: *const lidx_index, info: *mut lidx_index_info) -> c_int {
    guard("lidx_info", || {
        // SAFETY: the caller's contract for index.
        let h = unsafe { handle(index) }?;
        let i = h.index.info();
        let (gzip, aps, span) = match i.gzip {
            Some((_, aps, span)) => (1, aps, span),
            None => (0, 0, 0),
        };
        let opt = |s: &Option<CString>| s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
        let value = lidx_index_info {
            lines: i.lines,
            source_size: i.source_size,
            file_size: i.file_size,
            sidecar_size: i.sidecar_size,
            checkpoints: i.checkpoints,
            spacing: i.spacing,
            pages: i.pages,
            page_size: i.page_size,
            height: i.height,
            format_major: u32::from(i.version.0),
            format_minor: u32::from(i.version.1),
            gzip,
            gzip_access_points: aps,
            gzip_span: span,
            verdict: verdict_code(i.verdict),
            evidence: evidence_code(i.evidence),
            action: h.action,
            source_kind: if i.zstd.is_some() {
                LIDX_SOURCE_ZSTD
            } else if i.gzip.is_some() {
                LIDX_SOURCE_GZIP
            } else {
                LIDX_SOURCE_PLAIN
            },
            source_path: h.source_path.as_ptr(),
            sidecar_path: h.sidecar_path.as_ptr(),
            damage: opt(&h.damage),
            warning: opt(&h.warning),
        };
        // SAFETY: the caller's contract for info.
        unsafe { ffi::put_required(info, value, "info") }
    })
}
