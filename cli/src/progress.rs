//! The progress bar of long builds (indicatif), on stderr, only when
//! stderr is a terminal and `--quiet` is off: the file, a bar, the
//! percentage, bytes done of the total, the rate and the time left.
//!
//! Every build goes through it: `lidx index`, the implicit build of every
//! query, a gzip archive's build (counted in compressed bytes: what is
//! read), a remote object's (counted in bytes fetched), an extension and a
//! content check. A build that ends within [`DELAY`] never shows a bar, so
//! small files print nothing.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// A build shorter than this shows no bar.
const DELAY: Duration = Duration::from_millis(400);

/// The bar's layout.
const TEMPLATE: &str = "lidx: {prefix} {msg} {wide_bar} {percent:>3}% {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}";

/// The tests' way to see the bar on a small file:
/// `LIDX_TEST_SLOW_BUILD=MS` sleeps MS at each report (one per block
/// read: 1 MiB in a parallel build of a plain file, 128 KiB otherwise).
fn test_slowness() -> Option<Duration> {
    static SLOW: std::sync::OnceLock<Option<Duration>> = std::sync::OnceLock::new();
    *SLOW.get_or_init(|| {
        std::env::var("LIDX_TEST_SLOW_BUILD")
            .ok()
            .and_then(|v| v.parse().ok())
            .map(Duration::from_millis)
    })
}

/// A build's progress bar (nothing is drawn until [`DELAY`] has passed).
#[derive(Debug)]
pub struct Progress {
    label: String,
    verb: &'static str,
    enabled: bool,
    start: Instant,
    bar: Option<ProgressBar>,
}

impl Progress {
    /// Shown only when stderr is a terminal and `quiet` is off.
    pub fn new(label: &str, quiet: bool) -> Progress {
        Progress::doing("indexing", label, quiet)
    }

    /// A bar that says `verb` ("packing") instead of "indexing".
    pub fn doing(verb: &'static str, label: &str, quiet: bool) -> Progress {
        Progress {
            verb,
            label: label.to_string(),
            enabled: !quiet && std::io::stderr().is_terminal(),
            start: Instant::now(),
            bar: None,
        }
    }

    /// Reports `done` of `total` bytes (indicatif redraws at most 20 times
    /// a second).
    pub fn update(&mut self, done: u64, total: u64) {
        if let Some(d) = test_slowness() {
            std::thread::sleep(d);
        }
        if !self.enabled || total == 0 {
            return;
        }
        if self.bar.is_none() {
            if self.start.elapsed() < DELAY || done >= total {
                return;
            }
            let style = ProgressStyle::with_template(TEMPLATE)
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> ");
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
                .with_style(style)
                .with_message(self.label.clone())
                .with_prefix(self.verb)
                .with_elapsed(self.start.elapsed());
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            if bar.length() != Some(total) {
                bar.set_length(total);
            }
            bar.set_position(done.min(total));
        }
    }

    /// Removes the bar.
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}
