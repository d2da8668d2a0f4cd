//! The C ABI of lidx: `liblidx.so` / `liblidx.a` and `include/lidx.h`.
//!
//! A thin face over the core library's public API (`Index`,
//! `OpenOptions`, `Follower`, `search`, `family`, `merge`), for viewers
//! and tools written in C, C++ or any language with a C FFI. The header is
//! generated from this crate by cbindgen and checked in (`tests/header.rs`
//! fails when it is stale); its opening comment (in `cbindgen.toml`)
//! states the conventions,
//! the ownership of every pointer and the thread-safety rules, and each
//! function's comment states its own.
//!
//! Layout: [`status`] the status codes; `boundary` the guard every entry
//! point runs in (panics caught, errors mapped, the per-thread message);
//! `ffi` the only place raw pointers become references; [`index`] open,
//! queries (time queries included), verdict, info, close; [`partition`]
//! partition plans for workers that read a file apart; [`search`]
//! patterns and range search; [`follow`] following a growing file;
//! [`family`] rotation families read as one log; [`merge`] several logs
//! merged by time.

#![deny(missing_docs)]
#![allow(non_camel_case_types)]

pub mod status;

mod boundary;
mod ffi;

pub mod index;
pub mod partition;
pub mod search;

pub mod follow;

pub mod collection;
pub mod family;
pub mod merge;

pub use boundary::lidx_errmsg;

use std::ffi::c_char;

/// Major version of the library this header belongs to.
pub const LIDX_VERSION_MAJOR: u32 = 0;
/// Minor version.
pub const LIDX_VERSION_MINOR: u32 = 1;
/// Patch version.
pub const LIDX_VERSION_PATCH: u32 = 0;

/// The library's version, "MAJOR.MINOR.PATCH" (compare with
/// LIDX_VERSION_MAJOR etc. to check that the header and the library
/// agree). A static string: never NULL, never freed. Thread-safe. Does not
/// change lidx_errmsg().
#[unsafe(no_mangle)]
pub extern "C" fn lidx_version() -> *const c_char {
    const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");
    VERSION.as_ptr().cast()
}

#[cfg(test)]
mod tests {
    #[test]
    fn version_constants_match_the_package() {
        let v = format!(
            "{}.{}.{}",
            super::LIDX_VERSION_MAJOR,
            super::LIDX_VERSION_MINOR,
            super::LIDX_VERSION_PATCH
        );
        assert_eq!(v, env!("CARGO_PKG_VERSION"));
        // SAFETY: lidx_version returns a static NUL-terminated string.
        let s = unsafe { std::ffi::CStr::from_ptr(super::lidx_version()) };
        assert_eq!(s.to_str().unwrap(), v);
    }
}
