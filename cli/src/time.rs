//! Time options shared by `lines` and `grep` (`--since`, `--until`), and
//! `lidx line-at-time FILE T`.

use super::{QueryOpts, Status};
use clap::Args;
use lidx::time::{Nanos, TimeFormat, parse_expr};
use lidx::{Error, Index, TimeOptions};
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The help shared by the time options: the grammar of T.
pub const GRAMMAR: &str = "\
T is 2026-11-30T10:32 (seconds, a fraction and a zone such as Z or +01:00 \
may follow; a date alone is its midnight), 10:32 (today), 'yesterday 10:32', \
a time relative to now (-15m, -2h, -1d, +30s; s m h d w), @SECONDS since the \
epoch, or now. A T without a zone is read in the time index's zone (the \
system's unless the index was built with --tz).";

// How lines are chosen by time, and how their stamps are read (a plain
// comment: see `Command` in main.rs, whose subcommands are deferred).
#[derive(Debug, Args, Clone, Default)]
pub struct TimeArgs {
    /// Only the lines from the first at or after T (builds a time index
    /// in the sidecar when it has none). See T below.
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub since: Option<String>,
    /// Only the lines up to the last before T.
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub until: Option<String>,
    /// How stamps are written, for a time index built now: a name
    /// (iso8601, syslog, clf, epoch-s, epoch-ms, ymd-slash, yy-slash,
    /// yymmdd, ctime, keyed) or a strptime format such as
    /// '%d.%m.%Y %H:%M:%S', read where the first lines show it (default:
    /// detected from the first lines).
    #[arg(long, value_name = "FORMAT", allow_hyphen_values = true)]
    pub time_format: Option<String>,
    /// Time zone of stamps without one, for a time index built now (an
    /// IANA name such as Europe/Paris, UTC, or an offset such as +01:00;
    /// default: the system's).
    #[arg(long, value_name = "ZONE")]
    pub tz: Option<String>,
    /// A time index is wanted though no time is asked for (`index --time`).
    #[arg(skip)]
    pub wanted: bool,
}

impl TimeArgs {
    /// True when lines are chosen by time.
    pub fn selects(&self) -> bool {
        self.since.is_some() || self.until.is_some()
    }

    /// The time index options these ask for, if any.
    pub fn options(&self) -> lidx::Result<Option<TimeOptions>> {
        if !self.selects() && !self.wanted && self.time_format.is_none() && self.tz.is_none() {
            return Ok(None);
        }
        let format = self
            .time_format
            .as_deref()
            .map(TimeFormat::kind_of)
            .transpose()?;
        Ok(Some(TimeOptions {
            format,
            tz: self.tz.clone(),
        }))
    }

    /// The line range of `--since`/`--until` in `index`; `None` without
    /// them.
    pub fn range(&self, index: &Index) -> lidx::Result<Option<Range<u64>>> {
        if !self.selects() {
            return Ok(None);
        }
        let since = self
            .since
            .as_deref()
            .map(|t| instant(index, t))
            .transpose()?;
        let until = self
            .until
            .as_deref()
            .map(|t| instant(index, t))
            .transpose()?;
        index.time_range(since, until).map(Some)
    }
}

/// The instant `t` stands for, zoneless times in the index's zone.
pub fn instant(index: &Index, t: &str) -> lidx::Result<Nanos> {
    let tz = index
        .time_info()?
        .map(|i| i.tz)
        .unwrap_or_else(|| "local".into());
    parse_expr(t, &tz, now())
}

/// The current time.
fn now() -> Nanos {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    d.as_nanos().min(i64::MAX as u128) as i64
}

/// Opens `file`'s index for a query, with a time index when `time` asks.
pub fn open(file: &Path, opts: &QueryOpts, time: &TimeArgs) -> lidx::Result<Index> {
    super::open_with(file, opts, &open_options(opts, time)?)
}

/// The open options of a query, with a time index when `time` asks.
pub fn open_options(opts: &QueryOpts, time: &TimeArgs) -> lidx::Result<lidx::OpenOptions> {
    let mut oo = super::open_options(opts);
    if let Some(t) = time.options()? {
        oo.time(t);
    }
    Ok(oo)
}

// Arguments of `lidx line-at-time` (a plain comment: see `Command` in main.rs, whose
// subcommands are deferred).
#[derive(Debug, Args)]
#[command(after_help = GRAMMAR)]
pub struct LineAtTimeArgs {
    /// The log file.
    #[arg(value_parser = super::file_arg())]
    file: PathBuf,
    /// The instant T (see below).
    #[arg(value_name = "T", allow_hyphen_values = true)]
    at: String,
    /// More files, after T (T may start with '-', as -15m, so it comes
    /// second). With several files, each answer is printed as `path:N`
    /// (a file with no line at or after T prints nothing).
    #[arg(value_name = "FILE", value_parser = super::file_arg())]
    more: Vec<PathBuf>,
    /// How stamps are written, for a time index built now (default:
    /// detected); see `lidx lines --help`.
    #[arg(long, value_name = "FORMAT", allow_hyphen_values = true)]
    time_format: Option<String>,
    /// Time zone of stamps without one, for a time index built now.
    #[arg(long, value_name = "ZONE")]
    tz: Option<String>,
    #[command(flatten)]
    rotated: super::family::Rotated,
    #[command(flatten)]
    opts: QueryOpts,
}

pub fn run_line_at_time(mut a: LineAtTimeArgs) -> lidx::Result<Status> {
    a.opts.rotated = a.rotated.on;
    let at = a.at.clone();
    let mut files = vec![a.file.clone()];
    files.extend(a.more.iter().cloned());
    let time = TimeArgs {
        since: Some(at.clone()),
        until: None,
        time_format: a.time_format.clone(),
        tz: a.tz.clone(),
        wanted: false,
    };
    let several = files.len() > 1;
    let mut out = super::stdout();
    let w = |e| Error::io("write", Path::new("<stdout>"), e);
    let (mut found, mut errors) = (false, false);
    for file in &files {
        let answer = (|| -> lidx::Result<(u64, u64)> {
            if a.opts.rotated {
                let family = super::family::open(file, &a.opts, &time, false)?;
                let t = super::family::instant(&family, &at)?;
                Ok((family.line_at_time(t)?, family.end_line()))
            } else {
                let index = open(file, &a.opts, &time)?;
                let t = instant(&index, &at)?;
                Ok((index.line_at_time(t)?, index.line_count()))
            }
        })();
        let (line, end) = match answer {
            Ok(a) => a,
            Err(e) if !several => return Err(e),
            Err(e) => {
                super::flush(&mut out)?;
                super::file_error(file, &e);
                errors = true;
                continue;
            }
        };
        if line >= end {
            if !several {
                eprintln!(
                    "lidx: {}: no line at or after {}",
                    file.display(),
                    at.trim()
                );
            }
            continue;
        }
        found = true;
        out.write_all(&super::name_prefix(file, several))
            .map_err(w)?;
        writeln!(out, "{}", line + 1).map_err(w)?;
    }
    super::flush(&mut out)?;
    Ok(super::status(errors, found))
}
