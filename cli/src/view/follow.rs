//! Following a growing file (`F`, as in `less`): a thread polls a
//! `lidx::Follower` (which extends the sidecar over the new bytes, and
//! notices truncation and rotation as `lidx lines -f` does) and hands each
//! fresh index to the UI.

use super::Msg;
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
