//! Frames: the text rows, the scrollbar and the status line.

use super::keys::PromptKind;
use super::model::{Need, Op};
use super::{App, Term, peak_rss_kib, term_error};
use crate::view::render::{self, Row};
use crate::view::scan::FILTER_CHUNK;
use crate::view::store::BLOCK;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use std::io::Write;

impl App {
    // ----- drawing -------------------------------------------------------------

    pub(super) fn draw(&mut self, terminal: &mut Term) -> lidx::Result<()> {
        self.store.tick();
        let area = terminal.size().map_err(|e| term_error(&self.file, e))?;
        if (area.width, area.height) != self.size {
            self.size = (area.width, area.height);
            self.exec(Op::Settle);
        }
        let (text, complete, shown) = self.compose();
        let (said, status) = self.status(&shown);
        let (text, said, status) = match self.help {
            Some(top) => {
                let (rows, status) = self.help_screen(top);
                (rows, Vec::new(), status)
            }
            None => (text, said, status),
        };
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
                // A message too long for the status row: its rows over the
                // last rows of text, the whole width.
                let k = (said.len() as u16).min(h.saturating_sub(2));
                if k > 0 {
                    let said_area = Rect::new(0, h - 1 - k, w, k);
                    f.render_widget(ratatui::widgets::Clear, said_area);
                    f.render_widget(Paragraph::new(said), said_area);
                }
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
    pub(super) fn prefetch(&mut self, shown: &Shown) {
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
    pub(super) fn compose(&mut self) -> (Vec<Line<'static>>, bool, Shown) {
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
            let rows: Vec<Row> = render::rows(
                bytes,
                &render::units(bytes, layout.ansi),
                marker.as_deref(),
                &hits,
                &layout,
            );
            for (k, row) in rows.into_iter().enumerate().skip(skip) {
                if out.len() >= rows_wanted {
                    break;
                }
                let mut spans = Vec::with_capacity(row.segs.len() + 1);
                if gutter > 0 {
                    if k == 0 {
                        for (t, style) in self.gutter_of(l, dim) {
                            spans.push(Span::styled(t, style));
                        }
                    } else {
                        spans.push(Span::styled(" ".repeat(gutter), dim));
                    }
                }
                for s in row.segs {
                    let style = if s.highlight {
                        hit
                    } else if s.escape {
                        escape
                    } else {
                        s.style
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
    pub(super) fn hits(&self, line: &[u8]) -> Vec<std::ops::Range<usize>> {
        let mut hits = Vec::new();
        let ms = self
            .search
            .as_ref()
            .map(|s| &s.1)
            .into_iter()
            .chain(self.filter.as_ref().map(|f| &f.finder));
        for m in ms {
            m.matcher.for_each_match(line, false, |a, b| {
                if a < b {
                    hits.push(a..b);
                }
                hits.len() < 4096
            });
        }
        hits
    }

    pub(super) fn scrollbar(&self, shown: &Shown) -> Vec<Line<'static>> {
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

    /// The status row, and the rows of a message that does not fit in it
    /// (wider than the screen, or of several lines), wrapped at the
    /// screen's width.
    pub(super) fn status(&self, shown: &Shown) -> (Vec<Line<'static>>, Line<'static>) {
        if let Some(p) = &self.prompt {
            let c = match p.kind {
                PromptKind::Colon => ':',
                PromptKind::Search(false) => '/',
                PromptKind::Search(true) => '?',
                PromptKind::Filter => '&',
            };
            return (Vec::new(), Line::from(format!("{c}{}", p.text)));
        }
        let info = self.position(shown);
        let style = Style::default().add_modifier(Modifier::REVERSED);
        let width = self.size.0 as usize;
        let Some(m) = &self.message else {
            return (Vec::new(), Line::from(Span::styled(info, style)));
        };
        // The message whole on the status row, the position after it
        // (cut at the edge when it does not fit).
        if !m.contains('\n') && m.chars().count() <= width {
            let one: String = format!("{m}  {info}").chars().take(width).collect();
            return (Vec::new(), Line::from(Span::styled(one, style)));
        }
        let mut rows = Vec::new();
        for line in m.lines() {
            let chars: Vec<char> = line.chars().collect();
            for piece in chars.chunks(width.max(1)) {
                rows.push(Line::from(Span::styled(
                    piece.iter().collect::<String>(),
                    Style::default().add_modifier(Modifier::BOLD),
                )));
            }
            if chars.is_empty() {
                rows.push(Line::from(""));
            }
        }
        (rows, Line::from(Span::styled(info, style)))
    }

    /// The status row without a message: the file, the lines shown, what
    /// runs.
    fn position(&self, shown: &Shown) -> String {
        let mut s = String::new();
        s.push_str(&self.name);
        let total = self.last_shown();
        match (shown.first, shown.last) {
            (Some(a), Some(b)) => {
                s.push_str(&format!(" lines {}-{}", self.shown(a), self.shown(b)))
            }
            _ => s.push_str(" lines -"),
        }
        match &self.index {
            Some(i) => {
                s.push_str(&format!("/{total}"));
                if self.pipe.as_ref().is_some_and(|p| !p.ended) {
                    s.push('+');
                }
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
                        // Several logs: their merge by time reports (their
                        // sidecars were built before the screen).
                        let what = if self.files.is_empty() {
                            "indexing"
                        } else {
                            "merging"
                        };
                        s.push_str(&format!(" {what} {:.1}%", d as f64 * 100.0 / t as f64))
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
        match &self.pipe {
            Some(p) if p.ended => s.push_str(" input ended"),
            Some(_) => s.push_str(" reading input"),
            None => {}
        }
        if self.following.is_some() {
            s.push_str(" following (any key stops)");
        }
        if !self.complete && self.index.is_some() && !self.pending.is_empty() {
            s.push_str(" ...");
        }
        s
    }
}

/// What a frame showed.
#[derive(Debug, Default)]
pub(super) struct Shown {
    pub(super) first: Option<u64>,
    pub(super) first_offset: Option<u64>,
    pub(super) last: Option<u64>,
    /// The last line of the file (or of the filter) is on screen.
    pub(super) end: bool,
    pub(super) last_row_of_last: bool,
}
