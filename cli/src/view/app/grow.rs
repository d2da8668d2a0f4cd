//! A file that grows: following it (`F`), and standard input's spool
//! (`lidx view -`), whose index is handed over each time it grew.

use super::App;
use super::model::{Op, Pos};
use crate::view::follow;
use crate::view::scan::FILTER_CHUNK;
use lidx::Index;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Standard input, as far as the UI knows it.
#[derive(Debug, Default)]
pub(super) struct Pipe {
    /// Complete lines (ending in `\n`) of the index shown.
    pub(super) complete: u64,
    /// The input ended.
    pub(super) ended: bool,
}

impl App {
    pub(super) fn follow(&mut self) {
        let Some(index) = self.index.clone() else {
            return;
        };
        if self.pipe.is_some() {
            // The spool's index comes anyway: following is going to its
            // end each time.
            self.following = Some(Arc::new(AtomicBool::new(false)));
            self.exec(Op::Bottom);
            return;
        }
        if lidx::io::is_url(&self.file) {
            self.message = Some("a remote object cannot be followed".into());
            return;
        }
        if let Some(j) = &self.joined {
            if j.joined.order() == lidx::join::Order::Time || self.window {
                self.message = Some(
                    "logs merged by time, or in a time window, are not followed (without --merge, --since or --until they are)"
                        .into(),
                );
                return;
            }
            let stop = Arc::new(AtomicBool::new(false));
            let (oo, build) = self.reopen.clone().expect("a collection's options");
            follow::spawn_joined(
                self.files.clone(),
                self.rotated,
                oo,
                build,
                self.cache_bytes,
                self.tx.clone(),
                Arc::clone(&stop),
            );
            self.following = Some(stop);
            self.exec(Op::Bottom);
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
                self.store.clear();
                self.grown(index);
                self.pending.clear();
                self.exec(Op::Bottom);
            }
            Ok(_) => {}
            Err(e) => self.message = Some(format!("error: {e}")),
        }
    }

    /// The followed logs, joined again: the screen to their end. Lines
    /// keep their places when only the last log grew (a family's live
    /// file, a rotation); otherwise the marks are moved to where their
    /// lines are now, and the filter starts again.
    pub(super) fn rejoined(&mut self, r: Result<(Arc<lidx::join::Joined>, bool), String>) {
        if self.following.is_none() {
            return;
        }
        let (joined, rewritten) = match r {
            Ok(j) => j,
            Err(e) => {
                self.message = Some(format!("error: {e}"));
                return;
            }
        };
        let old = self.joined.take();
        let kept = !rewritten
            && old
                .as_ref()
                .is_some_and(|o| appended_only(&o.joined, &joined));
        let index = Arc::clone(joined.index());
        if let Some(o) = old.as_ref().filter(|_| !kept) {
            let end = index.line_count();
            let moved = |p: &mut Pos| {
                p.line = o
                    .joined
                    .origin(p.line)
                    .and_then(|(k, n)| joined.line_of(k, n))
                    .unwrap_or(end);
                p.row = 0;
            };
            self.marks.values_mut().for_each(moved);
            if let Some(p) = self.prev.as_mut() {
                moved(p);
            }
            // A search's answer, or a lookup's, would name a line of the
            // old whole.
            if self.running.take().is_some() {
                self.searcher.cancel();
            }
            self.last_match = None;
            self.locating = false;
            self.locate_token += 1;
        }
        self.joined = Some(super::joined::Shown::new(joined, &self.files));
        self.store.clear();
        if kept {
            self.grown(index);
        } else {
            self.index = Some(index);
            self.rows_cache.clear();
            if let Some(f) = self.filter.take() {
                self.set_filter(Some((f.pattern, f.finder)));
            }
        }
        self.pending.clear();
        self.exec(Op::Bottom);
    }

    /// A new index of the spool of standard input: the first one opens the
    /// view, the next ones have more lines (the screen stays where it is,
    /// unless following).
    pub(super) fn piped(
        &mut self,
        index: Result<(Arc<Index>, u64), String>,
        ended: Option<Option<String>>,
    ) -> lidx::Result<()> {
        let first = self.index.is_none();
        let (index, complete) = match index {
            Ok(v) => v,
            Err(e) if first => return Err(self.fatal(e)),
            Err(e) => {
                self.message = Some(format!("error: {e}"));
                return Ok(());
            }
        };
        let pipe = self.pipe.get_or_insert_with(Pipe::default);
        let before = std::mem::replace(&mut pipe.complete, complete);
        if let Some(end) = ended {
            pipe.ended = true;
            if let Some(e) = end {
                self.message = Some(format!("error: {e}"));
            }
        }
        if first {
            self.index = Some(index);
            self.opened();
            return Ok(());
        }
        // The blocks of lines that were complete stay true.
        self.store.grown(before);
        self.grown(index);
        if self.following.is_some() {
            self.exec(Op::Bottom);
        } else {
            self.exec(Op::Settle);
        }
        self.retry();
        Ok(())
    }

    /// The index has more lines than the last one (the held blocks were
    /// dealt with): the filter's chunks from the old last line on are
    /// computed again.
    fn grown(&mut self, index: Arc<Index>) {
        let old = self.line_count();
        self.index = Some(index);
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
    }
}

/// True when `new` shows every line of `old` where `old` showed it: the
/// same logs, from the same first lines, only the last one longer.
fn appended_only(old: &lidx::join::Joined, new: &lidx::join::Joined) -> bool {
    let (a, b) = (old.logs(), new.logs());
    a.len() == b.len()
        && a.iter().zip(b).enumerate().all(|(k, (x, y))| {
            let (x, y) = (x.lines(), y.lines());
            x.start == y.start && (x.end == y.end || (k + 1 == a.len() && y.end >= x.end))
        })
}
