//! The viewer's state, its keys and its frames (the UI thread).
//!
//! The screen is a position — a line, and a row within it when long lines
//! wrap — and the lines after it, in the file or, with a filter, among the
//! selected lines. Every move is an [`Op`] run against what is held; an op
//! that needs a block of lines or a filter chunk not held yet asks for it
//! and waits in a queue, and the queue runs on when it arrives, in order.
//! So keys typed ahead are never lost nor reordered, and the UI thread
//! never waits.

use super::render::{self, Layout, Row};
use super::scan::{FILTER_CHUNK, Found, Job, Scanner};
use super::store::{BLOCK, Held, Store};
use super::{Msg, ViewArgs, follow, open, term};
use lidx::search::{Matcher, MatcherOptions};
use lidx::{Index, OpenOptions};
use ratatui::crossterm::event::{
    self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEventKind,
};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::Instant;

/// Frames drawn while a move waits for data: one per this much time.
const FRAME: std::time::Duration = std::time::Duration::from_millis(40);
/// Blocks asked ahead of a walk that waits for one.
const WALK_AHEAD: u64 = 4;

/// Filter chunks kept, and selected lines in them.
const FILTER_CHUNKS_KEPT: usize = 4096;
const FILTER_LINES_KEPT: usize = 2 << 20;

/// A place on the screen's first row: a line and a row of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Pos {
    line: u64,
    row: u32,
}

/// Something not held yet.
#[derive(Debug, Clone, Copy)]
enum Need {
    Block(u64),
    Filter(u64),
}

/// A walk stopped at a line not held: where it got to, the rows left,
/// what it needs.
type Stuck = (Pos, u64, Need);

/// A move.
#[derive(Debug, Clone, Copy)]
enum Op {
    /// Rows down or up from the screen's position.
    Down(u64),
    Up(u64),
    /// The rest of a walk that waited for data: rows down or up from here.
    DownFrom(Pos, u64),
    UpFrom(Pos, u64),
    Top,
    Bottom,
    /// To a line (0-based); a jump remembers where it came from.
    Goto(u64, bool),
    /// Back to a remembered place.
    To(Pos),
    /// Keep the position valid (after a resize or a new filter).
    Settle,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PromptKind {
    Colon,
    Search(bool),
    Filter,
}

struct Prompt {
    kind: PromptKind,
    text: String,
}

/// The `&pattern` filter and its cached chunks.
struct Filter {
    pattern: String,
    matcher: Arc<Matcher>,
    chunks: HashMap<u64, Arc<Vec<u64>>>,
    order: VecDeque<u64>,
    lines_kept: usize,
    asked: Option<u64>,
    progress: Option<(u64, u64)>,
}

/// The search being run, or offered to wrap.
struct Running {
    generation: u64,
    backward: bool,
    /// The lines searched.
    lines: std::ops::Range<u64>,
    wrapped: bool,
    progress: Option<(u64, u64)>,
}

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
    search: Option<(String, Arc<Matcher>, bool)>,
    running: Option<Running>,
    offer_wrap: Option<Running>,
    last_match: Option<u64>,
    pos: Pos,
    prev: Option<Pos>,
    marks: HashMap<char, Pos>,
    pending: VecDeque<Op>,
    deferred: VecDeque<KeyEvent>,
    rows_cache: HashMap<u64, u32>,
    rows_key: (usize, bool, u64),
    size: (u16, u16),
    wrap: bool,
    numbers: bool,
    hscroll: usize,
    mopts: MatcherOptions,
    count: Option<u64>,
    prefix: Option<char>,
    prompt: Option<Prompt>,
    message: Option<String>,
    following: Option<Arc<AtomicBool>>,
    locate_token: u64,
    /// A percentage's line is being looked up.
    locating: bool,
    quit: bool,
    start_line: Option<u64>,
    /// When the viewer started, until its first complete frame.
    started: Option<Instant>,
    /// When the first key not yet shown on a complete frame was read.
    key_at: Option<Instant>,
    timing: Option<std::fs::File>,
    /// Set by the last frame: everything on it was held.
    complete: bool,
}

/// Runs the viewer until `q`.
pub fn run(a: ViewArgs) -> lidx::Result<super::Status> {
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
        offer_wrap: None,
        last_match: None,
        pos: Pos::default(),
        prev: None,
        marks: HashMap::new(),
        pending: VecDeque::new(),
        deferred: VecDeque::new(),
        rows_cache: HashMap::new(),
        rows_key: (0, false, 0),
        size: (80, 24),
        wrap: !a.chop,
        numbers: !a.no_line_numbers,
        hscroll: 0,
        mopts,
        count: None,
        prefix: None,
        prompt: None,
        message: None,
        following: None,
        locate_token: 0,
        locating: false,
        quit: false,
        start_line: a.line.map(|l| l.saturating_sub(1)),
        started: Some(Instant::now()),
        key_at: None,
        timing,
        complete: false,
    };
    let guard = term::Guard::enter().map_err(|e| term_error(&a.file, e))?;
    let backend = ratatui::backend::CrosstermBackend::new(std::io::stdout());
    let mut terminal = ratatui::Terminal::new(backend).map_err(|e| term_error(&a.file, e))?;
    if let Ok(s) = terminal.size() {
        app.size = (s.width, s.height);
    }
    open::spawn(a.file.clone(), oo, tx.clone(), cancel_build);
    spawn_input(tx);
    let result = app.event_loop(&mut terminal, &rx);
    app.cancel_build.store(true, Ordering::SeqCst);
    if let Some(stop) = &app.following {
        stop.store(true, Ordering::SeqCst);
    }
    drop(terminal);
    drop(guard);
    result.map(|()| 0)
}

fn term_error(file: &std::path::Path, e: std::io::Error) -> lidx::Error {
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
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

type Term = ratatui::Terminal<ratatui::backend::CrosstermBackend<std::io::Stdout>>;

fn digits(n: u64) -> usize {
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
            Msg::Opened { result, took } => {
                let (index, action, warning) = result.map_err(lidx::Error::InvalidArgument)?;
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
                if let Some(l) = self.start_line.take() {
                    self.exec(Op::Goto(l, false));
                } else {
                    self.exec(Op::Settle);
                }
                let keys: Vec<_> = self.deferred.drain(..).collect();
                for k in keys {
                    self.key(k);
                }
            }
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
        }
        Ok(())
    }

    // ----- what is held -------------------------------------------------

    fn line_count(&self) -> u64 {
        match &self.index {
            Some(i) => i.line_count(),
            None => self.head_lines,
        }
    }

    /// Text columns: the screen less the scrollbar and the line numbers.
    fn gutter(&self) -> usize {
        if self.numbers {
            digits(self.line_count()) + 1
        } else {
            0
        }
    }

    fn text_width(&self) -> usize {
        (self.size.0 as usize)
            .saturating_sub(1 + self.gutter())
            .max(1)
    }

    fn text_rows(&self) -> u64 {
        (self.size.1 as u64).saturating_sub(1).max(1)
    }

    fn layout(&self) -> Layout {
        Layout {
            width: self.text_width(),
            wrap: self.wrap,
            hscroll: self.hscroll,
        }
    }

    /// Line `line` as held: its block and index in it.
    fn held(&mut self, line: u64) -> Result<(Arc<Held>, usize), Need> {
        let n = line / BLOCK;
        match self.store.get(n) {
            Some(h) if ((line % BLOCK) as usize) < h.len() => Ok((h, (line % BLOCK) as usize)),
            Some(_) => Err(Need::Block(n)),
            None => Err(Need::Block(n)),
        }
    }

    fn marker(more: u64) -> Option<String> {
        match more {
            0 => None,
            u64::MAX => Some("[...]".to_string()),
            m => Some(render::cut_marker(m)),
        }
    }

    /// Rows of line `line` on screen.
    fn rows(&mut self, line: u64) -> Result<u32, Need> {
        if !self.wrap {
            return Ok(1);
        }
        let key = (self.text_width(), self.wrap, self.store.epoch());
        if key != self.rows_key {
            self.rows_cache.clear();
            self.rows_key = key;
        }
        if let Some(&r) = self.rows_cache.get(&line) {
            return Ok(r);
        }
        let (h, i) = self.held(line)?;
        let marker = Self::marker(h.more(i));
        let n = render::row_count(h.line(i), marker.as_deref(), &self.layout()) as u32;
        if self.rows_cache.len() > 100_000 {
            self.rows_cache.clear();
        }
        self.rows_cache.insert(line, n);
        Ok(n)
    }

    /// The first line shown at or after `line`.
    fn at_or_after(&mut self, line: u64) -> Result<Option<u64>, Need> {
        let count = self.line_count();
        if line >= count {
            return Ok(None);
        }
        let Some(f) = &self.filter else {
            return Ok(Some(line));
        };
        let mut c = line / FILTER_CHUNK;
        while c * FILTER_CHUNK < count {
            let v = f.chunks.get(&c).ok_or(Need::Filter(c))?;
            let k = v.partition_point(|&l| l < line);
            if k < v.len() {
                return Ok(Some(v[k]));
            }
            c += 1;
        }
        Ok(None)
    }

    /// The last line shown before `line`.
    fn before(&mut self, line: u64) -> Result<Option<u64>, Need> {
        let line = line.min(self.line_count());
        if line == 0 {
            return Ok(None);
        }
        let Some(f) = &self.filter else {
            return Ok(Some(line - 1));
        };
        let mut c = (line - 1) / FILTER_CHUNK;
        loop {
            let v = f.chunks.get(&c).ok_or(Need::Filter(c))?;
            let k = v.partition_point(|&l| l < line);
            if k > 0 {
                return Ok(Some(v[k - 1]));
            }
            if c == 0 {
                return Ok(None);
            }
            c -= 1;
        }
    }

    // ----- moves ----------------------------------------------------------

    /// `pos` moved down `n` rows, at most to the last row of the last line.
    /// On a line not held: where the walk got to, the rows left, and what
    /// it needs.
    fn advance(&mut self, mut pos: Pos, n: u64) -> Result<Pos, Stuck> {
        let mut left = n;
        while left > 0 {
            let rows = self.rows(pos.line).map_err(|e| (pos, left, e))? as u64;
            let here = rows - 1 - (pos.row as u64).min(rows - 1);
            if left <= here {
                pos.row += left as u32;
                break;
            }
            match self.at_or_after(pos.line + 1).map_err(|e| (pos, left, e))? {
                Some(l) => {
                    left -= here + 1;
                    pos = Pos { line: l, row: 0 };
                }
                None => {
                    pos.row = rows as u32 - 1;
                    break;
                }
            }
        }
        Ok(pos)
    }

    /// `pos` moved up `n` rows, at most to the first line (a miss as in
    /// [`App::advance`]).
    fn back(&mut self, mut pos: Pos, n: u64) -> Result<Pos, Stuck> {
        let mut left = n;
        while left > 0 {
            if left <= pos.row as u64 {
                pos.row -= left as u32;
                break;
            }
            match self.before(pos.line).map_err(|e| (pos, left, e))? {
                Some(l) => {
                    let rows = self.rows(l).map_err(|e| (pos, left, e))?;
                    left -= pos.row as u64 + 1;
                    pos = Pos {
                        line: l,
                        row: rows - 1,
                    };
                }
                None => {
                    pos.row = 0;
                    break;
                }
            }
        }
        Ok(pos)
    }

    /// `from` moved `n` rows down or up, then settled. When a line is not
    /// held, the walk so far is kept: the op at the front of the queue
    /// (the one running) becomes the rest of the walk, so a long walk
    /// (`1000000j`) reads each block once instead of starting over at
    /// each block that arrives.
    fn walk(&mut self, from: Pos, n: u64, down: bool) -> Result<Pos, Need> {
        let walked = if down {
            self.advance(from, n)
        } else {
            self.back(from, n)
        };
        let (to, left, need) = match walked {
            Ok(to) => match self.settle(to) {
                Ok(p) => return Ok(p),
                Err(need) => (to, 0, need),
            },
            Err(stuck) => stuck,
        };
        if let Need::Block(n) = need {
            // The walk goes on past this block: the next ones are read
            // meanwhile (this one first).
            self.ask(need, false);
            let blocks = self.line_count().div_ceil(BLOCK);
            for k in 1..=WALK_AHEAD {
                let next = if down {
                    n.checked_add(k)
                } else {
                    n.checked_sub(k)
                };
                if let Some(m) = next.filter(|&m| m < blocks) {
                    self.ask(Need::Block(m), true);
                }
            }
        }
        if let Some(front) = self.pending.front_mut() {
            *front = if down {
                Op::DownFrom(to, left)
            } else {
                Op::UpFrom(to, left)
            };
        }
        Err(need)
    }

    /// Rows from `pos` to the end, counted up to `limit`.
    fn fill(&mut self, pos: Pos, limit: u64) -> Result<u64, Need> {
        let mut rows = self.rows(pos.line)? as u64 - (pos.row as u64);
        let mut line = pos.line;
        while rows < limit {
            match self.at_or_after(line + 1)? {
                Some(l) => {
                    rows += self.rows(l)? as u64;
                    line = l;
                }
                None => break,
            }
        }
        Ok(rows)
    }

    /// The position that shows the last line on the last row.
    fn bottom(&mut self) -> Result<Pos, Need> {
        let Some(last) = self.before(u64::MAX)? else {
            return Ok(Pos::default());
        };
        let rows = self.rows(last)?;
        let end = Pos {
            line: last,
            row: rows - 1,
        };
        self.back(end, self.text_rows() - 1)
            .map_err(|(_, _, need)| need)
    }

    /// `pos` made valid: on a line shown, and the screen full if the file
    /// has enough rows after it.
    fn settle(&mut self, pos: Pos) -> Result<Pos, Need> {
        if self.line_count() == 0 {
            return Ok(Pos::default());
        }
        let mut pos = pos;
        match self.at_or_after(pos.line)? {
            Some(l) if l == pos.line => {
                let rows = self.rows(l)?;
                pos.row = pos.row.min(rows - 1);
            }
            Some(l) => pos = Pos { line: l, row: 0 },
            None => return self.bottom(),
        }
        if self.fill(pos, self.text_rows())? < self.text_rows() {
            let b = self.bottom()?;
            if (b.line, b.row) < (pos.line, pos.row) {
                return Ok(b);
            }
        }
        Ok(pos)
    }

    fn run_op(&mut self, op: Op) -> Result<(), Need> {
        let old = self.pos;
        let (pos, jump) = match op {
            Op::Down(n) => (self.walk(self.pos, n, true)?, false),
            Op::Up(n) => (self.walk(self.pos, n, false)?, false),
            Op::DownFrom(p, n) => (self.walk(p, n, true)?, false),
            Op::UpFrom(p, n) => (self.walk(p, n, false)?, false),
            Op::Top => (self.settle(Pos::default())?, true),
            Op::Bottom => (self.bottom()?, true),
            Op::Goto(l, jump) => (self.settle(Pos { line: l, row: 0 })?, jump),
            Op::To(p) => (self.settle(p)?, true),
            Op::Settle => (self.settle(self.pos)?, false),
        };
        if jump && pos != old {
            self.prev = Some(old);
        }
        self.pos = pos;
        Ok(())
    }

    /// Runs `op` now, or after the ops waiting for data.
    fn exec(&mut self, op: Op) {
        self.pending.push_back(op);
        if self.pending.len() == 1 {
            self.retry();
        }
    }

    /// Runs the waiting ops until one needs data.
    fn retry(&mut self) {
        while let Some(&op) = self.pending.front() {
            match self.run_op(op) {
                Ok(()) => {
                    self.pending.pop_front();
                }
                Err(need) => {
                    self.ask(need, false);
                    return;
                }
            }
        }
    }

    fn ask(&mut self, need: Need, prefetch: bool) {
        let Some(index) = self.index.clone() else {
            return;
        };
        match need {
            Need::Block(n) => self.store.request(&index, n, prefetch),
            Need::Filter(c) => {
                let epoch = self.store.epoch();
                if let Some(f) = self.filter.as_mut()
                    && f.asked != Some(c)
                {
                    f.asked = Some(c);
                    f.progress = None;
                    self.filterer.cancel();
                    self.filterer
                        .send(epoch, &index, &f.matcher, Job::Filter { n: c });
                }
            }
        }
    }

    // ----- keys -----------------------------------------------------------

    fn input(&mut self, ev: Event) {
        match ev {
            Event::Key(k) if k.kind != KeyEventKind::Release => {
                if self.index.is_none() && (!self.deferred.is_empty() || !self.early_key(&k)) {
                    if k.code == KeyCode::Char('q') && self.prompt.is_none() {
                        self.quit = true;
                    } else {
                        self.deferred.push_back(k);
                    }
                    return;
                }
                self.key(k);
            }
            Event::Mouse(m) => {
                if self.following.is_some() {
                    return;
                }
                match m.kind {
                    MouseEventKind::ScrollDown => self.exec(Op::Down(3)),
                    MouseEventKind::ScrollUp => self.exec(Op::Up(3)),
                    MouseEventKind::Down(MouseButton::Left)
                    | MouseEventKind::Drag(MouseButton::Left)
                        if m.column + 1 == self.size.0 && (m.row as u64) < self.text_rows() =>
                    {
                        let track = self.text_rows().saturating_sub(1).max(1);
                        self.percent_of(m.row as u64 * 10_000 / track, 10_000);
                    }
                    _ => {}
                }
            }
            Event::Resize(w, h) => {
                self.size = (w, h);
                self.exec(Op::Settle);
            }
            _ => {}
        }
    }

    /// Keys that work on the head of the file while it is indexed.
    fn early_key(&self, k: &KeyEvent) -> bool {
        self.prompt.is_none()
            && self.prefix.is_none()
            && matches!(
                k.code,
                KeyCode::Char('j' | 'k' | 'e' | 'y' | ' ' | 'f' | 'b' | 'd' | 'u' | 'q' | 'Q')
                    | KeyCode::Down
                    | KeyCode::Up
                    | KeyCode::PageDown
                    | KeyCode::PageUp
                    | KeyCode::Enter
                    | KeyCode::Esc
            )
    }

    fn key(&mut self, k: KeyEvent) {
        if let Some(stop) = self.following.take() {
            // Any key stops following; q also quits.
            stop.store(true, Ordering::SeqCst);
            self.message = Some("stopped following".into());
            if k.code == KeyCode::Char('q') {
                self.quit = true;
            }
            return;
        }
        if self.prompt.is_some() {
            self.prompt_key(k);
            return;
        }
        if let Some(r) = self.offer_wrap.take() {
            if matches!(k.code, KeyCode::Enter | KeyCode::Char('n')) {
                self.wrap_search(r);
                return;
            }
            self.message = None;
        }
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        if let Some(p) = self.prefix.take() {
            if let KeyCode::Char(c) = k.code {
                self.prefixed(p, c);
            }
            return;
        }
        let count = self.count.take();
        let half = (self.text_rows() / 2).max(1);
        let page = self.text_rows();
        self.message = None;
        match k.code {
            KeyCode::Char(c) if ctrl => match c {
                'n' | 'e' | 'j' => self.exec(Op::Down(count.unwrap_or(1))),
                'p' | 'y' | 'k' => self.exec(Op::Up(count.unwrap_or(1))),
                'f' | 'v' => self.exec(Op::Down(count.unwrap_or(page))),
                'b' => self.exec(Op::Up(count.unwrap_or(page))),
                'd' => self.exec(Op::Down(count.unwrap_or(half))),
                'u' => self.exec(Op::Up(count.unwrap_or(half))),
                'c' => self.cancel(),
                'l' => self.message = None,
                _ => {}
            },
            KeyCode::Char(c @ '0'..='9') => {
                let d = c as u64 - '0' as u64;
                self.count = Some(count.unwrap_or(0).saturating_mul(10).saturating_add(d));
            }
            KeyCode::Char('q' | 'Q') => self.quit = true,
            KeyCode::Char('j' | 'e') | KeyCode::Down | KeyCode::Enter => {
                self.exec(Op::Down(count.unwrap_or(1)))
            }
            KeyCode::Char('k' | 'y') | KeyCode::Up => self.exec(Op::Up(count.unwrap_or(1))),
            KeyCode::Char(' ' | 'f' | 'z') | KeyCode::PageDown => {
                self.exec(Op::Down(count.unwrap_or(page)))
            }
            KeyCode::Char('b' | 'w') | KeyCode::PageUp => self.exec(Op::Up(count.unwrap_or(page))),
            KeyCode::Char('d') => self.exec(Op::Down(count.unwrap_or(half))),
            KeyCode::Char('u') => self.exec(Op::Up(count.unwrap_or(half))),
            KeyCode::Char('g' | '<') | KeyCode::Home => match count {
                Some(n) => self.exec(Op::Goto(n.saturating_sub(1), true)),
                None => self.exec(Op::Top),
            },
            KeyCode::Char('G' | '>') | KeyCode::End => match count {
                Some(n) => self.exec(Op::Goto(n.saturating_sub(1), true)),
                None => self.exec(Op::Bottom),
            },
            KeyCode::Char('%' | 'p') => self.percent_of(count.unwrap_or(0).min(100), 100),
            KeyCode::Char(':') => self.open_prompt(PromptKind::Colon),
            KeyCode::Char('/') => self.open_prompt(PromptKind::Search(false)),
            KeyCode::Char('?') => self.open_prompt(PromptKind::Search(true)),
            KeyCode::Char('&') => self.open_prompt(PromptKind::Filter),
            KeyCode::Char('n') => self.repeat_search(false),
            KeyCode::Char('N') => self.repeat_search(true),
            KeyCode::Char(c @ ('m' | '\'' | '-' | 'Z')) => self.prefix = Some(c),
            KeyCode::Char('F') => self.follow(),
            KeyCode::Char('h' | 'H') => {
                self.message = Some(
                    "keys: j k f b d u g G :N N% / ? n N &pat F m' -N -S -i -w arrows q".into(),
                )
            }
            KeyCode::Right => self.scroll_sideways(true),
            KeyCode::Left => self.scroll_sideways(false),
            KeyCode::Esc => self.cancel(),
            KeyCode::Char('!') if std::env::var_os("LIDX_VIEW_TEST_PANIC").is_some() => {
                // The tests' way to check that a panic restores the terminal.
                panic!("LIDX_VIEW_TEST_PANIC")
            }
            _ => {}
        }
    }

    fn prefixed(&mut self, p: char, c: char) {
        match (p, c) {
            ('Z', 'Z') => self.quit = true,
            ('m', c) if c.is_ascii_alphabetic() => {
                self.marks.insert(c, self.pos);
                self.message = Some(format!("mark {c} set at line {}", self.pos.line + 1));
            }
            ('\'', '\'') => match self.prev {
                Some(p) => self.exec(Op::To(p)),
                None => self.message = Some("no previous position".into()),
            },
            ('\'', '^') => self.exec(Op::Top),
            ('\'', '$') => self.exec(Op::Bottom),
            ('\'', c) => match self.marks.get(&c) {
                Some(&p) => self.exec(Op::To(p)),
                None => self.message = Some(format!("mark {c} not set")),
            },
            ('-', 'N') => {
                self.numbers = !self.numbers;
                self.exec(Op::Settle);
            }
            ('-', 'S') => {
                self.wrap = !self.wrap;
                self.hscroll = 0;
                self.pos.row = 0;
                self.message = Some(
                    if self.wrap {
                        "wrap long lines"
                    } else {
                        "chop long lines"
                    }
                    .into(),
                );
                self.exec(Op::Settle);
            }
            ('-', 'i') => {
                self.mopts.case_insensitive = !self.mopts.case_insensitive;
                self.message = Some(format!(
                    "ignore case {}",
                    if self.mopts.case_insensitive {
                        "on"
                    } else {
                        "off"
                    }
                ));
                self.recompile();
            }
            ('-', 'w') => {
                self.mopts.word = !self.mopts.word;
                self.message = Some(format!(
                    "whole words {}",
                    if self.mopts.word { "on" } else { "off" }
                ));
                self.recompile();
            }
            _ => {}
        }
    }

    fn scroll_sideways(&mut self, right: bool) {
        if self.wrap {
            self.message = Some("long lines wrap: -S chops them".into());
            return;
        }
        let step = (self.text_width() / 2).max(1);
        self.hscroll = if right {
            self.hscroll.saturating_add(step)
        } else {
            self.hscroll.saturating_sub(step)
        };
    }

    fn open_prompt(&mut self, kind: PromptKind) {
        self.prompt = Some(Prompt {
            kind,
            text: String::new(),
        });
    }

    fn prompt_key(&mut self, k: KeyEvent) {
        let Some(p) = self.prompt.as_mut() else {
            return;
        };
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        match k.code {
            KeyCode::Esc => self.prompt = None,
            KeyCode::Char('c') if ctrl => self.prompt = None,
            KeyCode::Char('u') if ctrl => p.text.clear(),
            KeyCode::Backspace if p.text.pop().is_none() => self.prompt = None,
            KeyCode::Backspace => {}
            KeyCode::Enter => {
                let p = self.prompt.take().expect("a prompt");
                self.submit(p);
            }
            KeyCode::Char(c) if !ctrl => p.text.push(c),
            _ => {}
        }
    }

    fn submit(&mut self, p: Prompt) {
        match p.kind {
            PromptKind::Colon => {
                let t = p.text.trim();
                if t == "q" || t == "q!" {
                    self.quit = true;
                } else if let Some(pct) = t.strip_suffix('%') {
                    match pct.trim().parse::<u64>() {
                        Ok(n) => self.percent_of(n.min(100), 100),
                        Err(_) => self.message = Some(format!("not a percentage: {t}")),
                    }
                } else if t == "$" {
                    self.exec(Op::Bottom);
                } else if let Some(at) = t.strip_prefix('@') {
                    self.time_of(at.trim());
                } else if !t.is_empty() {
                    match t.replace(',', "").parse::<u64>() {
                        Ok(n) => self.exec(Op::Goto(n.saturating_sub(1), true)),
                        Err(_) => self.message = Some(format!("not a line number: {t}")),
                    }
                }
            }
            PromptKind::Search(backward) => {
                let pattern = if p.text.is_empty() {
                    match &self.search {
                        Some((s, _, _)) => s.clone(),
                        None => {
                            self.message = Some("no previous search".into());
                            return;
                        }
                    }
                } else {
                    p.text
                };
                match self.compile(&pattern) {
                    Ok(m) => {
                        self.search = Some((pattern, m, backward));
                        self.last_match = None;
                        self.start_search(backward);
                    }
                    Err(e) => self.message = Some(e),
                }
            }
            PromptKind::Filter => {
                if p.text.is_empty() {
                    self.set_filter(None);
                    self.message = Some("filter off".into());
                } else {
                    match self.compile(&p.text) {
                        Ok(m) => self.set_filter(Some((p.text, m))),
                        Err(e) => self.message = Some(e),
                    }
                }
            }
        }
    }

    fn compile(&self, pattern: &str) -> Result<Arc<Matcher>, String> {
        Matcher::new(&[pattern.to_string()], &self.mopts)
            .map(Arc::new)
            .map_err(|e| e.to_string())
    }

    /// The options changed: the search and the filter are compiled again.
    fn recompile(&mut self) {
        if let Some((s, _, b)) = self.search.take()
            && let Ok(m) = self.compile(&s)
        {
            self.search = Some((s, m, b));
        }
        if let Some(f) = self.filter.take() {
            let m = self.compile(&f.pattern);
            self.set_filter(m.ok().map(|m| (f.pattern, m)));
        }
    }

    fn set_filter(&mut self, f: Option<(String, Arc<Matcher>)>) {
        self.filterer.cancel();
        self.pending.clear();
        self.filter = f.map(|(pattern, matcher)| Filter {
            pattern,
            matcher,
            chunks: HashMap::new(),
            order: VecDeque::new(),
            lines_kept: 0,
            asked: None,
            progress: None,
        });
        self.exec(Op::Settle);
    }

    /// Cancels the running search, filter computation and waiting moves.
    fn cancel(&mut self) {
        self.count = None;
        if self.locating {
            // A late answer is ignored.
            self.locating = false;
            self.locate_token += 1;
        }
        if self.running.take().is_some() {
            self.searcher.cancel();
            self.message = Some("search cancelled".into());
        }
        if let Some(f) = &self.filter
            && f.asked.is_some()
        {
            self.filterer.cancel();
            self.message = Some(format!("filter &{} cancelled", f.pattern));
            self.filter = None;
            self.pending.clear();
            self.exec(Op::Settle);
            return;
        }
        self.pending.clear();
    }

    // ----- search -----------------------------------------------------------

    fn start_search(&mut self, backward: bool) {
        let Some(index) = self.index.clone() else {
            return;
        };
        let Some((_, m, _)) = self.search.clone() else {
            return;
        };
        let top = self.pos.line;
        let shown = self.last_match.filter(|&l| l >= top && self.on_screen(l));
        let lines = if backward {
            0..shown.unwrap_or(top)
        } else {
            shown.map_or(top, |l| l + 1)..index.line_count()
        };
        self.launch(&index, &m, lines, backward, false);
    }

    fn launch(
        &mut self,
        index: &Arc<Index>,
        m: &Arc<Matcher>,
        lines: std::ops::Range<u64>,
        backward: bool,
        wrapped: bool,
    ) {
        let generation = self.searcher.cancel();
        self.searcher.send(
            self.store.epoch(),
            index,
            m,
            Job::Search {
                lines: lines.clone(),
                backward,
            },
        );
        self.running = Some(Running {
            generation,
            backward,
            lines,
            wrapped,
            progress: None,
        });
    }

    fn repeat_search(&mut self, reverse: bool) {
        match &self.search {
            Some((_, _, backward)) => {
                let b = *backward != reverse;
                self.start_search(b);
            }
            None => self.message = Some("no previous search".into()),
        }
    }

    /// Searches the rest of the file after a search reached its end.
    fn wrap_search(&mut self, r: Running) {
        let (Some(index), Some((_, m, _))) = (self.index.clone(), self.search.clone()) else {
            return;
        };
        let lines = if r.backward {
            r.lines.end..index.line_count()
        } else {
            0..r.lines.start
        };
        self.launch(&index, &m, lines, r.backward, true);
    }

    fn on_screen(&self, line: u64) -> bool {
        line >= self.pos.line && line < self.pos.line + self.text_rows()
    }

    fn scanned(&mut self, generation: u64, epoch: u64, found: Result<Found, String>) {
        match found {
            Ok(Found::Line(line)) => {
                let Some(r) = self.running.take_if(|r| r.generation == generation) else {
                    return;
                };
                match line {
                    Some(l) => {
                        self.last_match = Some(l);
                        self.message = r.wrapped.then(|| "search wrapped".to_string());
                        self.exec(Op::Goto(l, true));
                    }
                    None if r.wrapped => self.message = Some("Pattern not found".into()),
                    None => {
                        let pattern = self
                            .search
                            .as_ref()
                            .map(|s| s.0.clone())
                            .unwrap_or_default();
                        self.message = Some(if r.backward {
                            format!(
                                "search hit TOP: no match for {pattern} above; Enter or n continues from the BOTTOM"
                            )
                        } else {
                            format!(
                                "search hit BOTTOM: no match for {pattern} below; Enter or n continues from the TOP"
                            )
                        });
                        self.offer_wrap = Some(r);
                    }
                }
            }
            Ok(Found::Chunk(c, lines)) => {
                if generation != self.filterer.generation() || epoch != self.store.epoch() {
                    return;
                }
                let Some(f) = self.filter.as_mut() else {
                    return;
                };
                f.asked = None;
                f.progress = None;
                f.lines_kept += lines.len();
                f.chunks.insert(c, Arc::new(lines));
                f.order.push_back(c);
                while f.order.len() > FILTER_CHUNKS_KEPT
                    || (f.lines_kept > FILTER_LINES_KEPT && f.order.len() > 1)
                {
                    if let Some(old) = f.order.pop_front()
                        && let Some(v) = f.chunks.remove(&old)
                    {
                        f.lines_kept -= v.len();
                    }
                }
                self.retry();
            }
            Err(e) => {
                if self
                    .running
                    .take_if(|r| r.generation == generation)
                    .is_some()
                    || generation == self.filterer.generation()
                {
                    self.pending.clear();
                    if let Some(f) = self.filter.as_mut() {
                        f.asked = None;
                    }
                    self.message = Some(format!("error: {e}"));
                }
            }
        }
    }

    // ----- percent, follow ---------------------------------------------------

    /// Goes to the line holding byte `len × num / den`.
    fn percent_of(&mut self, num: u64, den: u64) {
        let Some(index) = self.index.clone() else {
            return;
        };
        if num == 0 {
            self.exec(Op::Top);
            return;
        }
        let offset = (index.source_len() as u128 * num as u128 / den.max(1) as u128) as u64;
        self.locate_token += 1;
        self.locating = true;
        self.store.locate(&index, offset, self.locate_token);
    }

    /// `:@T`: to the first line at or after time T, found through the
    /// time index by the reader thread (a time index is built by `lidx
    /// index --time`, not here: that reads the whole file).
    fn time_of(&mut self, at: &str) {
        let Some(index) = self.index.clone() else {
            self.message = Some("the index is not ready yet".into());
            return;
        };
        if !index.has_time_index() {
            self.message = Some(format!(
                "no time index: build one with `lidx index --time {}`",
                self.file.display()
            ));
            return;
        }
        self.locate_token += 1;
        self.locating = true;
        self.store
            .locate_time(&index, at.to_string(), self.locate_token);
    }

    fn follow(&mut self) {
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

    fn followed(&mut self, r: Result<(lidx::FollowEvent, Option<Arc<Index>>), String>) {
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

    // ----- drawing -------------------------------------------------------------

    fn draw(&mut self, terminal: &mut Term) -> lidx::Result<()> {
        self.store.tick();
        let area = terminal.size().map_err(|e| term_error(&self.file, e))?;
        if (area.width, area.height) != self.size {
            self.size = (area.width, area.height);
            self.exec(Op::Settle);
        }
        let (text, complete, shown) = self.compose();
        let status = self.status(&shown);
        let scrollbar = self.scrollbar(&shown);
        let cursor = self
            .prompt
            .as_ref()
            .map(|p| p.text.chars().count() as u16 + 1);
        let h = self.size.1;
        let w = self.size.0;
        terminal
            .draw(|f| {
                let text_area = Rect::new(0, 0, w.saturating_sub(1), h.saturating_sub(1));
                f.render_widget(Paragraph::new(text), text_area);
                let bar_area = Rect::new(w.saturating_sub(1), 0, 1.min(w), h.saturating_sub(1));
                f.render_widget(Paragraph::new(scrollbar), bar_area);
                let status_area = Rect::new(0, h.saturating_sub(1), w, 1.min(h));
                f.render_widget(Paragraph::new(status), status_area);
                if let Some(x) = cursor {
                    f.set_cursor_position((x.min(w.saturating_sub(1)), h.saturating_sub(1)));
                }
            })
            .map_err(|e| term_error(&self.file, e))?;
        // Complete: what was asked is on screen (a search or a percentage
        // still on its way is not).
        self.complete =
            complete && self.pending.is_empty() && self.running.is_none() && !self.locating;
        if self.complete && self.index.is_some() {
            // The timing log: the first full screen after launch, then one
            // line per key shown.
            let what = if let Some(at) = self.started.take() {
                Some(("open", at))
            } else {
                self.key_at.take().map(|at| ("key", at))
            };
            if let (Some((what, at)), Some(t)) = (what, self.timing.as_mut()) {
                let _ = writeln!(
                    t,
                    "{what} {} us line {} held {} rss_kib {}",
                    at.elapsed().as_micros(),
                    self.pos.line + 1,
                    self.store.held_bytes(),
                    peak_rss_kib()
                );
            }
        }
        if self.complete {
            self.prefetch(&shown);
        }
        Ok(())
    }

    /// The blocks around the screen, asked for ahead of need.
    fn prefetch(&mut self, shown: &Shown) {
        if self.filter.is_some() || self.index.is_none() {
            return;
        }
        let first = shown.first.unwrap_or(0) / BLOCK;
        let last = shown.last.unwrap_or(0) / BLOCK;
        let count = self.line_count().div_ceil(BLOCK);
        for n in [first.saturating_sub(1), last + 1] {
            if n < count && !self.store.has(n) {
                self.ask(Need::Block(n), true);
            }
        }
    }

    /// The text rows, whether all of them were held, and what they show.
    fn compose(&mut self) -> (Vec<Line<'static>>, bool, Shown) {
        let rows_wanted = self.text_rows() as usize;
        let gutter = self.gutter();
        let layout = self.layout();
        let mut out: Vec<Line<'static>> = Vec::with_capacity(rows_wanted);
        let mut shown = Shown::default();
        let mut complete = true;
        let mut line = match self.at_or_after(self.pos.line) {
            Ok(l) => l,
            Err(n) => {
                self.ask(n, false);
                complete = false;
                None
            }
        };
        let mut skip = self.pos.row as usize;
        let escape = Style::default().add_modifier(Modifier::REVERSED);
        let hit = Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD);
        let dim = Style::default().add_modifier(Modifier::DIM);
        while out.len() < rows_wanted {
            let Some(l) = line else {
                break;
            };
            let (h, i) = match self.held(l) {
                Ok(v) => v,
                Err(n) => {
                    self.ask(n, false);
                    complete = false;
                    break;
                }
            };
            shown.first.get_or_insert(l);
            shown.first_offset.get_or_insert(h.offset(i));
            shown.last = Some(l);
            let bytes = h.line(i);
            let hits = self.hits(bytes);
            let marker = Self::marker(h.more(i));
            let rows: Vec<Row> =
                render::rows(&render::units(bytes), marker.as_deref(), &hits, &layout);
            for (k, row) in rows.into_iter().enumerate().skip(skip) {
                if out.len() >= rows_wanted {
                    break;
                }
                let mut spans = Vec::with_capacity(row.segs.len() + 1);
                if gutter > 0 {
                    let g = if k == 0 {
                        format!("{:>w$} ", l + 1, w = gutter - 1)
                    } else {
                        " ".repeat(gutter)
                    };
                    spans.push(Span::styled(g, dim));
                }
                for s in row.segs {
                    let style = if s.highlight {
                        hit
                    } else if s.escape {
                        escape
                    } else {
                        Style::default()
                    };
                    spans.push(Span::styled(s.text, style));
                }
                out.push(Line::from(spans));
                shown.last_row_of_last = true;
            }
            skip = 0;
            line = match self.at_or_after(l + 1) {
                Ok(Some(n)) => Some(n),
                Ok(None) => {
                    shown.end = true;
                    None
                }
                Err(n) => {
                    if out.len() < rows_wanted {
                        self.ask(n, false);
                        complete = false;
                    }
                    None
                }
            };
        }
        if self.line_count() == 0 && self.index.is_some() {
            shown.end = true;
        }
        (out, complete, shown)
    }

    /// Byte ranges of `line` to highlight: the search's matches and the
    /// filter's.
    fn hits(&self, line: &[u8]) -> Vec<std::ops::Range<usize>> {
        let mut hits = Vec::new();
        let ms = self
            .search
            .as_ref()
            .map(|s| &s.1)
            .into_iter()
            .chain(self.filter.as_ref().map(|f| &f.matcher));
        for m in ms {
            m.for_each_match(line, false, |a, b| {
                if a < b {
                    hits.push(a..b);
                }
                hits.len() < 4096
            });
        }
        hits
    }

    fn scrollbar(&self, shown: &Shown) -> Vec<Line<'static>> {
        let rows = self.text_rows() as usize;
        let len = match &self.index {
            Some(i) => i.source_len(),
            None => 0,
        };
        let thumb = if len == 0 {
            0
        } else {
            let at = shown.first_offset.unwrap_or(0);
            ((at as u128 * rows as u128 / len as u128) as usize).min(rows.saturating_sub(1))
        };
        let thumb = if shown.end && len > 0 {
            rows.saturating_sub(1).max(thumb)
        } else {
            thumb
        };
        (0..rows)
            .map(|r| {
                if r == thumb {
                    Line::from(Span::styled(
                        "#",
                        Style::default().add_modifier(Modifier::REVERSED),
                    ))
                } else {
                    Line::from("|")
                }
            })
            .collect()
    }

    fn status(&self, shown: &Shown) -> Line<'static> {
        if let Some(p) = &self.prompt {
            let c = match p.kind {
                PromptKind::Colon => ':',
                PromptKind::Search(false) => '/',
                PromptKind::Search(true) => '?',
                PromptKind::Filter => '&',
            };
            return Line::from(format!("{c}{}", p.text));
        }
        let mut s = String::new();
        if let Some(m) = &self.message {
            s.push_str(m);
            s.push_str("  ");
        }
        s.push_str(&self.name);
        let total = self.line_count();
        match (shown.first, shown.last) {
            (Some(a), Some(b)) => s.push_str(&format!(" lines {}-{}", a + 1, b + 1)),
            _ => s.push_str(" lines -"),
        }
        match &self.index {
            Some(i) => {
                s.push_str(&format!("/{total}"));
                if shown.end {
                    s.push_str(" (END)");
                } else if i.source_len() > 0 {
                    let at = shown.first_offset.unwrap_or(0);
                    s.push_str(&format!(" {}%", at as u128 * 100 / i.source_len() as u128));
                }
            }
            None => {
                s.push_str(&format!("/{total}+"));
                match self.build {
                    Some((d, t)) if t > 0 => {
                        s.push_str(&format!(" indexing {:.1}%", d as f64 * 100.0 / t as f64))
                    }
                    _ => s.push_str(" opening"),
                }
            }
        }
        if let Some(f) = &self.filter {
            s.push_str(&format!(" &{}", f.pattern));
            if let Some(c) = f.asked {
                let at = c * FILTER_CHUNK + 1;
                s.push_str(&format!(" filtering at line {at}"));
                if let Some((d, t)) = f.progress
                    && t > 0
                {
                    s.push_str(&format!(" ({}%)", d * 100 / t));
                }
                s.push_str(" (Esc cancels)");
            }
        }
        if let Some(r) = &self.running {
            let pattern = self.search.as_ref().map(|s| s.0.as_str()).unwrap_or("");
            s.push_str(&format!(
                " searching {}{pattern}",
                if r.backward { '?' } else { '/' }
            ));
            if let Some((d, t)) = r.progress
                && t > 0
            {
                s.push_str(&format!(" {}%", d * 100 / t));
            }
            s.push_str(" (Esc cancels)");
        }
        if self.following.is_some() {
            s.push_str(" following (any key stops)");
        }
        if !self.complete && self.index.is_some() && !self.pending.is_empty() {
            s.push_str(" ...");
        }
        Line::from(Span::styled(
            s,
            Style::default().add_modifier(Modifier::REVERSED),
        ))
    }
}

/// What a frame showed.
#[derive(Debug, Default)]
struct Shown {
    first: Option<u64>,
    first_offset: Option<u64>,
    last: Option<u64>,
    /// The last line of the file (or of the filter) is on screen.
    end: bool,
    last_row_of_last: bool,
}
