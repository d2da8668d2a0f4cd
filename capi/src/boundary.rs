//! The boundary every call crosses: [`guard`] runs an entry point's body,
//! catches any panic (none may unwind into C), turns the outcome into a
//! status code and leaves its message in the calling thread's slot that
//! lidx_errmsg() reads.

use crate::status::{LIDX_ERROR_INTERNAL, LIDX_ERROR_INVALID, LIDX_OK, code_of};
use std::cell::RefCell;
use std::ffi::{CString, c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// A failed call: its status code and message.
#[derive(Debug)]
pub(crate) struct Fail {
    pub(crate) code: c_int,
    pub(crate) message: String,
}

impl Fail {
    /// A failure with `code` and `message`.
    pub(crate) fn new(code: c_int, message: impl Into<String>) -> Fail {
        Fail {
            code,
            message: message.into(),
        }
    }

    /// [`LIDX_ERROR_INVALID`] with `message`.
    pub(crate) fn invalid(message: impl Into<String>) -> Fail {
        Fail::new(LIDX_ERROR_INVALID, message)
    }
}

impl From<lidx_core::Error> for Fail {
    fn from(e: lidx_core::Error) -> Fail {
        Fail::new(code_of(&e), e.to_string())
    }
}

/// What an entry point's body returns.
pub(crate) type Outcome = Result<(), Fail>;

thread_local! {
    /// The message of the last call on this thread ("" after a success).
    static LAST: RefCell<CString> = RefCell::new(CString::default());
}

fn set_message(message: String) {
    // The common case, a success after a success, allocates nothing (it
    // is most of the boundary's cost per call otherwise).
    if message.is_empty()
        && LAST
            .try_with(|m| m.try_borrow().is_ok_and(|s| s.is_empty()))
            .unwrap_or(false)
    {
        return;
    }
    // A message cannot hold a NUL byte; none of lidx's do, but a path or a
    // pattern quoted in one might in principle.
    let message = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    // try_with: a call from a C thread-local destructor, after this slot
    // was destroyed, keeps no message instead of panicking outside the
    // guard (a panic there would abort).
    let _ = LAST.try_with(|m| {
        if let Ok(mut slot) = m.try_borrow_mut() {
            *slot = message;
        }
    });
}

/// Runs `body`, the whole work of entry point `function`, and returns its
/// status code: [`LIDX_OK`], the code of its failure, or
/// [`LIDX_ERROR_INTERNAL`] for a panic, which is caught here. Sets this
/// thread's message. Messages about the call itself (invalid arguments,
/// internal errors) start with the function's name; the others already
/// name the file and what is wrong with it.
pub(crate) fn guard(function: &str, body: impl FnOnce() -> Outcome) -> c_int {
    // AssertUnwindSafe: after a panic the caller is told the handle may be
    // inconsistent (LIDX_ERROR_INTERNAL: close it); nothing here is reused.
    let (code, message) = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => (LIDX_OK, String::new()),
        Ok(Err(fail)) => (fail.code, fail.message),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_string());
            // Dropping the payload could itself panic; it is forgotten.
            std::mem::forget(payload);
            (
                LIDX_ERROR_INTERNAL,
                format!("internal error in lidx (please report it): {what}"),
            )
        }
    };
    if code == LIDX_ERROR_INVALID || code == LIDX_ERROR_INTERNAL {
        set_message(format!("{function}: {message}"));
    } else {
        set_message(message);
    }
    code
}

/// The message of the last call made on the calling thread: what failed and
/// where (a path, a line, a page), in English, one line; "" when that call
/// succeeded.
///
/// Returns a pointer owned by the library, never NULL, valid on this thread
/// until its next call to a lidx function (lidx_status_str() and
/// lidx_version() excepted); copy it to keep it. Thread-safe: each thread
/// has its own message. Does not change the message.
#[unsafe(no_mangle)]
pub extern "C" fn lidx_errmsg() -> *const c_char {
    // The CString lives in this thread's slot until the next set_message
    // on this thread, which is what the contract above promises. Without
    // the slot (a thread-local destructor running after it), "".
    LAST.try_with(|m| m.try_borrow().map(|s| s.as_ptr()).ok())
        .ok()
        .flatten()
        .unwrap_or(c"".as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn message() -> String {
        // SAFETY: lidx_errmsg returns a valid NUL-terminated string that
        // lives until the next call on this thread; it is copied at once.
        unsafe { CStr::from_ptr(lidx_errmsg()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn panics_become_internal_errors() {
        let code = guard("f", || panic!("boom {}", 7));
        assert_eq!(code, LIDX_ERROR_INTERNAL);
        assert_eq!(
            message(),
            "f: internal error in lidx (please report it): boom 7"
        );
        let code = guard("f", || std::panic::panic_any(42u8));
        assert_eq!(code, LIDX_ERROR_INTERNAL);
        assert!(message().ends_with("a panic without a message"));
    }

    #[test]
    fn success_clears_the_message_and_errors_set_it() {
        assert_eq!(
            guard("lidx_x", || Err(Fail::invalid("bad\0thing"))),
            LIDX_ERROR_INVALID
        );
        assert_eq!(message(), "lidx_x: bad\\0thing");
        assert_eq!(guard("f", || Ok(())), LIDX_OK);
        assert_eq!(message(), "");
    }

    #[test]
    fn messages_are_per_thread() {
        assert_eq!(
            guard("f", || Err(Fail::invalid("mine"))),
            LIDX_ERROR_INVALID
        );
        std::thread::spawn(|| {
            assert_eq!(message(), "");
            guard("f", || Err(Fail::invalid("theirs")));
            assert_eq!(message(), "f: theirs");
        })
        .join()
        .unwrap();
        assert_eq!(message(), "f: mine");
    }
}
