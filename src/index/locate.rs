//! Where a source's sidecar lives.
//!
//! Default: next to the source, `FILE.lidx`. When the source's directory is
//! not writable, `$XDG_CACHE_HOME/lidx/` (or `~/.cache/lidx/`) under a name
//! derived from the source's absolute path: a 64-bit FNV-1a hash of the path
//! in hex, a dash, and the basename (cut to 100 bytes), plus `.lidx`.
//!
//! Which file that is: a descriptor alias such as `/dev/stdin` stands for
//! the file it has open ([`named_source`]).

use std::borrow::Cow;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The file `source` names, for the purpose of keeping its sidecar.
///
/// A descriptor alias (`/dev/stdin`, `/dev/fd/N`, `/proc/self/fd/N`) opened
/// on a regular file stands for that file: `lidx lines /dev/stdin 5 <
/// app.log` uses `app.log.lidx`, and the sidecar records `app.log`'s name.
/// An alias of a file that cannot be named (deleted, anonymous, or in a
/// directory the user cannot search) is an error: there is nowhere
/// sensible to keep its sidecar, and `/dev` is not the place (callers that
/// were given an explicit sidecar path use the alias as it is). Pipes and devices are left to [`crate::io::FileSource::open`],
/// which refuses them. Any other path is returned as it is.
pub fn named_source(source: &Path) -> crate::Result<Cow<'_, Path>> {
    if !is_descriptor_alias(source) {
        return Ok(Cow::Borrowed(source));
    }
    let regular = std::fs::metadata(source).is_ok_and(|m| m.is_file());
    if !regular {
        return Ok(Cow::Borrowed(source));
    }
    let why = match std::fs::canonicalize(source) {
        Ok(real) if !is_descriptor_alias(&real) && real.is_absolute() => {
            return Ok(Cow::Owned(real));
        }
        Ok(_) => "it has no path of its own".to_string(),
        Err(e) => e.to_string(),
    };
    Err(crate::Error::InvalidArgument(format!(
        "{}: cannot name the file behind it ({why}: deleted, anonymous or not reachable); \
         give the sidecar's path with --index",
        source.display()
    )))
}

/// True for the paths that name an open file descriptor rather than a
/// file: `/dev/stdin`, `/dev/fd/N`, `/proc/PID/fd/N` (and `/proc/self/…`).
/// Other paths under `/dev` (`/dev/shm/x.log`) are files like any other.
fn is_descriptor_alias(p: &Path) -> bool {
    p == Path::new("/dev/stdin")
        || p.starts_with("/dev/fd")
        || (p.starts_with("/proc")
            && p.parent()
                .and_then(|d| d.file_name())
                .is_some_and(|n| n == "fd"))
}

/// `FILE.lidx` next to `source`.
pub fn default_sidecar(source: &Path) -> PathBuf {
    let mut name: OsString = source.as_os_str().to_owned();
    name.push(".lidx");
    PathBuf::from(name)
}

/// The per-user cache directory for sidecars, if one can be named.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|x| Path::new(x).is_absolute()) {
        return Some(PathBuf::from(x).join("lidx"));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".cache").join("lidx"))
}

/// FNV-1a, 64 bits (names in the cache directory).
pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The sidecar path for `source` in the cache directory.
pub fn cache_sidecar(source: &Path) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let abs = std::fs::canonicalize(source).ok()?;
    let base = abs.file_name()?.as_bytes();
    let base = String::from_utf8_lossy(&base[..base.len().min(100)]).replace('/', "_");
    let name = format!("{:016x}-{base}.lidx", fnv1a64(abs.as_os_str().as_bytes()));
    Some(cache_dir()?.join(name))
}

/// True for the I/O errors that mean "you may not write there" (including
/// a sidecar name too long for the file system: the cache directory's
/// hashed names are short).
pub fn is_permission_error(e: &crate::Error) -> bool {
    match e {
        crate::Error::Io { source, .. } => {
            matches!(
                source.kind(),
                std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
            ) || source.raw_os_error() == Some(libc::EROFS)
                || source.raw_os_error() == Some(libc::EPERM)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_aliases() {
        for alias in [
            "/dev/stdin",
            "/dev/fd/0",
            "/proc/self/fd/3",
            "/proc/42/fd/7",
        ] {
            assert!(is_descriptor_alias(Path::new(alias)), "{alias}");
        }
        for file in [
            "/dev/shm/app.log",
            "/dev/null",
            "/proc/cpuinfo",
            "/proc/self/fdinfo/3",
            "/var/log/fd/x",
            "dev/stdin",
        ] {
            assert!(!is_descriptor_alias(Path::new(file)), "{file}");
            // Not an alias: returned as given, without touching the disk.
            assert_eq!(named_source(Path::new(file)).unwrap(), Path::new(file));
        }
    }

    #[test]
    fn default_appends_suffix() {
        assert_eq!(
            default_sidecar(Path::new("/a/b.log.gz")),
            PathBuf::from("/a/b.log.gz.lidx")
        );
        assert_eq!(default_sidecar(Path::new("x")), PathBuf::from("x.lidx"));
    }

    #[test]
    fn fnv_known_value() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
