//! Sidecars follow their members across renames. A rotation renames every
//! numbered member (`app.log.1` becomes `app.log.2`, ...), and a sidecar
//! is found by its file's name: without this, each rotation would rebuild
//! the sidecar of every member (decompressing the whole family). Before
//! the members are opened, each file whose own sidecar does not describe
//! it takes the family sidecar that does — the one whose fingerprint
//! (size, modification time, head and tail checksums; spec §6.1) is the
//! file's exactly — by a hard link renamed into place, so every sidecar
//! name is replaced atomically and a sidecar another file still needs
//! stays readable under its other name until it is replaced in turn. A
//! sidecar under a member's name that describes no member's content is
//! removed (it would be refused as another file's), and so are sidecars
//! left with no file (the deleted oldest member's).

use super::discover::Named;
use crate::index::locate::default_sidecar;
use crate::ingest::fingerprint::{Comparison, compare, mtime};
use crate::io::FileSource;
use std::path::{Path, PathBuf};

/// True when the sidecar `sidecar` records `file` as it is now.
fn describes(sidecar: &Path, file: &Path) -> bool {
    let Ok(sb) = crate::read_superblock(sidecar) else {
        return false;
    };
    let Ok(meta) = std::fs::metadata(file) else {
        return false;
    };
    let Ok(src) = FileSource::open(file) else {
        return false;
    };
    // The file, or a prefix of it that the file grew from (extended by
    // the open, as any grown file's sidecar); not the sidecar of an empty
    // file, which is a prefix of every file.
    sb.fingerprint.size > 0
        && matches!(
            compare(&sb.fingerprint, &src, Some(mtime(&meta))),
            Ok(Comparison::Same | Comparison::Appended)
        )
}

/// Gives each of `named` the family sidecar that describes it, when its
/// own does not; removes the family's sidecars that no file has. Best
/// effort: what cannot be linked is simply rebuilt by the open.
pub fn adopt(live: &Path, named: &[Named]) {
    let Some(live_name) = live.file_name().and_then(|n| n.to_str()) else {
        return;
    };
    let dir = match live.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let manifest = format!("{live_name}.family.lidx");
    let mut sidecars: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with(live_name) && n.ends_with(".lidx") && *n != manifest)
        .map(|n| live.with_file_name(n))
        .collect();
    sidecars.sort();
    let mut used = Vec::new();
    for n in named {
        let own = default_sidecar(&n.path);
        if describes(&own, &n.path) {
            used.push(own);
            continue;
        }
        let Some(found) = sidecars
            .iter()
            .find(|s| **s != own && describes(s, &n.path))
        else {
            // The sidecar under this name is another member's (renamed
            // away) or stale: the family's to replace, so the open builds
            // one instead of refusing a sidecar of another file.
            if own.exists() {
                let _ = std::fs::remove_file(&own);
            }
            continue;
        };
        let tmp = temp_name(&own);
        if std::fs::hard_link(found, &tmp).is_ok() {
            if std::fs::rename(&tmp, &own).is_ok() {
                used.push(own);
            } else {
                let _ = std::fs::remove_file(&tmp);
            }
        }
    }
    // Sidecars of family names that are no longer files.
    for s in &sidecars {
        let source = s.with_extension("");
        if !used.contains(s) && !source.exists() && looks_rotated(live_name, &source) {
            let _ = std::fs::remove_file(s);
        }
    }
}

/// True for a name of the family's rotated members (not the live file's).
fn looks_rotated(live_name: &str, source: &Path) -> bool {
    source
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix(live_name))
        .is_some_and(|rest| !rest.is_empty())
}

fn temp_name(dest: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dest.with_file_name(format!(
        ".{name}.adopt-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ))
}
