//! `lidx lines FILE RANGE...`: print lines exactly as `sed -n 'A,Bp'`.

use super::{QueryOpts, Status, range};
use clap::Args;
use lidx::Error;
use std::io::Write;
use std::path::PathBuf;

// Arguments of `lidx lines` (a plain comment: see `Command` in main.rs, whose
// subcommands are deferred).
#[derive(Debug, Args)]
#[command(after_help = super::time::GRAMMAR)]
pub struct LinesArgs {
    /// The text file (`-`: standard input redirected from a file; a file
    /// named `-n` is `./-n`, or comes after `--`).
    #[arg(value_parser = super::file_arg())]
    file: PathBuf,
    /// Line ranges, 1-based and inclusive: N, A:B, A: (to the end), :B,
    /// A:+K (K lines from A); $ is the last line and $-K the line K before
    /// it (quote them: '$-9:$'). Several ranges print in the order given.
    ///
    /// A range stands for the line numbers from its start to its end, and
    /// the lines outside the file are not printed, at either end: on a
    /// 5-line file, '$-9:$' prints lines 1 to 5 (as `tail -n 10`), 3:20
    /// prints lines 3 to 5 (as `sed -n 3,20p`), and '$-9' or 6 prints
    /// nothing (exit 1). Examples: '$' (the last line, `sed -n '$p'`),
    /// '$-9:$' (the last 10), ':$-1' (all but the last, `head -n -1`),
    /// '$-4:+2' (the 5th and 4th last). An end before the start is an
    /// error when both count from the same side (5:3, '$:$-1'), else it
    /// selects nothing ('$-2:3' on a 10-line file). In an archive that
    /// ends early (only the lines before the damage can be read), the last
    /// line is unknown and a range counting from $ is an error.
    #[arg(required_unless_present_any = ["since", "until"], value_name = "RANGE")]
    ranges: Vec<String>,
    /// Prefix each line with its number and ':' (as `grep -n`).
    #[arg(short = 'n', long = "line-number")]
    numbered: bool,
    /// Keep printing new complete lines as the file grows (as `tail -f`),
    /// keeping the sidecar current; a truncated or replaced file is followed
    /// again from its first line (with a note on stderr). One range `A:`
    /// ('$-9:' starts with the last 10 lines, as `tail -f`).
    #[arg(short = 'f', long)]
    follow: bool,
    /// With several FILEs: interleave their lines by time (through their
    /// time indexes, built when missing), as --since/--until do; without
    /// it, each file's lines are printed in turn.
    #[arg(long)]
    merge: bool,
    /// With several FILEs, prefix each line with its file's name and ':'
    /// (the default); with one, name it too.
    #[arg(short = 'H', long, overrides_with = "no_filename")]
    with_filename: bool,
    /// Never prefix lines with file names.
    #[arg(short = 'I', long, overrides_with = "with_filename")]
    no_filename: bool,
    #[command(flatten)]
    time: super::time::TimeArgs,
    #[command(flatten)]
    rotated: super::family::Rotated,
    #[command(flatten)]
    opts: QueryOpts,
}

impl LinesArgs {
    /// The FILEs (the first, then the positionals before the first RANGE)
    /// and the RANGEs.
    fn split(&self) -> lidx::Result<(Vec<PathBuf>, Vec<range::LineRange>)> {
        let mut files = vec![self.file.clone()];
        let mut specs = Vec::new();
        for arg in &self.ranges {
            match range::parse(arg) {
                Ok(r) => specs.push(r),
                Err(_) if specs.is_empty() && looks_like_a_path(arg) => {
                    files.push(super::stdin_alias(arg.into()))
                }
                Err(e) => return Err(Error::InvalidArgument(e)),
            }
        }
        Ok((files, specs))
    }
}

/// An argument after FILE that is not a RANGE is another FILE when it
/// names something (an existing path, a URL) or looks like a file name (a
/// `.` or a `/` in it: opening it then says what is wrong); otherwise it is
/// a RANGE with a mistake (`1-5`), and the range's error says which.
fn looks_like_a_path(arg: &str) -> bool {
    let p = std::path::Path::new(arg);
    arg == "-" || arg.contains(['.', '/']) || lidx::io::is_url(p) || p.exists()
}

pub fn run(mut a: LinesArgs) -> lidx::Result<Status> {
    a.opts.rotated = a.rotated.on;
    let (files, specs) = a.split()?;
    if files.len() > 1 || a.merge || a.with_filename {
        if a.follow {
            return Err(Error::InvalidArgument(
                "--follow follows one file (or one rotation family, -R)".into(),
            ));
        }
        return super::merged::run(&super::merged::Request {
            files: &files,
            specs: &specs,
            merge: a.merge || (files.len() > 1 && a.time.selects()),
            names: !a.no_filename && (files.len() > 1 || a.with_filename),
            numbered: a.numbered,
            time: &a.time,
            opts: &a.opts,
        });
    }
    if a.follow {
        if a.time.selects() {
            return Err(Error::InvalidArgument(
                "--follow prints what is appended; it takes a line range, not --since/--until"
                    .into(),
            ));
        }
        if a.opts.rotated {
            return follow_family(&a, &specs);
        }
        return follow(&a, &specs);
    }
    if a.opts.rotated {
        return family_lines(&a, &specs);
    }
    let index = super::time::open(&a.file, &a.opts, &a.time)?;
    // Every range is resolved before anything is printed: one that cannot
    // be (`$` in a damaged archive) is an error with no output.
    let mut ranges = specs
        .iter()
        .map(|s| s.resolve_in(&index))
        .collect::<Result<Vec<_>, _>>()?;
    let timed = a.time.selects();
    if let Some(t) = a.time.range(&index)? {
        if ranges.is_empty() {
            if t.is_empty() {
                eprintln!("lidx: {}: no line in that time range", a.file.display());
                return Ok(1);
            }
            let mut out = super::stdout();
            index.write_lines(t, a.numbered, &mut out)?;
            super::flush(&mut out)?;
            return Ok(0);
        }
        // Line ranges and a time range: the lines in both.
        for r in &mut ranges {
            *r = r.start.max(t.start)..r.end.min(t.end);
        }
    }
    let lines = index.line_count();
    let mut out = super::stdout();
    let mut printed = 0u64;
    let mut first_empty = None;
    let mut beyond_damage = false;
    for (spec, r) in specs.iter().zip(ranges) {
        beyond_damage |= r.end > lines;
        if r.is_empty() || r.start >= lines {
            first_empty.get_or_insert(spec);
            continue;
        }
        printed += index.write_lines(r, a.numbered, &mut out)?;
    }
    super::flush(&mut out)?;
    if beyond_damage && let Some(e) = index.damaged_error() {
        return Err(e);
    }
    if printed == 0 {
        if timed {
            eprintln!("lidx: {}: no line in that time range", a.file.display());
        } else if let Some(spec) = first_empty {
            eprintln!("lidx: {}: {}", a.file.display(), spec.why_empty(lines));
        }
        return Ok(1);
    }
    Ok(0)
}

/// `lidx lines -R LIVE RANGE...`: global line numbers over the family.
fn family_lines(a: &LinesArgs, specs: &[range::LineRange]) -> lidx::Result<Status> {
    let family = super::family::open(&a.file, &a.opts, &a.time, false)?;
    let end = family.end_line();
    let first = family.first_line();
    let mut ranges: Vec<std::ops::Range<u64>> = specs.iter().map(|s| s.resolve(end)).collect();
    let timed = a.time.selects();
    if let Some(t) = super::family::time_range(&family, &a.time)? {
        if ranges.is_empty() {
            ranges.push(t);
        } else {
            for r in &mut ranges {
                *r = r.start.max(t.start)..r.end.min(t.end);
            }
        }
    }
    let mut out = super::stdout();
    let mut printed = 0u64;
    let mut gone = false;
    for r in ranges {
        gone |= r.start < first && r.start < r.end;
        let r = r.start.max(first)..r.end.min(end);
        if r.start < r.end {
            printed += family.write_lines(r, a.numbered, &mut out)?;
        }
    }
    super::flush(&mut out)?;
    if printed == 0 {
        let name = a.file.display();
        if timed {
            eprintln!("lidx: {name}: no line in that time range");
        } else if gone {
            eprintln!(
                "lidx: {name}: the family's lines before line {} were rotated away (its members now hold lines {}–{end})",
                first + 1,
                first + 1
            );
        } else if let Some(spec) = specs.first() {
            eprintln!("lidx: {name}: {}", spec.why_empty(end));
        }
        return Ok(1);
    }
    Ok(0)
}

/// The one open range `A:` that `--follow` takes.
fn followed_range(specs: &[range::LineRange]) -> lidx::Result<&range::LineRange> {
    match specs {
        [spec] if spec.is_open() => Ok(spec),
        [_] => Err(Error::InvalidArgument(
            "--follow takes an open range, A: (to the end)".into(),
        )),
        _ => Err(Error::InvalidArgument(
            "--follow takes one range, A: (to the end)".into(),
        )),
    }
}

/// `lidx lines -f -R LIVE A:`: follows the family across rotations.
fn follow_family(a: &LinesArgs, specs: &[range::LineRange]) -> lidx::Result<Status> {
    let spec = followed_range(specs)?;
    let family = super::family::open(&a.file, &a.opts, &a.time, false)?;
    let start = spec
        .resolve(family.end_line())
        .start
        .max(family.first_line());
    let oo = super::time::open_options(&a.opts, &a.time)?;
    drop(family);
    let mut follower = lidx::family::FamilyFollower::new(&a.file, start, &oo);
    let mut out = std::io::stdout().lock();
    loop {
        let n = follower.poll(a.numbered, &mut out)?;
        if n > 0 {
            out.flush()
                .map_err(|e| Error::io("write", std::path::Path::new("<stdout>"), e))?;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

fn follow(a: &LinesArgs, specs: &[range::LineRange]) -> lidx::Result<Status> {
    if lidx::io::is_url(&a.file) {
        return Err(lidx::Error::InvalidArgument(format!(
            "{}: --follow reads a local file as it grows; a remote object cannot be followed",
            a.file.display()
        )));
    }
    let spec = followed_range(specs)?;
    let mut oo = lidx::OpenOptions::new();
    oo.cache_bytes(a.opts.cache_mb.saturating_mul(1 << 20));
    if let Some(p) = &a.opts.index {
        oo.sidecar(p);
    }
    let start = if spec.counts_from_end() {
        // '$-9:': the last lines now, then what is appended.
        spec.resolve_in(&oo.open(&a.file)?.index)?.start
    } else {
        spec.resolve(0).start
    };
    let mut follower = lidx::Follower::new(&a.file, start, &oo)?;
    let mut out = std::io::stdout().lock();
    let mut missing = false;
    loop {
        let event = follower.poll(a.numbered, &mut out)?;
        if missing && event != lidx::FollowEvent::Missing {
            missing = false;
        }
        match event {
            lidx::FollowEvent::Restarted => {
                eprintln!(
                    "lidx: {}: file truncated or replaced; following it from line 1",
                    a.file.display()
                );
                continue;
            }
            lidx::FollowEvent::Lines(_) => continue,
            lidx::FollowEvent::Missing if !missing => {
                // As `tail -F`: said once, then waiting for the file.
                missing = true;
                eprintln!(
                    "lidx: {}: the file is gone; waiting for it to appear again",
                    a.file.display()
                );
            }
            lidx::FollowEvent::Missing | lidx::FollowEvent::Idle => {}
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}
