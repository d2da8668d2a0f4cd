//! `lidx count PATH...`: the number of lines of each file, as
//! `grep -a -c ''` counts them; with several files (or a directory,
//! walked as `lidx grep` walks it), one `path:N` line per file, as
//! `grep -c '' FILE...` prints them.

use super::paths::{WalkArgs, expand, nothing_searched, searchable};
use super::{QueryOpts, Status, open_index};
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

// Arguments of `lidx count` (a plain comment: see `Command` in main.rs, whose
// subcommands are deferred).
#[derive(Debug, Args)]
pub struct CountArgs {
    /// Text files, archives, URLs or directories.
    #[arg(value_parser = super::file_arg(), required = true, value_name = "PATH")]
    files: Vec<PathBuf>,
    /// Print the file's name before its count (the default with several
    /// files or a directory).
    #[arg(short = 'H', long, overrides_with = "no_filename")]
    with_filename: bool,
    /// Never print file names.
    #[arg(short = 'I', long, overrides_with = "with_filename")]
    no_filename: bool,
    /// Worker threads for building sidecars (default: the number of cores).
    #[arg(short = 'j', long, value_name = "N")]
    threads: Option<usize>,
    #[command(flatten)]
    walk: WalkArgs,
    #[command(flatten)]
    rotated: super::family::Rotated,
    #[command(flatten)]
    opts: QueryOpts,
}

pub fn run(mut a: CountArgs) -> lidx::Result<Status> {
    a.opts.rotated = a.rotated.on;
    if a.opts.rotated {
        return count_families(&a);
    }
    let targets = expand(&a.files, &a.walk)?;
    super::paths::one_sidecar(&targets, &a.opts)?;
    let named = !a.no_filename && (a.with_filename || targets.several);
    let mut out = super::stdout();
    if let [one] = &targets.list[..]
        && !targets.several
    {
        // One named file: its errors are the command's.
        write_count(&mut out, &one.path, named, &a.opts)?;
        super::flush(&mut out)?;
        return Ok(0);
    }
    let files = searchable(&targets, &a.walk);
    let mut errors = targets.errors || nothing_searched(&targets);
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    super::prepare::sidecars(&files, &a.opts, &Default::default(), threads);
    let mut counted = false;
    for file in files {
        match write_count(&mut out, file, named, &a.opts) {
            Ok(()) => {
                counted = true;
                super::take_damage_warning();
            }
            Err(e) if e.is_broken_pipe() => return Err(e),
            Err(e) => {
                super::flush(&mut out)?;
                super::file_error(file, &e);
                errors = true;
            }
        }
    }
    super::flush(&mut out)?;
    Ok(super::status(errors, counted))
}

/// `lidx count -R LIVE...`: the lines each family's members hold now.
fn count_families(a: &CountArgs) -> lidx::Result<Status> {
    let named = !a.no_filename && (a.with_filename || a.files.len() > 1);
    let mut out = super::stdout();
    let w = |e| lidx::Error::io("write", Path::new("<stdout>"), e);
    for live in &a.files {
        let family = super::family::open(live, &a.opts, &Default::default(), false)?;
        out.write_all(&super::name_prefix(live, named)).map_err(w)?;
        writeln!(out, "{}", family.line_count()).map_err(w)?;
    }
    super::flush(&mut out)?;
    Ok(0)
}

/// Writes `file`'s count (`path:N` when `named`).
fn write_count(out: &mut impl Write, file: &Path, named: bool, q: &QueryOpts) -> lidx::Result<()> {
    let index = open_index(file, q)?;
    if let Some(e) = index.damaged_error() {
        return Err(e); // the full count is unknown
    }
    let w = |e| lidx::Error::io("write", Path::new("<stdout>"), e);
    out.write_all(&super::name_prefix(file, named)).map_err(w)?;
    writeln!(out, "{}", index.line_count()).map_err(w)
}
