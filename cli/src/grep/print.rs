//! Printing around each file's lines, as ripgrep's printers do with
//! several files: the lead before a file's first line (its heading, the
//! context separator between files, its JSON `begin`), the lines after it
//! (a count, a path for `-l`, the JSON `end`), and the JSON `summary` or
//! the `--stats` block of the whole run.

use super::json;
use super::plan::Plan;
use super::search::{Found, search_family, search_file};
use super::standard::spec;
use super::stats::{self, Stats};
use super::{Mode, path_bytes};
use lidx::Error;
use lidx::family::Family;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// The state of a run over files.
#[derive(Debug, Default)]
pub struct Run {
    /// Something was printed for an earlier file.
    printed_any: bool,
    /// A file answered: it had a selected line (`--files-without-match`:
    /// it had none).
    pub matched: bool,
    /// The statistics of the files searched so far (JSON, `--stats`).
    summary: Stats,
}

fn out_err(e: std::io::Error) -> Error {
    Error::io("write", Path::new("<stdout>"), e)
}

impl Run {
    /// Searches `file` and prints what it found.
    pub fn file(&mut self, plan: &Plan, file: &Path, out: &mut impl Write) -> lidx::Result<()> {
        self.source(plan, file, out, |lead, out| {
            search_file(plan, file, lead, out)
        })
    }

    /// Searches a rotation family as one log named by its live file.
    pub fn family(
        &mut self,
        plan: &Plan,
        family: &Family,
        out: &mut impl Write,
    ) -> lidx::Result<()> {
        let name = family.live_path();
        self.source(plan, name, out, |lead, out| {
            search_family(plan, family, lead, out)
        })
    }

    /// Runs `search` (given the lead to write before its first output) and
    /// prints what comes after it.
    fn source<W: Write>(
        &mut self,
        plan: &Plan,
        name: &Path,
        out: &mut W,
        search: impl FnOnce(&[u8], &mut W) -> lidx::Result<Found>,
    ) -> lidx::Result<()> {
        let path = path_bytes(name, plan.path_separator);
        let lead = self.lead(plan, &path).map_err(out_err)?;
        let found = search(&lead, out)?;
        self.printed_any |= found.begun;
        self.matched |= match plan.mode {
            Mode::FilesWithoutMatch => found.selected == 0,
            _ => found.selected > 0,
        };
        self.after(plan, &path, &found, out).map_err(out_err)?;
        if plan.mode == Mode::Json || plan.stats {
            // What the file's printer wrote (its lead included, as
            // ripgrep's printer counts it in a search in order); no bytes
            // for counts and paths.
            let bytes_printed = match plan.mode {
                Mode::Json | Mode::Standard => found.printed,
                _ => 0,
            };
            let stats = Stats {
                elapsed: found.elapsed,
                searches: 1,
                searches_with_match: u64::from(found.selected > 0),
                bytes_searched: found.searched,
                bytes_printed,
                matched_lines: found.selected,
                matches: found.matches,
            };
            if plan.mode == Mode::Json && found.begun {
                let mut jopts = plan.json.clone();
                jopts.path = path;
                json::write_end(out, &jopts, &stats).map_err(out_err)?;
            }
            self.summary.add(&stats);
        }
        Ok(())
    }

    /// What comes before a file's first line: its JSON `begin`, its
    /// heading (after a blank line if an earlier file printed), or the
    /// context separator when an earlier file printed context groups.
    pub(super) fn lead(&self, plan: &Plan, path: &[u8]) -> std::io::Result<Vec<u8>> {
        let mut lead = Vec::new();
        if plan.quiet {
            return Ok(lead);
        }
        let term = plan.matcher.line_terminator();
        match plan.mode {
            Mode::Json => {
                let mut jopts = plan.json.clone();
                jopts.path = path.to_vec();
                json::write_begin(&mut lead, &jopts)?;
            }
            Mode::Standard if plan.heading => {
                if self.printed_any {
                    lead.extend_from_slice(term);
                }
                self.path(plan, path, &mut lead);
                lead.extend_from_slice(if plan.null { b"\0" } else { term });
            }
            Mode::Standard if self.printed_any && plan.standard.context => {
                if let Some(sep) = &plan.standard.separator_context {
                    lead.extend_from_slice(sep);
                    lead.extend_from_slice(term);
                }
            }
            _ => {}
        }
        Ok(lead)
    }

    /// A path, in colour when colours are on.
    fn path(&self, plan: &Plan, path: &[u8], to: &mut Vec<u8>) {
        let colors = plan.standard.colors.as_ref();
        spec(to, colors.map(|c| &c.path[..]), path);
    }

    /// What follows a file's lines: its count, or its path (`-l`,
    /// `--files-without-match`).
    pub(super) fn after(
        &mut self,
        plan: &Plan,
        path: &[u8],
        found: &Found,
        out: &mut impl Write,
    ) -> std::io::Result<()> {
        if plan.quiet {
            return Ok(());
        }
        let term = plan.matcher.line_terminator();
        let mut line = Vec::new();
        match plan.mode {
            Mode::Count | Mode::CountMatches => {
                let n = if plan.mode == Mode::Count {
                    found.selected
                } else {
                    found.matches
                };
                if n > 0 || plan.include_zero {
                    if plan.with_filename {
                        self.path(plan, path, &mut line);
                        line.push(if plan.null { 0 } else { b':' });
                    }
                    line.extend_from_slice(n.to_string().as_bytes());
                    line.extend_from_slice(term);
                }
            }
            Mode::FilesWithMatches if found.selected > 0 => self.path_line(plan, path, &mut line),
            Mode::FilesWithoutMatch if found.selected == 0 => self.path_line(plan, path, &mut line),
            _ => {}
        }
        if !line.is_empty() {
            self.printed_any = true;
            out.write_all(&line)?;
        }
        Ok(())
    }

    /// A path on a line of its own (`-l`): ended by NUL with `-0`.
    fn path_line(&self, plan: &Plan, path: &[u8], line: &mut Vec<u8>) {
        self.path(plan, path, line);
        if plan.null {
            line.push(0);
        } else {
            line.extend_from_slice(plan.matcher.line_terminator());
        }
    }

    /// Ends the run: JSON's `summary`, or the `--stats` block.
    pub fn finish(&self, plan: &Plan, started: Instant, out: &mut impl Write) -> lidx::Result<()> {
        if plan.mode == Mode::Json {
            json::write_summary(out, &self.summary, started.elapsed()).map_err(out_err)?;
        } else if plan.stats {
            stats::write_text(out, &self.summary, started.elapsed()).map_err(out_err)?;
        }
        Ok(())
    }
}
