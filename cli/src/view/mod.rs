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

use super::time::TimeArgs;
use super::{QueryOpts, Status};
use clap::Args;
use lidx::{Action, FollowEvent, Index};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

// Arguments of `lidx view` (a plain comment: see `Command` in main.rs, whose
// subcommands are deferred).
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// The text file or gzip archive (or URL); with several, they are
    /// shown as one: one after the other, or interleaved by time with
    /// `--merge`, each line's file named in the gutter.
    #[arg(value_name = "FILE", required = true, num_args = 1.., value_parser = super::file_arg())]
    files: Vec<PathBuf>,
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
    /// Interleave the FILEs' lines by time, through their time indexes
    /// (built when missing), as `lidx lines --merge` does (several FILEs
    /// with --since or --until are merged too).
    #[arg(long)]
    merge: bool,
    #[command(flatten)]
    time: TimeArgs,
    #[command(flatten)]
    opts: QueryOpts,
    /// The first FILE.
    #[arg(skip)]
    file: PathBuf,
    /// When the command started (the timing log's "open" counts from it).
    #[arg(skip = Instant::now())]
    launched: Instant,
}

/// Several logs shown as one (several FILEs, `--rotated`, `--merge`,
/// `--since`/`--until`): opened before the screen, joined behind it.
pub struct Collection {
    pub logs: Vec<lidx::join::Log>,
    pub windows: Vec<std::ops::Range<u64>>,
    pub order: lidx::join::Order,
    /// The FILEs, as given.
    pub files: Vec<PathBuf>,
    /// How they were opened (a time index as asked), to open them again
    /// when followed; and whether sidecars may be written.
    pub oo: lidx::OpenOptions,
    pub build: bool,
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
        /// Several logs shown as one: the index is theirs.
        joined: Option<Arc<lidx::join::Joined>>,
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
    /// The followed logs changed: joined again, and whether a file was
    /// rewritten.
    Rejoined(Result<(Arc<lidx::join::Joined>, bool), String>),
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

pub fn run(mut a: ViewArgs) -> lidx::Result<Status> {
    a.file = a.files[0].clone();
    a.launched = Instant::now();
    if !std::io::stdout().is_terminal() {
        return Err(lidx::Error::InvalidArgument(format!(
            "{}: view needs a terminal (to print lines: lidx lines FILE 1:)",
            a.file.display()
        )));
    }
    let several = a.files.len() > 1 || a.rotated || a.merge || a.time.selects();
    // Keys are read from the terminal: standard input, or /dev/tty when
    // standard input is a pipe or a file (crossterm opens it).
    if several {
        let collection = collect(&a)?;
        return app::run(a, Some(collection));
    }
    if is_stdin(&a.file) {
        if std::io::stdin().is_terminal() {
            return Err(lidx::Error::InvalidArgument(
                "-: standard input is the terminal: pipe something into lidx view -".into(),
            ));
        }
    } else if !lidx::io::is_url(&a.file) {
        // A missing or unreadable file is said before the screen changes.
        std::fs::File::open(&a.file).map_err(|e| lidx::Error::io("open", &a.file, e))?;
    }
    app::run(a, None)
}

/// Opens the logs of a collection (building what they lack, with the
/// command line's progress bar), before the screen changes: the first
/// that fails is the error.
fn collect(a: &ViewArgs) -> lidx::Result<Collection> {
    if a.files.iter().any(|f| is_stdin(f)) {
        return Err(lidx::Error::InvalidArgument(
            "-: standard input is shown alone (lidx view -), not with other files".into(),
        ));
    }
    if a.files.len() > 1 && a.opts.index.is_some() {
        return Err(lidx::Error::InvalidArgument(
            "--index names the sidecar of one file, not of several".into(),
        ));
    }
    let time = TimeArgs {
        wanted: a.time.wanted || a.merge,
        ..a.time.clone()
    };
    let q = QueryOpts {
        rotated: a.rotated,
        ..a.opts.clone()
    };
    if !a.rotated && a.files.len() > 1 && !q.no_build {
        let refs: Vec<&std::path::Path> = a.files.iter().map(|p| p.as_path()).collect();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        super::prepare::sidecars(&refs, &q, &time, threads);
    }
    let mut logs = Vec::with_capacity(a.files.len());
    let mut windows = Vec::with_capacity(a.files.len());
    for file in &a.files {
        let log = if a.rotated {
            lidx::join::Log::Family(Arc::new(super::family::open(file, &q, &time, false)?))
        } else {
            lidx::join::Log::File(std::sync::Arc::new(super::time::open(file, &q, &time)?))
        };
        let all = log.lines();
        let w = match super::merged::time_range(&log, &time)? {
            Some(t) => t.start.max(all.start)..t.end.min(all.end).max(t.start.max(all.start)),
            None => all,
        };
        windows.push(w);
        logs.push(log);
    }
    Ok(Collection {
        logs,
        windows,
        // As `lidx lines`: several logs in a time window are merged.
        order: if a.merge || (a.time.selects() && a.files.len() > 1) {
            lidx::join::Order::Time
        } else {
            lidx::join::Order::Concat
        },
        files: a.files.clone(),
        oo: super::time::open_options(&q, &time)?,
        build: !q.no_build,
    })
}
