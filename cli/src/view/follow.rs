//! Following a growing file (`F`, as in `less`): a thread polls a
//! `lidx::Follower` (which extends the sidecar over the new bytes, and
//! notices truncation and rotation as `lidx lines -f` does) and hands each
//! fresh index to the UI. Several logs shown one after the other (a
//! rotation family among them) are followed by opening and joining them
//! again when one of their files changed.

use super::Msg;
use lidx::join::{Joined, Log, Order};
use lidx::{Follower, Index, OpenOptions};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::time::Duration;

/// How often the file is looked at.
const POLL: Duration = Duration::from_millis(100);

/// Follows `file` from the end of `index` until `stop` is set.
pub fn spawn(
    file: PathBuf,
    oo: OpenOptions,
    index: Arc<Index>,
    tx: Sender<Msg>,
    stop: Arc<AtomicBool>,
) {
    std::thread::Builder::new()
        .name("lidx-view-follow".into())
        .spawn(move || {
            // From the first line not complete yet (a last line without
            // `\n` is reported again once complete).
            let from = match index.complete_lines() {
                Ok(n) => n,
                Err(e) => {
                    let _ = tx.send(Msg::Followed(Err(e.to_string())));
                    return;
                }
            };
            drop(index);
            let mut follower = match Follower::new(&file, from, &oo) {
                Ok(f) => f,
                Err(e) => {
                    let _ = tx.send(Msg::Followed(Err(e.to_string())));
                    return;
                }
            };
            while !stop.load(Ordering::SeqCst) {
                let r = follower
                    .poll_index()
                    .map(|(e, i)| (e, i.map(Arc::new)))
                    .map_err(|e| e.to_string());
                let failed = r.is_err();
                if !matches!(r, Ok((lidx::FollowEvent::Idle, _)))
                    && tx.send(Msg::Followed(r)).is_err()
                {
                    return;
                }
                std::thread::sleep(if failed { POLL * 10 } else { POLL });
            }
        })
        .expect("spawn the follow thread");
}

/// What the files of a collection look like: each one's name, size and
/// modification time (a family's every member's), to poll cheaply.
fn looks(files: &[PathBuf], rotated: bool) -> Vec<(PathBuf, u64, Option<std::time::SystemTime>)> {
    let mut out = Vec::new();
    for f in files {
        let members = if rotated {
            lidx::family::discover::family_files(f)
                .map(|n| n.into_iter().map(|n| n.path).collect())
                .unwrap_or_default()
        } else {
            vec![f.clone()]
        };
        for p in members {
            let m = std::fs::metadata(&p).ok();
            out.push((
                p,
                m.as_ref().map_or(0, |m| m.len()),
                m.and_then(|m| m.modified().ok()),
            ));
        }
    }
    out
}

/// Follows a collection shown one log after the other: when one of its
/// files changes, the logs are opened again (sidecars extended, a
/// family's rotations taken in) and joined; each new whole is handed to
/// the UI.
pub fn spawn_joined(
    files: Vec<PathBuf>,
    rotated: bool,
    oo: OpenOptions,
    build: bool,
    cache_bytes: usize,
    tx: Sender<Msg>,
    stop: Arc<AtomicBool>,
) {
    std::thread::Builder::new()
        .name("lidx-view-follow".into())
        .spawn(move || {
            // Nothing seen yet: the first poll joins the logs as they are
            // now (they may have grown since the view was opened).
            let mut seen = Vec::new();
            while !stop.load(Ordering::SeqCst) {
                std::thread::sleep(POLL);
                let now = looks(&files, rotated);
                if now == seen {
                    continue;
                }
                let joined = rejoin(&files, rotated, &oo, build, cache_bytes);
                if joined.is_ok() {
                    seen = now;
                }
                if stop.load(Ordering::SeqCst)
                    || tx
                        .send(Msg::Rejoined(joined.map_err(|e| e.to_string())))
                        .is_err()
                {
                    return;
                }
                // Caught in the middle of a rotation, maybe: a while, then
                // again. A busy log is joined again at most once a second
                // (each join opens every member's sidecar).
                std::thread::sleep(POLL * 10);
            }
        })
        .expect("spawn the follow thread");
}

/// The logs of `files` opened again and joined one after the other.
/// `rewritten`: a file was rewritten (its sidecar built again), so its
/// lines may not be the ones shown before.
fn rejoin(
    files: &[PathBuf],
    rotated: bool,
    oo: &OpenOptions,
    build: bool,
    cache_bytes: usize,
) -> lidx::Result<(Arc<Joined>, bool)> {
    let mut logs = Vec::with_capacity(files.len());
    let mut rewritten = false;
    for f in files {
        logs.push(if rotated {
            if build {
                // Sidecars follow their members across the renames.
                lidx::family::prepare(f)?;
            }
            Log::Family(Arc::new(lidx::family::Family::open(f, oo, false)?))
        } else {
            let o = oo.open(f)?;
            rewritten |= matches!(
                o.action,
                lidx::Action::Rebuilt(_) | lidx::Action::Forced | lidx::Action::Damaged
            );
            Log::File(std::sync::Arc::new(o.index))
        });
    }
    let j = Joined::new(logs, None, Order::Concat, cache_bytes, &mut |_, _| true)?;
    Ok((Arc::new(j), rewritten))
}
