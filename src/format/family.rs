//! The family manifest's bytes (`format-spec/family-v1.md`): a small
//! record of a rotation family's members, oldest first, each with the
//! global line and byte numbers it was given and the content identity it
//! is recognised by. Pure encode/decode; the cited requirements are `F-n`.

/// The 8 magic bytes that open a manifest (F-2).
pub const MAGIC: [u8; 8] = *b"\x89LIDXFAM";
/// Major version written and read (F-3).
pub const VERSION_MAJOR: u16 = 1;
/// Minor version written (F-3).
pub const VERSION_MINOR: u16 = 0;
/// Length of the header (F-2).
pub const HEADER_LEN: usize = 32;
/// Length of one member record (F-4).
pub const RECORD_LEN: usize = 48;
/// The head window writers use: a member is recognised by a digest of its
/// first `min(size, HEAD_WINDOW)` bytes of text (F-6).
pub const HEAD_WINDOW: u32 = 4096;
/// The most members a manifest holds (F-2): a bound for readers.
pub const MAX_MEMBERS: u32 = 1 << 20;

/// One member as the manifest records it (F-4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberRecord {
    /// Global number (0-based) of the member's first line.
    pub base_line: u64,
    /// Lines in the member when it was recorded.
    pub lines: u64,
    /// Global offset of the member's first byte of text.
    pub base_byte: u64,
    /// Bytes of text (uncompressed) when it was recorded.
    pub bytes: u64,
    /// XXH64 (seed 0) of the first `head_len` bytes of text.
    pub head_digest: u64,
    /// Bytes the digest covers: `min(bytes, head window)`.
    pub head_len: u32,
    /// The member's file name when it was recorded (informative).
    pub name: Vec<u8>,
}

impl MemberRecord {
    /// The global line just past the member.
    pub fn end_line(&self) -> u64 {
        self.base_line + self.lines
    }

    /// The global offset just past the member.
    pub fn end_byte(&self) -> u64 {
        self.base_byte + self.bytes
    }
}

/// A decoded manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// The head window the digests were taken with (F-6).
    pub head_window: u32,
    /// The members, oldest first; the last is the live file (F-5).
    pub members: Vec<MemberRecord>,
}

/// What is wrong with manifest bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManifestError {
    /// Not a manifest (magic), or too short for its header.
    NotAManifest,
    /// Another major version.
    Version(u16, u16),
    /// The CRC does not match.
    Checksum {
        /// Stored.
        stored: u32,
        /// Computed.
        computed: u32,
    },
    /// Decodable but impossible values.
    Invalid(String),
}

impl std::fmt::Display for ManifestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ManifestError::NotAManifest => write!(f, "not a lidx family manifest"),
            ManifestError::Version(a, b) => write!(
                f,
                "family manifest version {a}.{b} is not supported (this lidx reads {VERSION_MAJOR}.x)"
            ),
            ManifestError::Checksum { stored, computed } => write!(
                f,
                "family manifest corrupt: checksum mismatch (stored {stored:#010x}, computed {computed:#010x})"
            ),
            ManifestError::Invalid(what) => write!(f, "family manifest corrupt: {what}"),
        }
    }
}

impl Manifest {
    /// Encodes the manifest (F-2..F-5); the records must satisfy F-5.
    pub fn encode(&self) -> Vec<u8> {
        let names: usize = self.members.iter().map(|m| m.name.len()).sum();
        let mut out = Vec::with_capacity(HEADER_LEN + RECORD_LEN * self.members.len() + names + 4);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION_MAJOR.to_le_bytes());
        out.extend_from_slice(&VERSION_MINOR.to_le_bytes());
        out.extend_from_slice(&(self.members.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.head_window.to_le_bytes());
        out.extend_from_slice(&[0u8; 12]);
        for m in &self.members {
            out.extend_from_slice(&m.base_line.to_le_bytes());
            out.extend_from_slice(&m.lines.to_le_bytes());
            out.extend_from_slice(&m.base_byte.to_le_bytes());
            out.extend_from_slice(&m.bytes.to_le_bytes());
            out.extend_from_slice(&m.head_digest.to_le_bytes());
            out.extend_from_slice(&m.head_len.to_le_bytes());
            out.extend_from_slice(&(m.name.len() as u16).to_le_bytes());
            out.extend_from_slice(&[0u8; 2]);
        }
        for m in &self.members {
            out.extend_from_slice(&m.name);
        }
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// Decodes and validates manifest bytes, checks in the order of F-7.
    pub fn decode(b: &[u8]) -> Result<Manifest, ManifestError> {
        if b.len() < HEADER_LEN + 4 || b[..8] != MAGIC {
            return Err(ManifestError::NotAManifest);
        }
        let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let (major, minor) = (u16_at(8), u16_at(10));
        if major != VERSION_MAJOR {
            return Err(ManifestError::Version(major, minor));
        }
        let body = &b[..b.len() - 4];
        let stored = u32_at(b.len() - 4);
        let computed = crc32fast::hash(body);
        if stored != computed {
            return Err(ManifestError::Checksum { stored, computed });
        }
        let bad = |what: String| Err(ManifestError::Invalid(what));
        let count = u32_at(12);
        let head_window = u32_at(16);
        if count == 0 || count > MAX_MEMBERS {
            return bad(format!("{count} members"));
        }
        if head_window == 0 {
            return bad("head window 0".into());
        }
        // Reserved bytes (header 20..32, record 46..48) are not checked
        // (F-2): a later minor version may give them a meaning.
        let records_end = HEADER_LEN + RECORD_LEN * count as usize;
        if body.len() < records_end {
            return bad(format!("too short for {count} member records"));
        }
        let mut members = Vec::with_capacity(count as usize);
        let mut names_at = records_end;
        for i in 0..count as usize {
            let r = HEADER_LEN + RECORD_LEN * i;
            let name_len = u16_at(r + 44) as usize;
            let Some(name) = body.get(names_at..names_at + name_len) else {
                return bad(format!("member {i}: name past the end"));
            };
            names_at += name_len;
            members.push(MemberRecord {
                base_line: u64_at(r),
                lines: u64_at(r + 8),
                base_byte: u64_at(r + 16),
                bytes: u64_at(r + 24),
                head_digest: u64_at(r + 32),
                head_len: u32_at(r + 40),
                name: name.to_vec(),
            });
        }
        if names_at != body.len() {
            return bad(format!(
                "{} bytes after the names",
                body.len().saturating_sub(names_at)
            ));
        }
        let m = Manifest {
            head_window,
            members,
        };
        m.check().map_err(ManifestError::Invalid)?;
        Ok(m)
    }

    /// The rules of F-5: lines within bytes, the digest window, numbering
    /// without gaps or overlaps between members, no overflow.
    pub fn check(&self) -> Result<(), String> {
        let mut prev: Option<&MemberRecord> = None;
        for (i, m) in self.members.iter().enumerate() {
            if m.lines > m.bytes {
                return Err(format!(
                    "member {i}: {} lines in {} bytes",
                    m.lines, m.bytes
                ));
            }
            if u64::from(m.head_len) != m.bytes.min(u64::from(self.head_window)) {
                return Err(format!(
                    "member {i}: head length {} is not min(bytes, head window)",
                    m.head_len
                ));
            }
            if m.base_line.checked_add(m.lines).is_none()
                || m.base_byte.checked_add(m.bytes).is_none()
            {
                return Err(format!("member {i}: numbers overflow"));
            }
            if let Some(p) = prev
                && (m.base_line != p.end_line() || m.base_byte != p.end_byte())
            {
                return Err(format!(
                    "member {i}: starts at line {} byte {}, not where member {} ends (line {} byte {})",
                    m.base_line,
                    m.base_byte,
                    i - 1,
                    p.end_line(),
                    p.end_byte()
                ));
            }
            prev = Some(m);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Manifest {
        Manifest {
            head_window: HEAD_WINDOW,
            members: vec![
                MemberRecord {
                    base_line: 10,
                    lines: 3,
                    base_byte: 100,
                    bytes: 20,
                    head_digest: 7,
                    head_len: 20,
                    name: b"app.log.1".to_vec(),
                },
                MemberRecord {
                    base_line: 13,
                    lines: 0,
                    base_byte: 120,
                    bytes: 0,
                    head_digest: 9,
                    head_len: 0,
                    name: b"app.log".to_vec(),
                },
            ],
        }
    }

    #[test]
    fn round_trips() {
        let m = sample();
        assert_eq!(Manifest::decode(&m.encode()), Ok(m));
    }

    #[test]
    fn every_flipped_bit_is_an_error() {
        let bytes = sample().encode();
        for i in 0..bytes.len() * 8 {
            let mut b = bytes.clone();
            b[i / 8] ^= 1 << (i % 8);
            assert!(Manifest::decode(&b).is_err(), "bit {i}");
        }
        for n in 0..bytes.len() {
            assert!(Manifest::decode(&bytes[..n]).is_err(), "cut at {n}");
        }
    }

    #[test]
    fn gaps_and_overlaps_are_refused() {
        let mut m = sample();
        m.members[1].base_line = 14;
        assert!(m.check().is_err());
        let mut m = sample();
        m.members[1].base_byte = 119;
        assert!(m.check().is_err());
    }
}
