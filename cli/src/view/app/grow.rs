//! A file that grows: following it (`F`).

use super::App;
use super::model::Op;
use crate::view::follow;
use crate::view::scan::FILTER_CHUNK;
use lidx::Index;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

impl App {
    pub(super) fn follow(&mut self) {
        let Some(index) = self.index.clone() else {
            return;
        };
        if lidx::io::is_url(&self.file) {
            self.message = Some("a remote object cannot be followed".into());
            return;
        }
        let stop = Arc::new(AtomicBool::new(false));
        follow::spawn(
            self.file.clone(),
            self.oo.clone(),
            index,
            self.tx.clone(),
            Arc::clone(&stop),
        );
        self.following = Some(stop);
        self.exec(Op::Bottom);
    }

    pub(super) fn followed(&mut self, r: Result<(lidx::FollowEvent, Option<Arc<Index>>), String>) {
        if self.following.is_none() {
            return;
        }
        match r {
            Ok((lidx::FollowEvent::Restarted, _)) => {
                self.message = Some("file truncated or replaced; following it from line 1".into());
            }
            Ok((_, Some(index))) => {
                let old = self.line_count();
                self.index = Some(index);
                self.store.clear();
                self.rows_cache.clear();
                if let Some(f) = self.filter.as_mut() {
                    // Chunks before the old last line stay true.
                    let keep = old.saturating_sub(1) / FILTER_CHUNK;
                    f.chunks.retain(|&c, _| c < keep);
                    f.order.retain(|c| *c < keep);
                    f.lines_kept = f.chunks.values().map(|v| v.len()).sum();
                    f.asked = None;
                    self.filterer.cancel();
                }
                self.pending.clear();
                self.exec(Op::Bottom);
            }
            Ok(_) => {}
            Err(e) => self.message = Some(format!("error: {e}")),
        }
    }
}
