//! `lidx pack FILE`: a seekable zstd archive of FILE and its sidecar, in
//! one pass (the library's [`lidx::pack`]).

use super::Status;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// Archive formats `lidx pack` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PackFormat {
    /// The zstd seekable format: independent zstd frames and a seek table
    /// in a skippable frame; `zstd -d` reads it as any `.zst`.
    Zst,
    /// gzip, one member per frame (at most one span of text each, 1 MiB
    /// by default): every member start is an access point without a
    /// window; `gzip -d` reads it as any `.gz`.
    Gz,
}

// Arguments of `lidx pack` (a plain comment: see `Command` in main.rs, whose
// subcommands are deferred).
#[derive(Debug, Args)]
pub struct PackArgs {
    /// The file to compress (its bytes as they are).
    #[arg(value_parser = super::file_arg())]
    file: PathBuf,
    /// The archive to write (default: FILE.zst, or FILE.gz); its sidecar
    /// is OUT.lidx.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Archive format.
    #[arg(long, value_enum, default_value_t = PackFormat::Zst)]
    format: PackFormat,
    /// Compression level (zstd: 1..=22, negative for the fast levels,
    /// default 3; gzip: 0..=9, default 6).
    #[arg(short, long, value_name = "N")]
    level: Option<i32>,
    /// Bytes of text per frame: a frame ends at the first checkpoint (a
    /// line start) past this many bytes. Larger: smaller archive, slower
    /// goto.
    #[arg(long, value_name = "BYTES", default_value_t = lidx::ingest::pack::DEFAULT_FRAME)]
    frame: u64,
    /// Compression threads (default: one per core).
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<usize>,
    /// Bytes between checkpoints in the sidecar (default 65536).
    #[arg(long, value_name = "BYTES")]
    spacing: Option<u64>,
    /// Replace OUT if it exists.
    #[arg(short, long)]
    force: bool,
    /// No progress bar and no summary.
    #[arg(long, short = 'q')]
    quiet: bool,
}

pub fn run(a: PackArgs) -> lidx::Result<Status> {
    let (format, ext, level) = match a.format {
        PackFormat::Zst => (
            lidx::PackFormat::Zst,
            ".zst",
            lidx::ingest::pack::DEFAULT_LEVEL,
        ),
        PackFormat::Gz => (
            lidx::PackFormat::Gz,
            ".gz",
            lidx::ingest::pack::DEFAULT_GZ_LEVEL,
        ),
    };
    let output = a.output.clone().unwrap_or_else(|| {
        let mut o = a.file.clone().into_os_string();
        o.push(ext);
        PathBuf::from(o)
    });
    let mut opts = lidx::PackOptions {
        format,
        level: a.level.unwrap_or(level),
        frame: a.frame,
        threads: a.jobs.unwrap_or(0),
        force: a.force,
        ..Default::default()
    };
    if let Some(s) = a.spacing {
        opts.build.spacing = s;
    }
    if a.jobs == Some(0) {
        return Err(lidx::Error::InvalidArgument(
            "-j must be at least 1".to_string(),
        ));
    }
    let mut bar =
        super::progress::Progress::doing("packing", &a.file.display().to_string(), a.quiet);
    let start = std::time::Instant::now();
    let packed = lidx::pack(&a.file, &output, &opts, &mut |d, t| {
        bar.update(d, t);
        true
    });
    bar.finish();
    let p = packed?;
    if !a.quiet {
        eprintln!(
            "lidx: {}: {} frames, {} of {} ({:.1}%), {}; sidecar {} in {:.2} s",
            p.archive.display(),
            p.frames,
            p.archive_len,
            p.text_len,
            if p.text_len == 0 {
                0.0
            } else {
                p.archive_len as f64 * 100.0 / p.text_len as f64
            },
            lidx::count_of(p.lines, "line", "lines"),
            p.sidecar.display(),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(0)
}
