//! The sidecars of several files, built, extended or refreshed before a
//! command reads them: a bounded pool of workers (the command's `-j`),
//! one progress bar for the whole set, and one note at the end instead of
//! one per file. A file whose sidecar cannot be made here is left to the
//! command, which opens it again and reports the error in its turn.

use crate::QueryOpts;
use crate::progress::Progress;
use crate::time::TimeArgs;
use lidx::Action;
use parking_lot::Mutex;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// The set's progress: bytes of the finished files, and of each worker's
/// current one.
struct Bar {
    progress: Progress,
    finished: u64,
    current: Vec<u64>,
    total: u64,
}

impl Bar {
    fn report(&mut self, worker: usize, done: u64) {
        self.current[worker] = done;
        let done = self.finished + self.current.iter().sum::<u64>();
        self.progress.update(done.min(self.total), self.total);
    }

    fn done(&mut self, worker: usize, size: u64) {
        self.current[worker] = 0;
        self.finished += size;
    }
}

/// What the builds did, for the closing note.
#[derive(Default)]
struct Tally {
    built: usize,
    extended: usize,
    rebuilt: usize,
    lines: u64,
}

/// Makes every sidecar of `files` current, `threads` at a time, unless
/// `--no-build` or there is only one file (the command's own open does
/// it then, with its own bar and note).
pub fn sidecars(files: &[&Path], q: &QueryOpts, time: &TimeArgs, threads: usize) {
    if q.no_build || files.len() < 2 {
        return;
    }
    let Ok(oo) = crate::time::open_options(q, time) else {
        return; // the command reports the bad option
    };
    let started = Instant::now();
    let workers = threads.clamp(1, files.len());
    let sizes: Vec<u64> = files
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .collect();
    let label = lidx::count_of(files.len() as u64, "file", "files");
    let bar = Mutex::new(Bar {
        progress: Progress::new(&label, q.quiet),
        finished: 0,
        current: vec![0; workers],
        total: sizes.iter().sum(),
    });
    let tally = Mutex::new(Tally::default());
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for w in 0..workers {
            let (bar, tally, next, oo, sizes) = (&bar, &tally, &next, &oo, &sizes);
            s.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(file) = files.get(i) else { break };
                    let opened = oo.open_with_progress(file, &mut |d, _| bar.lock().report(w, d));
                    bar.lock().done(w, sizes[i]);
                    if let Ok(o) = opened {
                        let mut t = tally.lock();
                        match o.action {
                            Action::Built | Action::Forced => t.built += 1,
                            Action::Extended => t.extended += 1,
                            Action::Rebuilt(_) | Action::TimeAdded => t.rebuilt += 1,
                            _ => continue,
                        }
                        t.lines += o.index.line_count();
                    }
                }
            });
        }
    });
    bar.lock().progress.finish();
    let t = tally.into_inner();
    if q.quiet || t.built + t.extended + t.rebuilt == 0 {
        return;
    }
    let mut what = Vec::new();
    for (n, verb) in [
        (t.built, "built"),
        (t.extended, "extended (the file grew)"),
        (t.rebuilt, "rebuilt"),
    ] {
        if n > 0 {
            what.push(format!("{n} {verb}"));
        }
    }
    eprintln!(
        "lidx: note: sidecars of {}: {}: {} in {:.2} s",
        label,
        what.join(", "),
        lidx::count_of(t.lines, "line", "lines"),
        started.elapsed().as_secs_f64()
    );
}
