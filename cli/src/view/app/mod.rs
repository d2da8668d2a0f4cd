//! The viewer's state, its keys and its frames (the UI thread).
//!
//! The screen is a position — a line, and a row within it when long lines
//! wrap — and the lines after it, in the file or, with a filter, among the
//! selected lines. Every move is an [`Op`] run against what is held; an op
//! that needs a block of lines or a filter chunk not held yet asks for it
//! and waits in a queue, and the queue runs on when it arrives, in order.
//! So keys typed ahead are never lost nor reordered, and the UI thread
//! never waits.
//!
//! This file holds the state and the event loop; the rest is by concern:
//! [`model`] (the position, what is held, the moves), [`keys`] (keys, the
//! mouse, the prompt), [`search`] (searches and the filter as the UI sees
//! them), [`grow`] (a file that grows), [`help`] (the help screen) and
//! [`draw`] (the frames).

mod draw;
mod grow;
mod help;
mod joined;
mod keys;
mod model;
mod search;

use super::scan::Scanner;
use super::store::{Held, Store};
use super::{Collection, Msg, ViewArgs, open, signals, spool, term};
use crate::view::find::Finder;
use keys::Prompt;
use lidx::search::MatcherOptions;
use lidx::{Index, OpenOptions};
use model::{Op, Pos};
use ratatui::crossterm::event::{self, KeyEvent};
use search::{Filter, Running};
use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

/// Frames drawn while a move waits for data: one per this much time.
const FRAME: std::time::Duration = std::time::Duration::from_millis(40);

struct App {
    file: PathBuf,
    name: String,
    oo: OpenOptions,
    tx: Sender<Msg>,
    index: Option<Arc<Index>>,
    /// Lines known before the index is there (the head of the file).
    head_lines: u64,
    build: Option<(u64, u64)>,
    cancel_build: Arc<AtomicBool>,
    store: Store,
    searcher: Scanner,
    filterer: Scanner,
    filter: Option<Filter>,
    search: Option<(String, Arc<Finder>, bool)>,
    running: Option<Running>,
    last_match: Option<u64>,
    pos: Pos,
    prev: Option<Pos>,
    marks: HashMap<char, Pos>,
    pending: VecDeque<Op>,
    deferred: VecDeque<KeyEvent>,
    rows_cache: HashMap<u64, u32>,
    rows_key: (usize, bool, bool, u64),
    size: (u16, u16),
    wrap: bool,
    numbers: bool,
    /// Colour sequences as colours (`-R`).
    ansi: bool,
    hscroll: usize,
    mopts: MatcherOptions,
    count: Option<u64>,
    prefix: Option<char>,
    prompt: Option<Prompt>,
    message: Option<String>,
    following: Option<Arc<AtomicBool>>,
    /// The help screen is shown, from this row of it.
    help: Option<usize>,
    /// Standard input's spool (`lidx view -`).
    pipe: Option<grow::Pipe>,
    locate_token: u64,
    /// A percentage's line is being looked up.
    locating: bool,
    quit: bool,
    /// The signal that ended the viewer (it ends the process the same way
    /// once the terminal is restored).
    ended_by: Option<i32>,
    /// `Ctrl-Z` or `TSTP`: suspend after this batch of messages.
    suspend: bool,
    /// Draw every cell again (back from a stop).
    repaint: bool,
    start_line: Option<u64>,
    /// When the viewer started, until its first complete frame.
    started: Option<Instant>,
    /// When the first key not yet shown on a complete frame was read.
    key_at: Option<Instant>,
    timing: Option<std::fs::File>,
    /// Set by the last frame: everything on it was held.
    complete: bool,
    /// Several logs (or a family) shown as one ([`joined`]), and their
    /// files as given.
    joined: Option<joined::Shown>,
    files: Vec<PathBuf>,
    /// The files are rotation families (`--rotated`).
    rotated: bool,
    /// Lines are chosen by time (`--since`, `--until`).
    window: bool,
    /// How a collection's logs are opened again when followed, and
    /// whether sidecars may be written.
    reopen: Option<(OpenOptions, bool)>,
    cache_bytes: usize,
}

/// Runs the viewer until `q`: on a file, standard input, or several logs
/// as one.
pub fn run(a: ViewArgs, collection: Option<Collection>) -> lidx::Result<super::Status> {
    let (tx, rx) = channel();
    let mut oo = OpenOptions::new();
    oo.cache_bytes(a.opts.cache_mb.saturating_mul(1 << 20))
        .refresh(!a.opts.no_build);
    if let Some(p) = &a.opts.index {
        oo.sidecar(p);
    }
    let mopts = MatcherOptions {
        case_insensitive: a.ignore_case,
        smart_case: a.smart_case,
        word: a.word_regexp,
        fixed_strings: a.fixed_strings,
        ..MatcherOptions::default()
    };
    let timing = std::env::var_os("LIDX_VIEW_TIMING").and_then(|p| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .ok()
    });
    let cancel_build = Arc::new(AtomicBool::new(false));
    let mut app = App {
        name: a
            .file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| a.file.display().to_string()),
        file: a.file.clone(),
        oo: oo.clone(),
        tx: tx.clone(),
        index: None,
        head_lines: 0,
        build: None,
        cancel_build: Arc::clone(&cancel_build),
        store: Store::new(tx.clone()),
        searcher: Scanner::new(tx.clone(), "lidx-view-search"),
        filterer: Scanner::new(tx.clone(), "lidx-view-filter"),
        filter: None,
        search: None,
        running: None,
        last_match: None,
        pos: Pos::default(),
        prev: None,
        marks: HashMap::new(),
        pending: VecDeque::new(),
        deferred: VecDeque::new(),
        rows_cache: HashMap::new(),
        rows_key: (0, false, false, 0),
        size: (80, 24),
        wrap: !a.chop,
        numbers: !a.no_line_numbers,
        ansi: a.raw_control_chars,
        hscroll: 0,
        mopts,
        count: None,
        prefix: None,
        prompt: None,
        message: None,
        following: None,
        pipe: None,
        help: None,
        locate_token: 0,
        locating: false,
        quit: false,
        ended_by: None,
        suspend: false,
        repaint: false,
        start_line: a.line.map(|l| l.saturating_sub(1)),
        started: Some(a.launched),
        key_at: None,
        timing,
        complete: false,
        joined: None,
        files: collection
            .as_ref()
            .map(|c| c.files.clone())
            .unwrap_or_default(),
        rotated: a.rotated,
        window: a.time.selects(),
        reopen: collection.as_ref().map(|c| (c.oo.clone(), c.build)),
        cache_bytes: a.opts.cache_mb.saturating_mul(1 << 20),
    };
    signals::install(tx.clone()).map_err(|e| term_error(&a.file, e))?;
    let guard = term::Guard::enter().map_err(|e| term_error(&a.file, e))?;
    let backend = ratatui::backend::CrosstermBackend::new(std::io::stdout());
    let mut terminal = ratatui::Terminal::new(backend).map_err(|e| term_error(&a.file, e))?;
    if let Ok(s) = terminal.size() {
        app.size = (s.width, s.height);
    }
    if super::is_stdin(&a.file) {
        spool::start(oo, tx.clone())?;
        app.pipe = Some(grow::Pipe::default());
        app.name = "(stdin)".into();
        app.file = PathBuf::from("-");
    } else if let Some(c) = collection {
        app.name = joined::title(&c);
        open::spawn_joined(
            c,
            a.opts.cache_mb.saturating_mul(1 << 20),
            tx.clone(),
            cancel_build,
        );
    } else {
        open::spawn(a.file.clone(), oo, tx.clone(), cancel_build);
    }
    spawn_input(tx);
    let result = app.event_loop(&mut terminal, &rx);
    app.cancel_build.store(true, Ordering::SeqCst);
    if let Some(stop) = &app.following {
        stop.store(true, Ordering::SeqCst);
    }
    if app.index.is_none() {
        // A build cancelled: it stops at its next read and removes its
        // temporary sidecar; the process does not end under it.
        let until = Instant::now() + Duration::from_secs(1);
        while let Ok(m) = rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
            if matches!(m, Msg::Opened { .. }) {
                break;
            }
        }
    }
    drop(terminal);
    drop(guard);
    if let Some(sig) = app.ended_by {
        signals::die(sig);
    }
    result.map(|()| 0)
}

pub(super) fn term_error(file: &std::path::Path, e: std::io::Error) -> lidx::Error {
    lidx::Error::io("set up the terminal for", file, e)
}

fn spawn_input(tx: Sender<Msg>) {
    std::thread::Builder::new()
        .name("lidx-view-input".into())
        .spawn(move || {
            loop {
                let msg = match event::read() {
                    Ok(e) => Msg::Input(e, Instant::now()),
                    Err(e) => Msg::InputError(e.to_string()),
                };
                let stop = matches!(msg, Msg::InputError(_));
                if tx.send(msg).is_err() || stop {
                    return;
                }
            }
        })
        .expect("spawn the input thread");
}

/// The process's peak resident set (VmHWM), in KiB; 0 where unknown.
pub(super) fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

pub(super) type Term = ratatui::Terminal<ratatui::backend::CrosstermBackend<std::io::Stdout>>;

pub(super) fn digits(n: u64) -> usize {
    n.max(1).to_string().len()
}

impl App {
    fn event_loop(&mut self, terminal: &mut Term, rx: &Receiver<Msg>) -> lidx::Result<()> {
        self.draw(terminal)?;
        let mut last_draw = Instant::now();
        let mut stale = false;
        loop {
            let msg = if stale {
                match rx.recv_timeout(FRAME) {
                    Ok(m) => Some(m),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => return Ok(()),
                }
            } else {
                match rx.recv() {
                    Ok(m) => Some(m),
                    Err(_) => return Ok(()),
                }
            };
            if let Some(msg) = msg {
                self.handle(msg)?;
                // Everything that arrived meanwhile, then one frame.
                while let Ok(m) = rx.try_recv() {
                    self.handle(m)?;
                    if self.quit {
                        break;
                    }
                }
            }
            if self.quit {
                return Ok(());
            }
            if std::mem::take(&mut self.suspend) {
                // As less: the terminal as it was, stopped; on `fg`, the
                // viewer's state again and every cell drawn.
                term::restore();
                signals::stop();
                term::resume().map_err(|e| term_error(&self.file, e))?;
                self.repaint = true;
            }
            if std::mem::take(&mut self.repaint) {
                // Both of ratatui's buffers blank, as the screen: the next
                // frame draws every cell. (Not `Terminal::clear`: it asks
                // the terminal where the cursor is, and the answer would
                // go to the input thread.)
                terminal.swap_buffers();
                ratatui::crossterm::execute!(
                    std::io::stdout(),
                    ratatui::crossterm::terminal::Clear(
                        ratatui::crossterm::terminal::ClearType::All
                    )
                )
                .map_err(|e| term_error(&self.file, e))?;
            }
            // While a move waits for data the screen does not change: a
            // long walk draws a frame per FRAME, not one per block read.
            if self.pending.is_empty() || last_draw.elapsed() >= FRAME {
                self.draw(terminal)?;
                last_draw = Instant::now();
                stale = false;
            } else {
                stale = true;
            }
        }
    }

    /// The first index is there: to the line asked for, then the keys
    /// that waited for it.
    fn opened(&mut self) {
        if let Some(l) = self.start_line.take() {
            self.exec(Op::Goto(self.entered(l + 1), false));
        } else {
            self.exec(Op::Settle);
        }
        let keys: Vec<_> = self.deferred.drain(..).collect();
        for k in keys {
            self.key(k);
        }
    }

    fn fatal(&self, what: String) -> lidx::Error {
        lidx::Error::InvalidArgument(format!("{}: {what}", self.file.display()))
    }

    fn handle(&mut self, msg: Msg) -> lidx::Result<()> {
        match msg {
            Msg::Input(ev, at) => {
                self.key_at.get_or_insert(at);
                self.input(ev);
            }
            Msg::InputError(e) => return Err(self.fatal(format!("reading the terminal: {e}"))),
            Msg::Signal(sig) => {
                if signals::ENDING.contains(&sig) {
                    self.ended_by = Some(sig);
                    self.quit = true;
                } else if sig == libc::SIGTSTP {
                    self.suspend = true;
                } else if sig == libc::SIGCONT {
                    // Stopped by something else (`kill -STOP`): what the
                    // screen shows is not known any more.
                    self.repaint = true;
                }
            }
            Msg::Head { bytes, eof } => {
                if self.index.is_none() {
                    let blocks = Held::from_head(&bytes, eof);
                    self.head_lines = blocks.iter().map(|b| b.len() as u64).sum();
                    let epoch = self.store.epoch();
                    for (n, b) in blocks.into_iter().enumerate() {
                        self.store.insert(epoch, n as u64, b);
                    }
                    self.rows_cache.clear();
                    self.retry();
                }
            }
            Msg::Progress { done, total } => self.build = Some((done, total)),
            Msg::Opened {
                result,
                took,
                joined,
            } => {
                let (index, action, warning) = result.map_err(lidx::Error::InvalidArgument)?;
                self.joined = joined.map(|j| joined::Shown::new(j, &self.files));
                self.build = None;
                self.store.clear();
                self.rows_cache.clear();
                self.index = Some(index);
                self.message = match (warning, action) {
                    (Some(w), _) => Some(format!("warning: {w}")),
                    (None, lidx::Action::Opened) => None,
                    (None, lidx::Action::Damaged) => self
                        .index
                        .as_ref()
                        .and_then(|i| i.damage())
                        .map(|d| format!("warning: {d}; only the lines before it are shown")),
                    (None, a) => Some(format!(
                        "sidecar {} in {:.2} s",
                        match a {
                            lidx::Action::Built => "built",
                            lidx::Action::Extended => "extended",
                            lidx::Action::Verified => "verified",
                            lidx::Action::TimeAdded => "rebuilt with a time index",
                            _ => "rebuilt",
                        },
                        took.as_secs_f64()
                    )),
                };
                self.opened();
            }
            Msg::Piped { index, ended } => self.piped(index, ended)?,
            Msg::Block { epoch, n, held } => match held {
                Ok(h) => {
                    self.store.insert(epoch, n, h);
                    self.retry();
                }
                Err(e) => {
                    self.store.failed(epoch, n);
                    if epoch == self.store.epoch() {
                        self.pending.clear();
                        self.message = Some(format!("error: {e}"));
                    }
                }
            },
            Msg::Located { epoch, token, line } => {
                if epoch == self.store.epoch() && token == self.locate_token {
                    self.locating = false;
                    match line {
                        Ok(l) => self.exec(Op::Goto(l, true)),
                        Err(e) => self.message = Some(format!("error: {e}")),
                    }
                }
            }
            Msg::ScanProgress {
                generation,
                done,
                total,
            } => {
                if let Some(r) = self.running.as_mut().filter(|r| r.generation == generation) {
                    r.progress = Some((done, total));
                }
                if generation == self.filterer.generation()
                    && let Some(f) = self.filter.as_mut()
                {
                    f.progress = Some((done, total));
                }
            }
            Msg::Scanned {
                generation,
                epoch,
                found,
            } => self.scanned(generation, epoch, found),
            Msg::Followed(r) => self.followed(r),
            Msg::Rejoined(r) => self.rejoined(r),
        }
        Ok(())
    }
}
