//! What a source holds, judged from its first bytes before a build: a gzip
//! archive (indexed as its text, spec R-90), data in another compression
//! format (recognised by its magic number and refused: its lines would be
//! meaningless), or plain bytes, which may still deserve a warning when
//! they do not look like text at all (raw deflate has no magic number).
//!
//! This is the reference implementation's policy for sources (spec §11.6),
//! applied by [`crate::OpenOptions`] when it builds a sidecar; the format
//! itself only fixes R-90 ([`BuildOptions::plain`](super::BuildOptions)
//! indexes any source as plain bytes).

use crate::error::Result;
pub use crate::format::compressed::Format;
use crate::io::ReadAt;
use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::core::inflate_flags::{
    TINFL_FLAG_HAS_MORE_INPUT, TINFL_FLAG_PARSE_ZLIB_HEADER,
    TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF,
};
use miniz_oxide::inflate::core::{DecompressorOxide, decompress};

/// Bytes of the source looked at.
pub const SAMPLE_LEN: usize = 64 * 1024;

/// A trial decode must get through this many input bytes without an error
/// (or decode the whole source) for data without a magic number, or with a
/// weak one (zlib's two bytes), to count as compressed.
const TRIAL_MIN_INPUT: usize = 4096;

/// What the first bytes of a source say it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sniffed {
    /// The gzip magic `1F 8B`.
    Gzip,
    /// A zstd seekable archive: zstd data that ends with a seek table
    /// indexed as its text.
    ZstdSeekable,
    /// Another compression or archive format.
    Compressed(Format),
    /// Plain bytes; with a warning when they do not look like text.
    Plain(Option<String>),
}

/// Reads the first [`SAMPLE_LEN`] bytes of `src` and classifies them.
pub fn sniff(src: &dyn ReadAt) -> Result<Sniffed> {
    let mut sample = vec![0u8; SAMPLE_LEN.min(src.len() as usize)];
    let n = src.read_full_at(&mut sample, 0)?;
    sample.truncate(n);
    let s = classify(&sample, (n as u64) < src.len());
    if s == Sniffed::Compressed(Format::Zstd) && crate::zstd::is_seekable(src)? {
        return Ok(Sniffed::ZstdSeekable);
    }
    Ok(s)
}

/// Classifies the first bytes of a source; `more` is true when the source
/// goes on past `b`.
pub fn classify(b: &[u8], more: bool) -> Sniffed {
    if b.starts_with(&crate::gzip::header::MAGIC) {
        return Sniffed::Gzip;
    }
    if let Some(f) = magic(b, more) {
        return Sniffed::Compressed(f);
    }
    Sniffed::Plain(opaque(b, more))
}

fn magic(b: &[u8], more: bool) -> Option<Format> {
    let at = |i: usize| b.get(i).copied();
    if b.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) || skippable(b) {
        return Some(Format::Zstd);
    }
    if b.starts_with(&[0x04, 0x22, 0x4d, 0x18]) || b.starts_with(&[0x02, 0x21, 0x4c, 0x18]) {
        return Some(Format::Lz4);
    }
    if b.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        return Some(Format::Xz);
    }
    if b.starts_with(b"LZIP") && matches!(at(4), Some(0 | 1)) {
        return Some(Format::Lzip);
    }
    if b.starts_with(b"BZh")
        && at(3).is_some_and(|d| (b'1'..=b'9').contains(&d))
        && (b[4..].starts_with(&[0x31, 0x41, 0x59, 0x26, 0x53, 0x59])
            || b[4..].starts_with(&[0x17, 0x72, 0x45, 0x38, 0x50, 0x90]))
    {
        return Some(Format::Bzip2);
    }
    if b.starts_with(&[0x1f, 0x9d])
        && at(2).is_some_and(|f| f & 0x60 == 0 && (9..=16).contains(&(f & 0x1f)))
    {
        return Some(Format::Compress);
    }
    if b.starts_with(b"PK\x03\x04") || b.starts_with(b"PK\x05\x06") {
        return Some(Format::Zip);
    }
    if b.starts_with(&[b'7', b'z', 0xbc, 0xaf, 0x27, 0x1c]) {
        return Some(Format::SevenZip);
    }
    if lzma_alone(b) {
        return Some(Format::Lzma);
    }
    if zlib_header(b) && trial(b, true, more).compressed(b.len()) {
        return Some(Format::Zlib);
    }
    None
}

/// A zstd/LZ4 skippable frame (magic `0x184D2A50..=0x184D2A5F`, little
/// endian), which `zstd -d` skips.
fn skippable(b: &[u8]) -> bool {
    b.len() >= 8 && b[0] & 0xf0 == 0x50 && b[1..4] == [0x2a, 0x4d, 0x18]
}

/// The 13-byte header of a legacy `.lzma` file as xz and LZMA Utils write
/// it: properties `5D` (lc=3, lp=0, pb=2), a dictionary size of 2^n or
/// 3·2^(n−1) bytes (4 KiB .. 1.5 GiB), and an uncompressed size that is
/// unknown (all ones) or below 2^48.
fn lzma_alone(b: &[u8]) -> bool {
    if b.len() < 13 || b[0] != 0x5d {
        return false;
    }
    let dict = u32::from_le_bytes([b[1], b[2], b[3], b[4]]);
    let size = u64::from_le_bytes(b[5..13].try_into().expect("8 bytes"));
    let dict_ok = (12..=30).any(|n| dict == 1 << n || dict == 3 << (n - 1));
    dict_ok && (size == u64::MAX || size < 1 << 48)
}

/// RFC 1950's header check: method 8 (deflate) with a window of at most
/// 32 KiB, `(CMF·256 + FLG) mod 31 = 0`, and no preset dictionary (which
/// nothing common writes, and which a reader could not supply).
fn zlib_header(b: &[u8]) -> bool {
    b.len() >= 2
        && b[0] & 0x0f == 8
        && b[0] >> 4 <= 7
        && (u16::from(b[0]) * 256 + u16::from(b[1])) % 31 == 0
        && b[1] & 0x20 == 0
}

/// The outcome of decoding the start of a source as deflate.
struct Trial {
    /// Decoding stopped at the end of the stream, its checks passed.
    done: bool,
    /// No data error before decoding stopped.
    clean: bool,
    /// Input bytes consumed.
    used: usize,
    /// Output produced (at most 4 × the sample).
    out: Vec<u8>,
}

impl Trial {
    /// True when the bytes decode as a real stream: cleanly through at
    /// least [`TRIAL_MIN_INPUT`] bytes, or to the end of a complete stream
    /// that makes up the whole sample and produces something.
    fn compressed(&self, sample_len: usize) -> bool {
        self.clean
            && (self.used >= TRIAL_MIN_INPUT
                || (self.done && self.used == sample_len && !self.out.is_empty()))
    }
}

/// Decodes `b` as a zlib stream (`zlib`) or raw deflate.
fn trial(b: &[u8], zlib: bool, more: bool) -> Trial {
    let mut out = vec![0u8; 4 * SAMPLE_LEN];
    let mut r = DecompressorOxide::new();
    let flags = TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF
        | if zlib {
            TINFL_FLAG_PARSE_ZLIB_HEADER
        } else {
            0
        }
        | if more { TINFL_FLAG_HAS_MORE_INPUT } else { 0 };
    let (status, used, produced) = decompress(&mut r, b, &mut out, 0, flags);
    out.truncate(produced);
    let done = status == TINFLStatus::Done;
    let clean = match status {
        TINFLStatus::Done | TINFLStatus::NeedsMoreInput | TINFLStatus::HasMoreOutput => true,
        // The sample ended (no more input promised): not a data error.
        TINFLStatus::FailedCannotMakeProgress => used == b.len(),
        _ => false,
    };
    Trial {
        done,
        clean,
        used,
        out,
    }
}

/// A warning for plain bytes that do not look like text: raw deflate (it
/// decodes as such), or compressed or random data (not UTF-8, and close to
/// 8 bits of entropy per byte, where text has about 4 to 5).
fn opaque(b: &[u8], more: bool) -> Option<String> {
    if b.len() < 1024 || utf8_text(b) {
        return None;
    }
    let kib = b.len().div_ceil(1024);
    if trial(b, false, more).compressed(b.len()) {
        return Some(format!(
            "the first {kib} KiB decode as raw deflate data (no gzip or zlib header), which lidx does not read: indexed as plain bytes"
        ));
    }
    let bits = entropy(b);
    (bits >= 7.0).then(|| {
        format!(
            "the first {kib} KiB do not look like text ({bits:.1} bits per byte, not UTF-8: compressed or random data?): indexed as plain bytes"
        )
    })
}

/// Valid UTF-8, allowing a sequence cut at the end of the sample.
fn utf8_text(b: &[u8]) -> bool {
    match std::str::from_utf8(b) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    }
}

/// Shannon entropy of the byte distribution, in bits per byte.
fn entropy(b: &[u8]) -> f64 {
    let mut freq = [0u64; 256];
    for &x in b {
        freq[x as usize] += 1;
    }
    let n = b.len() as f64;
    freq.iter()
        .filter(|&&f| f > 0)
        .map(|&f| {
            let p = f as f64 / n;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn noise(n: usize, mut s: u64) -> Vec<u8> {
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 24) as u8
            })
            .collect()
    }

    fn text(n: usize) -> Vec<u8> {
        let mut v = Vec::new();
        let mut i = 0u64;
        while v.len() < n {
            v.extend(format!("{i} request served in {} ms\n", i * 7919 % 1000).as_bytes());
            i += 1;
        }
        v
    }

    /// zlib streams at every level, raw deflate, and texts whose first
    /// two bytes pass the zlib header check ("x^", "HK") but do not decode.
    #[test]
    fn zlib_and_raw_deflate_by_trial_decode() {
        let t = text(200_000);
        for level in [0, 1, 6, 9] {
            let mut e =
                flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(level));
            e.write_all(&t).unwrap();
            let z = e.finish().unwrap();
            let n = z.len().min(SAMPLE_LEN);
            assert_eq!(
                classify(&z[..n], n < z.len()),
                Sniffed::Compressed(Format::Zlib),
                "level {level}"
            );
            let mut e =
                flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(level));
            e.write_all(&t).unwrap();
            let d = e.finish().unwrap();
            let n = d.len().min(SAMPLE_LEN);
            // Level 0 too: its stored-block headers are not UTF-8.
            match classify(&d[..n], n < d.len()) {
                Sniffed::Plain(Some(w)) => assert!(w.contains("raw deflate"), "{w}"),
                other => panic!("raw deflate level {level}: {other:?}"),
            }
        }
        // A small complete zlib stream.
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
        e.write_all(b"one\ntwo\n").unwrap();
        let z = e.finish().unwrap();
        assert_eq!(classify(&z, false), Sniffed::Compressed(Format::Zlib));
        for t in [&b"x^ marks the spot\n"[..], b"HK 42\n", b"x^", b"x\x01"] {
            assert!(zlib_header(t), "{t:?}");
            assert_eq!(classify(t, false), Sniffed::Plain(None), "{t:?}");
        }
    }

    #[test]
    fn magic_numbers() {
        let cases: [(&[u8], Option<Format>); 14] = [
            (b"\x28\xb5\x2f\xfd\x24\x00", Some(Format::Zstd)),
            (
                b"\x50\x2a\x4d\x18\x04\x00\x00\x00abcd\x28\xb5\x2f\xfd",
                Some(Format::Zstd),
            ),
            (b"\xfd7zXZ\x00\x00\x04", Some(Format::Xz)),
            (b"BZh91AY&SY", Some(Format::Bzip2)),
            (b"BZh9\x17\x72\x45\x38\x50\x90", Some(Format::Bzip2)),
            (b"BZh9 is not bzip2", None),
            (b"\x1f\x9d\x90abc", Some(Format::Compress)),
            (b"\x1f\x9d\xf0abc", None),
            (b"\x04\x22\x4d\x18\x64\x40", Some(Format::Lz4)),
            (b"LZIP\x01\x0c", Some(Format::Lzip)),
            (b"PK\x03\x04\x14\x00", Some(Format::Zip)),
            (b"7z\xbc\xaf\x27\x1c\x00\x04", Some(Format::SevenZip)),
            (
                b"\x5d\x00\x00\x80\x00\xff\xff\xff\xff\xff\xff\xff\xff\x00",
                Some(Format::Lzma),
            ),
            (
                b"\x5d\x01\x02\x03\x04\xff\xff\xff\xff\xff\xff\xff\xff\x00",
                None,
            ),
        ];
        for (b, want) in cases {
            let got = match classify(b, false) {
                Sniffed::Compressed(f) => Some(f),
                _ => None,
            };
            assert_eq!(got, want, "{b:?}");
        }
        assert_eq!(classify(b"\x1f\x8b", false), Sniffed::Gzip);
    }

    /// Random bytes warn; text, UTF-8 in other scripts, short files and
    /// binary files with structure (NULs, low entropy) do not.
    #[test]
    fn opaque_data_warns_text_does_not() {
        let w = classify(&noise(SAMPLE_LEN, 5), true);
        assert!(
            matches!(&w, Sniffed::Plain(Some(m)) if m.contains("do not look like text")),
            "{w:?}"
        );
        let cjk = "日志记录：请求已处理，耗时十二毫秒。\n".repeat(3000);
        let mut structured = Vec::new();
        for i in 0..5000u32 {
            structured.extend_from_slice(&i.to_le_bytes());
            structured.extend_from_slice(&[0, 0, 0xff, 7]);
        }
        for (name, b) in [
            ("text", text(SAMPLE_LEN)),
            ("cjk", cjk.into_bytes()),
            ("short noise", noise(1000, 3)),
            ("structured", structured),
        ] {
            let n = b.len().min(SAMPLE_LEN);
            assert_eq!(
                classify(&b[..n], n < b.len()),
                Sniffed::Plain(None),
                "{name}"
            );
        }
    }
}
