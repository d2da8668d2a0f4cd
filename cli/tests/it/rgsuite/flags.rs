//! What a case's ripgrep arguments ask the printer for, as far as the
//! `--lines` way needs to know it to shift ripgrep's output: which fields
//! prefix a printed line (line number, column, byte offset, in that order),
//! whether the output is JSON or a summary (counts, paths, nothing), and the
//! encoding (a transcoded file has offsets in its decoded bytes).
//!
//! The parser knows ripgrep's options that take a value, so clusters like
//! `-won`, `-rni` (`-r ni`), `-M26`, `-Eutf-16le` or `-e-baz` read right;
//! anything else is a flag or a positional argument.

/// Short options of ripgrep that take a value (the rest of the cluster, or
/// the next argument).
const SHORT_WITH_VALUE: &[u8] = b"ABCEMdefgjmrtT";

/// Long options of ripgrep that take a value (`--opt=v` or `--opt v`).
const LONG_WITH_VALUE: &[&str] = &[
    "after-context",
    "before-context",
    "color",
    "colors",
    "context",
    "context-separator",
    "dfa-size-limit",
    "encoding",
    "engine",
    "field-context-separator",
    "field-match-separator",
    "file",
    "glob",
    "hyperlink-format",
    "iglob",
    "ignore-file",
    "max-columns",
    "max-count",
    "max-depth",
    "max-filesize",
    "path-separator",
    "pre",
    "pre-glob",
    "regex-size-limit",
    "regexp",
    "replace",
    "sort",
    "sortr",
    "threads",
    "type",
    "type-add",
    "type-clear",
    "type-not",
];

/// The printer-relevant state a list of ripgrep arguments ends in.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Flags {
    /// Printed lines start with `N:` / `N-`.
    pub line_number: bool,
    /// A column field follows the line number (`--column`, `--vimgrep`).
    pub column: bool,
    /// A byte-offset field follows (`-b`).
    pub byte_offset: bool,
    /// `--json`.
    pub json: bool,
    /// `-c`, `--count-matches`, `-l`, `-q` and friends: no per-line output
    /// (counts are the same for an extract as for the range).
    pub summary: bool,
    /// `-E`/`--encoding` as given last (`None` after `--no-encoding`).
    pub encoding: Option<String>,
}

impl Flags {
    /// Reads `args` as ripgrep would (options after `--` are positional).
    pub fn parse(args: &[&str]) -> Flags {
        let mut f = Flags::default();
        let mut line_number: Option<bool> = None;
        let mut column: Option<bool> = None;
        let mut vimgrep = false;
        let mut i = 0;
        while i < args.len() {
            let a = args[i];
            i += 1;
            if a == "--" {
                break;
            }
            if let Some(long) = a.strip_prefix("--") {
                let (name, inline) = match long.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (long, None),
                };
                let value = if LONG_WITH_VALUE.contains(&name) && inline.is_none() {
                    i += 1;
                    args.get(i - 1).copied()
                } else {
                    inline
                };
                match name {
                    "line-number" => line_number = Some(true),
                    "no-line-number" => line_number = Some(false),
                    "column" => column = Some(true),
                    "no-column" => column = Some(false),
                    "vimgrep" => vimgrep = true,
                    "byte-offset" => f.byte_offset = true,
                    "no-byte-offset" => f.byte_offset = false,
                    "json" => f.json = true,
                    "no-json" => f.json = false,
                    "count"
                    | "count-matches"
                    | "files-with-matches"
                    | "files-without-match"
                    | "quiet" => f.summary = true,
                    "encoding" => f.encoding = value.map(str::to_string),
                    "no-encoding" => f.encoding = None,
                    _ => {}
                }
                continue;
            }
            let Some(cluster) = a.strip_prefix('-').filter(|c| !c.is_empty()) else {
                continue; // a positional argument (pattern or path)
            };
            let bytes = cluster.as_bytes();
            for (k, &c) in bytes.iter().enumerate() {
                if SHORT_WITH_VALUE.contains(&c) {
                    let rest = &cluster[k + 1..];
                    let value = if rest.is_empty() {
                        i += 1;
                        args.get(i - 1).copied()
                    } else {
                        Some(rest)
                    };
                    if c == b'E' {
                        f.encoding = value.map(str::to_string);
                    }
                    break;
                }
                match c {
                    b'n' => line_number = Some(true),
                    b'N' => line_number = Some(false),
                    b'b' => f.byte_offset = true,
                    b'c' | b'l' | b'q' => f.summary = true,
                    _ => {}
                }
            }
        }
        f.column = column.unwrap_or(vimgrep);
        f.line_number = line_number.unwrap_or(f.column || vimgrep);
        f
    }

    /// True when ripgrep transcodes the file (an `-E` other than the
    /// defaults), so its byte offsets count decoded bytes.
    pub fn transcodes(&self) -> bool {
        self.encoding.as_deref().is_some_and(|e| {
            !matches!(
                e.to_ascii_lowercase().as_str(),
                "none" | "auto" | "utf-8" | "utf8"
            )
        })
    }

    /// True when ripgrep strips a leading byte-order mark: `-E none`
    /// searches raw bytes.
    pub fn sniffs_bom(&self) -> bool {
        !self
            .encoding
            .as_deref()
            .is_some_and(|e| e.eq_ignore_ascii_case("none"))
    }
}

#[test]
fn clusters_and_values_read_as_ripgrep_reads_them() {
    let f = Flags::parse(&["-won", ""]);
    assert!(f.line_number && !f.column && !f.byte_offset);
    // `-rni` is `-r ni`: no line numbers.
    assert!(!Flags::parse(&["-rni", "bar"]).line_number);
    assert!(Flags::parse(&["--column", "x"]).line_number);
    let f = Flags::parse(&["--vimgrep", "-N", "x"]);
    assert!(f.column && !f.line_number);
    assert!(!Flags::parse(&["--vimgrep", "-N", "--no-column", "x"]).column);
    assert!(Flags::parse(&["-b", "-o", "x"]).byte_offset);
    assert!(Flags::parse(&["--count", "--include-zero", "x"]).summary);
    assert!(!Flags::parse(&["-e", "-c", "x"]).summary);
    assert!(Flags::parse(&["-Esjis", "x"]).transcodes());
    assert!(!Flags::parse(&["--encoding", "none", "x"]).sniffs_bom());
    assert!(!Flags::parse(&["-M", "20", "-C1", "x"]).line_number);
    assert!(Flags::parse(&["--json", "x"]).json);
}
