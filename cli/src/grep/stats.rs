//! The statistics of a search, as ripgrep keeps them: one [`Stats`] per
//! file searched, added up over the run. `--json` reports them in each
//! file's `end` and in the closing `summary` (see [`super::json`]);
//! `--stats` prints the run's as ripgrep's text block after the results
//! ([`write_text`]).
//!
//! What the printers count, as ripgrep's do: the standard format counts
//! the matches in the selected lines it prints (none in lines selected by
//! `-v`) and the bytes it writes for a file (its heading, and the blank
//! line or context separator before it, included: ripgrep's count when it
//! searches files in order, as with `--sort`); the count and
//! file-name modes and `-q` count every match, at least one per selected
//! line, and no bytes printed.

use std::io::Write;
use std::time::Duration;

/// The statistics of one search, or of a run's searches added up.
#[derive(Debug, Clone, Copy, Default)]
pub struct Stats {
    /// Time spent searching.
    pub elapsed: Duration,
    /// Searches counted (1 for one file's; the run's counts the files
    /// searched).
    pub searches: u64,
    /// 1 if something was selected (the run's: files with a selected line).
    pub searches_with_match: u64,
    /// Bytes searched (see `lidx::search::Search::bytes_searched`).
    pub bytes_searched: u64,
    /// Bytes the printer wrote (see the module doc).
    pub bytes_printed: u64,
    /// Lines reported as selected.
    pub matched_lines: u64,
    /// Matches in them (see the module doc).
    pub matches: u64,
}

impl Stats {
    /// Adds one file's statistics to a run's.
    pub fn add(&mut self, s: &Stats) {
        self.elapsed += s.elapsed;
        self.searches += s.searches;
        self.searches_with_match += s.searches_with_match;
        self.bytes_searched += s.bytes_searched;
        self.bytes_printed += s.bytes_printed;
        self.matched_lines += s.matched_lines;
        self.matches += s.matches;
    }
}

/// Writes `--stats`' block: a blank line, then one statistic a line, as
/// ripgrep words them (`total`: the whole run's time).
pub fn write_text(out: &mut impl Write, s: &Stats, total: Duration) -> std::io::Result<()> {
    write!(
        out,
        "\n{} matches\n{} matched lines\n{} files contained matches\n{} files searched\n{} bytes printed\n{} bytes searched\n{:.6} seconds spent searching\n{:.6} seconds total\n",
        s.matches,
        s.matched_lines,
        s.searches_with_match,
        s.searches,
        s.bytes_printed,
        s.bytes_searched,
        s.elapsed.as_secs_f64(),
        total.as_secs_f64(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_block_as_ripgrep_words_it() {
        let s = Stats {
            elapsed: Duration::from_micros(10),
            searches: 2,
            searches_with_match: 1,
            bytes_searched: 367,
            bytes_printed: 129,
            matched_lines: 2,
            matches: 3,
        };
        let mut out = Vec::new();
        write_text(&mut out, &s, Duration::from_micros(518)).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\n3 matches\n2 matched lines\n1 files contained matches\n2 files searched\n\
             129 bytes printed\n367 bytes searched\n0.000010 seconds spent searching\n\
             0.000518 seconds total\n"
        );
    }
}
