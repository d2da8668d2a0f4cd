//! `lidx line-at FILE OFFSET`.

use super::{QueryOpts, Status, open_index};
use clap::Args;
use lidx::Error;
use std::io::Write;
use std::path::{Path, PathBuf};

// Arguments of `lidx line-at` (a plain comment: see `Command` in main.rs, whose
// subcommands are deferred).
#[derive(Debug, Args)]
pub struct LineAtArgs {
    /// The text file.
    #[arg(value_parser = super::file_arg())]
    file: PathBuf,
    /// 0-based byte offset (as `grep -b` prints).
    offset: String,
    #[command(flatten)]
    rotated: super::family::Rotated,
    #[command(flatten)]
    opts: QueryOpts,
}

pub fn run(mut a: LineAtArgs) -> lidx::Result<Status> {
    a.opts.rotated = a.rotated.on;
    let offset: u64 = if !a.offset.is_empty() && a.offset.bytes().all(|b| b.is_ascii_digit()) {
        a.offset.parse().map_err(|_| {
            Error::InvalidArgument(format!("invalid offset {:?}: too large", a.offset))
        })?
    } else {
        return Err(Error::InvalidArgument(format!(
            "invalid offset {:?}: expected a byte offset 0, 1, 2, ...",
            a.offset
        )));
    };
    if a.opts.rotated {
        // A global byte offset: the member whose text holds it.
        let family = super::family::open(&a.file, &a.opts, &Default::default(), false)?;
        let Some(line) = family.line_at(offset)? else {
            let m = family.members();
            eprintln!(
                "lidx: {}: offset {offset} is not in the family's members (they hold bytes {}–{})",
                a.file.display(),
                m.first().map_or(0, |m| m.base_byte),
                m.last().map_or(0, |m| m.base_byte + m.index.source_len())
            );
            return Ok(1);
        };
        let mut out = super::stdout();
        writeln!(out, "{}", line + 1).map_err(|e| Error::io("write", Path::new("<stdout>"), e))?;
        super::flush(&mut out)?;
        return Ok(0);
    }
    let index = open_index(&a.file, &a.opts)?;
    match index.line_at(offset) {
        Ok(line) => {
            let mut out = super::stdout();
            writeln!(out, "{}", line + 1)
                .map_err(|e| Error::io("write", Path::new("<stdout>"), e))?;
            super::flush(&mut out)?;
            Ok(0)
        }
        Err(e @ Error::OutOfRange { .. }) => {
            eprintln!("{}", super::past_end(&a.file, &e));
            Ok(1)
        }
        Err(e) => Err(e),
    }
}
