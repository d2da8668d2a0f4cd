//! A safe raw-deflate decoder over zlib-rs's zlib C API (`libz-rs-sys`):
//! the only module of the crate with `unsafe`, confined to the calls into
//! that API as zran.c makes them — `inflate(Z_BLOCK)` to stop at every
//! deflate block boundary, `data_type` to read the bit position there,
//! `inflatePrime` and `inflateSetDictionary` to resume at one — and to
//! [`GzipDeflate`], the gzip member encoder of `lidx pack --format gz`.
//!
//! Measured on this project's 2-core VM, under load (a 1 GiB log, pigz
//! -6, 244 MB; MB/s of output, medians of 5, the engines run alternately;
//! a streaming decode with `Z_BLOCK` stops into a 256 KiB ring, and 31
//! span decodes of 1 MiB each from an access point with its window):
//!
//! | engine | stream | span |
//! |---|---:|---:|
//! | `miniz_oxide` 0.9 (block-boundary), the engine before | 414 | 129 |
//! | zlib-rs 0.6.8 (`libz-rs-sys`) | 681 | 288 |
//! | zlib-ng 2 (`libz-ng-sys`, C, built with cmake) | 566 | 242 |
//!
//! zlib-rs is the fastest here and needs no C compiler.
#![allow(unsafe_code)]

use libz_rs_sys as z;
use std::ffi::c_int;

/// The outcome of one [`RawInflate::inflate_block`] call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Step {
    /// Input bytes consumed.
    pub used: usize,
    /// Output bytes written.
    pub produced: usize,
    /// What stopped the decoder.
    pub status: Status,
}

/// Why [`RawInflate::inflate_block`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// At a block boundary that a decode can resume from (not after the
    /// final block): the next block header starts `unused_bits` before the
    /// end of the consumed input.
    Boundary {
        /// Bits of the last consumed byte that belong to the next block.
        unused_bits: u8,
    },
    /// The deflate stream ended: the final block's end code was read.
    /// `unused_bits` of the consumed input follow it (its last byte's
    /// padding; any whole bytes among them belong to what follows).
    End {
        /// Bits of the consumed input after the end code.
        unused_bits: u8,
    },
    /// Out of input or output space: call again.
    More,
    /// No progress was possible: the input ended (or the output is full).
    Stuck,
    /// Invalid deflate data, with zlib's message.
    Invalid(&'static str),
}

/// A raw (headerless) inflate stream with a 32 KiB window.
pub(crate) struct RawInflate {
    // Boxed: the stream must not move while zlib's state refers to it.
    strm: Box<z::z_stream>,
}

// SAFETY: the stream's pointers refer only to its own heap state between
// calls (next_in/next_out are set afresh for each call and never read
// after it); nothing is shared with another thread.
unsafe impl Send for RawInflate {}

impl std::fmt::Debug for RawInflate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawInflate").finish_non_exhaustive()
    }
}

impl RawInflate {
    /// A decoder at the start of a raw deflate stream.
    pub fn new() -> RawInflate {
        let mut strm = Box::new(z::z_stream::default());
        // SAFETY: `strm` is a default-initialised z_stream (null buffers,
        // the Rust allocator), the version string and size are the
        // library's own, as inflateInit2_ requires.
        let ret = unsafe {
            z::inflateInit2_(
                &mut *strm,
                -15,
                z::zlibVersion(),
                std::mem::size_of::<z::z_stream>() as c_int,
            )
        };
        assert_eq!(
            ret,
            z::Z_OK,
            "inflateInit2 cannot fail with valid arguments"
        );
        RawInflate { strm }
    }

    /// Back to the start of a new raw deflate stream (the state is kept).
    pub fn reset(&mut self) {
        // SAFETY: the stream was initialised by inflateInit2_ in `new`.
        let ret = unsafe { z::inflateReset(&mut *self.strm) };
        debug_assert_eq!(ret, z::Z_OK);
    }

    /// Positions a fresh stream inside a deflate stream: the `bits`
    /// (0..=7) high bits of `byte` come first, then the input; `window` is
    /// the output before this point (at most 32 KiB; only the bytes the
    /// stream refers back to matter).
    pub fn resume(&mut self, bits: u8, byte: u8, window: &[u8]) {
        self.reset();
        if bits > 0 {
            // SAFETY: an initialised stream; 1..=7 bits fit the bit buffer.
            let ret = unsafe {
                z::inflatePrime(
                    &mut *self.strm,
                    c_int::from(bits),
                    c_int::from(byte >> (8 - bits)),
                )
            };
            debug_assert_eq!(ret, z::Z_OK);
        }
        if !window.is_empty() {
            let w = &window[window.len().saturating_sub(32768)..];
            // SAFETY: an initialised raw stream; `w` is valid for its
            // length during the call, which copies it.
            let ret =
                unsafe { z::inflateSetDictionary(&mut *self.strm, w.as_ptr(), w.len() as z::uInt) };
            debug_assert_eq!(ret, z::Z_OK);
        }
    }

    /// Decodes from `input` into `output`, stopping at the next block
    /// boundary (`inflate(Z_BLOCK)`).
    pub fn inflate_block(&mut self, input: &[u8], output: &mut [u8]) -> Step {
        let in_len = input.len().min(u32::MAX as usize);
        let out_len = output.len().min(u32::MAX as usize);
        self.strm.next_in = input.as_ptr();
        self.strm.avail_in = in_len as z::uInt;
        self.strm.next_out = output.as_mut_ptr();
        self.strm.avail_out = out_len as z::uInt;
        // SAFETY: an initialised stream; next_in/next_out point into
        // `input`/`output`, valid for avail_in/avail_out bytes for the
        // call; they are not used after it (cleared below).
        let ret = unsafe { z::inflate(&mut *self.strm, z::Z_BLOCK) };
        let (used, produced) = detach(&mut self.strm, in_len, out_len);
        let dt = self.strm.data_type;
        // Bits still held in the bit buffer (zlib keeps < 8; zlib-rs may
        // keep whole bytes too, so take them all).
        let unused_bits = (dt & 63) as u8;
        let status = match ret {
            z::Z_STREAM_END => Status::End { unused_bits: 0 },
            // Stopped after an end-of-block code (bit 7); bit 6: it was
            // the final block's, so the stream ends here. (Z_BUF_ERROR
            // too: the stop may need no new input.)
            z::Z_OK | z::Z_BUF_ERROR if dt & 128 != 0 && dt & 64 != 0 => {
                Status::End { unused_bits }
            }
            z::Z_OK | z::Z_BUF_ERROR if dt & 128 != 0 => Status::Boundary { unused_bits },
            z::Z_OK => Status::More,
            z::Z_BUF_ERROR => Status::Stuck,
            _ => Status::Invalid(self.message()),
        };
        Step {
            used,
            produced,
            status,
        }
    }

    fn message(&self) -> &'static str {
        if self.strm.msg.is_null() {
            return "invalid deflate data";
        }
        // SAFETY: zlib-rs sets msg to a NUL-terminated static string.
        let s = unsafe { std::ffi::CStr::from_ptr(self.strm.msg) };
        match s.to_str() {
            Ok(s) => STATIC_MESSAGES
                .iter()
                .find(|m| **m == s)
                .copied()
                .unwrap_or("invalid deflate data"),
            Err(_) => "invalid deflate data",
        }
    }
}

/// After a call that was given `in_len` input and `out_len` output bytes:
/// how many it consumed and produced; the buffer pointers are cleared, so
/// the stream holds none between calls.
fn detach(strm: &mut z::z_stream, in_len: usize, out_len: usize) -> (usize, usize) {
    let used = in_len - strm.avail_in as usize;
    let produced = out_len - strm.avail_out as usize;
    strm.next_in = std::ptr::null();
    strm.avail_in = 0;
    strm.next_out = std::ptr::null_mut();
    strm.avail_out = 0;
    (used, produced)
}

/// zlib's messages for invalid deflate data, so a message can be returned
/// without holding a pointer into the library.
const STATIC_MESSAGES: &[&str] = &[
    "invalid block type",
    "invalid stored block lengths",
    "too many length or distance symbols",
    "invalid code lengths set",
    "invalid bit length repeat",
    "invalid code -- missing end-of-block",
    "invalid literal/lengths set",
    "invalid distances set",
    "invalid literal/length code",
    "invalid distance code",
    "invalid distance too far back",
];

impl Drop for RawInflate {
    fn drop(&mut self) {
        // SAFETY: an initialised stream, ended once.
        unsafe {
            z::inflateEnd(&mut *self.strm);
        }
    }
}

/// A gzip member encoder over zlib-rs's `deflate` (a gzip wrapper:
/// zlib's 10-byte header with no name and no time, the deflate stream,
/// the CRC-32 and length trailer). One encoder makes many members.
///
/// zlib-rs rather than flate2's default `miniz_oxide` backend: at level 6
/// it compresses a log about 1.5× faster here, to the same size within
/// 1% (both are zlib's algorithm; `lidx pack --format gz` is measured
/// against pigz, which runs C zlib).
pub(crate) struct GzipDeflate {
    // Boxed: the stream must not move while zlib's state refers to it.
    strm: Box<z::z_stream>,
}

// SAFETY: as for RawInflate: the stream's pointers refer only to its own
// heap state between calls.
unsafe impl Send for GzipDeflate {}

impl GzipDeflate {
    /// An encoder at `level` (0..=9), or `None` for a level zlib refuses.
    pub fn new(level: i32) -> Option<GzipDeflate> {
        let mut strm = Box::new(z::z_stream::default());
        // SAFETY: a default-initialised z_stream, the library's own
        // version string and size; 31 = a 32 KiB window with a gzip
        // wrapper, 8 = zlib's default memLevel.
        let ret = unsafe {
            z::deflateInit2_(
                &mut *strm,
                level,
                z::Z_DEFLATED,
                31,
                8,
                z::Z_DEFAULT_STRATEGY,
                z::zlibVersion(),
                std::mem::size_of::<z::z_stream>() as c_int,
            )
        };
        if ret != z::Z_OK {
            return None;
        }
        Some(GzipDeflate { strm })
    }

    /// Appends one whole gzip member holding `text` to `out`.
    pub fn member(&mut self, text: &[u8], out: &mut Vec<u8>) -> Result<(), &'static str> {
        // SAFETY: an initialised stream.
        if unsafe { z::deflateReset(&mut *self.strm) } != z::Z_OK {
            return Err("deflateReset failed");
        }
        let mut input = text;
        loop {
            // zlib counts in 32 bits: feed at most 1 GiB a call.
            let take = input.len().min(1 << 30);
            let last = take == input.len();
            // SAFETY: an initialised stream; deflateBound only reads it.
            let bound = unsafe { z::deflateBound(&mut *self.strm, take as z::uLong) } as usize;
            out.reserve(bound + 64);
            let spare = out.spare_capacity_mut();
            let out_len = spare.len().min(u32::MAX as usize);
            self.strm.next_in = input.as_ptr();
            self.strm.avail_in = take as z::uInt;
            self.strm.next_out = spare.as_mut_ptr().cast::<u8>();
            self.strm.avail_out = out_len as z::uInt;
            let flush = if last { z::Z_FINISH } else { z::Z_NO_FLUSH };
            // SAFETY: next_in/next_out point into `input` and the spare
            // capacity of `out`, valid for avail_in/avail_out bytes for
            // the call; they are cleared after it.
            let ret = unsafe { z::deflate(&mut *self.strm, flush) };
            let (used, produced) = detach(&mut self.strm, take, out_len);
            // SAFETY: deflate wrote `produced` bytes into the spare
            // capacity.
            unsafe { out.set_len(out.len() + produced) };
            input = &input[used..];
            match ret {
                z::Z_STREAM_END => return Ok(()),
                z::Z_OK | z::Z_BUF_ERROR => {}
                _ => return Err("deflate failed"),
            }
        }
    }
}

impl Drop for GzipDeflate {
    fn drop(&mut self) {
        // SAFETY: an initialised stream, ended once.
        unsafe {
            z::deflateEnd(&mut *self.strm);
        }
    }
}
