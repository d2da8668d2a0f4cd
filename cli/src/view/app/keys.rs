//! Keys, the mouse and the prompt.

use super::App;
use super::model::Op;
use ratatui::crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEventKind,
};
use std::sync::atomic::Ordering;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PromptKind {
    Colon,
    Search(bool),
    Filter,
}

pub(super) struct Prompt {
    pub(super) kind: PromptKind,
    pub(super) text: String,
}

impl App {
    // ----- keys -----------------------------------------------------------

    pub(super) fn input(&mut self, ev: Event) {
        match ev {
            Event::Key(k)
                if k.code == KeyCode::Char('z') && k.modifiers.contains(KeyModifiers::CONTROL) =>
            {
                // Wherever the viewer is (a prompt, a build): suspended.
                self.suspend = true;
            }
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
    pub(super) fn early_key(&self, k: &KeyEvent) -> bool {
        self.help.is_some()
            || self.prompt.is_none()
                && self.prefix.is_none()
                && matches!(
                    k.code,
                    KeyCode::Char(
                        'j' | 'k' | 'e' | 'y' | ' ' | 'f' | 'b' | 'd' | 'u' | 'q' | 'Q' | 'h' | 'H'
                    ) | KeyCode::Down
                        | KeyCode::Up
                        | KeyCode::PageDown
                        | KeyCode::PageUp
                        | KeyCode::Enter
                        | KeyCode::Esc
                )
    }

    pub(super) fn key(&mut self, k: KeyEvent) {
        if self.help.is_some() {
            self.help_key(k);
            return;
        }
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
                Some(n) => self.exec(Op::Goto(self.entered(n), true)),
                None => self.exec(Op::Top),
            },
            KeyCode::Char('G' | '>') | KeyCode::End => match count {
                Some(n) => self.exec(Op::Goto(self.entered(n), true)),
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
            KeyCode::Char('h' | 'H') => self.open_help(),
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

    pub(super) fn prefixed(&mut self, p: char, c: char) {
        match (p, c) {
            ('Z', 'Z') => self.quit = true,
            ('m', c) if c.is_ascii_alphabetic() => {
                self.marks.insert(c, self.pos);
                self.message = Some(format!(
                    "mark {c} set at line {}",
                    self.shown(self.pos.line)
                ));
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
            ('-', 'R') => {
                self.ansi = !self.ansi;
                self.message = Some(
                    if self.ansi {
                        "colour sequences shown as colours"
                    } else {
                        "colour sequences shown escaped"
                    }
                    .into(),
                );
                self.exec(Op::Settle);
            }
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

    pub(super) fn scroll_sideways(&mut self, right: bool) {
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

    pub(super) fn open_prompt(&mut self, kind: PromptKind) {
        self.prompt = Some(Prompt {
            kind,
            text: String::new(),
        });
    }

    pub(super) fn prompt_key(&mut self, k: KeyEvent) {
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

    pub(super) fn submit(&mut self, p: Prompt) {
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
                } else if self.goto_in_log(t) {
                } else if !t.is_empty() {
                    match t.replace(',', "").parse::<u64>() {
                        Ok(n) => self.exec(Op::Goto(self.entered(n), true)),
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
                match self.compile(&pattern, if backward { '?' } else { '/' }) {
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
                    match self.compile(&p.text, '&') {
                        Ok(m) => self.set_filter(Some((p.text, m))),
                        Err(e) => self.message = Some(e),
                    }
                }
            }
        }
    }

    /// Cancels the running search, filter computation and waiting moves.
    pub(super) fn cancel(&mut self) {
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
}
