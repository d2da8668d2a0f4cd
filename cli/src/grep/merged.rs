//! `lidx grep --since/--until PATTERN FILE FILE...` (or `--merge`): the
//! matching lines of several logs interleaved by time, through their time
//! indexes (`lidx::merge`), each prefixed with its file's name as ripgrep
//! prefixes multi-file output (`-I` drops it). Counts (`-c`,
//! `--count-matches`), `-l` and `--files-without-match` are printed per
//! file, in the order of the FILEs, after the merge; `-m NUM` counts per
//! file, as ripgrep's.
//!
//! Not with a merge, and refused with a message: context (`-A`, `-B`,
//! `-C`, `--passthru`: a context group would mix files), `--json` (its
//! messages are framed per file), `--lines`/`--bytes` (lines are chosen
//! by time), `--heading` (one heading per file cannot hold interleaved
//! lines), `--stats` and `--stop-on-nonmatch` (they need each file's own
//! search).

use super::plan::Plan;
use super::print::Run;
use super::search::{Counter, Found};
use super::standard::{Standard, StandardOptions};
use super::{LineFacts, Mode, path_bytes};
use crate::merged::{Log, chosen, open_logs};
use crate::time::TimeArgs;
use lidx::Error;
use lidx::merge::{Input, MergedLine, merge_by_time};
use lidx::search::{Kind, Line, Sink};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What refuses a merge, if anything.
fn refused(plan: &Plan, context: bool) -> Option<&'static str> {
    if context || plan.sopts.passthru {
        Some("context lines (-A, -B, -C, --passthru)")
    } else if plan.mode == Mode::Json {
        Some("--json (its messages are framed per file)")
    } else if plan.stats || plan.stop_on_nonmatch {
        Some("--stats or --stop-on-nonmatch (they need each file's own search)")
    } else if !plan.whole {
        Some("--lines and --bytes (lines are chosen by --since/--until)")
    } else {
        None
    }
}

/// Searches `files` merged by time.
pub fn run(plan: &Plan, files: &[PathBuf], time: &TimeArgs) -> lidx::Result<super::Status> {
    if let Some(what) = refused(plan, plan.standard.context) {
        return Err(Error::InvalidArgument(format!(
            "lines merged by time cannot be searched with {what}; search the files one by one, without --merge and --since/--until over several files"
        )));
    }
    let time = TimeArgs {
        wanted: true,
        ..time.clone()
    };
    let (logs, errors) = open_logs(files, &plan.query, &time);
    let chosen: Vec<Vec<std::ops::Range<u64>>> = logs
        .iter()
        .map(|(_, log)| chosen(log, &[], &time))
        .collect::<lidx::Result<_>>()?;
    let inputs: Vec<Input<'_>> = logs
        .iter()
        .zip(&chosen)
        .map(|((_, log), ranges): (&(&Path, Log), _)| Input {
            parts: log.parts(ranges),
        })
        .collect();
    let facts = Arc::new(LineFacts::default());
    let mut standard: Vec<Standard> = logs
        .iter()
        .map(|(p, _)| {
            let opts = StandardOptions {
                path: plan
                    .with_filename
                    .then(|| path_bytes(p, plan.path_separator)),
                ..plan.standard.clone()
            };
            Standard::new(Arc::new(opts), facts.clone(), plan.matcher.clone())
        })
        .collect();
    let mut counters: Vec<Counter> = logs
        .iter()
        .map(|_| {
            Counter::new(
                plan.matcher.clone(),
                facts.clone(),
                plan.mode == Mode::CountMatches,
            )
        })
        .collect();
    let mut found: Vec<Found> = logs.iter().map(|_| Found::default()).collect();
    let mut out = crate::stdout();
    let out_err = |e| Error::io("write", Path::new("<stdout>"), e);
    let max = plan.sopts.max_count;
    let invert = plan.sopts.invert;
    merge_by_time(&inputs, &mut |l: &MergedLine<'_>| {
        let f = &mut found[l.input];
        if max.is_some_and(|m| f.selected >= m) {
            return Ok(true);
        }
        if plan.matcher.is_line_match(l.bytes) == invert {
            return Ok(true);
        }
        f.selected += 1;
        let line = Line {
            kind: Kind::Match,
            number: l.line,
            offset: l.offset,
            bytes: l.bytes,
        };
        if plan.quiet {
            return Ok(false);
        }
        match plan.mode {
            Mode::Standard => {
                let p = &mut standard[l.input];
                p.line(&line)?;
                f.printed += p.drain(&mut out).map_err(out_err)?;
                f.begun = true;
            }
            Mode::Count | Mode::CountMatches => {
                counters[l.input].line(&line)?;
            }
            _ => {}
        }
        Ok(true)
    })?;
    let mut run = Run::default();
    for (i, (path, _)) in logs.iter().enumerate() {
        let f = &mut found[i];
        if plan.mode == Mode::CountMatches {
            use lidx::search::parallel::Render;
            let c = std::mem::replace(
                &mut counters[i],
                Counter::new(plan.matcher.clone(), facts.clone(), true),
            );
            f.matches = c.finish().matches;
        }
        run.matched |= match plan.mode {
            Mode::FilesWithoutMatch => f.selected == 0,
            _ => f.selected > 0,
        };
        let name = path_bytes(path, plan.path_separator);
        run.after(plan, &name, f, &mut out).map_err(out_err)?;
    }
    crate::flush(&mut out)?;
    // As ripgrep: -q with a match answers, whatever failed.
    Ok(crate::status(
        errors && !(plan.quiet && run.matched),
        run.matched,
    ))
}
