//! `lidx info FILE [--json]`.

use super::Status;
use clap::Args;
use lidx::{Error, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

// Arguments of `lidx info` (a plain comment: see `Command` in main.rs, whose
// subcommands are deferred).
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The text file.
    #[arg(value_parser = super::file_arg())]
    file: PathBuf,
    /// Sidecar path (default: FILE.lidx or the user cache directory).
    #[arg(long = "index", value_name = "PATH")]
    index: Option<PathBuf>,
    /// One JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// FILE is the live file of a rotation family: describe the family
    /// (its members, their global lines and bytes). The family is opened
    /// as the queries open it (missing sidecars are built).
    #[arg(long, short = 'R')]
    rotated: bool,
}

/// `lidx info -R --json`: one object.
#[derive(serde::Serialize)]
struct FamilyJson<'a> {
    family: String,
    manifest: String,
    /// 1-based, inclusive, as the command line counts (0 when empty).
    first_line: u64,
    last_line: u64,
    lines: u64,
    members: Vec<MemberJson<'a>>,
}

#[derive(serde::Serialize)]
struct MemberJson<'a> {
    path: String,
    first_line: u64,
    last_line: u64,
    /// 0-based, end exclusive, as byte offsets are counted.
    first_byte: u64,
    end_byte: u64,
    kind: &'a str,
}

/// `lidx info -R LIVE`.
fn family(a: &InfoArgs) -> lidx::Result<Status> {
    let q = super::QueryOpts {
        index: a.index.clone(),
        no_build: false,
        cache_mb: 16,
        quiet: true,
        rotated: true,
    };
    let f = super::family::open(&a.file, &q, &Default::default(), false)?;
    let members: Vec<MemberJson<'_>> = f
        .members()
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let sb = m.index.superblock();
            MemberJson {
                path: m.path.display().to_string(),
                first_line: m.base_line + 1,
                last_line: m.lines().end,
                first_byte: m.base_byte,
                end_byte: m.base_byte + m.index.source_len(),
                kind: if i + 1 == f.members().len() {
                    "live"
                } else if sb.is_zstd() {
                    "zstd"
                } else if sb.source_kind == lidx::format::SOURCE_KIND_GZIP {
                    "gzip"
                } else {
                    "plain"
                },
            }
        })
        .collect();
    let j = FamilyJson {
        family: a.file.display().to_string(),
        manifest: f.manifest_path().display().to_string(),
        first_line: if f.line_count() == 0 {
            0
        } else {
            f.first_line() + 1
        },
        last_line: f.end_line(),
        lines: f.line_count(),
        members,
    };
    let mut out = super::stdout();
    let w = |e| Error::io("write", Path::new("<stdout>"), e);
    if a.json {
        serde_json::to_writer(&mut out, &j).map_err(|e| w(e.into()))?;
        writeln!(out).map_err(w)?;
    } else {
        let gone = if f.first_line() > 0 {
            format!("; lines 1–{} were rotated away", f.first_line())
        } else {
            String::new()
        };
        write!(
            out,
            "family:       {}\nmanifest:     {}\nlines:        {}–{} ({} present{gone})\nmembers:      {}\n",
            j.family,
            j.manifest,
            j.first_line,
            j.last_line,
            j.lines,
            j.members.len()
        )
        .map_err(w)?;
        for m in &j.members {
            writeln!(
                out,
                "  {:<28} lines {}–{}, bytes {}–{} ({})",
                m.path, m.first_line, m.last_line, m.first_byte, m.end_byte, m.kind
            )
            .map_err(w)?;
        }
    }
    super::flush(&mut out)?;
    Ok(0)
}

/// `lidx info --json`: one object, keys in this order.
#[derive(serde::Serialize)]
struct InfoJson<'a> {
    file: &'a str,
    sidecar: &'a str,
    lines: u64,
    source_size: u64,
    sidecar_size: u64,
    /// Rounded to 4 decimals, as the text form.
    sidecar_percent: f64,
    checkpoints: u64,
    pages: u64,
    page_size: u32,
    height: u32,
    spacing: u64,
    version: String,
    source: String,
    fresh: bool,
    /// What "fresh" rests on, or why it is not known yet.
    evidence: String,
    gzip: Option<GzipJson>,
    /// zstd seekable sources only (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    zstd: Option<ZstdJson>,
    time: Option<TimeJson>,
}

#[derive(serde::Serialize)]
struct ZstdJson {
    compressed_size: u64,
    frames: u64,
    largest_frame: u64,
}

#[derive(serde::Serialize)]
struct TimeJson {
    /// `iso8601`, `syslog`, `clf`, `epoch-s`, `epoch-ms` or
    /// `strftime:FORMAT`.
    format: String,
    /// True when the format was detected from the first lines.
    detected: bool,
    /// The zone stamps without one are read in.
    zone: String,
    /// The earliest and latest line times, RFC 3339 UTC (null: no stamp).
    first: Option<String>,
    last: Option<String>,
}

impl TimeJson {
    fn new(t: lidx::TimeInfo) -> TimeJson {
        let (format, detected) = match t.format.strip_prefix("auto:") {
            Some(f) => (f.to_string(), true),
            None => (t.format, false),
        };
        TimeJson {
            format,
            detected,
            zone: t.tz,
            first: t.range.map(|r| lidx::time::format_instant(r.0)),
            last: t.range.map(|r| lidx::time::format_instant(r.1)),
        }
    }

    /// The text form's line.
    fn line(&self) -> String {
        let how = if self.detected {
            " (detected from the first lines)"
        } else {
            ""
        };
        let range = match (&self.first, &self.last) {
            (Some(a), Some(b)) => format!("{a} to {b}"),
            _ => "no line has a stamp".to_string(),
        };
        format!(
            "time index:   {}{how}; stamps without a zone read in {}; {range}\n",
            self.format, self.zone
        )
    }
}

#[derive(serde::Serialize)]
struct GzipJson {
    compressed_size: u64,
    access_points: u64,
    span: u64,
    /// Every access point is a member start: no windows stored (BGZF,
    /// `lidx pack --format gz`).
    windowless: bool,
    /// The length of the pieces whose CRCs the sidecar holds (format 1.5,
    /// spec §11.9), or null.
    piece_len: Option<u64>,
}

/// What the verdict rests on, in words (`lidx info`).
fn evidence(index: &lidx::Index) -> String {
    match (index.verdict(), index.evidence()) {
        (_, Some(e)) => e.to_string(),
        (lidx::Verdict::Unverified, _) => "the file's size, head and tail are as indexed but its modification time differs; the next query re-reads it once to check its content (`lidx verify --full` does it now)".to_string(),
        (v, None) => format!("the source was {v} since indexing"),
    }
}

/// The sidecar's size and its share of the file on disk (the archive for a
/// gzip source), as `index` and `info` both state it.
pub fn share(i: &lidx::Info) -> String {
    format!(
        "{} ({:.3}% of the file's {})",
        lidx::count_of(i.sidecar_size, "byte", "bytes"),
        i.sidecar_percent(),
        lidx::count_of(i.file_size, "byte", "bytes")
    )
}

pub fn run(a: InfoArgs) -> lidx::Result<Status> {
    if a.rotated {
        return family(&a);
    }
    let mut oo = OpenOptions::new();
    if let Some(p) = &a.index {
        oo.sidecar(p);
    }
    let index = oo.inspect(&a.file)?;
    let i = index.info();
    let fresh = i.verdict == lidx::Verdict::Unchanged;
    // The sidecar as a share of the file on disk (the archive for gzip).
    let pct = i.sidecar_percent();
    let gz_text = match i.gzip {
        Some((size, aps, span)) => format!(
            "gzip:         source size is the uncompressed text; {size} bytes compressed, {}, span {span} bytes{}{}\n",
            lidx::count_of(aps as u64, "access point", "access points"),
            match i.piece_len {
                Some(l) => format!(", a CRC every {l} bytes"),
                None => String::new(),
            },
            if i.windowless {
                "; member starts only, no windows (BGZF or lidx pack)"
            } else {
                ""
            }
        ),
        None => String::new(),
    };
    let gz_text = match i.zstd {
        Some((size, frames, largest)) => format!(
            "zstd:         seekable; source size is the uncompressed text; {size} bytes compressed, {}, the largest {largest} bytes of text\n",
            lidx::count_of(frames as u64, "frame", "frames")
        ),
        None => gz_text,
    };
    let time = index.time_info()?.map(TimeJson::new);
    let time_text = time.as_ref().map(TimeJson::line).unwrap_or_default();
    let mut out = super::stdout();
    let text = if a.json {
        let file = a.file.display().to_string();
        let sidecar = index.sidecar_path().display().to_string();
        let j = InfoJson {
            file: &file,
            sidecar: &sidecar,
            lines: i.lines,
            source_size: i.source_size,
            sidecar_size: i.sidecar_size,
            sidecar_percent: (pct * 1e4).round() / 1e4,
            checkpoints: i.checkpoints,
            pages: i.pages.into(),
            page_size: i.page_size,
            height: i.height,
            spacing: i.spacing,
            version: format!("{}.{}", i.version.0, i.version.1),
            source: i.verdict.to_string(),
            fresh,
            evidence: evidence(&index),
            gzip: i.gzip.map(|(size, aps, span)| GzipJson {
                compressed_size: size,
                access_points: aps as u64,
                span: span.into(),
                windowless: i.windowless,
                piece_len: i.piece_len,
            }),
            zstd: i.zstd.map(|(size, frames, largest)| ZstdJson {
                compressed_size: size,
                frames: frames.into(),
                largest_frame: largest.into(),
            }),
            time,
        };
        let mut t = serde_json::to_string(&j).map_err(|e| Error::InvalidArgument(e.to_string()))?;
        t.push('\n');
        t
    } else {
        format!(
            "file:         {}\nsidecar:      {}\nlines:        {}\nsource size:  {} bytes\n{gz_text}sidecar size: {}\ncheckpoints:  {}\npages:        {} x {} bytes\ntree height:  {}\nspacing:      {} bytes\nformat:       v{}.{}\n{time_text}fresh:        {}\n",
            a.file.display(),
            index.sidecar_path().display(),
            i.lines,
            i.source_size,
            share(&i),
            i.checkpoints,
            i.pages,
            i.page_size,
            i.height,
            i.spacing,
            i.version.0,
            i.version.1,
            match (fresh, index.built_for_another_file()) {
                (true, _) => format!("yes ({})", evidence(&index)),
                (false, Some(other)) => format!("no (built for another file: {other})"),
                (false, None) if i.verdict == lidx::Verdict::Unverified => {
                    format!("not known: {}", evidence(&index))
                }
                (false, None) => format!("no (the source was {} since indexing)", i.verdict),
            },
        )
    };
    out.write_all(text.as_bytes())
        .map_err(|e| Error::io("write", Path::new("<stdout>"), e))?;
    super::flush(&mut out)?;
    Ok(0)
}
