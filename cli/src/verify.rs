//! `lidx verify FILE [--full]`.
//!
//! Exit status: 0 intact and fresh; 1 intact but stale (the source changed
//! since indexing), or not known to be fresh (only the modification time of
//! a plain file differs: `--full` re-reads it and decides); 2 damaged,
//! built for another file, or the full re-scan disagrees.

use super::Status;
use clap::Args;
use lidx::{OpenOptions, Verdict};
use std::path::PathBuf;

// Arguments of `lidx verify` (a plain comment: see `Command` in main.rs, whose
// subcommands are deferred).
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The text file.
    #[arg(value_parser = super::file_arg())]
    file: PathBuf,
    /// Sidecar path (default: FILE.lidx or the user cache directory).
    #[arg(long = "index", value_name = "PATH")]
    index: Option<PathBuf>,
    /// Also re-scan the source and compare every checkpoint and the line count.
    #[arg(long)]
    full: bool,
}

pub fn run(a: VerifyArgs) -> lidx::Result<Status> {
    let mut oo = OpenOptions::new();
    if let Some(p) = &a.index {
        oo.sidecar(p);
    }
    let mut index = oo.inspect(&a.file)?;
    if a.full && index.verdict() == Verdict::Unverified {
        // The full check is the content check: remembered when it passes.
        index.verify_content(&mut |_, _| true)?;
    }
    index.check_not_foreign()?;
    if index.verdict() == Verdict::Unverified {
        let r = index.verify(false)?;
        println!(
            "{}: pages ok ({}, {}); the file's modification time differs: run `lidx verify --full` to check its content",
            index.sidecar_path().display(),
            lidx::count_of(r.pages, "page", "pages"),
            lidx::count_of(r.checkpoints, "checkpoint", "checkpoints"),
        );
        return Ok(1);
    }
    if index.verdict() != Verdict::Unchanged {
        // Pages are still checked, but a stale sidecar cannot be re-scanned
        // against a source it no longer describes.
        let r = index.verify(false)?;
        println!(
            "{}: pages ok ({}, {}) but stale: the source was {} since indexing",
            index.sidecar_path().display(),
            lidx::count_of(r.pages, "page", "pages"),
            lidx::count_of(r.checkpoints, "checkpoint", "checkpoints"),
            r.verdict
        );
        return Ok(1);
    }
    // A content check that just re-read the whole file need not run again.
    let rescanned = index.evidence() == Some(lidx::Evidence::Content(lidx::Proof::Rescan));
    let r = index.verify(a.full && !rescanned)?;
    let how = match index.evidence() {
        Some(lidx::Evidence::Fingerprint) | None => String::new(),
        Some(e) => format!(" ({e})"),
    };
    println!(
        "{}: ok: {}, {}, {}, source unchanged{how}{}",
        index.sidecar_path().display(),
        lidx::count_of(r.pages, "page", "pages"),
        lidx::count_of(r.checkpoints, "checkpoint", "checkpoints"),
        lidx::count_of(index.line_count(), "line", "lines"),
        if r.full || rescanned {
            ", every checkpoint re-scanned"
        } else {
            ""
        }
    );
    Ok(0)
}
