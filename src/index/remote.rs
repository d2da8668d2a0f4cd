//! Opening the index of a remote source (a URL): where its sidecar comes
//! from, how few round trips opening takes, and building one when there is
//! none (into the user cache directory: lidx never uploads).
//!
//! Sidecar candidates, in order: `--index URL|PATH` alone when given;
//! otherwise a sidecar this machine built before, in the cache directory
//! ([`cache_sidecar`], keyed by the URL), then the one shipped next to the
//! object (URL + `.lidx`). A fresh one is used; a missing or stale one is
//! built anew from the object, streamed once, into the cache directory; a
//! damaged one is an error, as for a local file.
//!
//! Identity: the verdict of a local file (spec §6.2, §6.3) with the
//! object's Last-Modified as the modification time and a memo keyed by URL,
//! ETag and size ([`source_stat`]); a verdict that only the content can
//! settle is settled as for a local file ([`Index::verify_content`]).
//!
//! Round trips of an open (cold): the first request of the source (its
//! first and last 64 KiB, which the fingerprint check needs and which give
//! its size and ETag) and of the sidecar (its first [`HEAD_PREFETCH`]
//! bytes: the superblock and, in a layout that puts them first, the upper
//! tree levels) go together; then the pages the open reads that the head
//! did not hold ([`open_pages`]). A goto then reads a leaf and the source
//! span, each one round trip (`Index::line_start` hints the span).

use super::options::{Action, OpenOptions, Opened, ensure_dir, unsupported, write_sidecar};
use super::{Index, SourceStat, locate, read_superblock};
use crate::error::{Error, Result};
use crate::format::Superblock;
use crate::ingest::fingerprint::{Memo, Verdict};
use crate::ingest::sniff::{self, Sniffed};
use crate::ingest::{self, SourceInfo};
use crate::io::remote::{First, Location, RemoteOptions, RemoteSource, is_url};
use crate::io::{FileSource, ReadAt};
use std::path::{Path, PathBuf};

/// Bytes of a remote sidecar fetched by its first request. A heuristic
/// until the superblock says how many pages to fetch first (format v1.2's
/// `head_pages`, see [`open_pages`]).
pub const HEAD_PREFETCH: u64 = 64 << 10;

/// Bytes of the source fetched at each end by its first requests: the
/// fingerprint's blocks (spec §6.1).
const FINGERPRINT_BLOCK: u64 = crate::format::FINGERPRINT_BLOCK;

/// A sidecar's place: a URL or a local path.
enum Side {
    Remote(Location),
    Local(PathBuf),
}

/// The sidecar for remote source `url` in the user cache directory:
/// `HHHHHHHHHHHHHHHH-NAME.lidx`, `H…` the FNV-1a hash of the URL's bytes
/// (as for a local file's canonical path, spec §1.1) and `NAME` the
/// object's name.
pub fn cache_sidecar(url: &str, name: &str) -> Option<PathBuf> {
    let base: String = name
        .chars()
        .scan(0usize, |n, c| {
            *n += c.len_utf8();
            (*n <= 100).then_some(c)
        })
        .collect::<String>()
        .replace('/', "_");
    let file = format!("{:016x}-{base}.lidx", locate::fnv1a64(url.as_bytes()));
    Some(locate::cache_dir()?.join(file))
}

/// What a remote source's first requests fetch: the fingerprint blocks.
fn source_first() -> [First; 2] {
    [
        First::Head(FINGERPRINT_BLOCK),
        First::Tail(FINGERPRINT_BLOCK),
    ]
}

/// The most of a head-first sidecar's head (spec) fetched at
/// open beyond [`HEAD_PREFETCH`]: 4 MiB, the head of a 3 TiB text at the
/// default spacing; past it, upper tree pages are read as lookups need
/// them (parents come first, so any prefix holds a connected top).
const HEAD_MAX: u64 = 4 << 20;

/// Byte ranges of a sidecar that opening it reads beyond its first
/// [`HEAD_PREFETCH`] bytes, requested together without waiting: the rest
/// of a head-first sidecar's head (format 1.2: `head_pages`, up to
/// [`HEAD_MAX`]), or else the root page; and for a gzip source the
/// access-point pages (when few), which follow the leaves.
fn open_pages(sb: &Superblock) -> Vec<std::ops::Range<u64>> {
    let ps = sb.page_size as u64;
    let mut v = Vec::new();
    match sb.head_len() {
        Some(head) if head > HEAD_PREFETCH => v.push(HEAD_PREFETCH..head.min(HEAD_MAX)),
        Some(_) => {}
        None => {
            let root = sb.root_page as u64 * ps;
            if root + ps > HEAD_PREFETCH {
                v.push(root..root + ps);
            }
        }
    }
    // A gzip sidecar's access-point pages are announced by each lookup,
    // together with its leaf (the index's access-point hints): opening
    // reads none of them.
    v
}

/// Binds a remote source and a sidecar: reads the superblock (from the
/// first request's bytes), starts the fetch of the pages opening needs,
/// and builds the [`Index`].
fn bind(src: &RemoteSource, side: Box<dyn ReadAt>, cache_bytes: usize) -> Result<Index> {
    let sb = read_superblock(&*side)?;
    for r in open_pages(&sb) {
        side.will_need(r);
    }
    Index::from_parts_with(
        Box::new(src.clone()),
        side,
        &source_stat(src, &sb),
        cache_bytes,
    )
}

/// What the verdict (spec §6.2, §6.3) knows of a remote object: its
/// Last-Modified as the modification-time hint, and its URL, version
/// (ETag, else Last-Modified) and size for the memo of a content check.
///
/// HTTP dates have whole seconds: a Last-Modified equal to the seconds of
/// the recorded time (nginx serving the very file the sidecar was built
/// from) is that time. Any other (an upload's time) differs, and the
/// content decides: a gzip archive's member trailers at once, a plain
/// object by one re-read, remembered for this URL and version.
fn source_stat(src: &RemoteSource, sb: &Superblock) -> SourceStat {
    let id = src.identity();
    let fp = &sb.fingerprint;
    let mtime = if id.last_modified == fp.mtime_sec {
        (fp.mtime_sec, fp.mtime_nsec)
    } else {
        (id.last_modified, 0)
    };
    let version = match &id.etag {
        Some(e) => format!("etag {e}"),
        None => format!("last-modified {}", id.last_modified),
    };
    SourceStat {
        mtime: Some(mtime),
        memo: Some(Memo::for_object(
            src.url().split_once('?').map_or(src.url(), |(p, _)| p),
            &version,
            id.size,
        )),
        remote: true,
    }
}

/// Opens the sidecar `side` together with `src` when both are remote and
/// `src` is not open yet (one round trip for both).
fn open_pair(
    src_loc: &Location,
    src: Option<&RemoteSource>,
    side: &Location,
) -> (Result<RemoteSource>, Result<RemoteSource>) {
    let src_first = source_first();
    let side_first = [First::Head(HEAD_PREFETCH)];
    match src {
        Some(s) => (Ok(s.clone()), RemoteSource::open(side, &side_first)),
        None => {
            let mut r = RemoteSource::open_all(&[(src_loc, &src_first), (side, &side_first)]);
            let side = r.pop().expect("two results");
            let src = r.pop().expect("two results");
            (src, side)
        }
    }
}

/// True for the error of an object that does not exist.
fn not_found(e: &Error) -> bool {
    matches!(e, Error::Remote { what, .. } if what.starts_with("not found"))
}

/// Where the candidates are, and the cache path for builds.
struct Plan {
    src_loc: Location,
    explicit: Option<Side>,
    cache: Option<PathBuf>,
}

fn plan(oo: &OpenOptions, url: &Path) -> Result<Plan> {
    let ropts = RemoteOptions::default();
    let url_s = url.to_str().expect("is_url accepted it: UTF-8");
    let src_loc = Location::parse(url_s, &ropts)?;
    let explicit = match &oo.sidecar {
        Some(p) if is_url(p) => Some(Side::Remote(Location::parse(
            p.to_str().expect("is_url: UTF-8"),
            &ropts,
        )?)),
        Some(p) => Some(Side::Local(p.clone())),
        None => None,
    };
    let cache = cache_sidecar(src_loc.url_without_query(), src_loc.file_name());
    Ok(Plan {
        src_loc,
        explicit,
        cache,
    })
}

/// The sidecar URL next to the object: `.lidx` added to the URL's path
/// (its query kept).
fn shipped(src_loc: &Location) -> Result<Location> {
    Location::parse(&src_loc.sidecar_url(), &RemoteOptions::default())
}

/// What the candidates gave.
enum Found {
    /// A fresh index.
    Fresh(Index),
    /// An index whose source differs from the fingerprint only in its
    /// modification time: its content decides ([`Index::verify_content`]).
    Unverified(Index, PathBuf),
    /// An index whose source changed (or grew) since it was built, and
    /// where it is.
    Stale(Index, PathBuf),
    /// No sidecar anywhere; where one would be built.
    Missing(PathBuf),
}

/// Looks for a sidecar of `url` without building one.
fn find(oo: &OpenOptions, p: &Plan) -> Result<(RemoteSource, Found)> {
    let cb = oo.cache_bytes;
    match &p.explicit {
        Some(Side::Remote(side)) => {
            let (src, side) = open_pair(&p.src_loc, None, side);
            let src = src?;
            let index = bind(&src, Box::new(side?), cb)?;
            Ok(classify(src, index))
        }
        Some(Side::Local(path)) => {
            let src = RemoteSource::open(&p.src_loc, &source_first())?;
            if !path.exists() {
                return Ok((src, Found::Missing(path.clone())));
            }
            let index = bind(&src, Box::new(FileSource::open(path)?), cb)?;
            Ok(classify(src, index))
        }
        None => {
            // A sidecar built here before: no request needed to find it.
            let mut src = None;
            let mut stale = None;
            if let Some(c) = p.cache.as_ref().filter(|c| c.exists()) {
                let s = RemoteSource::open(&p.src_loc, &source_first())?;
                match FileSource::open(c).and_then(|f| bind(&s, Box::new(f), cb)) {
                    Ok(i) if i.verdict() == Verdict::Unchanged => {
                        return Ok((s, Found::Fresh(i)));
                    }
                    Ok(i) if i.verdict() == Verdict::Unverified => {
                        return Ok((s, Found::Unverified(i, c.clone())));
                    }
                    Ok(i) => stale = Some(i),
                    // Ours to replace: rebuilt if nothing better is found.
                    Err(_) => {}
                }
                src = Some(s);
            }
            let side = shipped(&p.src_loc)?;
            let (s, side) = open_pair(&p.src_loc, src.as_ref(), &side);
            let s = s?;
            let build_at = || {
                p.cache.clone().ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "{}: no directory to keep its sidecar in (set XDG_CACHE_HOME or HOME, \
                         or give --index PATH)",
                        p.src_loc.url()
                    ))
                })
            };
            match side {
                Err(e) if not_found(&e) => match stale {
                    Some(i) => Ok((s, Found::Stale(i, build_at()?))),
                    None => Ok((s, Found::Missing(build_at()?))),
                },
                Err(e) => Err(e),
                Ok(side) => {
                    let index = bind(&s, Box::new(side), cb)?;
                    match classify(s, index) {
                        (s, Found::Stale(i, _)) => Ok((s, Found::Stale(i, build_at()?))),
                        (s, Found::Unverified(i, _)) => Ok((s, Found::Unverified(i, build_at()?))),
                        other => Ok(other),
                    }
                }
            }
        }
    }
}

fn classify(src: RemoteSource, index: Index) -> (RemoteSource, Found) {
    let at = index.sidecar_path().to_path_buf();
    match index.verdict() {
        Verdict::Unchanged => (src, Found::Fresh(index)),
        Verdict::Unverified => (src, Found::Unverified(index, at)),
        _ => (src, Found::Stale(index, at)),
    }
}

/// [`OpenOptions::inspect`] for a URL: the existing sidecar, whatever its
/// freshness; never builds.
pub(super) fn inspect(oo: &OpenOptions, url: &Path) -> Result<Index> {
    let p = plan(oo, url)?;
    match find(oo, &p)? {
        (_, Found::Fresh(i)) | (_, Found::Stale(i, _)) | (_, Found::Unverified(i, _)) => {
            oo.check_kind(&i)?;
            Ok(i)
        }
        (src, Found::Missing(at)) => Err(missing(oo, &src, url, at)?),
    }
}

fn missing(oo: &OpenOptions, src: &RemoteSource, url: &Path, at: PathBuf) -> Result<Error> {
    let gzip = if oo.build.plain {
        false
    } else {
        match sniff::sniff(src)? {
            Sniffed::Compressed(f) => return Ok(unsupported(url, f)),
            s => s == Sniffed::Gzip,
        }
    };
    Ok(Error::Missing {
        source_path: url.to_path_buf(),
        sidecar: at,
        gzip,
    })
}

/// [`OpenOptions::open_with_progress`] for a URL.
pub(super) fn open(
    oo: &OpenOptions,
    url: &Path,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<Opened> {
    oo.build.validate()?;
    let p = plan(oo, url)?;
    let (src, mut found) = find(oo, &p)?;
    if let Found::Fresh(i) | Found::Stale(i, _) | Found::Unverified(i, _) = &found
        && !oo.force
    {
        oo.check_kind(i)?;
    }
    if let Found::Unverified(mut index, at) = found {
        // Only the modification time differs (a transfer never keeps it):
        // the content decides, as for a local file (one re-read of a plain
        // object, remembered for this URL and version).
        found = if oo.force {
            Found::Fresh(index)
        } else {
            index.verify_content(progress)?;
            if index.verdict() == Verdict::Unchanged {
                return Ok(Opened {
                    index,
                    action: Action::Verified,
                    warning: None,
                });
            }
            Found::Stale(index, at)
        };
    }
    let (at, action) = match found {
        Found::Fresh(index) if !oo.force => {
            return Ok(Opened {
                index,
                action: Action::Opened,
                warning: None,
            });
        }
        Found::Fresh(index) => (writable_target(&p, &index)?, Action::Forced),
        Found::Stale(index, at) => {
            index.check_not_foreign()?;
            if !oo.refresh && !oo.force {
                return Err(Error::Stale {
                    source_path: url.to_path_buf(),
                    sidecar: index.sidecar_path().to_path_buf(),
                    verdict: index.verdict(),
                });
            }
            // A grown object is indexed anew: its sidecar may be remote,
            // and extending reads as much of the object as a build.
            let verdict = match index.verdict() {
                Verdict::Appended => Verdict::Rewritten,
                v => v,
            };
            (at, Action::Rebuilt(verdict))
        }
        Found::Missing(at) => {
            if !oo.refresh && !oo.force {
                return Err(missing(oo, &src, url, at)?);
            }
            (at, Action::Built)
        }
        Found::Unverified(..) => unreachable!("decided above"),
    };
    if is_url(&at) {
        // Only an explicit remote sidecar lands here: lidx never uploads.
        return Err(Error::InvalidArgument(format!(
            "{}: cannot write a sidecar to a URL (lidx never uploads); give --index PATH \
             or leave --index out to keep one in the cache directory",
            at.display()
        )));
    }
    match build(oo, &src, url, &at, progress) {
        Ok((warning, written)) => {
            let index = bind(&src, Box::new(FileSource::open(&at)?), oo.cache_bytes)?;
            Ok(Opened {
                index,
                // Another process built it while this one waited.
                action: if written { action } else { Action::Opened },
                warning,
            })
        }
        Err(e @ Error::CorruptSource { .. }) => open_damaged(oo, &src, e),
        Err(e) => Err(e),
    }
}

/// Where a forced rebuild of a fresh sidecar goes: a local one in place,
/// a remote one into the cache directory.
fn writable_target(p: &Plan, index: &Index) -> Result<PathBuf> {
    let at = index.sidecar_path();
    if !is_url(at) {
        return Ok(at.to_path_buf());
    }
    match (&p.explicit, &p.cache) {
        (None, Some(c)) => Ok(c.clone()),
        _ => Ok(at.to_path_buf()),
    }
}

/// Builds the sidecar of `src` at `at` by reading the object once, front
/// to back (its reads stream: each continues the last, so the remote
/// reader fetches windows of up to 8 MiB, the next one ahead). Data in
/// another compression format is refused unless `--plain`.
fn build(
    oo: &OpenOptions,
    src: &RemoteSource,
    url: &Path,
    at: &Path,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<(Option<String>, bool)> {
    let warning = if oo.build.plain {
        None
    } else {
        match sniff::sniff(src)? {
            Sniffed::Compressed(f) => return Err(unsupported(url, f)),
            Sniffed::Plain(w) => w.map(|w| format!("{}: {w}", url.display())),
            Sniffed::Gzip | Sniffed::ZstdSeekable => None,
        }
    };
    let info = source_info(src);
    ensure_dir(at)?;
    // Several processes that query the same object cold take turns: the
    // first builds, the others find its sidecar (the object streamed once).
    let _lock = crate::ingest::writer::BuildLock::acquire(at)?;
    if !oo.force
        && at.exists()
        && FileSource::open(at)
            .and_then(|f| bind(src, Box::new(f), 1 << 16))
            .is_ok_and(|i| i.verdict() == Verdict::Unchanged)
    {
        return Ok((warning, false));
    }
    write_sidecar(at, oo.build.page_size, |sink| {
        ingest::build(src, &info, &oo.build, sink, &mut |d| progress(d, src.len()))
    })?;
    Ok((warning, true))
}

/// What the fingerprint records of a remote object: its Last-Modified as
/// the modification time, and its name.
fn source_info(src: &RemoteSource) -> SourceInfo {
    let url = src.url();
    let name = url
        .split_once('?')
        .map_or(url, |(p, _)| p)
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .as_bytes()
        .to_vec();
    SourceInfo {
        mtime: (src.identity().last_modified, 0),
        name,
    }
}

/// A damaged gzip object: its complete lines before the damage, indexed in
/// memory (nothing written), as for a local archive.
fn open_damaged(oo: &OpenOptions, src: &RemoteSource, damage: Error) -> Result<Opened> {
    if matches!(
        damage,
        Error::CorruptSource {
            kind: crate::SourceDamage::Zstd,
            ..
        }
    ) {
        // A damaged zstd archive is refused whole (spec §13).
        return Err(damage);
    }
    let info = source_info(src);
    let mut pages = vec![0u8; oo.build.page_size as usize];
    let (sb, found) =
        ingest::gzip::build_tolerant(src, &info, &oo.build, &mut pages, &mut |_| true)?;
    let Some(found) = found else {
        return Err(damage);
    };
    pages[..crate::format::SUPERBLOCK_LEN].copy_from_slice(&sb.encode());
    let mtime = (sb.fingerprint.mtime_sec, sb.fingerprint.mtime_nsec);
    let mut index = Index::from_parts(
        Box::new(src.clone()),
        Box::new(crate::io::MemSource::new(pages)),
        mtime,
        oo.cache_bytes,
    )?;
    index.set_damage(found.to_string());
    Ok(Opened {
        index,
        action: Action::Damaged,
        warning: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_names_hash_the_url() {
        let a = cache_sidecar("https://h/a/app.log.gz", "app.log.gz");
        let b = cache_sidecar("https://h/b/app.log.gz", "app.log.gz");
        if let (Some(a), Some(b)) = (a, b) {
            assert_ne!(a, b);
            assert!(a.to_string_lossy().ends_with("-app.log.gz.lidx"), "{a:?}");
        }
    }
}
