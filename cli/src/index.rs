//! `lidx index FILE`: build, extend or refresh the sidecar.

use super::Status;
use clap::Args;
use lidx::{Action, OpenOptions};
use std::path::PathBuf;

// Arguments of `lidx index` (a plain comment: see `Command` in main.rs, whose
// subcommands are deferred).
#[derive(Debug, Args)]
pub struct IndexArgs {
    /// The text file to index.
    #[arg(value_parser = super::file_arg())]
    file: PathBuf,
    /// Sidecar path (default: FILE.lidx, or the user cache directory when
    /// FILE's directory is not writable).
    #[arg(long = "index", value_name = "PATH")]
    index: Option<PathBuf>,
    /// Bytes between checkpoints (default 65536). A lookup scans at most
    /// about this many bytes of the source.
    #[arg(long, value_name = "BYTES")]
    spacing: Option<u64>,
    /// gzip sources: bytes of uncompressed text between access points
    /// (default 1048576). Smaller: faster random access, larger sidecar.
    #[arg(long, value_name = "BYTES")]
    span: Option<u64>,
    /// Index FILE's bytes as they are, even if they start with the gzip
    /// magic or are in a compression format lidx does not read (zstd, xz,
    /// bzip2, a zlib stream, ...), which is otherwise refused. A sidecar
    /// that indexes an archive's text is refused, not replaced: --force
    /// rebuilds it over the bytes, --index names another.
    #[arg(long)]
    plain: bool,
    /// Also index the lines' times, for --since/--until and
    /// line-at-time (a log's stamps: ISO 8601, syslog, the common log
    /// format, epoch seconds or milliseconds, detected from the first
    /// lines; also nginx's error log, Apache's, Spark's and HDFS's forms,
    /// JSON and logfmt time keys). A sidecar without one gets one on the
    /// first time query.
    #[arg(long)]
    time: bool,
    /// How stamps are written (implies --time): a name (iso8601, syslog,
    /// clf, epoch-s, epoch-ms, ymd-slash, yy-slash, yymmdd, ctime, keyed)
    /// or a strptime format such as '%d.%m.%Y %H:%M:%S', read at the
    /// field where the first lines show plausible times (`strptime@K:F`
    /// names field K).
    #[arg(long, value_name = "FORMAT", allow_hyphen_values = true)]
    time_format: Option<String>,
    /// Time zone of stamps without one (implies --time): an IANA name such
    /// as Europe/Paris, UTC, or an offset such as +01:00 (default: the
    /// system's).
    #[arg(long, value_name = "ZONE")]
    tz: Option<String>,
    /// Threads that read and count the lines of a plain file, or decode
    /// a gzip archive (default: the number of cores). The sidecar is the
    /// same for any number.
    #[arg(long, short = 'j', value_name = "N")]
    threads: Option<usize>,
    /// Rebuild from scratch even if the sidecar is fresh or damaged.
    #[arg(long)]
    force: bool,
    /// No progress line and no summary.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// FILE is the live file of a rotation family: index every member
    /// and number the family (with --force: renumber it from line 1).
    #[arg(long, short = 'R')]
    rotated: bool,
}

pub fn run(a: IndexArgs) -> lidx::Result<Status> {
    if a.rotated {
        return family(&a);
    }
    let mut oo = OpenOptions::new();
    if let Some(p) = &a.index {
        oo.sidecar(p);
    }
    if let Some(s) = a.spacing {
        oo.spacing(s);
    }
    if let Some(s) = a.span {
        oo.span(s);
    }
    oo.plain(a.plain);
    if let Some(n) = a.threads {
        oo.threads(n);
    }
    if a.time || a.time_format.is_some() || a.tz.is_some() {
        let format = a
            .time_format
            .as_deref()
            .map(lidx::time::TimeFormat::kind_of)
            .transpose()?;
        oo.time(lidx::TimeOptions {
            format,
            tz: a.tz.clone(),
        });
    }
    let mut force = a.force;
    if a.plain {
        // A fresh sidecar that reads FILE as gzip: rebuild it as bytes.
        let mut probe = OpenOptions::new();
        if let Some(p) = &a.index {
            probe.sidecar(p);
        }
        if let Ok(existing) = probe.inspect(&a.file) {
            force |= existing.superblock().gzip.ap_count > 0;
        }
    }
    if let Some(s) = a.spacing {
        // An explicit spacing that differs from a fresh sidecar's: rebuild.
        let mut probe = OpenOptions::new();
        if let Some(p) = &a.index {
            probe.sidecar(p);
        }
        if let Ok(existing) = probe.inspect(&a.file) {
            force |= existing.superblock().spacing != s;
        }
    }
    if let Some(s) = a.span {
        let mut probe = OpenOptions::new();
        if let Some(p) = &a.index {
            probe.sidecar(p);
        }
        if let Ok(existing) = probe.inspect(&a.file) {
            let g = existing.superblock().gzip;
            force |= g.ap_count > 0 && !existing.superblock().is_zstd() && g.span as u64 != s;
        }
    }
    oo.force(force);
    let mut bar = super::progress::Progress::new(&a.file.display().to_string(), a.quiet);
    let start = std::time::Instant::now();
    let opened = oo.open_with_progress(&a.file, &mut |d, t| bar.update(d, t));
    bar.finish();
    let opened = opened?;
    if let Some(what) = opened.index.damage() {
        // Nothing was written: report the damage (the lines before it can
        // still be read by the query commands).
        return Err(lidx::Error::NoSidecarForDamage {
            what: what.to_string(),
            lines: opened.index.line_count(),
        });
    }
    if let Some(w) = &opened.warning {
        eprintln!("lidx: warning: {w}");
    }
    if !a.quiet {
        let i = opened.index.info();
        let what = match opened.action {
            Action::Opened => "up to date".to_string(),
            Action::Verified => {
                "up to date (the file's modification time differs; its content was checked)"
                    .to_string()
            }
            Action::Built => "built".to_string(),
            Action::Extended => "extended".to_string(),
            Action::Forced => "rebuilt".to_string(),
            Action::TimeAdded => "rebuilt with a time index".to_string(),
            Action::Damaged => unreachable!("returned above"),
            Action::Rebuilt(v) => format!("rebuilt (the file was {v})"),
        };
        eprintln!(
            "lidx: {}: {what}: {}, {}, {} in {:.2} s",
            opened.index.sidecar_path().display(),
            lidx::count_of(i.lines, "line", "lines"),
            lidx::count_of(i.checkpoints, "checkpoint", "checkpoints"),
            super::info::share(&i),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(0)
}

/// `lidx index -R LIVE`: every member's sidecar, and the family's
/// numbering (renumbered from line 1 with `--force`).
fn family(a: &IndexArgs) -> lidx::Result<Status> {
    if a.index.is_some() || a.plain || a.spacing.is_some() || a.span.is_some() {
        return Err(lidx::Error::InvalidArgument(
            "with -R, each member gets its sidecar next to it, built as usual (--index, --plain, --spacing and --span name one file's)".into(),
        ));
    }
    let q = super::QueryOpts {
        index: None,
        no_build: false,
        cache_mb: 16,
        quiet: true,
        rotated: true,
    };
    let time = super::time::TimeArgs {
        since: None,
        until: None,
        time_format: a.time_format.clone(),
        tz: a.tz.clone(),
        wanted: a.time,
    };
    let started = std::time::Instant::now();
    let family = super::family::open(&a.file, &q, &time, a.force)?;
    if !a.quiet {
        super::family::note(&family, started.elapsed());
        eprintln!(
            "lidx: {}: {}, lines {}–{} ({} present)",
            family.manifest_path().display(),
            lidx::count_of(family.members().len() as u64, "member", "members"),
            family.first_line() + 1,
            family.end_line(),
            lidx::count_of(family.line_count(), "line", "lines"),
        );
    }
    Ok(0)
}
