//! Opening in the background: the first screenful of the file is read
//! directly (a `.gz` archive's beginning decoded with flate2) and shown at
//! once, while `OpenOptions::open_cancellable` finds, builds or extends
//! the sidecar with its progress reported to the UI; quitting cancels the
//! build (nothing is written).

use super::{Collection, Msg};
use lidx::OpenOptions;
use lidx::join::Joined;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

/// Bytes of the file read before the index is there.
pub const HEAD_BYTES: usize = 256 << 10;

/// Reads the head of `file`, then opens its index; `cancel` stops a build.
pub fn spawn(file: PathBuf, oo: OpenOptions, tx: Sender<Msg>, cancel: Arc<AtomicBool>) {
    std::thread::Builder::new()
        .name("lidx-view-open".into())
        .spawn(move || {
            let started = Instant::now();
            let mut first = true;
            let mut last = Instant::now();
            let mut head_sent = lidx::io::is_url(&file);
            let opened = oo.open_cancellable(&file, &mut |done, total| {
                if cancel.load(Ordering::SeqCst) {
                    return false;
                }
                if let Some(d) = super::test_slowness() {
                    std::thread::sleep(d);
                }
                // A build: the head is worth reading (an open of a fresh
                // sidecar reports no progress and needs no head).
                if !head_sent {
                    head_sent = true;
                    if let Some((bytes, eof)) = read_head(&file) {
                        let _ = tx.send(Msg::Head { bytes, eof });
                    }
                }
                if first || last.elapsed() >= Duration::from_millis(50) {
                    first = false;
                    last = Instant::now();
                    let _ = tx.send(Msg::Progress { done, total });
                }
                true
            });
            let _ = tx.send(Msg::Opened {
                result: opened
                    .map(|o| (Arc::new(o.index), o.action, o.warning))
                    .map_err(|e| e.to_string()),
                took: started.elapsed(),
                joined: None,
            });
        })
        .expect("spawn the open thread");
}

/// Joins the logs of `c` (their sidecars are open already): a merge by
/// time reads them once, its progress reported; quitting cancels it.
pub fn spawn_joined(c: Collection, cache_bytes: usize, tx: Sender<Msg>, cancel: Arc<AtomicBool>) {
    std::thread::Builder::new()
        .name("lidx-view-open".into())
        .spawn(move || {
            let started = Instant::now();
            let mut last = Instant::now();
            let joined = Joined::new(
                c.logs,
                Some(c.windows),
                c.order,
                cache_bytes,
                &mut |done, total| {
                    if cancel.load(Ordering::SeqCst) {
                        return false;
                    }
                    if last.elapsed() >= Duration::from_millis(50) {
                        last = Instant::now();
                        let _ = tx.send(Msg::Progress { done, total });
                    }
                    true
                },
            );
            let (result, joined) = match joined {
                Ok(j) => {
                    let j = Arc::new(j);
                    (
                        Ok((Arc::clone(j.index()), lidx::Action::Opened, None)),
                        Some(j),
                    )
                }
                Err(e) => (Err(e.to_string()), None),
            };
            let _ = tx.send(Msg::Opened {
                result,
                took: started.elapsed(),
                joined,
            });
        })
        .expect("spawn the open thread");
}

/// The first [`HEAD_BYTES`] of the file's text, and whether that is all.
fn read_head(file: &Path) -> Option<(Vec<u8>, bool)> {
    let mut f = std::fs::File::open(file).ok()?;
    let mut magic = [0u8; 2];
    let n = f.read(&mut magic).ok()?;
    drop(f);
    let f = std::fs::File::open(file).ok()?;
    let reader: Box<dyn Read> = if n == 2 && magic == [0x1f, 0x8b] {
        Box::new(flate2::read::MultiGzDecoder::new(std::io::BufReader::new(
            f,
        )))
    } else {
        Box::new(f)
    };
    let mut bytes = Vec::with_capacity(HEAD_BYTES + 1);
    // One byte more than shown: whether the head is the whole text.
    let _ = reader.take(HEAD_BYTES as u64 + 1).read_to_end(&mut bytes);
    let eof = bytes.len() <= HEAD_BYTES;
    bytes.truncate(HEAD_BYTES);
    Some((bytes, eof))
}
