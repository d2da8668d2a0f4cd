//! Searching a line range: a pattern compiled once (lidx_pattern_new()),
//! then any number of searches with it, each pushing the selected lines to
//! a callback.

use crate::boundary::{Fail, guard};
use crate::ffi;
use crate::index::lidx_index;
use lidx_core::search::{Kind, Line, Matcher, MatcherOptions, ScanOptions, Sink};
use std::ffi::{c_char, c_int, c_void};

/// The version of lidx_search_options this header describes.
pub const LIDX_SEARCH_OPTIONS_VERSION: u32 = 1;

/// The pattern is a literal string, not a regex (grep -F).
pub const LIDX_SEARCH_FIXED_STRINGS: u32 = 1;
/// Case-insensitive, with Unicode simple case folding (grep -i).
pub const LIDX_SEARCH_IGNORE_CASE: u32 = 2;
/// Case-insensitive unless the pattern has an uppercase letter (rg -S).
pub const LIDX_SEARCH_SMART_CASE: u32 = 4;
/// Only whole words (grep -w).
pub const LIDX_SEARCH_WORD: u32 = 8;
/// Only whole lines (grep -x).
pub const LIDX_SEARCH_LINE: u32 = 16;
/// Select the lines that do not match (grep -v).
pub const LIDX_SEARCH_INVERT: u32 = 32;
/// Lines end in `\r\n` or `\n`: `$` matches before `\r\n` (rg --crlf).
pub const LIDX_SEARCH_CRLF: u32 = 64;
/// ASCII-only classes and case folding (rg --no-unicode).
pub const LIDX_SEARCH_NO_UNICODE: u32 = 128;

const ALL_FLAGS: u32 = 255;

/// How to match and which lines to report. Fill it with
/// lidx_search_options_init(), then change the fields wanted. Read only
/// during lidx_pattern_new().
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct lidx_search_options {
    /// LIDX_SEARCH_OPTIONS_VERSION (set by lidx_search_options_init()).
    pub version: u32,
    /// LIDX_SEARCH_* bits (default 0: a case-sensitive regex).
    pub flags: u32,
    /// Stop after this many selected lines, as grep -m; 0 (default): no
    /// limit.
    pub max_count: u64,
    /// Context lines reported before each selected line (grep -B; default
    /// 0).
    pub before: u64,
    /// Context lines reported after each selected line (grep -A; default
    /// 0).
    pub after: u64,
}

/// Fills `opts` with the defaults (see each field). Returns LIDX_OK, or
/// LIDX_ERROR_INVALID when `opts` is NULL. Thread-safe.
///
/// # Safety
/// `opts` is NULL or points to writable memory for a lidx_search_options.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_search_options_init(opts: *mut lidx_search_options) -> c_int {
    guard("lidx_search_options_init", || {
        let defaults = lidx_search_options {
            version: LIDX_SEARCH_OPTIONS_VERSION,
            flags: 0,
            max_count: 0,
            before: 0,
            after: 0,
        };
        // SAFETY: the caller's contract: NULL or writable memory for one.
        unsafe { ffi::put_required(opts, defaults, "opts") }
    })
}

/// A compiled pattern with its search options. Opaque; made by
/// lidx_pattern_new(), freed by lidx_pattern_free().
///
/// Thread safety: immutable; any number of threads may search with one
/// pattern at once, on the same or different indexes.
pub struct lidx_pattern {
    matcher: Matcher,
    scan: ScanOptions,
}

/// Compiles `pattern` with `opts`. The syntax and the matching rules are
/// ripgrep's (the Rust regex crate): a line is selected when the pattern
/// matches the line without its terminator; a pattern that could match a
/// newline is refused (a match cannot span lines).
///
/// - `pattern`: NUL-terminated UTF-8, borrowed for the call only.
/// - `opts`: NULL for the defaults, or filled by lidx_search_options_init().
/// - `out`: receives the new pattern on success (unchanged on error); the
///   caller owns it and frees it with lidx_pattern_free().
///
/// Returns LIDX_OK or LIDX_ERROR_INVALID (the message says what is wrong
/// with the pattern). Thread-safe.
///
/// # Safety
/// `pattern` is a NUL-terminated string; `opts` is NULL or valid; `out`
/// points to writable memory for a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_pattern_new(
    pattern: *const c_char,
    opts: *const lidx_search_options,
    out: *mut *mut lidx_pattern,
) -> c_int {
    guard("lidx_pattern_new", || {
        if out.is_null() {
            return Err(Fail::invalid("out is NULL"));
        }
        // SAFETY: the caller's contract for pattern.
        let pattern = unsafe { ffi::cstr(pattern, "pattern") }?
            .to_str()
            .map_err(|e| Fail::invalid(format!("the pattern is not UTF-8: {e}")))?;
        // SAFETY: the caller's contract for opts.
        let o = match unsafe { opts.as_ref() } {
            None => lidx_search_options {
                version: LIDX_SEARCH_OPTIONS_VERSION,
                flags: 0,
                max_count: 0,
                before: 0,
                after: 0,
            },
            Some(o) => *o,
        };
        if o.version != LIDX_SEARCH_OPTIONS_VERSION {
            return Err(Fail::invalid(format!(
                "lidx_search_options version {} is not {LIDX_SEARCH_OPTIONS_VERSION} \
                 (fill it with lidx_search_options_init())",
                o.version
            )));
        }
        if o.flags & !ALL_FLAGS != 0 {
            return Err(Fail::invalid(format!(
                "unknown lidx_search_options flags {:#x}",
                o.flags & !ALL_FLAGS
            )));
        }
        let has = |bit: u32| o.flags & bit != 0;
        let mo = MatcherOptions {
            fixed_strings: has(LIDX_SEARCH_FIXED_STRINGS),
            case_insensitive: has(LIDX_SEARCH_IGNORE_CASE),
            smart_case: has(LIDX_SEARCH_SMART_CASE),
            word: has(LIDX_SEARCH_WORD),
            line: has(LIDX_SEARCH_LINE),
            crlf: has(LIDX_SEARCH_CRLF),
            no_unicode: has(LIDX_SEARCH_NO_UNICODE),
        };
        let matcher = Matcher::new(&[pattern.to_string()], &mo)?;
        let scan = ScanOptions {
            invert: has(LIDX_SEARCH_INVERT),
            before: o.before,
            after: o.after,
            max_count: (o.max_count != 0).then_some(o.max_count),
            passthru: false,
            // Every reported line carries its number.
            skip_line_numbers: false,
        };
        let raw = Box::into_raw(Box::new(lidx_pattern { matcher, scan }));
        // SAFETY: out is non-NULL and writable by the caller's contract.
        unsafe { ffi::put(out, raw) };
        Ok(())
    })
}

/// Frees `pattern`. NULL is allowed. Returns LIDX_OK.
///
/// Not thread-safe with respect to `pattern`: no search may be using it,
/// and it must not be used afterwards. Other patterns are not affected.
///
/// # Safety
/// `pattern` is NULL or a pattern from lidx_pattern_new() not freed yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_pattern_free(pattern: *mut lidx_pattern) -> c_int {
    guard("lidx_pattern_free", || {
        // SAFETY: the caller's contract: a live pattern given back once.
        drop(unsafe { ffi::take(pattern) });
        Ok(())
    })
}

/// A selected line (a match, or with LIDX_SEARCH_INVERT a line that does not
/// match).
pub const LIDX_LINE_MATCH: i32 = 0;
/// A context line around a selected one (lidx_search_options `before`,
/// `after`).
pub const LIDX_LINE_CONTEXT: i32 = 1;

/// One line reported by lidx_search(). Valid only during the callback: the
/// bytes live in the library's scan buffer; copy what you keep.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct lidx_line {
    /// 0-based line number.
    pub line: u64,
    /// Byte offset of the line's first byte.
    pub offset: u64,
    /// The line's bytes, its newline included when it has one (not
    /// NUL-terminated).
    pub bytes: *const u8,
    /// Number of bytes at `bytes`.
    pub len: usize,
    /// LIDX_LINE_MATCH or LIDX_LINE_CONTEXT.
    pub kind: i32,
}

/// A search callback: called once per reported line, in file order, on the
/// thread that called lidx_search(). Returns 0 to go on, nonzero to stop
/// the search (lidx_search() then returns LIDX_OK). It may call other lidx
/// functions on the same index (not lidx_close()). It must return normally:
/// not longjmp() or throw across the library.
pub type lidx_line_fn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, line: *const lidx_line) -> c_int>;

/// Pushes each reported line to the caller's callback.
struct CallbackSink {
    callback: lidx_line_fn,
    ctx: *mut c_void,
}

impl Sink for CallbackSink {
    fn line(&mut self, l: &Line<'_>) -> lidx_core::Result<bool> {
        let Some(f) = self.callback else {
            return Ok(true);
        };
        let line = lidx_line {
            line: l.number,
            offset: l.offset,
            bytes: l.bytes.as_ptr(),
            len: l.bytes.len(),
            kind: match l.kind {
                Kind::Match => LIDX_LINE_MATCH,
                Kind::Context => LIDX_LINE_CONTEXT,
            },
        };
        // SAFETY: a function the caller gave for this purpose, with its
        // context; `line` and the bytes it points to outlive the call.
        Ok((unsafe { f(self.ctx, &line) }) == 0)
    }
}

/// Searches lines `first` .. `first + count - 1` (0-based; clamped to the
/// line count) of `index` with `pattern`, on the calling thread, reading
/// only that part of the source, and calls `callback` (may be NULL: only
/// count) with each reported line in file order. `*matched` (may be NULL)
/// receives the number of selected lines reported.
///
/// Returns LIDX_OK (also when the callback stopped the search, or the range
/// lies past the end), or an error as lidx_read_lines(). Thread-safe: any
/// number of threads may search the same index at once (to search a large
/// range in parallel, give each thread a part of it).
///
/// # Safety
/// `index` is a live handle; `pattern` a live pattern; `callback` NULL or a
/// function of that type; `matched` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lidx_search(
    index: *const lidx_index,
    pattern: *const lidx_pattern,
    first: u64,
    count: u64,
    callback: lidx_line_fn,
    ctx: *mut c_void,
    matched: *mut u64,
) -> c_int {
    guard("lidx_search", || {
        // SAFETY: the caller's contract for index.
        let h = unsafe { ffi::obj(index, "index") }?;
        // SAFETY: the caller's contract for pattern.
        let p = unsafe { ffi::obj(pattern, "pattern") }?;
        let mut sink = CallbackSink { callback, ctx };
        let n = h.index.search(
            first..first.saturating_add(count),
            &p.matcher,
            &p.scan,
            &mut sink,
        )?;
        // SAFETY: the caller's contract for matched.
        unsafe { ffi::put(matched, n) };
        Ok(())
    })
}
