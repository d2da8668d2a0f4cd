//! `-R/--rotated`: a rotation family named by its live file (`app.log`
//! with `app.log.1`, `app.log.2.gz`, ... or logrotate's dated names) read
//! as one log with global line numbers that never change
//! (`lidx::family`). Opening one builds the members' sidecars in parallel
//! (one progress bar), then checks and updates the family's manifest,
//! saying so on stderr when it numbered or renumbered members.

use super::QueryOpts;
use super::time::TimeArgs;
use lidx::Error;
use lidx::family::{Family, FamilyAction};
use lidx::time::Nanos;
use std::path::Path;

// `-R/--rotated`, for the commands that take it (not `view`, whose `-R`
// is less's raw control characters).
#[derive(Debug, clap::Args, Clone, Copy, Default)]
pub struct Rotated {
    /// FILE is the live file of a rotation family (FILE.1, FILE.2.gz,
    /// ..., or logrotate's dated names), read as one log with global line
    /// numbers that stay the same across rotations (kept in
    /// FILE.family.lidx).
    #[arg(long = "rotated", short = 'R')]
    pub on: bool,
}

/// Opens the family of `live` for a query, with a time index in every
/// member when `time` asks; `renumber` starts the numbering again.
pub fn open(live: &Path, q: &QueryOpts, time: &TimeArgs, renumber: bool) -> lidx::Result<Family> {
    if q.index.is_some() {
        return Err(Error::InvalidArgument(
            "--index names the sidecar of one file; each member of a rotation family has its own"
                .into(),
        ));
    }
    if lidx::io::is_url(live) {
        return Err(Error::InvalidArgument(format!(
            "{}: a rotation family is a local directory's files; -R does not take a URL",
            live.display()
        )));
    }
    let oo = super::time::open_options(q, time)?;
    if !q.no_build {
        let files = lidx::family::prepare(live)?;
        let refs: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        super::prepare::sidecars(&refs, q, time, threads);
    }
    let started = std::time::Instant::now();
    let family = Family::open(live, &oo, renumber)?;
    if !q.quiet {
        note(&family, started.elapsed());
    }
    Ok(family)
}

/// Says what opening did to the numbering, if anything.
pub fn note(family: &Family, took: std::time::Duration) {
    let what = match family.action() {
        FamilyAction::Opened => return,
        FamilyAction::Numbered => "numbered",
        FamilyAction::Updated => "updated (rotated)",
        FamilyAction::Renumbered => "renumbered from line 1",
    };
    eprintln!(
        "lidx: note: {}: {what}: {}, lines {}–{} in {:.2} s",
        family.manifest_path().display(),
        lidx::count_of(family.members().len() as u64, "member", "members"),
        family.first_line() + 1,
        family.end_line(),
        took.as_secs_f64()
    );
}

/// The instant `t` stands for, zoneless times in the zone of the newest
/// member's time index.
pub fn instant(family: &Family, t: &str) -> lidx::Result<Nanos> {
    match family.members().last() {
        Some(m) => super::time::instant(&m.index, t),
        None => Err(Error::InvalidArgument("the family has no member".into())),
    }
}

/// The global lines of `--since`/`--until`, if given.
pub fn time_range(family: &Family, time: &TimeArgs) -> lidx::Result<Option<std::ops::Range<u64>>> {
    if !time.selects() {
        return Ok(None);
    }
    let since = time
        .since
        .as_deref()
        .map(|t| instant(family, t))
        .transpose()?;
    let until = time
        .until
        .as_deref()
        .map(|t| instant(family, t))
        .transpose()?;
    family.time_range(since, until).map(Some)
}
