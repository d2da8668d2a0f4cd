//! `lidx view -`: standard input (a pipe) paged as `less` pages it. A pipe
//! cannot be read twice nor at an offset, so it is spooled to a file of
//! the viewer's own — `stdin` in a private folder under `$TMPDIR`, removed
//! on every way out ([`term::leave`]) — and that file, growing, is what is
//! indexed and shown:
//!
//! - the **spooler** thread reads the pipe in blocks of [`READ`] bytes
//!   (memory stays bounded however much arrives) and appends them;
//! - the **indexer** thread opens the file's index again (the sidecar is
//!   extended over the new bytes only) whenever bytes arrived, at most
//!   every [`EVERY`], and at once when the input ends; each index goes to
//!   the UI ([`Msg::Piped`]), which keeps its screen where it is (`G`
//!   goes to the end as it is then; `F` follows the end).

use super::{Msg, term};
use lidx::{Index, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

/// Bytes read from the pipe at a time.
const READ: usize = 64 << 10;
/// The index is opened again at most this often while input arrives.
const EVERY: Duration = Duration::from_millis(100);

/// What the spooler tells the indexer.
enum Spooled {
    /// Bytes were appended.
    More,
    /// The input ended (with an error, said in the status line).
    End(Option<String>),
}

/// The new folder for the spool, private to the user.
fn folder() -> std::io::Result<PathBuf> {
    let base = std::env::temp_dir();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    for k in 0..100u32 {
        let dir = base.join(format!(
            "lidx-view-{}-{:x}",
            std::process::id(),
            nanos.wrapping_add(k)
        ));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free name for a spool folder"))
}

/// Starts spooling standard input; returns the spool file's path. Its
/// folder is removed on the way out.
pub fn start(mut oo: OpenOptions, tx: Sender<Msg>) -> lidx::Result<PathBuf> {
    let dir = folder().map_err(|e| lidx::Error::io("create", &std::env::temp_dir(), e))?;
    term::remove_on_exit(dir.clone());
    let path = dir.join("stdin");
    let file = std::fs::File::create(&path).map_err(|e| lidx::Error::io("create", &path, e))?;
    oo.sidecar(dir.join("stdin.lidx"));
    let (spooled_tx, spooled) = channel();
    std::thread::Builder::new()
        .name("lidx-view-spool".into())
        .spawn(move || spool(file, spooled_tx))
        .expect("spawn the spool thread");
    let p = path.clone();
    std::thread::Builder::new()
        .name("lidx-view-index".into())
        .spawn(move || {
            let mut last: Option<Instant> = None;
            let mut dirty = false;
            let mut end = None;
            loop {
                let due = match last {
                    None => true,
                    Some(at) => dirty && at.elapsed() >= EVERY,
                };
                if !due && end.is_none() {
                    let wait = match last {
                        Some(at) if dirty => EVERY.saturating_sub(at.elapsed()),
                        _ => Duration::from_secs(3600),
                    };
                    match spooled.recv_timeout(wait) {
                        Ok(Spooled::More) => dirty = true,
                        Ok(Spooled::End(e)) => end = Some(e),
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => end = Some(None),
                    }
                    continue;
                }
                last = Some(Instant::now());
                dirty = false;
                let index = open(&oo, &p);
                let failed = index.is_err();
                let ended = end.clone();
                if tx.send(Msg::Piped { index, ended }).is_err() || end.is_some() || failed {
                    return;
                }
            }
        })
        .expect("spawn the index thread");
    Ok(path)
}

/// The index of the spool as it is, and its complete lines.
fn open(oo: &OpenOptions, path: &Path) -> Result<(Arc<Index>, u64), String> {
    let index = oo.open(path).map_err(|e| e.to_string())?.index;
    let complete = index.complete_lines().map_err(|e| e.to_string())?;
    Ok((Arc::new(index), complete))
}

/// Copies standard input to `file` until it ends.
fn spool(mut file: std::fs::File, tx: Sender<Spooled>) {
    let mut stdin = std::io::stdin().lock();
    let mut buf = vec![0u8; READ];
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = tx.send(Spooled::End(Some(format!("reading standard input: {e}"))));
                return;
            }
        };
        if let Err(e) = file.write_all(&buf[..n]) {
            let _ = tx.send(Spooled::End(Some(format!("spooling standard input: {e}"))));
            return;
        }
        if tx.send(Spooled::More).is_err() {
            return;
        }
    }
    let _ = tx.send(Spooled::End(None));
}
