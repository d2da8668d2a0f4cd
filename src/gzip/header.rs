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
}
