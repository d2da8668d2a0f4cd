//! `lidx view FILE`: a full-screen pager.

use super::Status;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `lidx view`.
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// The text file.
    file: PathBuf,
}

pub fn run(a: ViewArgs) -> lidx::Result<Status> {
    Err(lidx::Error::InvalidArgument(format!(
        "{}: not yet",
        a.file.display()
    )))
}
