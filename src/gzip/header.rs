//! gzip member headers and trailers (RFC 1952), parsed from bytes.

/// The two magic bytes that open every gzip member.
pub const MAGIC: [u8; 2] = [0x1f, 0x8b];

const FTEXT: u8 = 1;
const FHCRC: u8 = 2;
const FEXTRA: u8 = 4;
const FNAME: u8 = 8;
const FCOMMENT: u8 = 16;

/// Why a header could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderError {
    /// More bytes are needed (the header is longer than what was given).
    Incomplete,
    /// Not a gzip member, or an unsupported one (what is wrong).
    Invalid(&'static str),
    /// The header's CRC-16 (FHCRC: the low 16 bits of the CRC-32 of the
    /// header bytes before it) does not match them.
    BadCrc {
        /// The value stored in the header.
        stored: u16,
        /// The value computed from the header bytes.
        computed: u16,
    },
}

/// Parses the member header at the start of `b`; returns its length.
pub fn parse(b: &[u8]) -> Result<usize, HeaderError> {
    if b.len() < 10 {
        return Err(if b.len() >= 2 && b[..2] != MAGIC {
            HeaderError::Invalid("bad magic")
        } else {
            HeaderError::Incomplete
        });
    }
    if b[..2] != MAGIC {
        return Err(HeaderError::Invalid("bad magic"));
    }
    if b[2] != 8 {
        return Err(HeaderError::Invalid("compression method is not deflate"));
    }
    let flg = b[3];
    if flg & !(FTEXT | FHCRC | FEXTRA | FNAME | FCOMMENT) != 0 {
        return Err(HeaderError::Invalid("reserved header flags set"));
    }
    let mut at = 10;
    if flg & FEXTRA != 0 {
        let xlen = b.get(at..at + 2).ok_or(HeaderError::Incomplete)?;
        at += 2 + u16::from_le_bytes([xlen[0], xlen[1]]) as usize;
    }
    for flag in [FNAME, FCOMMENT] {
        if flg & flag != 0 {
            let rest = b.get(at..).ok_or(HeaderError::Incomplete)?;
            let nul = memchr::memchr(0, rest).ok_or(HeaderError::Incomplete)?;
            at += nul + 1;
        }
    }
    if flg & FHCRC != 0 {
        let stored = b.get(at..at + 2).ok_or(HeaderError::Incomplete)?;
        let stored = u16::from_le_bytes([stored[0], stored[1]]);
        let computed = crc32fast::hash(&b[..at]) as u16;
        if stored != computed {
            return Err(HeaderError::BadCrc { stored, computed });
        }
        at += 2;
    }
    if at > b.len() {
        return Err(HeaderError::Incomplete);
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_and_named_headers() {
        let h = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
        assert_eq!(parse(&h), Ok(10));
        let mut named = h.to_vec();
        named[3] = FNAME;
        named.extend_from_slice(b"app.log\0");
        assert_eq!(parse(&named), Ok(18));
        assert_eq!(parse(&named[..15]), Err(HeaderError::Incomplete));
        assert_eq!(
            parse(b"\x1f\x8b\x07\0\0\0\0\0\0\x03"),
            Err(HeaderError::Invalid("compression method is not deflate"))
        );
        assert_eq!(
            parse(b"PK\x03\x04\0\0\0\0\0\0"),
            Err(HeaderError::Invalid("bad magic"))
        );
    }

    /// FHCRC: the low 16 bits of the CRC-32 of the bytes before it (RFC
    /// 1952 §2.3.1), checked as gzip and zlib do.
    #[test]
    fn header_crc_is_checked() {
        let mut h = vec![0x1f, 0x8b, 8, FHCRC | FNAME, 0, 0, 0, 0, 0, 3];
        h.extend_from_slice(b"a.log\0");
        let crc = crc32fast::hash(&h) as u16;
        h.extend_from_slice(&crc.to_le_bytes());
        assert_eq!(parse(&h), Ok(18));
        assert_eq!(parse(&h[..17]), Err(HeaderError::Incomplete));
        for at in [4, 12, 16, 17] {
            let mut bad = h.clone();
            bad[at] ^= 0x20;
            assert!(
                matches!(parse(&bad), Err(HeaderError::BadCrc { .. })),
                "flip at {at}: {:?}",
                parse(&bad)
            );
        }
    }
}
