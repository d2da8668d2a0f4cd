//! Compression and archive formats that lidx recognises in a source by its
//! first bytes and does not index, with the words its errors use for them.
//! Recognising them is the work of `ingest::sniff` (which re-exports
//! [`Format`]); the names live here, below both it and the error type, so
//! that the error messages can use them without depending on the sniffing.

/// Compression and archive formats recognised by their first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A zlib stream (RFC 1950: `pigz -z`, zlib's `compress()`): a 2-byte
    /// header with `(CMF·256 + FLG) mod 31 = 0`, deflate, no preset
    /// dictionary, confirmed by decoding the start of the stream.
    Zlib,
    /// zstd: frame magic `28 B5 2F FD`, or a skippable frame
    /// `5x 2A 4D 18` first.
    Zstd,
    /// xz: `FD 37 7A 58 5A 00`.
    Xz,
    /// The legacy `.lzma` format: properties byte `5D`, a dictionary size
    /// of 2^n or 3·2^(n−1) bytes, an uncompressed size.
    Lzma,
    /// lzip: `LZIP` and version 0 or 1.
    Lzip,
    /// bzip2: `BZh` and a level digit, then a block or end-of-stream magic.
    Bzip2,
    /// Unix `compress` (`.Z`, LZW): `1F 9D` and a valid flags byte.
    Compress,
    /// LZ4: frame magic `04 22 4D 18` or the legacy `02 21 4C 18`.
    Lz4,
    /// A zip archive: `PK 03 04` (or `PK 05 06`, empty).
    Zip,
    /// A 7z archive: `37 7A BC AF 27 1C`.
    SevenZip,
}

impl Format {
    /// The format as a noun phrase, for messages: "zstd data".
    pub fn name(self) -> &'static str {
        match self {
            Format::Zlib => "zlib stream",
            Format::Zstd => "zstd data",
            Format::Xz => "xz data",
            Format::Lzma => "lzma data",
            Format::Lzip => "lzip data",
            Format::Bzip2 => "bzip2 data",
            Format::Compress => "compress (.Z) data",
            Format::Lz4 => "lz4 data",
            Format::Zip => "zip archive",
            Format::SevenZip => "7z archive",
        }
    }

    /// Why lidx does not index it (with [`Format::name`]: "zlib stream:
    /// not gzip").
    pub fn why(self) -> &'static str {
        match self {
            Format::Zlib => "not gzip",
            Format::Zstd => {
                "no seek table at its end: a single zstd stream (or a seekable archive cut short), which cannot be read from the middle"
            }
            Format::Zip | Format::SevenZip => "an archive of files, not a text",
            _ => "not supported yet",
        }
    }
}
