//! Several logs shown as one (`lidx view a.log b.log`, `--merge`,
//! `--rotated`, `--since`/`--until`), as the UI sees them: the numbers
//! shown and typed, the file named in the gutter of each line, `:FILE:N`,
//! and `:@T` through each log's time index. The index shown is the
//! logs' [`lidx::join::Joined`] whole, so moving, searching and the
//! filter are the same as on one file.
//!
//! Numbers: one log (a family, or a file within a time window) shows its
//! own numbers, and `:N` is its line N. Several logs show each line's
//! file and its number there in the gutter, while the status line and
//! `:N` count the lines of the whole, as they are shown; `:FILE:N` is
//! line N of FILE.

use super::App;
use super::model::Op;
use crate::view::Collection;
use lidx::join::{Joined, Order};
use ratatui::style::{Color, Style};
use std::sync::Arc;

/// The gutter's file names are cut to this many characters (their ends
/// kept).
const TAG_MAX: usize = 24;

/// The colours of the files' names, in turn.
const COLOURS: [Color; 6] = [
    Color::Cyan,
    Color::Magenta,
    Color::Yellow,
    Color::Green,
    Color::Blue,
    Color::Red,
];

/// The logs shown as one, with their names.
pub(super) struct Shown {
    pub(super) joined: Arc<Joined>,
    /// Each log's name as shown: its file's name, or its path as given
    /// when two logs have the same file name.
    names: Vec<String>,
    /// Each log's path, as given.
    paths: Vec<String>,
    /// Columns of a name in the gutter, and of a log's line number.
    tag_width: usize,
    number_width: usize,
}

impl Shown {
    pub(super) fn new(joined: Arc<Joined>, files: &[std::path::PathBuf]) -> Shown {
        let base = |p: &std::path::Path| {
            p.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| p.display().to_string())
        };
        let bases: Vec<String> = files.iter().map(|p| base(p)).collect();
        let names: Vec<String> = bases
            .iter()
            .zip(files)
            .map(|(b, p)| {
                if bases.iter().filter(|o| *o == b).count() > 1 {
                    p.display().to_string()
                } else {
                    b.clone()
                }
            })
            .collect();
        let tag_width = names
            .iter()
            .map(|n| n.chars().count().min(TAG_MAX))
            .max()
            .unwrap_or(0);
        let last = joined
            .logs()
            .iter()
            .map(|l| l.lines().end)
            .max()
            .unwrap_or(0);
        Shown {
            names,
            paths: files.iter().map(|p| p.display().to_string()).collect(),
            tag_width,
            number_width: super::digits(last),
            joined,
        }
    }

    /// One log: its own numbers are the ones shown and typed.
    fn single(&self) -> bool {
        self.joined.logs().len() == 1
    }

    /// The log named `name` (its name as shown, its path as given, or the
    /// only one whose name starts with it), or why none is.
    fn log_named(&self, name: &str) -> Result<usize, String> {
        if let Some(k) =
            (0..self.names.len()).find(|&k| self.names[k] == name || self.paths[k] == name)
        {
            return Ok(k);
        }
        let starts: Vec<usize> = (0..self.names.len())
            .filter(|&k| self.names[k].starts_with(name))
            .collect();
        match starts[..] {
            [k] => Ok(k),
            [] => Err(format!("no file named {name} is shown")),
            _ => Err(format!("{name} names several files")),
        }
    }
}

/// A name as the gutter shows it: at most [`TAG_MAX`] characters, its
/// start cut (`…`), so that two paths that end differently stay apart.
fn tag(name: &str) -> String {
    let n = name.chars().count();
    if n <= TAG_MAX {
        return name.to_string();
    }
    let tail: String = name.chars().skip(n - (TAG_MAX - 1)).collect();
    format!("…{tail}")
}

/// The status line's name for a collection.
pub(super) fn title(c: &Collection) -> String {
    let one = |p: &std::path::Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| p.display().to_string())
    };
    match (&c.files[..], c.order) {
        ([f], _) => one(f),
        (fs, Order::Concat) => format!("{} files", fs.len()),
        (fs, Order::Time) => format!("{} files merged", fs.len()),
    }
}

impl App {
    /// The number shown for line `l` of the index (1-based): the whole's,
    /// or with one log, its own (a family's global number).
    pub(super) fn shown(&self, l: u64) -> u64 {
        match &self.joined {
            Some(s) if s.single() => s.joined.origin(l).map_or(l + 1, |(_, n)| n + 1),
            _ => l + 1,
        }
    }

    /// The number of the last line, as shown (the status line's total).
    pub(super) fn last_shown(&self) -> u64 {
        match &self.joined {
            Some(s) if s.single() => match self.line_count() {
                0 => 0,
                n => self.shown(n - 1),
            },
            _ => self.line_count(),
        }
    }

    /// The line of number `n` as typed (`:N`, `NG`): with one log, its
    /// line N, or the first shown after it.
    pub(super) fn entered(&self, n: u64) -> u64 {
        let l = n.saturating_sub(1);
        match &self.joined {
            Some(s) if s.single() => s.joined.line_of(0, l).unwrap_or(self.line_count()),
            _ => l,
        }
    }

    /// Columns of the line numbers (and of the files' names, with several
    /// logs), a space included; 0 without numbers.
    pub(super) fn gutter(&self) -> usize {
        if !self.numbers {
            return 0;
        }
        match &self.joined {
            Some(s) if !s.single() => s.tag_width + 1 + s.number_width + 1,
            _ => super::digits(self.last_shown().max(self.line_count())) + 1,
        }
    }

    /// The gutter of line `l`'s first row: its text and style, in pieces.
    pub(super) fn gutter_of(&self, l: u64, dim: Style) -> Vec<(String, Style)> {
        let width = self.gutter();
        match &self.joined {
            Some(s) if !s.single() => {
                let Some((k, n)) = s.joined.origin(l) else {
                    return vec![(" ".repeat(width), dim)];
                };
                let name = tag(&s.names[k]);
                vec![
                    (
                        format!("{name:<w$} ", w = s.tag_width),
                        Style::default().fg(COLOURS[k % COLOURS.len()]),
                    ),
                    (format!("{:>w$} ", n + 1, w = s.number_width), dim),
                ]
            }
            _ => vec![(format!("{:>w$} ", self.shown(l), w = width - 1), dim)],
        }
    }

    /// `:FILE:N`: line N of the log FILE; false when the text is not
    /// that (a number alone).
    pub(super) fn goto_in_log(&mut self, text: &str) -> bool {
        let Some(s) = self.joined.as_ref().filter(|s| !s.single()) else {
            return false;
        };
        let Some((name, n)) = text.rsplit_once(':') else {
            return false;
        };
        let n = match n.trim().replace(',', "").parse::<u64>() {
            Ok(n) => n,
            Err(_) => {
                self.message = Some(format!("not a line number: {n}"));
                return true;
            }
        };
        match s.log_named(name.trim()) {
            Ok(k) => match s.joined.line_of(k, n.saturating_sub(1)) {
                Some(l) => self.exec(Op::Goto(l, true)),
                None => {
                    self.message = Some(format!("{}: no line {n} or after it is shown", s.names[k]))
                }
            },
            Err(e) => self.message = Some(e),
        }
        true
    }

    /// `:@T` over several logs: the earliest of their first lines at or
    /// after T.
    pub(super) fn joined_time_of(&mut self, at: &str) -> bool {
        let Some(s) = &self.joined else {
            return false;
        };
        if !s.joined.logs().iter().any(|l| l.has_time_index()) {
            let files: Vec<String> = self.files.iter().map(|f| f.display().to_string()).collect();
            self.message = Some(format!(
                "no time index: build them with `lidx index{} --time {}`",
                if self.rotated { " -R" } else { "" },
                files.join(" ")
            ));
            return true;
        }
        let joined = Arc::clone(&s.joined);
        self.locate_token += 1;
        self.locating = true;
        self.store
            .locate_joined_time(&joined, at.to_string(), self.locate_token);
        true
    }
}
