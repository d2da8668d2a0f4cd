//! Finding a rotation family's files by name, as logrotate names them,
//! and putting them in order, oldest first (`format-spec/family-v1.md`
//! §3): the live file `NAME`, numbered members `NAME.N` (`NAME.N.gz`,
//! `NAME.N.zst`; larger N is older), dated members `NAME-DATE` or
//! `NAME.DATE` (logrotate's `dateext`, any `dateformat` of digits and
//! separators; `.gz`/`.zst` after it; earlier dates are older). Names are
//! only the order's first guess: members are recognised by content.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// A file of the family, by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// Its path.
    pub path: PathBuf,
    /// Where its name puts it (smaller is older).
    order: Order,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Order {
    /// A dated member: the date's digits (compared as numbers: by length,
    /// then digit by digit).
    Dated(usize, String),
    /// A numbered member: `u64::MAX - N`, so that larger N sorts first.
    Numbered(u64),
    /// The live file.
    Live,
}

/// The compressed suffixes a member may carry; the text is read through
/// lidx's gzip and zstd readers.
const SUFFIXES: [&str; 2] = [".gz", ".zst"];

/// Suffixes of compression formats lidx does not read: such a member is
/// an error, not silently left out (the numbering would skip its lines).
const UNREADABLE: [&str; 5] = [".xz", ".bz2", ".lz4", ".lzma", ".Z"];

/// What a name after the live file's name says about a file.
fn order_of(rest: &str) -> Option<std::result::Result<Order, &'static str>> {
    let (core, unreadable) = match SUFFIXES.iter().find_map(|s| rest.strip_suffix(s)) {
        Some(core) => (core, None),
        None => match UNREADABLE.iter().find(|s| rest.ends_with(*s)) {
            Some(s) => (&rest[..rest.len() - s.len()], Some(*s)),
            None => (rest, None),
        },
    };
    let order = if let Some(n) = core.strip_prefix('.').filter(|n| is_number(n)) {
        if n.len() >= 8 {
            Order::Dated(n.len(), n.to_string())
        } else {
            Order::Numbered(u64::MAX - n.parse::<u64>().ok()?)
        }
    } else {
        let date = core.strip_prefix('-').or_else(|| core.strip_prefix('.'))?;
        if !is_date(date) {
            return None;
        }
        let digits: String = date.chars().filter(char::is_ascii_digit).collect();
        Order::Dated(digits.len(), digits)
    };
    Some(match unreadable {
        Some(s) => Err(s),
        None => Ok(order),
    })
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.len() <= 19 && s.bytes().all(|b| b.is_ascii_digit())
}

/// A date as logrotate's `dateformat` writes it: digits and the
/// separators `-`, `_`, `.`, with at least 6 digits, starting and ending
/// with a digit.
fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.first().is_some_and(u8::is_ascii_digit)
        && b.last().is_some_and(u8::is_ascii_digit)
        && b.iter()
            .all(|c| c.is_ascii_digit() || matches!(c, b'-' | b'_' | b'.'))
        && b.iter().filter(|c| c.is_ascii_digit()).count() >= 6
}

/// The family of `live`: its rotated files in order, oldest first, then
/// `live` itself if it exists. Sidecars and manifests (`*.lidx`) are not
/// members.
pub fn family_files(live: &Path) -> Result<Vec<Named>> {
    let name = live.file_name().and_then(|n| n.to_str()).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "{}: a rotation family is named by its live file's path (a UTF-8 file name)",
            live.display()
        ))
    })?;
    let dir = match live.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let entries = std::fs::read_dir(&dir).map_err(|e| Error::io("read directory", &dir, e))?;
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("read directory", &dir, e))?;
        let file_name = entry.file_name();
        let Some(other) = file_name.to_str() else {
            continue;
        };
        if other.ends_with(".lidx") {
            continue;
        }
        let Some(rest) = other.strip_prefix(name) else {
            continue;
        };
        let path = live.with_file_name(other);
        if rest.is_empty() {
            found.push(Named {
                path,
                order: Order::Live,
            });
            continue;
        }
        match order_of(rest) {
            Some(Ok(order)) if path.is_file() => found.push(Named { path, order }),
            None | Some(Ok(_)) => {}
            Some(Err(suffix)) => {
                return Err(Error::InvalidArgument(format!(
                    "{}: a member of {}'s rotation family is compressed as {suffix}, which lidx does not read (gzip and zstd members are read as their text); decompress it, or recompress it with gzip",
                    path.display(),
                    name
                )));
            }
        }
    }
    // Uncompressed names first among equals: `NAME.2` and `NAME.2.gz` side
    // by side is gzip at work (it removes `NAME.2` when the archive is
    // complete); the plain file is the member until then.
    found.sort_by(|a, b| {
        a.order
            .cmp(&b.order)
            .then_with(|| a.path.as_os_str().len().cmp(&b.path.as_os_str().len()))
            .then_with(|| a.path.cmp(&b.path))
    });
    found.dedup_by(|later, first| later.order == first.order);
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for n in [
            "app.log",
            "app.log.1",
            "app.log.2.gz",
            "app.log.10.gz",
            "app.log.3.zst",
            "app.log.1.gz",
            "app.log.lidx",
            "app.log.1.lidx",
            "app.log.family.lidx",
            "app.log.bak",
            "app.logger",
            "app.log-20261129.gz",
            "app.log-20261130",
            "app.log.2026-11-28",
        ] {
            std::fs::write(d.join(n), b"x\n").unwrap();
        }
        let got: Vec<String> = family_files(&d.join("app.log"))
            .unwrap()
            .iter()
            .map(|n| n.path.file_name().unwrap().to_str().unwrap().to_string())
            .collect();
        assert_eq!(
            got,
            [
                "app.log.2026-11-28",
                "app.log-20261129.gz",
                "app.log-20261130",
                "app.log.10.gz",
                "app.log.3.zst",
                "app.log.2.gz",
                "app.log.1",
                "app.log",
            ]
        );
    }

    #[test]
    fn unreadable_members_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("app.log"), b"x\n").unwrap();
        std::fs::write(dir.path().join("app.log.2.xz"), b"x\n").unwrap();
        let e = family_files(&dir.path().join("app.log")).unwrap_err();
        assert!(e.to_string().contains("app.log.2.xz"), "{e}");
    }
}
