//! A one-line progress display on stderr for long builds.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Sources smaller than this build too fast to need a progress line.
const MIN_BYTES: u64 = 256 << 20;

/// Progress line state.
#[derive(Debug)]
pub struct Progress {
    label: String,
    enabled: bool,
    start: Instant,
    last: Option<Instant>,
    shown: bool,
}

impl Progress {
    /// Shown only when stderr is a terminal and `quiet` is off.
    pub fn new(label: &str, quiet: bool) -> Progress {
        Progress {
            label: label.to_string(),
            enabled: !quiet && std::io::stderr().is_terminal(),
            start: Instant::now(),
            last: None,
            shown: false,
        }
    }

    /// Reports `done` of `total` bytes (redrawn at most 10 times a second).
    pub fn update(&mut self, done: u64, total: u64) {
        if !self.enabled || total < MIN_BYTES {
            return;
        }
        let now = Instant::now();
        if self
            .last
            .is_some_and(|t| now - t < Duration::from_millis(100))
            && done < total
        {
            return;
        }
        self.last = Some(now);
        let secs = (now - self.start).as_secs_f64().max(1e-6);
        let pct = done as f64 * 100.0 / total as f64;
        let rate = done as f64 / secs / 1e9;
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r\x1b[Klidx: indexing {}: {pct:5.1}% of {:.2} GB, {rate:.2} GB/s",
            self.label,
            total as f64 / 1e9
        );
        let _ = err.flush();
        self.shown = true;
    }

    /// Clears the line.
    pub fn finish(&mut self) {
        if self.shown {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
            self.shown = false;
        }
    }
}
