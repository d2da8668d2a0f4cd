//! Status codes: what every function returns, and how each of the core
//! library's errors maps to one.

use lidx_core::Error;
use std::ffi::{CStr, c_char, c_int};

/// Success.
pub const LIDX_OK: c_int = 0;
/// An error without a more specific code (see lidx_errmsg()).
pub const LIDX_ERROR: c_int = 1;
/// The line or byte offset asked for lies at or past the end of the source
/// (not a failure of the index: there is nothing there); in a rotation
/// family, also one below its oldest line (in a member since deleted).
pub const LIDX_PAST_END: c_int = 2;
/// The caller's buffer is too short; the function says how long it must be
/// (lidx_read_lines()). Nothing was written into the buffer.
pub const LIDX_ERROR_BUFFER: c_int = 3;
/// An argument is invalid: a NULL pointer where one is required, an
/// options struct whose version this library does not know, an unknown
/// flag or policy, a pattern that does not compile, a path that is not a
/// usable file.
pub const LIDX_ERROR_INVALID: c_int = 4;
/// An operating-system I/O call failed (the message names the call and the
/// path).
pub const LIDX_ERROR_IO: c_int = 5;
/// There is no sidecar and the policy does not allow building one
/// (LIDX_POLICY_NO_REFRESH, LIDX_POLICY_INSPECT).
pub const LIDX_ERROR_MISSING: c_int = 6;
/// The sidecar does not describe the source as it is now: the source grew or
/// was rewritten and the policy does not allow refreshing the sidecar
/// (LIDX_POLICY_NO_REFRESH), or the source changed while in use.
pub const LIDX_ERROR_STALE: c_int = 7;
/// The sidecar is damaged: not a lidx sidecar, a page checksum that does
/// not match, impossible values. lidx never answers from it.
pub const LIDX_ERROR_CORRUPT: c_int = 8;
/// Something this build does not read: a newer sidecar format or feature,
/// or a source in a compression format lidx does not read (xz, bzip2, lz4,
/// a zstd archive that is not seekable: `lidx pack` makes one that is).
pub const LIDX_ERROR_UNSUPPORTED: c_int = 9;
/// The sidecar at the path given or found was built for another file; it is
/// not overwritten (LIDX_POLICY_FORCE does).
pub const LIDX_ERROR_FOREIGN: c_int = 10;
/// The source is a damaged gzip archive (bad data, cut short, trailing
/// garbage), or a line asked for lies past the lines that can be read
/// before the damage.
pub const LIDX_ERROR_SOURCE: c_int = 11;
/// A remote object (a source or sidecar named by a URL) could not be read.
pub const LIDX_ERROR_REMOTE: c_int = 12;
/// The progress callback asked to cancel; nothing was written.
pub const LIDX_ERROR_CANCELLED: c_int = 13;
/// A bug in lidx: an internal panic, caught at the boundary. The handle
/// involved should be closed.
pub const LIDX_ERROR_INTERNAL: c_int = 14;
/// A rotation family cannot be read with the line numbers it recorded: a
/// member is missing between others, was replaced by another file, or
/// grew after it was rotated; none of the files is a member the manifest
/// knows; or the manifest is damaged. The message names the file and the
/// way out (lidx_family_open() with `renumber`, which numbers the members
/// from line 0 again).
pub const LIDX_ERROR_FAMILY: c_int = 15;

/// The status code for a core error.
pub(crate) fn code_of(e: &Error) -> c_int {
    match e {
        Error::Cancelled { .. } => LIDX_ERROR_CANCELLED,
        // A directory where a file was wanted is a bad argument, as
        // lidx_open() promises, not a failed read.
        Error::Io { source, .. } if source.kind() == std::io::ErrorKind::IsADirectory => {
            LIDX_ERROR_INVALID
        }
        Error::Io { .. } => LIDX_ERROR_IO,
        Error::NotAnIndex { .. } | Error::ChecksumMismatch { .. } | Error::Corrupt { .. } => {
            LIDX_ERROR_CORRUPT
        }
        Error::UnsupportedVersion { .. }
        | Error::UnsupportedFeature { .. }
        | Error::UnsupportedSource { .. } => LIDX_ERROR_UNSUPPORTED,
        Error::Stale { .. } | Error::SourceChanged { .. } => LIDX_ERROR_STALE,
        Error::CorruptSource { .. } | Error::Damaged { .. } | Error::NoSidecarForDamage { .. } => {
            LIDX_ERROR_SOURCE
        }
        Error::Missing { .. } => LIDX_ERROR_MISSING,
        Error::Foreign { .. } => LIDX_ERROR_FOREIGN,
        Error::Remote { .. } => LIDX_ERROR_REMOTE,
        Error::OutOfRange { .. } => LIDX_PAST_END,
        Error::InvalidArgument(_) => LIDX_ERROR_INVALID,
        Error::Family { .. } => LIDX_ERROR_FAMILY,
        _ => LIDX_ERROR,
    }
}

/// The name of status code `code` ("LIDX_OK", "LIDX_ERROR_IO", ...), or
/// "LIDX_UNKNOWN" for a code this library does not define.
///
/// Returns a static string: never NULL, never freed. Thread-safe. Does not
/// change lidx_errmsg().
#[unsafe(no_mangle)]
pub extern "C" fn lidx_status_str(code: c_int) -> *const c_char {
    let name: &'static CStr = match code {
        LIDX_OK => c"LIDX_OK",
        LIDX_ERROR => c"LIDX_ERROR",
        LIDX_PAST_END => c"LIDX_PAST_END",
        LIDX_ERROR_BUFFER => c"LIDX_ERROR_BUFFER",
        LIDX_ERROR_INVALID => c"LIDX_ERROR_INVALID",
        LIDX_ERROR_IO => c"LIDX_ERROR_IO",
        LIDX_ERROR_MISSING => c"LIDX_ERROR_MISSING",
        LIDX_ERROR_STALE => c"LIDX_ERROR_STALE",
        LIDX_ERROR_CORRUPT => c"LIDX_ERROR_CORRUPT",
        LIDX_ERROR_UNSUPPORTED => c"LIDX_ERROR_UNSUPPORTED",
        LIDX_ERROR_FOREIGN => c"LIDX_ERROR_FOREIGN",
        LIDX_ERROR_SOURCE => c"LIDX_ERROR_SOURCE",
        LIDX_ERROR_REMOTE => c"LIDX_ERROR_REMOTE",
        LIDX_ERROR_CANCELLED => c"LIDX_ERROR_CANCELLED",
        LIDX_ERROR_INTERNAL => c"LIDX_ERROR_INTERNAL",
        LIDX_ERROR_FAMILY => c"LIDX_ERROR_FAMILY",
        _ => c"LIDX_UNKNOWN",
    };
    name.as_ptr()
}
