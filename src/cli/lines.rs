//! `lidx lines FILE RANGE...`: print lines exactly as `sed -n 'A,Bp'`.

use super::{QueryOpts, Status, open_index, range};
use clap::Args;
use lidx::Error;
use std::path::PathBuf;

/// Arguments of `lidx lines`.
#[derive(Debug, Args)]
pub struct LinesArgs {
    /// The text file.
    file: PathBuf,
    /// Line ranges, 1-based: N, A:B (inclusive), A: (to the end), :B, A:+K
    /// (K lines from A). Several ranges print in the order given.
    #[arg(required = true, allow_hyphen_values = true, value_name = "RANGE")]
    ranges: Vec<String>,
    /// Prefix each line with its number and ':' (as `grep -n`).
    #[arg(short = 'n', long = "line-number")]
    numbered: bool,
    #[command(flatten)]
    opts: QueryOpts,
}

pub fn run(a: LinesArgs) -> lidx::Result<Status> {
    let ranges = a
        .ranges
        .iter()
        .map(|r| range::parse(r).map_err(Error::InvalidArgument))
        .collect::<Result<Vec<_>, _>>()?;
    let index = open_index(&a.file, &a.opts)?;
    let mut out = super::stdout();
    let mut printed = 0u64;
    let mut past_end = None;
    let mut beyond_damage = false;
    for r in ranges {
        beyond_damage |= r.end > index.line_count();
        if r.start >= index.line_count() {
            past_end.get_or_insert(r.start);
            continue;
        }
        printed += index.write_lines(r, a.numbered, &mut out)?;
    }
    super::flush(&mut out)?;
    if beyond_damage && let Some(e) = index.damaged_error() {
        return Err(e);
    }
    if printed == 0 {
        if let Some(line) = past_end {
            eprintln!(
                "lidx: {}: line {} is past the end (the file has {} lines)",
                a.file.display(),
                line as u128 + 1,
                index.line_count()
            );
        }
        return Ok(1);
    }
    Ok(0)
}
