//! `lidx lines FILE FILE... [RANGE...]`: several logs (files, archives,
//! URLs, rotation families with `-R`) read together. Each line is
//! prefixed with its file's name and `:` as `grep -H` prefixes it (`-I`
//! drops the prefix), then with its number with `-n` (a family's global
//! number). Without `--merge`, each log's lines are printed in turn, the
//! RANGEs counted in each. With `--merge` or `--since`/`--until`, the
//! lines are interleaved by time through the logs' time indexes
//! (`lidx::merge`: a k-way merge, ties in the order of the FILEs, then of
//! the lines), and a RANGE is refused (it would mean a different line in
//! each log).

use super::range::LineRange;
use super::time::TimeArgs;
use super::{QueryOpts, Status};
use lidx::Error;
pub use lidx::join::Log;
use lidx::merge::{Input, MergedLine, each_line, merge_by_time};
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// What `lidx lines` asked for, with several FILEs.
pub struct Request<'a> {
    pub files: &'a [PathBuf],
    pub specs: &'a [LineRange],
    /// Interleave by time.
    pub merge: bool,
    /// Prefix lines with file names.
    pub names: bool,
    /// Prefix lines with their numbers.
    pub numbered: bool,
    pub time: &'a TimeArgs,
    pub opts: &'a QueryOpts,
}

/// The lines of a log's `--since`/`--until`, if given.
pub fn time_range(log: &Log, time: &TimeArgs) -> lidx::Result<Option<Range<u64>>> {
    match log {
        Log::File(i) => time.range(i),
        Log::Family(f) => super::family::time_range(f, time),
    }
}

/// Opens each of `files` (a family with `-R`), reporting each one that
/// fails on one line; true in the second place when one did.
pub fn open_logs<'f>(
    files: &'f [PathBuf],
    opts: &QueryOpts,
    time: &TimeArgs,
) -> (Vec<(&'f Path, Log)>, bool) {
    let mut errors = false;
    let mut logs = Vec::new();
    for file in files {
        let opened = if opts.rotated {
            super::family::open(file, opts, time, false)
                .map(|f| Log::Family(std::sync::Arc::new(f)))
        } else {
            super::time::open(file, opts, time).map(|i| Log::File(std::sync::Arc::new(i)))
        };
        match opened {
            Ok(log) => logs.push((file.as_path(), log)),
            Err(e) => {
                super::file_error(file, &e);
                errors = true;
            }
        }
    }
    (logs, errors)
}

/// A log's lines: the RANGEs (or all), within the time range; sorted.
pub fn chosen(log: &Log, specs: &[LineRange], time: &TimeArgs) -> lidx::Result<Vec<Range<u64>>> {
    let all = log.lines();
    let mut ranges: Vec<Range<u64>> = if specs.is_empty() {
        std::iter::once(all.clone()).collect()
    } else {
        specs
            .iter()
            .map(|s| {
                let g = s.resolve(all.end);
                g.start.max(all.start)..g.end.min(all.end)
            })
            .collect()
    };
    if let Some(t) = time_range(log, time)? {
        for g in &mut ranges {
            *g = g.start.max(t.start)..g.end.min(t.end);
        }
    }
    ranges.retain(|g| g.start < g.end);
    Ok(ranges)
}

pub fn run(r: &Request<'_>) -> lidx::Result<Status> {
    if r.merge && !r.specs.is_empty() {
        return Err(Error::InvalidArgument(
            "lines merged by time are chosen with --since/--until, not RANGEs (a RANGE would be another line in each file)".into(),
        ));
    }
    let time = TimeArgs {
        wanted: r.time.wanted || r.merge,
        ..r.time.clone()
    };
    let (logs, errors) = open_logs(r.files, r.opts, &time);
    let chosen = logs
        .iter()
        .map(|(_, log)| chosen(log, r.specs, &time))
        .collect::<lidx::Result<Vec<_>>>()?;
    let prefixes: Vec<Vec<u8>> = logs
        .iter()
        .map(|(p, _)| super::name_prefix(p, r.names))
        .collect();
    let mut out = super::stdout();
    let inputs: Vec<Input<'_>> = logs
        .iter()
        .zip(&chosen)
        .map(|((_, log), ranges)| Input {
            parts: log.parts(ranges),
        })
        .collect();
    let mut itoa = Vec::new();
    let w = |e| Error::io("write", Path::new("<stdout>"), e);
    let mut print = |l: &MergedLine<'_>| -> lidx::Result<bool> {
        out.write_all(&prefixes[l.input]).map_err(w)?;
        if r.numbered {
            itoa.clear();
            write!(itoa, "{}:", l.line + 1).map_err(w)?;
            out.write_all(&itoa).map_err(w)?;
        }
        out.write_all(l.bytes).map_err(w)?;
        // A last line without its newline still ends here: the next
        // line is another file's.
        if !l.bytes.ends_with(b"\n") {
            out.write_all(b"\n").map_err(w)?;
        }
        Ok(true)
    };
    let printed = if r.merge {
        merge_by_time(&inputs, &mut print)?
    } else {
        each_line(&inputs, &mut print)?
    };
    super::flush(&mut out)?;
    Ok(super::status(errors, printed > 0))
}
