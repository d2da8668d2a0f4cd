//! Finding, checking and (re)building a source's sidecar on open: the
//! opening methods of [`OpenOptions`] (its settings, and what an open
//! reports, are in `options.rs`). A URL is handed to `remote.rs`.

use super::locate::{self, is_permission_error};
use super::options::{Action, OpenOptions, Opened, ensure_dir, unsupported, write_sidecar};
use super::{Index, SourceStat, read_superblock};
use crate::error::{Error, Result};
use crate::ingest::fingerprint::{self, Verdict};
use crate::ingest::sniff::{self, Sniffed};
use crate::ingest::writer::BuildLock;
use crate::ingest::{self, SourceInfo};
use crate::io::{FileSource, ReadAt};
use crate::time::TimeKind;
use std::path::{Path, PathBuf};

impl OpenOptions {
    /// True when `index` lacks the time index asked for.
    fn wants_time(&self, index: &Index) -> Result<bool> {
        let Some(want) = &self.build.time else {
            return Ok(false);
        };
        let Some(have) = index.time_info()? else {
            return Ok(true);
        };
        if let Some(k) = &want.format {
            let have_kind = crate::time::TimeFormat::kind_of(&have.format)?;
            let same = match (k, &have_kind) {
                // A strptime format without a place: wherever the build
                // found it.
                (TimeKind::Strptime(w), TimeKind::Strptime(h)) if w.place().is_none() => {
                    w.format() == h.format()
                }
                _ => *k == have_kind,
            };
            if !same {
                return Ok(true);
            }
        }
        if let Some(z) = &want.tz {
            let zone = crate::time::TimeFormat::new(crate::time::TimeKind::Iso, z, 0)?;
            if zone.tz_name() != have.tz {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Opens the existing sidecar of `source` whatever its freshness (for
    /// `info` and `verify`): the verdict is in [`Index::verdict`]. Never
    /// builds or writes anything.
    pub fn inspect(&self, source: impl AsRef<Path>) -> Result<Index> {
        if crate::io::is_url(source.as_ref()) {
            #[cfg(feature = "remote")]
            return super::remote::inspect(self, source.as_ref());
            #[cfg(not(feature = "remote"))]
            return Err(no_remote(source.as_ref()));
        }
        let source = &*self.named_source(source.as_ref())?;
        let (src, _, stat) = open_source(source)?;
        let path = match &self.sidecar {
            Some(p) => p.clone(),
            None => {
                let default = locate::default_sidecar(source);
                match locate::cache_sidecar(source) {
                    Some(c) if !default.exists() && c.exists() => c,
                    // Both: the one queries use, as an open chooses (a
                    // fresh one wins: a shipped sidecar in a read-only
                    // directory, extended in the cache directory).
                    Some(c) if c.exists() => {
                        let verdict = |p: &Path| {
                            bind_clone(&src, p, &stat, 1 << 16)
                                .map(|i| i.verdict())
                                .ok()
                        };
                        let stale = matches!(
                            verdict(&default),
                            Some(Verdict::Appended | Verdict::Rewritten)
                        );
                        if stale && verdict(&c) == Some(Verdict::Unchanged) {
                            c
                        } else {
                            default
                        }
                    }
                    _ => default,
                }
            }
        };
        if !path.exists() {
            return Err(self.missing(&src, source, path)?);
        }
        let side = FileSource::open(&path)?;
        let index = Index::from_parts_with(Box::new(src), Box::new(side), &stat, self.cache_bytes)?;
        self.check_kind(&index)?;
        Ok(index)
    }

    /// The error for a source without a sidecar: [`Error::Missing`], or
    /// [`Error::UnsupportedSource`] when no sidecar could be built for it.
    fn missing(&self, src: &FileSource, source: &Path, sidecar: PathBuf) -> Result<Error> {
        let gzip = if self.build.plain {
            false
        } else {
            match sniff::sniff(src)? {
                Sniffed::Compressed(f) => return Ok(unsupported(source, f)),
                s => s == Sniffed::Gzip,
            }
        };
        Ok(Error::Missing {
            source_path: source.to_path_buf(),
            sidecar,
            gzip,
        })
    }

    /// `source` resolved by [`locate::named_source`]; with an explicit
    /// sidecar path, an alias that cannot be resolved is used as it is.
    fn named_source<'a>(&self, source: &'a Path) -> Result<std::borrow::Cow<'a, Path>> {
        match locate::named_source(source) {
            Err(_) if self.sidecar.is_some() => Ok(std::borrow::Cow::Borrowed(source)),
            other => other,
        }
    }

    /// Opens `source`'s index.
    pub fn open(&self, source: impl AsRef<Path>) -> Result<Opened> {
        self.open_cancellable(source, &mut |_, _| true)
    }

    /// Opens `source`'s index; `progress(done, total)` is called during a
    /// build, an extension or a content check with bytes read so far.
    pub fn open_with_progress(
        &self,
        source: impl AsRef<Path>,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Opened> {
        self.open_cancellable(source, &mut |d, t| {
            progress(d, t);
            true
        })
    }

    /// As [`OpenOptions::open_with_progress`], but `progress` returns
    /// false to cancel: the build stops at its next buffer, with
    /// [`Error::Cancelled`], and nothing is written (the temporary file is
    /// removed; an existing sidecar stays as it was).
    pub fn open_cancellable(
        &self,
        source: impl AsRef<Path>,
        progress: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<Opened> {
        if crate::io::is_url(source.as_ref()) {
            #[cfg(feature = "remote")]
            return super::remote::open(self, source.as_ref(), progress);
            #[cfg(not(feature = "remote"))]
            return Err(no_remote(source.as_ref()));
        }
        let source = &*self.named_source(source.as_ref())?;
        match self.open_inner(source, progress) {
            // A damaged gzip archive: no sidecar can describe it, but the
            // lines before the damage stay readable through an in-memory
            // index of them (rebuilt by each process; nothing is written).
            Err(e @ Error::CorruptSource { .. }) if self.refresh || self.force => {
                self.open_damaged(source, e)
            }
            other => other,
        }
    }

    fn open_damaged(&self, source: &Path, damage: Error) -> Result<Opened> {
        if matches!(
            damage,
            Error::CorruptSource {
                kind: crate::SourceDamage::Zstd,
                ..
            }
        ) {
            return self.open_damaged_zstd(source, damage);
        }
        let (src, info, _) = open_source(source)?;
        let mut pages = vec![0u8; self.build.page_size as usize];
        let (sb, found) = match ingest::gzip::build_tolerant(
            &src,
            &info,
            &self.build,
            &mut pages,
            &mut |_| true,
        ) {
            Ok(r) => r,
            // Not even the first member's header is right: maybe the
            // file only starts like gzip.
            Err(Error::Damaged { what, lines: 0 })
                if matches!(damage, Error::CorruptSource { offset: 0, .. }) =>
            {
                return Err(Error::Damaged {
                    what: format!(
                        "{what} (if it is not a gzip file, `lidx index --plain` indexes its bytes)"
                    ),
                    lines: 0,
                });
            }
            Err(e) => return Err(e),
        };
        let Some(found) = found else {
            // It decoded completely this time: it changed under us.
            return Err(damage);
        };
        pages[..crate::format::SUPERBLOCK_LEN].copy_from_slice(&sb.encode());
        let mut index = Index::from_parts(
            Box::new(src),
            Box::new(crate::io::MemSource::new(pages)),
            info.mtime,
            self.cache_bytes,
        )?;
        index.set_damage(found.to_string());
        Ok(Opened {
            index,
            action: Action::Damaged,
            warning: None,
        })
    }

    /// A damaged zstd seekable archive: the complete lines of the frames
    /// before the first damaged one, indexed in memory over their text
    /// (each frame still checked when read, R-134); nothing is written.
    fn open_damaged_zstd(&self, source: &Path, damage: Error) -> Result<Opened> {
        let (src, _, _) = open_source(source)?;
        let (records, cut, found) = ingest::zstd::intact_prefix(&src, self.build.threads)?;
        let Some(found) = found else {
            // It decoded completely this time: it changed under us.
            return Err(damage);
        };
        let text = crate::zstd::ZstText::new(Box::new(src), records, cut, self.cache_bytes);
        let mut build = self.build.clone();
        build.plain = true;
        let mut index = Index::build_in_memory(Box::new(text), &build)?;
        index.set_damage(found.to_string());
        Ok(Opened {
            index,
            action: Action::Damaged,
            warning: None,
        })
    }

    fn open_inner(
        &self,
        source: &Path,
        progress: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<Opened> {
        self.build.validate()?;
        let (src, info, stat) = open_source(source)?;

        let candidates: Vec<(PathBuf, bool)> = match &self.sidecar {
            Some(p) => vec![(p.clone(), false)],
            None => {
                let mut v = vec![(locate::default_sidecar(source), false)];
                if let Some(c) = locate::cache_sidecar(source) {
                    v.push((c, true));
                }
                v
            }
        };

        // Phase 1: open every existing candidate; a fresh one wins (so a
        // stale sidecar next to the source does not hide a fresh one that an
        // earlier run wrote to the cache directory).
        let mut found: Vec<(PathBuf, bool, Result<Index>)> = Vec::new();
        for (path, in_cache_dir) in &candidates {
            if !path.exists() {
                continue;
            }
            let mut opened = bind_clone(&src, path, &stat, self.cache_bytes);
            if !self.force
                && let Ok(index) = &opened
            {
                self.check_kind(index)?;
            }
            let mut action = Action::Opened;
            if !self.force
                && let Ok(index) = &mut opened
                && index.verdict() == Verdict::Unverified
            {
                // Only the modification time differs: re-read the file
                // once; the same content keeps the sidecar as it is.
                index.verify_content(progress)?;
                action = Action::Verified;
            }
            if !self.force && matches!(&opened, Ok(i) if i.verdict() == Verdict::Unchanged) {
                let index = opened.expect("matched Ok");
                if self.refresh && self.wants_time(&index)? {
                    // A time index was asked for: build the sidecar again
                    // with one (the line index is the same).
                    let (dest, warning) =
                        self.rebuild(&src, &info, path, source, *in_cache_dir, progress)?;
                    let action = dest.or_opened(Action::TimeAdded);
                    return self.reopen(src, &dest.path, &stat, action, warning);
                }
                return Ok(Opened {
                    index,
                    action,
                    warning: None,
                });
            }
            found.push((path.clone(), *in_cache_dir, opened));
        }

        // Phase 2: act on the first existing candidate. Where a (re)build
        // goes: that sidecar if it is ours to replace, else the default.
        let mut target: Option<PathBuf> = None;
        if let Some((path, in_cache_dir, opened)) = found.into_iter().next() {
            match opened {
                Err(_) | Ok(_) if self.force => target = Some(path.clone()),
                Err(_) if in_cache_dir => target = Some(path.clone()),
                Err(e) => return Err(e),
                Ok(index) => match index.verdict() {
                    Verdict::Unchanged => unreachable!("returned in phase 1"),
                    Verdict::Appended if self.refresh => {
                        let sb = index.superblock().clone();
                        let gzip = sb.source_kind == crate::format::SOURCE_KIND_GZIP;
                        let dest =
                            self.writable(&path, &src, &info, source, in_cache_dir, |dest| {
                                write_sidecar(dest, sb.page_size, |sink| {
                                    let mut report = |d| progress(d, src.len());
                                    if sb.is_zstd() {
                                        // Another seekable archive appended
                                        // (§13.4): only the new frames, and
                                        // the one of the last checkpoint.
                                        let frames = super::zstd::SidecarFrames::new(
                                            index.sidecar_file(),
                                            &sb,
                                        );
                                        let mut fresh = ingest::BuildOptions::of(&sb);
                                        fresh.time = index.time_options()?;
                                        ingest::zstd::extend(
                                            &sb,
                                            &fresh,
                                            index.cache(),
                                            &frames,
                                            &src,
                                            &info,
                                            index.time_resume()?,
                                            sink,
                                            &mut report,
                                        )
                                    } else if gzip {
                                        let aps =
                                            super::gzip::SidecarAps::new(index.sidecar_file(), &sb);
                                        ingest::gzip::extend(
                                            &sb,
                                            index.cache(),
                                            &aps,
                                            &src,
                                            &info,
                                            index.time_resume()?,
                                            sink,
                                            &mut report,
                                        )
                                    } else {
                                        ingest::extend(
                                            &sb,
                                            index.cache(),
                                            &src,
                                            &info,
                                            index.time_resume()?,
                                            sink,
                                            &mut report,
                                        )
                                    }
                                })
                            })?;
                        let action = dest.or_opened(Action::Extended);
                        return self.reopen(src, &dest.path, &stat, action, None);
                    }
                    verdict => {
                        index.check_not_foreign()?;
                        if !self.refresh {
                            return Err(Error::Stale {
                                source_path: source.to_path_buf(),
                                sidecar: path.clone(),
                                verdict,
                            });
                        }
                        // The rebuilt sidecar keeps a time index the old
                        // one had, read the same way.
                        let mut me = self.clone();
                        if me.build.time.is_none() {
                            me.build.time = index.time_options().ok().flatten();
                        }
                        let (dest, warning) =
                            me.rebuild(&src, &info, &path, source, in_cache_dir, progress)?;
                        let action = dest.or_opened(Action::Rebuilt(verdict));
                        return self.reopen(src, &dest.path, &stat, action, warning);
                    }
                },
            }
        }
        let (path, in_cache_dir) = match target {
            Some(p) => {
                let c = candidates.iter().any(|(q, c)| *c && *q == p);
                (p, c)
            }
            None => candidates[0].clone(),
        };
        if !self.refresh && !self.force {
            return Err(self.missing(&src, source, path)?);
        }
        let existed = path.exists();
        let (dest, warning) = self.rebuild(&src, &info, &path, source, in_cache_dir, progress)?;
        let action = dest.or_opened(match (existed, self.force) {
            (false, _) => Action::Built,
            (true, true) => Action::Forced,
            (true, false) => Action::Rebuilt(Verdict::Rewritten),
        });
        self.reopen(src, &dest.path, &stat, action, warning)
    }

    /// Builds `source`'s sidecar from scratch; returns where it went and a
    /// warning about the source. Data in another compression format is
    /// refused unless [`OpenOptions::plain`].
    fn rebuild(
        &self,
        src: &FileSource,
        info: &SourceInfo,
        path: &Path,
        source: &Path,
        in_cache_dir: bool,
        progress: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<(Written, Option<String>)> {
        let warning = if self.build.plain {
            None
        } else {
            match sniff::sniff(src)? {
                Sniffed::Compressed(f) => return Err(unsupported(source, f)),
                Sniffed::Plain(w) => w.map(|w| format!("{}: {w}", source.display())),
                Sniffed::Gzip | Sniffed::ZstdSeekable => None,
            }
        };
        let dest = self.writable(path, src, info, source, in_cache_dir, |dest| {
            write_sidecar(dest, self.build.page_size, |sink| {
                ingest::build(src, info, &self.build, sink, &mut |d| {
                    progress(d, src.len())
                })
            })
        })?;
        Ok((dest, warning))
    }

    /// Runs `write(dest)` holding the lock on building `dest`, unless
    /// another process built what is needed there while this one waited
    /// for it ([`OpenOptions::built_meanwhile`]); when `dest` is next to
    /// the source and not writable, retries in the user cache directory.
    fn writable(
        &self,
        dest: &Path,
        src: &FileSource,
        info: &SourceInfo,
        source: &Path,
        in_cache_dir: bool,
        mut write: impl FnMut(&Path) -> Result<()>,
    ) -> Result<Written> {
        if in_cache_dir {
            ensure_dir(dest)?;
        }
        let mut locked = |dest: &Path| {
            let _lock = BuildLock::acquire(dest)?;
            let written = !self.built_meanwhile(src, info, dest);
            if written {
                write(dest)?;
            }
            Ok(Written {
                path: dest.to_path_buf(),
                written,
            })
        };
        match locked(dest) {
            Err(e) if self.sidecar.is_none() && !in_cache_dir && is_permission_error(&e) => {
                let Some(alt) = locate::cache_sidecar(source) else {
                    return Err(e);
                };
                ensure_dir(&alt)?;
                locked(&alt)
            }
            other => other,
        }
    }

    /// True when `dest` now holds a sidecar fresh for `src` with what this
    /// open asks for: another process built or extended it while this one
    /// waited to (never when a rebuild is forced).
    fn built_meanwhile(&self, src: &FileSource, info: &SourceInfo, dest: &Path) -> bool {
        if self.force || !dest.exists() {
            return false;
        }
        let stat = SourceStat {
            mtime: Some(info.mtime),
            memo: None,
            remote: false,
        };
        bind_clone(src, dest, &stat, 1 << 16).is_ok_and(|i| {
            i.verdict() == Verdict::Unchanged
                && self.check_kind(&i).is_ok()
                && self.wants_time(&i).is_ok_and(|w| !w)
        })
    }

    fn reopen(
        &self,
        src: FileSource,
        sidecar: &Path,
        stat: &SourceStat,
        action: Action,
        warning: Option<String>,
    ) -> Result<Opened> {
        let side = FileSource::open(sidecar)?;
        let index = Index::from_parts_with(Box::new(src), Box::new(side), stat, self.cache_bytes)?;
        Ok(Opened {
            index,
            action,
            warning,
        })
    }
}

/// Where a sidecar was written, or found written by another process
/// that held the lock first.
struct Written {
    path: PathBuf,
    written: bool,
}

impl Written {
    /// `action`, or [`Action::Opened`] when another process did it.
    fn or_opened(&self, action: Action) -> Action {
        if self.written { action } else { Action::Opened }
    }
}

/// A URL given to a build without the `remote` feature.
#[cfg(not(feature = "remote"))]
fn no_remote(source: &Path) -> Error {
    Error::InvalidArgument(format!(
        "{}: this lidx was built without remote sources (cargo feature `remote`)",
        source.display()
    ))
}

/// Opens the source and reads what the ingest records about it, and what
/// the verdict needs to know of it.
fn open_source(source: &Path) -> Result<(FileSource, SourceInfo, SourceStat)> {
    let src = FileSource::open(source)?;
    let meta = src
        .file()
        .metadata()
        .map_err(|e| Error::io("stat", source, e))?;
    let info = SourceInfo {
        mtime: fingerprint::mtime(&meta),
        name: basename(source),
    };
    let stat = SourceStat {
        mtime: Some(info.mtime),
        memo: fingerprint::Memo::for_file(source, &meta),
        remote: false,
    };
    Ok((src, info, stat))
}

/// The sidecar at `sidecar` bound to a second handle on `src`.
fn bind_clone(src: &FileSource, sidecar: &Path, stat: &SourceStat, cache: usize) -> Result<Index> {
    let side = FileSource::open(sidecar)?;
    Index::from_parts_with(Box::new(src_clone(src)?), Box::new(side), stat, cache)
}

/// A second handle on the same open source file, with the same fixed length.
fn src_clone(src: &FileSource) -> Result<FileSource> {
    let f = src
        .file()
        .try_clone()
        .map_err(|e| Error::io("dup", src.path(), e))?;
    Ok(FileSource::from_file(f, src.path(), src.len()))
}

fn basename(p: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    p.file_name()
        .map(|n| n.as_bytes().to_vec())
        .unwrap_or_default()
}

/// Reads just the superblock of a sidecar file (for `info` on damaged files).
pub fn superblock_of(path: &Path) -> Result<crate::format::Superblock> {
    let f = FileSource::open(path)?;
    read_superblock(&f as &dyn ReadAt)
}
