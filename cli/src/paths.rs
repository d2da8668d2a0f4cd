//! The PATHs of a query command, as ripgrep takes them: a file, an archive,
//! a URL or `-` is searched as given (even when hidden or ignored); a
//! directory is walked with ripgrep's own walker (the `ignore` crate), so
//! hidden files, `.gitignore` (in a git repository), `.ignore` and
//! `.rgignore` files, `-g/--glob` and `--max-depth` work as rg users know
//! them.
//!
//! Differences from ripgrep, on purpose: files are visited in path order
//! (each directory's entries sorted by name, as `rg --sort path`), so the
//! output does not depend on thread timing; `--sort none` is the same
//! order. Sidecars (`*.lidx`) are never searched. A walked file whose first
//! bytes hold a NUL, or that is compressed in a format lidx does not read
//! (xz, bzip2, ...), is skipped silently, as ripgrep skips binary files it
//! finds in directories (gzip and seekable zstd archives are read as their
//! text, as `rg -z` does); `-a/--text` or `-uuu` searches binary files too.

use clap::Args;
use lidx::Error;
use lidx::ingest::sniff::{Format, SAMPLE_LEN, Sniffed, classify};
use lidx::io::ReadAt;
use std::path::{Path, PathBuf};

// How directories are walked (ripgrep's flags of the same names).
#[derive(Debug, Args, Clone, Default)]
pub struct WalkArgs {
    /// Search only the walked files whose path matches GLOB (ripgrep's
    /// glob syntax; `!GLOB` excludes). Repeatable; the last match wins.
    /// Files named on the command line are always searched.
    #[arg(
        short = 'g',
        long = "glob",
        value_name = "GLOB",
        allow_hyphen_values = true
    )]
    pub globs: Vec<String>,
    /// As --glob, matched without regard to case.
    #[arg(long = "iglob", value_name = "GLOB", allow_hyphen_values = true)]
    pub iglobs: Vec<String>,
    /// Walk hidden files and directories too.
    #[arg(long, overrides_with = "no_hidden")]
    pub hidden: bool,
    /// Undo --hidden.
    #[arg(long, hide = true, overrides_with = "hidden")]
    pub no_hidden: bool,
    /// Do not respect ignore files (.gitignore, .ignore, .rgignore).
    #[arg(long, overrides_with = "ignore")]
    pub no_ignore: bool,
    /// Undo --no-ignore.
    #[arg(long, hide = true, overrides_with = "no_ignore")]
    pub ignore: bool,
    /// Do not respect git's ignore rules (.gitignore, .git/info/exclude,
    /// the global excludes file).
    #[arg(long)]
    pub no_ignore_vcs: bool,
    /// Do not respect .ignore and .rgignore files.
    #[arg(long)]
    pub no_ignore_dot: bool,
    /// Do not respect ignore files in the parent directories of PATHs.
    #[arg(long)]
    pub no_ignore_parent: bool,
    /// Do not respect .git/info/exclude.
    #[arg(long)]
    pub no_ignore_exclude: bool,
    /// Also respect the rules of this ignore file (gitignore syntax;
    /// repeatable; lower precedence than the directories' own files).
    /// Not turned off by --no-ignore or -u, only by --no-ignore-files.
    #[arg(long = "ignore-file", value_name = "PATH")]
    pub ignore_files: Vec<PathBuf>,
    /// Ignore the --ignore-file flags.
    #[arg(long, overrides_with = "ignore_files_on")]
    pub no_ignore_files: bool,
    /// Undo --no-ignore-files.
    #[arg(long = "ignore-files", hide = true, overrides_with = "no_ignore_files")]
    pub ignore_files_on: bool,
    /// Match ignore files' rules without regard to case.
    #[arg(long, overrides_with = "no_ignore_file_case_insensitive")]
    pub ignore_file_case_insensitive: bool,
    /// Undo --ignore-file-case-insensitive.
    #[arg(long, hide = true, overrides_with = "ignore_file_case_insensitive")]
    pub no_ignore_file_case_insensitive: bool,
    /// Match -g globs without regard to case (as --iglob).
    #[arg(long, overrides_with = "no_glob_case_insensitive")]
    pub glob_case_insensitive: bool,
    /// Undo --glob-case-insensitive.
    #[arg(long, hide = true, overrides_with = "glob_case_insensitive")]
    pub no_glob_case_insensitive: bool,
    /// Respect .gitignore files outside git repositories too.
    #[arg(long, overrides_with = "require_git")]
    pub no_require_git: bool,
    /// Undo --no-require-git.
    #[arg(long, hide = true, overrides_with = "no_require_git")]
    pub require_git: bool,
    /// Fewer filters: -u is --no-ignore, -uu adds --hidden, -uuu adds
    /// --text (binary files are searched).
    #[arg(short = 'u', long = "unrestricted", action = clap::ArgAction::Count)]
    pub unrestricted: u8,
    /// Descend at most NUM directories below each PATH (0: only PATHs).
    #[arg(short = 'd', long, visible_alias = "maxdepth", value_name = "NUM")]
    pub max_depth: Option<usize>,
    /// Follow symbolic links while walking.
    #[arg(short = 'L', long)]
    pub follow: bool,
    /// Search binary files found in directories as text (as named files
    /// always are).
    #[arg(short = 'a', long)]
    pub text: bool,
    /// The order of files: path (the default, and the only order: each
    /// directory's entries sorted by name) or none (accepted for
    /// ripgrep's sake; also path order).
    #[arg(long, value_name = "SORTBY", value_parser = ["path", "none"], overrides_with = "sortr")]
    pub sort: Option<String>,
    /// As --sort, in reverse: each directory's entries sorted by name,
    /// last first.
    #[arg(long, value_name = "SORTBY", value_parser = ["path", "none"], overrides_with = "sort")]
    pub sortr: Option<String>,
    /// As --sort path (ripgrep's old name).
    #[arg(long, hide = true)]
    pub sort_files: bool,
    /// Accepted for ripgrep's sake: lidx reads with pread, never mmap.
    #[arg(long, hide = true, overrides_with = "no_mmap")]
    pub mmap: bool,
    /// Accepted for ripgrep's sake (lidx never maps files).
    #[arg(long, hide = true, overrides_with = "mmap")]
    pub no_mmap: bool,
    /// Accepted for ripgrep's sake: gzip and zstd archives are always read
    /// as their text.
    #[arg(short = 'z', long)]
    pub search_zip: bool,
}

/// One file to query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The path as printed: the argument, or the argument joined with the
    /// walked names (`./` stripped when no PATH was given).
    pub path: PathBuf,
    /// Found by walking a directory (binary files are skipped), not named.
    pub walked: bool,
}

/// The files of a command.
#[derive(Debug, Default)]
pub struct Targets {
    /// In the order they are searched.
    pub list: Vec<Target>,
    /// More than one PATH, or a directory: outputs name their file.
    pub several: bool,
    /// A walk failed somewhere (a message was printed): exit 2 at the end.
    pub errors: bool,
    /// No PATH was given: the current directory was walked.
    pub implicit: bool,
}

impl WalkArgs {
    fn hidden(&self) -> bool {
        (self.hidden && !self.no_hidden) || self.unrestricted >= 2
    }

    fn no_ignore(&self) -> bool {
        (self.no_ignore && !self.ignore) || self.unrestricted >= 1
    }

    /// Binary files found by walking are searched too.
    pub fn binary(&self) -> bool {
        self.text || self.unrestricted >= 3
    }
}

/// The files named by `paths`, directories walked. No PATH is the current
/// directory, printed without its `./`, as ripgrep prints it.
pub fn expand(paths: &[PathBuf], w: &WalkArgs) -> lidx::Result<Targets> {
    let mut t = Targets {
        several: paths.len() > 1,
        ..Targets::default()
    };
    let overrides = overrides(w)?;
    if paths.is_empty() {
        t.several = true;
        t.implicit = true;
        walk(Path::new("./"), w, &overrides, true, &mut t);
        return Ok(t);
    }
    for p in paths {
        if is_directory(p) {
            t.several = true;
            walk(p, w, &overrides, false, &mut t);
        } else {
            t.list.push(Target {
                path: p.clone(),
                walked: false,
            });
        }
    }
    Ok(t)
}

/// True for a local directory (not a URL, not standard input).
fn is_directory(p: &Path) -> bool {
    !lidx::io::is_url(p) && p != Path::new("/dev/stdin") && p.is_dir()
}

/// The `-g`/`--iglob` rules, relative to the current directory as
/// ripgrep's.
fn overrides(w: &WalkArgs) -> lidx::Result<ignore::overrides::Override> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let mut b = ignore::overrides::OverrideBuilder::new(cwd);
    let bad = |g: &str, e: ignore::Error| Error::InvalidArgument(format!("glob {g:?}: {e}"));
    let fold = w.glob_case_insensitive && !w.no_glob_case_insensitive;
    b.case_insensitive(fold).map_err(|e| bad("--glob", e))?;
    for g in &w.globs {
        b.add(g).map_err(|e| bad(g, e))?;
    }
    b.case_insensitive(true).map_err(|e| bad("--iglob", e))?;
    for g in &w.iglobs {
        b.add(g).map_err(|e| bad(g, e))?;
    }
    b.build().map_err(|e| bad("--glob", e))
}

/// Appends the files below `root` to `t`, in path order.
fn walk(
    root: &Path,
    w: &WalkArgs,
    overrides: &ignore::overrides::Override,
    strip_dot: bool,
    t: &mut Targets,
) {
    let no_ignore = w.no_ignore();
    let vcs = !no_ignore && !w.no_ignore_vcs;
    let dot = !no_ignore && !w.no_ignore_dot;
    let mut b = ignore::WalkBuilder::new(root);
    b.hidden(!w.hidden())
        .ignore(dot)
        .parents(!no_ignore && !w.no_ignore_parent)
        .git_ignore(vcs)
        .git_global(vcs)
        .git_exclude(vcs && !w.no_ignore_exclude)
        .require_git(!w.no_require_git)
        .ignore_case_insensitive(w.ignore_file_case_insensitive)
        .follow_links(w.follow)
        .max_depth(w.max_depth)
        .overrides(overrides.clone());
    if w.sortr.as_deref() == Some("path") {
        b.sort_by_file_name(|a, b| b.cmp(a));
    } else {
        b.sort_by_file_name(|a, b| a.cmp(b));
    }
    if dot {
        b.add_custom_ignore_filename(".rgignore");
    }
    if !w.no_ignore_files {
        for f in &w.ignore_files {
            if let Some(e) = b.add_ignore(f) {
                eprintln!("lidx: {}", one_line(&e.to_string()));
                t.errors = true;
            }
        }
    }
    for entry in b.build() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                eprintln!("lidx: {}", one_line(&e.to_string()));
                t.errors = true;
                continue;
            }
        };
        if entry.depth() == 0 {
            // A root that is a file (a symlink to one) is named, not
            // walked; a directory (a symlink to one) is walked.
            if !entry.path().is_dir() {
                t.list.push(Target {
                    path: entry.path().to_path_buf(),
                    walked: false,
                });
            }
            continue;
        }
        if !entry.file_type().is_some_and(|f| f.is_file()) {
            continue;
        }
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "lidx") {
            continue;
        }
        let path = if strip_dot {
            path.strip_prefix("./").unwrap_or(path)
        } else {
            path
        };
        t.list.push(Target {
            path: path.to_path_buf(),
            walked: true,
        });
    }
}

/// A walk error on one line (the `ignore` crate nests some over lines).
fn one_line(s: &str) -> String {
    s.split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// True when a walked file is to be skipped: data in a compression
/// format lidx does not read (xz, bzip2, ...), or, unless `binary`, a NUL
/// byte in its first 64 KiB that is not the start of a gzip or seekable
/// zstd archive. An unreadable file is not skipped: opening it reports
/// the error.
pub fn skipped(path: &Path, binary: bool) -> bool {
    let Ok(src) = lidx::io::FileSource::open(path) else {
        return false;
    };
    // The first bytes, read once: what `sniff` looks at, and the NUL test.
    let mut head = vec![0u8; SAMPLE_LEN.min(src.len() as usize)];
    let Ok(n) = src.read_full_at(&mut head, 0) else {
        return false;
    };
    let head = &head[..n];
    match classify(head, (n as u64) < src.len()) {
        Sniffed::Gzip | Sniffed::ZstdSeekable => false,
        Sniffed::Compressed(Format::Zstd) => !lidx::zstd::is_seekable(&src).unwrap_or(true),
        Sniffed::Compressed(_) => true,
        Sniffed::Plain(_) => !binary && memchr::memchr(0, head).is_some(),
    }
}

/// Keeps the files to search: named ones, and walked ones that are not
/// [`skipped`].
pub fn searchable<'a>(targets: &'a Targets, w: &WalkArgs) -> Vec<&'a Path> {
    targets
        .list
        .iter()
        .filter(|t| !t.walked || !skipped(&t.path, w.binary()))
        .map(|t| t.path.as_path())
        .collect()
}

/// `--index` names one sidecar: an error with several files.
pub fn one_sidecar(targets: &Targets, q: &crate::QueryOpts) -> lidx::Result<()> {
    if q.index.is_some() && (targets.several || targets.list.len() != 1) {
        return Err(Error::InvalidArgument(
            "--index names the sidecar of one file; with several files, each file has its own"
                .into(),
        ));
    }
    Ok(())
}

/// ripgrep's warning when filters left nothing to search: when no PATH
/// was given (the current directory is walked) and the walk found no file
/// at all (a binary file it skips counts as found). True when printed.
pub fn nothing_searched(targets: &Targets) -> bool {
    if targets.implicit && targets.list.is_empty() {
        eprintln!(
            "lidx: no files were searched: the walk's filters (hidden files, ignore files, globs) left none"
        );
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_joins_nested_messages() {
        assert_eq!(one_line("a: b\n  c\n"), "a: b; c");
    }
}
