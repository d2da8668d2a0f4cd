//! The screen model: a position, what is held of the lines around it,
//! and the moves.

use super::App;
use crate::view::render::{self, Layout};
use crate::view::scan::{FILTER_CHUNK, Job};
use crate::view::store::{BLOCK, Held};
use std::sync::Arc;

/// Blocks asked ahead of a walk that waits for one.
const WALK_AHEAD: u64 = 4;

/// A place on the screen's first row: a line and a row of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Pos {
    pub(super) line: u64,
    pub(super) row: u32,
}

/// Something not held yet.
#[derive(Debug, Clone, Copy)]
pub(super) enum Need {
    Block(u64),
    Filter(u64),
}

/// A walk stopped at a line not held: where it got to, the rows left,
/// what it needs.
pub(super) type Stuck = (Pos, u64, Need);

/// A move.
#[derive(Debug, Clone, Copy)]
pub(super) enum Op {
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
    /// To a search's match: a line, and the byte in it to show (its row,
    /// or chopped, its columns).
    GotoHit(u64, u64),
    /// Back to a remembered place.
    To(Pos),
    /// Keep the position valid (after a resize or a new filter).
    Settle,
}

impl App {
    // ----- what is held -------------------------------------------------

    pub(super) fn line_count(&self) -> u64 {
        match &self.index {
            Some(i) => i.line_count(),
            None => self.head_lines,
        }
    }

    pub(super) fn text_width(&self) -> usize {
        (self.size.0 as usize)
            .saturating_sub(1 + self.gutter())
            .max(1)
    }

    pub(super) fn text_rows(&self) -> u64 {
        (self.size.1 as u64).saturating_sub(1).max(1)
    }

    pub(super) fn layout(&self) -> Layout {
        Layout {
            width: self.text_width(),
            wrap: self.wrap,
            hscroll: self.hscroll,
            ansi: self.ansi,
        }
    }

    /// Line `line` as held: its block and index in it.
    pub(super) fn held(&mut self, line: u64) -> Result<(Arc<Held>, usize), Need> {
        let n = line / BLOCK;
        match self.store.get(n) {
            Some(h) if ((line % BLOCK) as usize) < h.len() => Ok((h, (line % BLOCK) as usize)),
            Some(_) => Err(Need::Block(n)),
            None => Err(Need::Block(n)),
        }
    }

    pub(super) fn marker(more: u64) -> Option<String> {
        match more {
            0 => None,
            u64::MAX => Some("[...]".to_string()),
            m => Some(render::cut_marker(m)),
        }
    }

    /// Rows of line `line` on screen.
    pub(super) fn rows(&mut self, line: u64) -> Result<u32, Need> {
        if !self.wrap {
            return Ok(1);
        }
        let key = (self.text_width(), self.wrap, self.ansi, self.store.epoch());
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

    /// The row of line `line` that shows byte `byte` of it; chopped, the
    /// first row, scrolled sideways so that the byte shows.
    pub(super) fn row_of_byte(&mut self, line: u64, byte: u64) -> Result<u32, Need> {
        let (h, i) = self.held(line)?;
        let units = render::units(h.line(i), self.ansi);
        if self.wrap {
            let marker = Self::marker(h.more(i));
            let rows = render::rows(h.line(i), &units, marker.as_deref(), &[], &self.layout());
            let row = rows
                .iter()
                .rposition(|r| r.first_byte.is_some_and(|b| b as u64 <= byte))
                .unwrap_or(0);
            return Ok(row as u32);
        }
        let col = render::column_of(&units, byte as usize);
        let width = self.text_width();
        if col < self.hscroll || col >= self.hscroll + width {
            self.hscroll = col.saturating_sub(width / 4);
        }
        Ok(0)
    }

    /// The first line shown at or after `line`.
    pub(super) fn at_or_after(&mut self, line: u64) -> Result<Option<u64>, Need> {
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
    pub(super) fn before(&mut self, line: u64) -> Result<Option<u64>, Need> {
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
    pub(super) fn advance(&mut self, mut pos: Pos, n: u64) -> Result<Pos, Stuck> {
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
    pub(super) fn back(&mut self, mut pos: Pos, n: u64) -> Result<Pos, Stuck> {
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
    pub(super) fn walk(&mut self, from: Pos, n: u64, down: bool) -> Result<Pos, Need> {
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
    pub(super) fn fill(&mut self, pos: Pos, limit: u64) -> Result<u64, Need> {
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
    pub(super) fn bottom(&mut self) -> Result<Pos, Need> {
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
    pub(super) fn settle(&mut self, pos: Pos) -> Result<Pos, Need> {
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

    pub(super) fn run_op(&mut self, op: Op) -> Result<(), Need> {
        let old = self.pos;
        let (pos, jump) = match op {
            Op::Down(n) => (self.walk(self.pos, n, true)?, false),
            Op::Up(n) => (self.walk(self.pos, n, false)?, false),
            Op::DownFrom(p, n) => (self.walk(p, n, true)?, false),
            Op::UpFrom(p, n) => (self.walk(p, n, false)?, false),
            Op::Top => (self.settle(Pos::default())?, true),
            Op::Bottom => (self.bottom()?, true),
            Op::Goto(l, jump) => (self.settle(Pos { line: l, row: 0 })?, jump),
            Op::GotoHit(l, byte) => {
                let row = self.row_of_byte(l, byte)?;
                (self.settle(Pos { line: l, row })?, true)
            }
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
    pub(super) fn exec(&mut self, op: Op) {
        self.pending.push_back(op);
        if self.pending.len() == 1 {
            self.retry();
        }
    }

    /// Runs the waiting ops until one needs data.
    pub(super) fn retry(&mut self) {
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

    pub(super) fn ask(&mut self, need: Need, prefetch: bool) {
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
                        .send(epoch, &index, &f.finder, Job::Filter { n: c });
                }
            }
        }
    }

    // ----- percent, follow ---------------------------------------------------

    /// Goes to the line holding byte `len × num / den`.
    pub(super) fn percent_of(&mut self, num: u64, den: u64) {
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
    pub(super) fn time_of(&mut self, at: &str) {
        let Some(index) = self.index.clone() else {
            self.message = Some("the index is not ready yet".into());
            return;
        };
        if self.joined_time_of(at) {
            return;
        }
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
}
