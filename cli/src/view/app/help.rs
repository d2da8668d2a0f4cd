//! The help screen (`h`, `H`; `?` searches backward, as in less): every
//! key the viewer has, on a screen of its own, scrolled with the moving
//! keys and closed with `q` or `Esc`.

use super::App;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

/// The keys, by group: (keys, what they do); a group starts with a row
/// whose keys are empty and whose text is the group's name.
const KEYS: &[(&str, &str)] = &[
    (
        "",
        "Moving (a number N before a key repeats it or says where)",
    ),
    ("j  Down  Enter  e  ^N  ^E  ^J", "one line down"),
    ("k  Up  y  ^P  ^Y  ^K", "one line up"),
    ("Space  f  z  PgDn  ^F  ^V", "one page down"),
    ("b  w  PgUp  ^B", "one page up"),
    ("d  ^D  /  u  ^U", "half a page down / up"),
    ("g  <  Home  /  G  >  End", "the first / the last line"),
    ("Ng  NG  :N", "line N (:$ the last)"),
    (
        ":FILE:N",
        "several files shown: line N of FILE (its name, or its start)",
    ),
    ("N%  Np  :N%", "the line holding byte N% of the file"),
    (
        ":@T",
        "the first line at or after time T (:@yesterday 22:00), through the time index",
    ),
    ("Left  Right", "chopped long lines: half a screen sideways"),
    (
        "mouse wheel",
        "3 lines; a click on the scrollbar: that part of the file",
    ),
    ("", "Searching"),
    (
        "/re  ?re",
        "search forward / backward (a regex), wrapping at the end",
    ),
    ("n  N", "the next match the same way / the other way"),
    (
        "&re  /  & Enter",
        "only the lines matching re / all lines again",
    ),
    (
        "Esc  ^C",
        "cancel a search, a filter, a move waiting for data",
    ),
    ("", "Marks"),
    ("mx", "set mark x (a letter) here"),
    ("'x", "go to mark x"),
    ("''", "back to where the last jump came from"),
    ("'^  '$", "the first / the last line"),
    ("", "Options (toggled)"),
    ("-N", "line numbers"),
    ("-S", "wrap or chop long lines"),
    ("-i", "ignore case in searches and the filter"),
    ("-w", "whole words in searches and the filter"),
    (
        "-R",
        "colour sequences (ESC [ ... m) as colours, not ^[ (as less -R)",
    ),
    ("", "Other"),
    ("F", "follow the file as it grows (any key stops)"),
    ("^L", "clear the message"),
    ("^Z", "suspend (fg brings the viewer back)"),
    ("h  H", "this help"),
    ("q  Q  ZZ  :q", "quit"),
];

impl App {
    pub(super) fn open_help(&mut self) {
        self.help = Some(0);
    }

    /// Rows of help text.
    fn help_rows(&self) -> usize {
        KEYS.len() + 2
    }

    /// A key while the help is shown.
    pub(super) fn help_key(&mut self, k: KeyEvent) {
        let Some(top) = self.help else {
            return;
        };
        let page = self.text_rows() as usize;
        let last = self.help_rows().saturating_sub(page);
        let top = match k.code {
            KeyCode::Char('q' | 'Q' | 'h' | 'H') | KeyCode::Esc => {
                self.help = None;
                return;
            }
            KeyCode::Char('j' | 'e') | KeyCode::Down | KeyCode::Enter => top + 1,
            KeyCode::Char('k' | 'y') | KeyCode::Up => top.saturating_sub(1),
            KeyCode::Char(' ' | 'f' | 'z') | KeyCode::PageDown => top + page,
            KeyCode::Char('b' | 'w') | KeyCode::PageUp => top.saturating_sub(page),
            KeyCode::Char('d') => top + page / 2,
            KeyCode::Char('u') => top.saturating_sub(page / 2),
            KeyCode::Char('g' | '<') | KeyCode::Home => 0,
            KeyCode::Char('G' | '>') | KeyCode::End => last,
            _ => top,
        };
        self.help = Some(top.min(last));
    }

    /// The help's text rows from row `top`, and its status row.
    pub(super) fn help_screen(&self, top: usize) -> (Vec<Line<'static>>, Line<'static>) {
        let bold = Style::default().add_modifier(Modifier::BOLD);
        let width = KEYS.iter().map(|(k, _)| k.len()).max().unwrap_or(0) + 2;
        let mut all = vec![
            Line::from(Span::styled("Keys of lidx view", bold)),
            Line::from(""),
        ];
        for (keys, what) in KEYS {
            all.push(if keys.is_empty() {
                Line::from(Span::styled(what.to_string(), bold))
            } else {
                Line::from(format!("  {keys:<width$}{what}"))
            });
        }
        let page = self.text_rows() as usize;
        let rows: Vec<Line<'static>> = all.into_iter().skip(top).take(page).collect();
        let end = (top + page).min(self.help_rows());
        let status = format!(
            "HELP lines {}-{}/{}{}  q or Esc closes",
            top + 1,
            end,
            self.help_rows(),
            if end == self.help_rows() {
                " (END)"
            } else {
                ""
            }
        );
        (
            rows,
            Line::from(Span::styled(
                status,
                Style::default().add_modifier(Modifier::REVERSED),
            )),
        )
    }
}
