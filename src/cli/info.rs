//! `lidx info FILE [--json]`.

use super::Status;
use clap::Args;
use lidx::{Error, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `lidx info`.
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
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
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
    let mut oo = OpenOptions::new();
    if let Some(p) = &a.index {
        oo.sidecar(p);
    }
    let index = oo.inspect(&a.file)?;
    let i = index.info();
    let fresh = i.verdict == lidx::Verdict::Unchanged;
    // The sidecar as a share of the file on disk (the archive for gzip).
    let pct = i.sidecar_percent();
    let (gz_json, gz_text) = match i.gzip {
        Some((size, aps, span)) => (
            format!(
                ",\"gzip\":{{\"compressed_size\":{size},\"access_points\":{aps},\"span\":{span}}}"
            ),
            format!(
                "gzip:         source size is the uncompressed text; {size} bytes compressed, {}, span {span} bytes\n",
                lidx::count_of(aps as u64, "access point", "access points")
            ),
        ),
        None => (",\"gzip\":null".to_string(), String::new()),
    };
    let mut out = super::stdout();
    let text = if a.json {
        format!(
            "{{\"file\":{},\"sidecar\":{},\"lines\":{},\"source_size\":{},\"sidecar_size\":{},\"sidecar_percent\":{pct:.4},\"checkpoints\":{},\"pages\":{},\"page_size\":{},\"height\":{},\"spacing\":{},\"version\":\"{}.{}\",\"source\":\"{}\",\"fresh\":{fresh}{gz_json}}}\n",
            json_str(&a.file.display().to_string()),
            json_str(&index.sidecar_path().display().to_string()),
            i.lines,
            i.source_size,
            i.sidecar_size,
            i.checkpoints,
            i.pages,
            i.page_size,
            i.height,
            i.spacing,
            i.version.0,
            i.version.1,
            i.verdict,
        )
    } else {
        format!(
            "file:         {}\nsidecar:      {}\nlines:        {}\nsource size:  {} bytes\n{gz_text}sidecar size: {}\ncheckpoints:  {}\npages:        {} x {} bytes\ntree height:  {}\nspacing:      {} bytes\nformat:       v{}.{}\nfresh:        {}\n",
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
                (true, _) => "yes".to_string(),
                (false, Some(other)) => format!("no (built for another file: {other})"),
                (false, None) => format!("no (the source was {} since indexing)", i.verdict),
            },
        )
    };
    out.write_all(text.as_bytes())
        .map_err(|e| Error::io("write", Path::new("<stdout>"), e))?;
    super::flush(&mut out)?;
    Ok(0)
}
