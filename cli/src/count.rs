//! `lidx count FILE`.

use super::{QueryOpts, Status, open_index};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `lidx count`.
#[derive(Debug, Args)]
pub struct CountArgs {
    /// The text file.
    #[arg(value_parser = super::file_arg())]
    file: PathBuf,
    #[command(flatten)]
    opts: QueryOpts,
}

pub fn run(a: CountArgs) -> lidx::Result<Status> {
    let index = open_index(&a.file, &a.opts)?;
    if let Some(e) = index.damaged_error() {
        return Err(e); // the full count is unknown
    }
    let mut out = super::stdout();
    writeln!(out, "{}", index.line_count())
        .map_err(|e| lidx::Error::io("write", std::path::Path::new("<stdout>"), e))?;
    super::flush(&mut out)?;
    Ok(0)
}
