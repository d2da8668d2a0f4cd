//! A rotation family read as one log: `app.log`, `app.log.1`,
//! `app.log.2.gz`, ... (or logrotate's dated names), oldest first, with
//! **global line numbers that never change**: each member keeps the base
//! line it was given when first seen, whatever it is renamed to or
//! compressed into, and when the oldest member is deleted the numbering
//! goes on like log offsets (the lines below are gone, nothing shifts).
//!
//! Each member has its own sidecar; the family adds a small manifest
//! (`app.log.family.lidx`, `format-spec/family-v1.md`) that records the
//! members by content — a digest of the first bytes of text, the size,
//! the line count — with their bases. Opening a family finds its files by
//! name ([`discover`]), recognises the recorded ones by content, numbers
//! the new ones after them, and refuses what cannot be numbered exactly:
//! a recorded member missing between others, a member replaced by
//! another file, a rotated member that grew, files none of which the
//! manifest knows (`F-8`).
//!
//! The command line (`-R/--rotated`), the C ABI (`lidx_family_*`) and the
//! Python package (`lidx.Family`) are faces of it.

mod adopt;
pub mod discover;
mod follow;

pub use follow::FamilyFollower;

use crate::error::{Error, Result};
use crate::format::family::{HEAD_WINDOW, Manifest, MemberRecord};
use crate::index::{Index, OpenOptions};
use crate::merge::Part;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// One member of an open family.
#[derive(Debug)]
pub struct Member {
    /// The member's file now.
    pub path: PathBuf,
    /// Its index.
    pub index: Index,
    /// Global number (0-based) of its first line.
    pub base_line: u64,
    /// Global offset of its first byte of text.
    pub base_byte: u64,
}

impl Member {
    /// The member's global lines.
    pub fn lines(&self) -> Range<u64> {
        self.base_line..self.base_line + self.index.line_count()
    }
}

/// What opening a family did to its numbering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FamilyAction {
    /// The manifest was current: nothing was written.
    Opened,
    /// There was no manifest: the members were numbered from line 1.
    Numbered,
    /// Members were added (rotation), dropped (the oldest deleted) or
    /// sealed; the manifest was rewritten, no number changed.
    Updated,
    /// A renumbering from line 1 was asked for ([`Family::open`]'s
    /// `renumber`).
    Renumbered,
}

/// A rotation family, open.
#[derive(Debug)]
pub struct Family {
    live: PathBuf,
    manifest: PathBuf,
    members: Vec<Member>,
    action: FamilyAction,
}

/// A file of the family, opened, with what it is recognised by.
struct Seen {
    path: PathBuf,
    index: Index,
    bytes: u64,
    lines: u64,
    /// The first `min(bytes, HEAD_WINDOW)` bytes of text.
    head: Vec<u8>,
}

impl Seen {
    fn digest(&self, len: u32) -> Option<u64> {
        self.head
            .get(..len as usize)
            .map(|h| xxhash_rust::xxh64::xxh64(h, 0))
    }

    /// True when this file is (or grew from) the recorded member `r`;
    /// `open` members may have grown, sealed ones must be as recorded.
    fn is(&self, r: &MemberRecord, open: bool) -> bool {
        let same_head = self.digest(r.head_len) == Some(r.head_digest);
        if open {
            same_head && self.bytes >= r.bytes && self.lines >= r.lines
        } else {
            same_head && self.bytes == r.bytes && self.lines == r.lines
        }
    }

    fn record(&self, base_line: u64, base_byte: u64) -> MemberRecord {
        let head_len = self.bytes.min(u64::from(HEAD_WINDOW)) as u32;
        MemberRecord {
            base_line,
            lines: self.lines,
            base_byte,
            bytes: self.bytes,
            head_digest: self.digest(head_len).unwrap_or(0),
            head_len,
            name: name_of(&self.path),
        }
    }
}

fn name_of(p: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let n = p.file_name().map(|n| n.as_bytes()).unwrap_or_default();
    n[..n.len().min(u16::MAX as usize)].to_vec()
}

/// The manifest's path: `LIVE.family.lidx` next to the live file, or in
/// the user cache directory when that directory is not writable.
pub fn manifest_path(live: &Path) -> PathBuf {
    let mut name = live.as_os_str().to_owned();
    name.push(".family");
    crate::locate::default_sidecar(Path::new(&name))
}

fn cache_manifest(live: &Path) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let dir = live
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let abs = std::fs::canonicalize(dir).ok()?.join(live.file_name()?);
    let mut name = abs.as_os_str().to_owned();
    name.push(".family");
    let name = PathBuf::from(name);
    // As a sidecar's cache name (sidecar-v1 §1.1): the base cut to 100
    // bytes, so that the name fits whatever the live file's.
    let base = name.file_name()?.as_bytes();
    let base = String::from_utf8_lossy(&base[..base.len().min(100)]).replace('/', "_");
    let h = crate::locate::fnv1a64(name.as_os_str().as_bytes());
    Some(crate::locate::cache_dir()?.join(format!("{h:016x}-{base}.lidx")))
}

impl Family {
    /// Opens the family whose live file is `live` (it may be missing for a
    /// moment, between a rotation and the next write): every member's
    /// index through `opts` (built or refreshed as `opts` allows), the
    /// manifest read, checked against the files and brought up to date.
    /// `renumber` discards the manifest and numbers the members from line
    /// 1 again (the way out when the numbering cannot go on, `F-8`).
    pub fn open(live: impl AsRef<Path>, opts: &OpenOptions, renumber: bool) -> Result<Family> {
        let live = live.as_ref().to_path_buf();
        let seen = quiet_snapshot(&live, opts)?;
        let (mut manifest_at, stored) = if renumber {
            // Whatever is there (damaged, or of files long gone) is
            // replaced: only where it is matters.
            let at = Self::read_manifest(&live).map_or_else(|_| manifest_path(&live), |(p, _)| p);
            (at, None)
        } else {
            Self::read_manifest(&live)?
        };
        let (records, action) = match stored {
            Some(m) if !renumber => match align(&live, &m, &seen)? {
                Some(records) => (records, FamilyAction::Updated),
                None => (m.members, FamilyAction::Opened),
            },
            had => (
                number_from(0, 0, &seen),
                if had.is_some() || renumber {
                    FamilyAction::Renumbered
                } else {
                    FamilyAction::Numbered
                },
            ),
        };
        if action != FamilyAction::Opened && !opts.refreshes() {
            // As a sidecar under `--no-build`: nothing is written, and a
            // numbering not yet recorded is not given out.
            return Err(family_error(
                &live,
                "",
                "the family's manifest is missing or not up to date with its files, and writing it was not allowed (--no-build)",
            ));
        }
        if action != FamilyAction::Opened {
            let m = Manifest {
                head_window: HEAD_WINDOW,
                members: records.clone(),
            };
            if m.members.len() > crate::format::family::MAX_MEMBERS as usize {
                return Err(family_error(
                    &live,
                    "",
                    &format!(
                        "{} members: a family holds at most {}",
                        m.members.len(),
                        crate::format::family::MAX_MEMBERS
                    ),
                ));
            }
            manifest_at = write_manifest(&live, &manifest_at, &m.encode())?;
        }
        let members = seen
            .into_iter()
            .zip(&records)
            .map(|(s, r)| Member {
                path: s.path,
                index: s.index,
                base_line: r.base_line,
                base_byte: r.base_byte,
            })
            .collect();
        Ok(Family {
            live,
            manifest: manifest_at,
            members,
            action,
        })
    }

    /// Reads the manifest, next to the live file or in the cache
    /// directory: its path (where to write it when there is none) and
    /// its content.
    fn read_manifest(live: &Path) -> Result<(PathBuf, Option<Manifest>)> {
        let next_to = manifest_path(live);
        let candidates = std::iter::once(next_to.clone()).chain(cache_manifest(live));
        for p in candidates {
            match std::fs::read(&p) {
                Ok(bytes) => {
                    let m = Manifest::decode(&bytes).map_err(|e| Error::Family {
                        path: p.clone(),
                        what: format!(
                            "{e}; renumber the family from line 1 with `lidx index -R --force {}`",
                            live.display()
                        ),
                    })?;
                    return Ok((p, Some(m)));
                }
                // A name too long for the file system holds no manifest.
                Err(e)
                    if e.kind() == std::io::ErrorKind::NotFound
                        || e.raw_os_error() == Some(libc::ENAMETOOLONG) => {}
                Err(e) => return Err(Error::io("read", &p, e)),
            }
        }
        Ok((next_to, None))
    }

    /// The live file's path (the family's name).
    pub fn live_path(&self) -> &Path {
        &self.live
    }

    /// Where the manifest is.
    pub fn manifest_path(&self) -> &Path {
        &self.manifest
    }

    /// What opening did.
    pub fn action(&self) -> FamilyAction {
        self.action
    }

    /// The members, oldest first.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// The global number of the oldest line still present (lines below it
    /// were in members since deleted).
    pub fn first_line(&self) -> u64 {
        self.members.first().map_or(0, |m| m.base_line)
    }

    /// The global number just past the newest line.
    pub fn end_line(&self) -> u64 {
        self.members.last().map_or(0, |m| m.lines().end)
    }

    /// Lines present in all members.
    pub fn line_count(&self) -> u64 {
        self.end_line() - self.first_line()
    }

    /// The member holding global line `line`, if it is present.
    pub fn member_of(&self, line: u64) -> Option<usize> {
        let i = self.members.partition_point(|m| m.base_line <= line);
        let i = i.checked_sub(1)?;
        (line < self.members[i].lines().end).then_some(i)
    }

    /// The first error of a damaged member, if any (none: members are
    /// refused when damaged, at open).
    pub fn check_members(&self) -> Result<()> {
        for m in &self.members {
            m.index.check_not_foreign()?;
        }
        Ok(())
    }

    /// Writes the global lines `lines` (those present), each prefixed with
    /// its 1-based global number and `:` when `numbered`; returns how many
    /// were written.
    pub fn write_lines(
        &self,
        lines: Range<u64>,
        numbered: bool,
        out: &mut dyn Write,
    ) -> Result<u64> {
        let mut written = 0;
        for p in self.parts(lines) {
            let number = numbered.then_some(p.base + p.lines.start + 1);
            written += p.index.write_lines_labelled(p.lines, b"", number, out)?;
        }
        Ok(written)
    }

    /// The members that hold some of the global lines `lines`, oldest
    /// first, each as a [`Part`]: its index, its bases, and the lines it
    /// holds of them in its own numbers.
    pub fn parts(&self, lines: Range<u64>) -> Vec<Part<'_>> {
        self.members
            .iter()
            .filter_map(|m| {
                let own = m.lines();
                let (s, e) = (lines.start.max(own.start), lines.end.min(own.end));
                (s < e).then(|| Part {
                    index: &m.index,
                    base: m.base_line,
                    byte_base: m.base_byte,
                    lines: s - m.base_line..e - m.base_line,
                })
            })
            .collect()
    }

    /// Reads the global lines `lines` (those present) into `buf`, back to
    /// back, when they fit, as [`Index::read_lines_into`] reads a file's:
    /// [`crate::LinesRead::len`] says how long `buf` must be, and nothing
    /// is read when it is shorter. A member's last line without its `\n`
    /// is given one when a line of the next member follows it in `buf`
    /// (each line read is a line, as the numbering counts it);
    /// `start_offset` is the first line's global offset.
    pub fn read_lines_into(&self, lines: Range<u64>, buf: &mut [u8]) -> Result<crate::LinesRead> {
        let (first, end) = (
            lines.start.clamp(self.first_line(), self.end_line()),
            lines.end.clamp(self.first_line(), self.end_line()),
        );
        let end = end.max(first);
        // Each member's part: its local lines, its bytes, and whether a
        // newline must be added after it.
        let mut parts = Vec::new();
        let mut len = 0u64;
        let mut start_offset = None;
        for m in &self.members {
            let own = m.lines();
            let (s, e) = (first.max(own.start), end.min(own.end));
            if s >= e {
                continue;
            }
            let local = s - m.base_line..e - m.base_line;
            let span = m.index.lines_span(local.clone())?;
            start_offset.get_or_insert(m.base_byte + span.start);
            let mut add = false;
            if e < end && span.end > span.start {
                let mut last = [0u8; 1];
                m.index.source().read_exact_at(&mut last, span.end - 1)?;
                add = last[0] != b'\n';
            }
            len += span.end - span.start + u64::from(add);
            parts.push((m, local, span.end - span.start, add));
        }
        let mut got = crate::LinesRead {
            first_line: first,
            lines: end - first,
            start_offset: start_offset.unwrap_or_else(|| {
                self.members
                    .last()
                    .map_or(0, |m| m.base_byte + m.index.source_len())
            }),
            len,
            read: false,
        };
        if usize::try_from(len).map_or(true, |n| n > buf.len()) {
            return Ok(got);
        }
        let mut at = 0usize;
        for (m, local, n, add) in parts {
            let n = n as usize;
            let r = m.index.read_lines_into(local, &mut buf[at..at + n])?;
            debug_assert!(r.read);
            at += n;
            if add {
                buf[at] = b'\n';
                at += 1;
            }
        }
        got.read = true;
        Ok(got)
    }

    /// The global line holding global byte offset `offset`, `None` when no
    /// member holds it (below the oldest member, or past the end).
    pub fn line_at(&self, offset: u64) -> Result<Option<u64>> {
        let i = self.members.partition_point(|m| m.base_byte <= offset);
        let Some(m) = i.checked_sub(1).map(|i| &self.members[i]) else {
            return Ok(None);
        };
        if offset >= m.base_byte + m.index.source_len() {
            return Ok(None);
        }
        Ok(Some(m.base_line + m.index.line_at(offset - m.base_byte)?))
    }

    /// The global line of the first line at or after instant `t` (in
    /// family order: the first member that has one), or [`Self::end_line`].
    pub fn line_at_time(&self, t: crate::time::Nanos) -> Result<u64> {
        for m in &self.members {
            let l = m.index.line_at_time(t)?;
            if l < m.index.line_count() {
                return Ok(m.base_line + l);
            }
        }
        Ok(self.end_line())
    }

    /// The global lines from the first at or after `since` to the last
    /// before `until`, over every member (each member's own range,
    /// [`Index::time_range`], joined).
    pub fn time_range(
        &self,
        since: Option<crate::time::Nanos>,
        until: Option<crate::time::Nanos>,
    ) -> Result<Range<u64>> {
        let mut out: Option<Range<u64>> = None;
        for m in &self.members {
            let r = m.index.time_range(since, until)?;
            if r.start < r.end {
                let g = m.base_line + r.start..m.base_line + r.end;
                out = Some(match out {
                    Some(o) => o.start.min(g.start)..o.end.max(g.end),
                    None => g,
                });
            }
        }
        Ok(out.unwrap_or(self.end_line()..self.end_line()))
    }
}

/// The files of the family of `live`, oldest first, each given the
/// family sidecar that describes it when a rotation renamed it (so that
/// building the missing sidecars, in parallel, before [`Family::open`]
/// builds only what is new).
pub fn prepare(live: &Path) -> Result<Vec<PathBuf>> {
    let named = discover::family_files(live)?;
    adopt::adopt(live, &named);
    Ok(named.into_iter().map(|n| n.path).collect())
}

/// How long a rotated member must have been left alone before its line
/// count is final and the members after it can be numbered (F-9): a
/// writer may still append to a file it had open when it was renamed
/// (until it reopens), and `copytruncate` writes its copy for a while.
pub const SEAL_QUIET: std::time::Duration = std::time::Duration::from_secs(2);

/// [`snapshot`], once every member but the newest has been left alone
/// for [`SEAL_QUIET`] (waiting, at most that long after a rotation).
fn quiet_snapshot(live: &Path, opts: &OpenOptions) -> Result<Vec<Seen>> {
    for _ in 0..5 {
        let seen = snapshot(live, opts)?;
        let now = std::time::SystemTime::now();
        let wait = seen
            .iter()
            .rev()
            .skip(1)
            .filter_map(|s| std::fs::metadata(&s.path).ok()?.modified().ok())
            // A time in the future (clock skew, a copied file) is no sign
            // of a writer: not waited for.
            .filter_map(|m| SEAL_QUIET.checked_sub(now.duration_since(m).ok()?))
            .max();
        match wait {
            Some(w) if !w.is_zero() => std::thread::sleep(w),
            _ => return Ok(seen),
        }
    }
    Err(family_error(
        live,
        "",
        "a rotated member is still being written (its writer did not reopen the live file): its lines cannot be counted yet; try again when it is left alone",
    ))
}

/// The files of the family, opened, as they were at one moment: a rotation
/// that renames files while they are opened is noticed (the names, inodes
/// or sizes differ after) and the files are taken again, a few times.
fn snapshot(live: &Path, opts: &OpenOptions) -> Result<Vec<Seen>> {
    // Names and inodes, not sizes: the live file grows all the time.
    let listing = |named: &[discover::Named]| -> Vec<(PathBuf, Option<(u64, u64)>)> {
        use std::os::unix::fs::MetadataExt;
        named
            .iter()
            .map(|n| {
                let m = std::fs::metadata(&n.path).ok();
                (n.path.clone(), m.map(|m| (m.dev(), m.ino())))
            })
            .collect()
    };
    let mut tries = 0;
    loop {
        tries += 1;
        let named = discover::family_files(live)?;
        if named.is_empty() {
            return Err(Error::io(
                "open",
                live,
                std::io::Error::from(std::io::ErrorKind::NotFound),
            ));
        }
        let before = listing(&named);
        if opts.refreshes() {
            adopt::adopt(live, &named);
        }
        let opened = open_all(&named, opts);
        let again = discover::family_files(live)?;
        let moved = again != named || listing(&again) != before;
        match opened {
            Ok(seen) if !moved => return Ok(seen),
            Err(e) if !moved || tries >= 5 => return Err(e),
            Ok(_) if tries >= 5 => {
                return Err(family_error(
                    live,
                    "",
                    "the family's files kept changing while they were read (a rotation in progress?); try again",
                ));
            }
            _ => std::thread::sleep(std::time::Duration::from_millis(50 * tries)),
        }
    }
}

/// Opens every named file of the family.
fn open_all(named: &[discover::Named], opts: &OpenOptions) -> Result<Vec<Seen>> {
    let mut seen = Vec::with_capacity(named.len());
    for n in named {
        let index = opts.open(&n.path)?.index;
        if let Some(e) = index.damaged_error() {
            return Err(e);
        }
        let bytes = index.source_len();
        let mut head = vec![0u8; bytes.min(u64::from(HEAD_WINDOW)) as usize];
        let got = index.source().read_full_at(&mut head, 0)?;
        if got < head.len() {
            return Err(Error::SourceChanged {
                path: n.path.clone(),
                what: "shorter than indexed while its first bytes were read".into(),
            });
        }
        seen.push(Seen {
            path: n.path.clone(),
            lines: index.line_count(),
            index,
            bytes,
            head,
        });
    }
    Ok(seen)
}

/// Numbers `seen` contiguously from (`line`, `byte`).
fn number_from(mut line: u64, mut byte: u64, seen: &[Seen]) -> Vec<MemberRecord> {
    seen.iter()
        .map(|s| {
            let r = s.record(line, byte);
            line += s.lines;
            byte += s.bytes;
            r
        })
        .collect()
}

/// Recognises the recorded members among the files (F-8): the files must
/// be the recorded members from some point on (the older ones deleted),
/// the last recorded one possibly grown, then new members. Returns the
/// new records, or `None` when the manifest is current as it is.
fn align(live: &Path, m: &Manifest, seen: &[Seen]) -> Result<Option<Vec<MemberRecord>>> {
    let recs = &m.members;
    let last = recs.len() - 1;
    // The first file that is a recorded member starts the run.
    let start = seen.iter().enumerate().find_map(|(k, s)| {
        recs.iter()
            .enumerate()
            .find(|&(j, r)| s.is(r, j == last) && run_holds(recs, &seen[k..], j))
            .map(|(j, _)| (k, j))
    });
    let Some((0, j)) = start else {
        return Err(diagnose(live, recs, seen));
    };
    let matched = (recs.len() - j).min(seen.len());
    // Recorded members after the run that no file is: missing.
    if j + matched < recs.len() {
        let r = &recs[j + matched];
        return Err(family_error(
            live,
            &String::from_utf8_lossy(&r.name),
            &format!(
                "a member is missing: the one recorded as {} (lines {}–{} of the family) is not among the files",
                String::from_utf8_lossy(&r.name),
                r.base_line + 1,
                r.end_line()
            ),
        ));
    }
    let mut out: Vec<MemberRecord> = Vec::with_capacity(seen.len());
    for (i, s) in seen[..matched].iter().enumerate() {
        let r = &recs[j + i];
        if j + i == last {
            // The newest recorded member, maybe grown: re-recorded with
            // its size now (sealed when a newer member follows).
            out.push(s.record(r.base_line, r.base_byte));
        } else {
            out.push(r.clone());
        }
    }
    let tail = out.last().expect("at least one member matched");
    let (line, byte) = (tail.end_line(), tail.end_byte());
    out.extend(number_from(line, byte, &seen[matched..]));
    // Rewritten when members were dropped or added (a newest member that
    // only grew is not worth a write: it is re-recorded, sealed, when a
    // newer member follows it).
    let changed = j > 0 || seen.len() > matched;
    Ok(changed.then_some(out))
}

/// True when the files `seen` are the records from `j` on, in order, as
/// far as both go; only the last record may have grown.
fn run_holds(recs: &[MemberRecord], seen: &[Seen], j: usize) -> bool {
    let last = recs.len() - 1;
    recs[j..]
        .iter()
        .zip(seen)
        .enumerate()
        .all(|(i, (r, s))| s.is(r, j + i == last))
}

/// Why the files cannot be aligned with the records (F-8), as
/// precisely as the files tell: a rotated member that grew, a member
/// replaced by another file, a member missing between others, a file
/// that is no member before the recorded ones, or none of the files
/// known at all.
fn diagnose(live: &Path, recs: &[MemberRecord], seen: &[Seen]) -> Error {
    let name = |r: &MemberRecord| String::from_utf8_lossy(&r.name).into_owned();
    let lines =
        |r: &MemberRecord| format!("lines {}–{} of the family", r.base_line + 1, r.end_line());
    let last = recs.len() - 1;
    // A sealed member that grew: the same head, more bytes.
    for s in seen {
        for r in &recs[..last] {
            if s.digest(r.head_len) == Some(r.head_digest) && s.bytes > r.bytes {
                return family_error(
                    live,
                    &s.path.display().to_string(),
                    &format!(
                        "lines were appended to it after it was rotated (recorded as {}, {} lines; it now has {}), and the members after it are numbered from its end; renumber the family from line 1 with `lidx index -R --force {}`",
                        name(r),
                        r.lines,
                        s.lines,
                        live.display()
                    ),
                );
            }
        }
    }
    // Pair files with records in order; what is left over tells.
    let mut next = 0;
    let mut pairs: Vec<Option<usize>> = Vec::with_capacity(seen.len());
    for s in seen {
        let found = (next..recs.len()).find(|&j| s.is(&recs[j], j == last));
        if let Some(j) = found {
            next = j + 1;
        }
        pairs.push(found);
    }
    let renumber = format!(
        "renumber the family from line 1 with `lidx index -R --force {}`",
        live.display()
    );
    let missing = |r: &MemberRecord| {
        family_error(
            live,
            &name(r),
            &format!(
                "a member is missing: the one recorded as {} ({}) is not among the files",
                name(r),
                lines(r)
            ),
        )
    };
    let replaced = |s: &Seen, r: &MemberRecord| {
        family_error(
            live,
            &s.path.display().to_string(),
            &format!(
                "this file replaced a member: it is not the one recorded as {} ({}); {renumber}",
                name(r),
                lines(r)
            ),
        )
    };
    let mut expected = pairs.iter().flatten().next().copied();
    for (i, p) in pairs.iter().enumerate() {
        match (p, expected) {
            (Some(j), Some(e)) if *j > e => {
                // Records e..j have no file: missing, or replaced by the
                // unpaired file just before this one.
                let r = &recs[e];
                if i > 0 && pairs[i - 1].is_none() {
                    return replaced(&seen[i - 1], r);
                }
                return missing(r);
            }
            (Some(j), _) => expected = Some(j + 1),
            (None, Some(e)) if e > 0 && e <= last && pairs[i..].iter().any(Option::is_some) => {
                // An unknown file where a recorded one should be.
                return replaced(&seen[i], &recs[e]);
            }
            (None, _) if pairs[i..].iter().any(Option::is_some) => {
                return family_error(
                    live,
                    &seen[i].path.display().to_string(),
                    &format!(
                        "this file comes before the members the manifest records but is not one of them; move it away, or {renumber}"
                    ),
                );
            }
            _ => {}
        }
    }
    if let Some(e) = expected
        && e <= last
        && pairs.iter().any(Option::is_some)
    {
        return missing(&recs[e]);
    }
    let known = recs.iter().map(name).collect::<Vec<_>>().join(", ");
    family_error(
        live,
        "",
        &format!(
            "none of the files is a member the manifest records ({known}): if the family was rotated past every member since it was last opened, its numbering cannot go on; {renumber}"
        ),
    )
}

fn family_error(live: &Path, who: &str, what: &str) -> Error {
    Error::Family {
        path: live.to_path_buf(),
        what: if who.is_empty() {
            what.to_string()
        } else {
            format!("{who}: {what}")
        },
    }
}

/// Writes the manifest crash-safely at `at`, or in the cache directory
/// when that directory is not writable; returns where it went.
fn write_manifest(live: &Path, at: &Path, bytes: &[u8]) -> Result<PathBuf> {
    match write_atomic(at, bytes) {
        Ok(()) => Ok(at.to_path_buf()),
        Err(e) if crate::locate::is_permission_error(&e) => {
            let Some(cache) = cache_manifest(live) else {
                return Err(e);
            };
            if let Some(dir) = cache.parent() {
                std::fs::create_dir_all(dir).map_err(|e| Error::io("create directory", dir, e))?;
            }
            write_atomic(&cache, bytes)?;
            Ok(cache)
        }
        Err(e) => Err(e),
    }
}

fn write_atomic(dest: &Path, bytes: &[u8]) -> Result<()> {
    let file = crate::ingest::writer::AtomicFile::create(dest, bytes.len() as u32)?;
    file.commit(bytes)
}
