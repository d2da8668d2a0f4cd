//! `lidx view FILE`: a full-screen pager over the library's public API.
//!
//! Threads, and what each owns:
//! - the **UI thread** (this module and [`app`]): the screen state, the
//!   keys, the caches of lines and filter results, the drawing (ratatui
//!   over crossterm). It never reads the file: it sends requests and
//!   draws what has arrived, so no keypress waits on I/O;
//! - the **input thread**: crossterm's blocking event reads, forwarded;
//! - the **reader** ([`store`]): blocks of lines, offset → line;
//! - two **scanners** ([`scan`]): the search (`/`, `?`, `n`, `N`) and the
//!   filter (`&`), cancellable between pieces, each holding one buffer
//!   however long the lines ([`find`]);
//! - the **opener** ([`open`]) at start, the **follower** ([`follow`]) with
//!   `F`;
//! - for `lidx view -`, the **spooler** and the **indexer** ([`spool`]):
//!   standard input copied to a file of the viewer's own, and that file's
//!   index handed over as it grows;
//! - the **signal** thread ([`signals`]): `TERM`, `INT`, `HUP`, `TSTP`
//!   and `CONT`, caught and forwarded, so that the UI thread restores the
//!   terminal before the process ends or stops.
//!
//! All of them reply on one channel of [`Msg`], which the UI thread waits
//! on; a frame is drawn after each batch of messages.
//!
//! Why ratatui over crossterm: both are pure Rust (no ncurses or terminfo
//! C library to link), actively kept, and used by gitui and others;
//! crossterm gives raw mode, the alternate screen, mouse reports and
//! resize events as one event stream read on a thread of its own, and
//! ratatui's double buffer sends only the cells that changed, so a frame
//! after a one-line scroll is a few bytes. The viewer draws its own text
//! (every byte of the file passes through [`render`] first, so nothing in
//! a file can reach the terminal as an escape sequence).

mod app;
mod find;
mod follow;
mod open;
mod render;
mod scan;
mod signals;
mod spool;
mod store;
mod term;

use super::{QueryOpts, Status};
use clap::Args;
use lidx::{Action, FollowEvent, Index};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Arguments of `lidx view`.
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// The text file or gzip archive (or URL).
    #[arg(value_parser = super::file_arg())]
    file: PathBuf,
    /// Start at this 1-based line.
    #[arg(long, value_name = "N")]
    line: Option<u64>,
    /// Searches and filters ignore case (Unicode simple case folding, as
    /// `lidx grep -i`); `-i` in the viewer toggles it.
    #[arg(short = 'i', long)]
    ignore_case: bool,
    /// Searches ignore case unless the pattern has an uppercase letter.
    #[arg(short = 'S', long)]
    smart_case: bool,
    /// Searches match whole words only (as `lidx grep -w`); `-w` in the
    /// viewer toggles it.
    #[arg(short = 'w', long)]
    word_regexp: bool,
    /// Patterns are literal strings, not regexes.
    #[arg(short = 'F', long)]
    fixed_strings: bool,
    /// Chop long lines (scroll them with the arrow keys) instead of
    /// wrapping them; `-S` in the viewer toggles it.
    #[arg(long)]
    chop: bool,
    /// No line numbers; `-N` in the viewer toggles them.
    #[arg(long)]
    no_line_numbers: bool,
    /// Show colour escape sequences (SGR, `ESC [ ... m`) as colours, as
    /// `less -R` does; any other escape stays shown as `^[`. `-R` in the
    /// viewer toggles it.
    #[arg(short = 'R', long)]
    raw_control_chars: bool,
    /// FILE is the live file of a rotation family: show its members as
    /// one log, with their global line numbers (`-R` is less's raw
    /// control characters here, so the long name only).
    #[arg(long)]
    rotated: bool,
    #[command(flatten)]
    opts: QueryOpts,
}

/// What the other threads tell the UI thread.
pub enum Msg {
    /// A key, the mouse, a resize; with when it was read.
    Input(ratatui::crossterm::event::Event, Instant),
    /// Input could not be read.
    InputError(String),
    /// The first bytes of the file, while its index is built.
    Head { bytes: Vec<u8>, eof: bool },
    /// The build's progress.
    Progress { done: u64, total: u64 },
    /// The index is open (or could not be).
    Opened {
        result: Result<(Arc<Index>, Action, Option<String>), String>,
        took: Duration,
        /// Added to the line numbers shown (a rotation family's first
        /// global line; 0 for a file).
        base: u64,
    },
    /// A block of lines.
    Block {
        epoch: u64,
        n: u64,
        held: Result<store::Held, String>,
    },
    /// The line holding an offset.
    Located {
        epoch: u64,
        token: u64,
        line: Result<u64, String>,
    },
    /// A scan's progress.
    ScanProgress {
        generation: u64,
        done: u64,
        total: u64,
    },
    /// A scan's result.
    Scanned {
        generation: u64,
        epoch: u64,
        found: Result<scan::Found, String>,
    },
    /// The followed file changed.
    Followed(Result<(FollowEvent, Option<Arc<Index>>), String>),
    /// A signal was caught ([`signals`]).
    Signal(i32),
    /// The index of standard input's spool as it grew, with its complete
    /// lines ([`spool`]); `ended` once the input ended (with an error, if
    /// it did not end well).
    Piped {
        index: Result<(Arc<Index>, u64), String>,
        ended: Option<Option<String>>,
    },
}

/// The tests' way to watch work in progress: `LIDX_VIEW_TEST_SLOW=MS`
/// makes the build sleep MS per 128 KiB read and the scans 8 × MS per
/// 1 MiB piece, so that a progress report and a cancel can be seen on a
/// small file.
pub fn test_slowness() -> Option<Duration> {
    static SLOW: std::sync::OnceLock<Option<Duration>> = std::sync::OnceLock::new();
    *SLOW.get_or_init(|| {
        std::env::var("LIDX_VIEW_TEST_SLOW")
            .ok()
            .and_then(|v| v.parse().ok())
            .map(Duration::from_millis)
    })
}

/// True for `-` (the CLI reads it as `/dev/stdin`).
fn is_stdin(file: &std::path::Path) -> bool {
    file == std::path::Path::new("/dev/stdin")
}

pub fn run(a: ViewArgs) -> lidx::Result<Status> {
    if !std::io::stdout().is_terminal() {
        return Err(lidx::Error::InvalidArgument(format!(
            "{}: view needs a terminal (to print lines: lidx lines FILE 1:)",
            a.file.display()
        )));
    }
    // Keys are read from the terminal: standard input, or /dev/tty when
    // standard input is a pipe or a file (crossterm opens it).
    if is_stdin(&a.file) {
        if std::io::stdin().is_terminal() {
            return Err(lidx::Error::InvalidArgument(
                "-: standard input is the terminal: pipe something into lidx view -".into(),
            ));
        }
    } else if a.rotated {
        if lidx::io::is_url(&a.file) {
            return Err(lidx::Error::InvalidArgument(format!(
                "{}: a rotation family is a local directory's files; --rotated does not take a URL",
                a.file.display()
            )));
        }
        lidx::family::prepare(&a.file)?;
    } else if !lidx::io::is_url(&a.file) {
        // A missing or unreadable file is said before the screen changes.
        std::fs::File::open(&a.file).map_err(|e| lidx::Error::io("open", &a.file, e))?;
    }
    app::run(a)
}
