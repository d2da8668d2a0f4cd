//! `lidx lines FILE RANGE...`: print lines exactly as `sed -n 'A,Bp'`.

use super::{QueryOpts, Status, open_index, range};
use clap::Args;
use lidx::Error;
use std::path::PathBuf;

/// Arguments of `lidx lines`.
#[derive(Debug, Args)]
pub struct LinesArgs {
    /// The text file.
    #[arg(value_parser = super::file_arg())]
    file: PathBuf,
    /// Line ranges, 1-based: N, A:B (inclusive), A: (to the end), :B, A:+K
    /// (K lines from A). Several ranges print in the order given.
    #[arg(required = true, allow_hyphen_values = true, value_name = "RANGE")]
    ranges: Vec<String>,
    /// Prefix each line with its number and ':' (as `grep -n`).
    #[arg(short = 'n', long = "line-number")]
    numbered: bool,
    /// Keep printing new complete lines as the file grows (as `tail -f`),
    /// keeping the sidecar current; a truncated or replaced file is followed
    /// again from its first line (with a note on stderr). One range `A:`.
    #[arg(short = 'f', long)]
    follow: bool,
    #[command(flatten)]
    opts: QueryOpts,
}

pub fn run(a: LinesArgs) -> lidx::Result<Status> {
    let ranges = a
        .ranges
        .iter()
        .map(|r| range::parse(r).map_err(Error::InvalidArgument))
        .collect::<Result<Vec<_>, _>>()?;
    if a.follow {
        return follow(&a, &ranges);
    }
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
                "lidx: {}: line {} is past the end (the file has {})",
                a.file.display(),
                line as u128 + 1,
                lidx::count_of(index.line_count(), "line", "lines")
            );
        }
        return Ok(1);
    }
    Ok(0)
}

fn follow(a: &LinesArgs, ranges: &[std::ops::Range<u64>]) -> lidx::Result<Status> {
    let [r] = ranges else {
        return Err(Error::InvalidArgument(
            "--follow takes one range, A: (to the end)".into(),
        ));
    };
    if r.end != u64::MAX {
        return Err(Error::InvalidArgument(
            "--follow takes an open range, A: (to the end)".into(),
        ));
    }
    let mut oo = lidx::OpenOptions::new();
    oo.cache_bytes(a.opts.cache_mb.saturating_mul(1 << 20));
    if let Some(p) = &a.opts.index {
        oo.sidecar(p);
    }
    let mut follower = lidx::Follower::new(&a.file, r.start, &oo)?;
    let mut out = std::io::stdout().lock();
    loop {
        match follower.poll(a.numbered, &mut out)? {
            lidx::FollowEvent::Restarted => {
                eprintln!(
                    "lidx: {}: file truncated or replaced; following it from line 1",
                    a.file.display()
                );
                continue;
            }
            lidx::FollowEvent::Lines(_) => continue,
            lidx::FollowEvent::Idle => std::thread::sleep(std::time::Duration::from_millis(200)),
        }
    }
}
