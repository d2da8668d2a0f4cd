//! The case table, grouped by flag family.
//!
//! Each case is a name tied to its origin, the arguments (as given to
//! ripgrep after `--no-heading --no-filename -a --no-config`, and to
//! `lidx grep`), and the haystack. Origins:
//!
//! - `misc::`, `feature::`, `regression::`, `json::`, `binary::`: ripgrep's
//!   `tests/{misc,feature,regression,json,binary}.rs`, one case per
//!   single-file search a test runs (sub-searches get a suffix);
//! - `printer::`, `printer_json::`, `summary::`: the unit tests of
//!   `crates/printer/src/{standard,json,summary}.rs`, translated to the
//!   command-line flags that configure the same printer;
//! - `searcher::`, `lines::`: `crates/searcher/src/searcher/{glue,mod}.rs`
//!   and `lines.rs` (the searcher tester prints `OFFSET:line`, that is
//!   `-b`; with line numbers `-n -b`);
//! - `regex::`, `literal::`, `interp::`: `crates/regex/src/{matcher,strip,
//!   ban,ast,non_matching,literal}.rs` and `crates/matcher/src/
//!   interpolate.rs` (`-r`), as searches;
//! - `edge::`: this project's own, for every class issue 9 names.
//!
//! A translation that changes a test's flags says so in a comment. What was
//! left out, by category (each test of those files falls in one):
//!
//! - directory walking, ignore files, globs, file types, hidden files,
//!   symlinks, sorting, `--files`, `--max-filesize`, `--max-depth`,
//!   `--ignore-file`, path separators and terminators (`misc::dir`,
//!   `ignore_*`, `glob*`, `file_type*`, `sort*`, `r16`..`r90`, `r127`,
//!   `r137`, `r184`, `r206`, `r228`, `r256`, `r391`, `r405`, `r483`,
//!   `r807`, `r829_*`, `r1098`, `r1164`..`r1174`, `r1223`, `r1389`,
//!   `r1446`, `f1757`, `r2198`, `r2236`, `r2711`, `r2770`, `r2990`,
//!   `r3067`, `r3127_*`, `r3173`, `r3179`, `r3275`, `f45_*`, `f68`,
//!   `f109_max_depth`, `f263_*`, `f275`, `f1138`, `f1404_*`, `f1414`,
//!   `f1420`, `f1466`, `f2361`);
//! - pattern files whose content has no `-e` form (`f7`, `f7_stdin`:
//!   patterns from stdin; `r900` and the zero-pattern half of `r1334`: an
//!   empty file); the others are translated to `-e`;
//! - file names and headings (`-H`, `--heading`, `--null`/`-0`,
//!   `--files-without-match`, `misc::files_without_match`, `r99`, `r210`,
//!   `f20`, `f89_*`, `f419`, `json::notutf8` (a non-UTF-8 file name), the
//!   printer's `heading*`, `path_terminator`, `separator_path`,
//!   `count_path*` with paths, `path_without_match_*`);
//! - multiline (`-U`, the `*_multi_line*` printer and searcher tests
//!   whose pattern crosses lines (those with the `(?s:.{0})` trick run
//!   line by line),
//!   `f416_crlf_multiline`, `f917_trim_multi_*`,
//!   `f917_trim_max_columns_multi_*`, `r1311`, `r1866`, `r1878`, `r2094`,
//!   `r2095`, `r2208`, `r3180`, `json::r1095_crlf_empty_match`);
//! - compressed search (`-z`) and preprocessors (`--pre`);
//! - PCRE2-only tests (look-around: `r1401_*`, `r1412*`, `r1573`,
//!   `r3139`, `f1155`);
//! - config files (`f196`) and `--stats` text (`f411_*`, `r2944`, the
//!   printer's `reports_stats*`, `quiet_with_stats`), `--null-data`
//!   (`f993`, `r2658`);
//! - flags outside lidx's set: `--context-separator`,
//!   `--no-context-separator`, `--field-{context,match}-separator`,
//!   `--colors` (where it changes the output), `-s`/`--case-sensitive`
//!   (`f109_case_sensitive_*`), `--stop-on-nonmatch`, `--dfa-size-limit`,
//!   `--regex-size-limit` (`f362_*`), `--type-list`;
//! - binary-file detection (rg is always run with `-a`: `binary::*`
//!   without `--text`, `misc::binary_convert*`, `binary_quit*`,
//!   `unrestricted3`, the searcher's `binary3`/`binary4`, the printers'
//!   `reports_binary`, `binary_detection`);
//! - library-only configuration with no command-line form: heap limits
//!   (`big_error_*`, `config_error_*`), `always_begin_end`, the searcher's
//!   `scratch`, the line-locating helpers of `lines.rs` (`line_locate*`,
//!   `preceding_*`), the printers' multi-search sinks
//!   (`context_break_multiple_*`, `no_heading_multiple`), `path_*_error`,
//!   `matcher::candidate_lines` (ignored upstream), `reports_match` over
//!   several files.

use super::hay::*;

/// A lidx expectation that deliberately replaces ripgrep's.
#[derive(Debug, Clone)]
pub struct Override {
    pub code: i32,
    pub stdout: &'static [u8],
    pub why: &'static str,
}

/// UTF-16 with a byte-order mark: ripgrep transcodes it; lidx refuses it.
const UTF16_BOM: Override = Override {
    code: 2,
    stdout: b"",
    why: "a UTF-16 file with a byte-order mark is refused (exit 2, one line): \
          lidx's line index splits at byte 0x0A, which is not a line end in UTF-16",
};

/// An explicit encoding other than `none` (`-E sjis`, `-E utf-8`):
/// ripgrep transcodes the file and counts offsets in the decoded bytes;
/// lidx refuses it.
const TRANSCODED: Override = Override {
    code: 2,
    stdout: b"",
    why: "an explicit encoding is refused (exit 2, one line): lidx's line numbers and \
          offsets are the file's bytes, and ripgrep's are those of the transcoded text",
};

/// One case.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: &'static str,
    /// The flag family (the table's group) it belongs to.
    pub group: &'static str,
    pub args: Vec<&'static str>,
    pub hay: Vec<u8>,
    pub lidx: Option<Override>,
}

/// The table under construction, and the group being filled.
struct T(Vec<Case>, &'static str);

impl T {
    fn add(&mut self, name: &'static str, args: &[&'static str], hay: impl AsRef<[u8]>) {
        self.0.push(Case {
            name,
            group: self.1,
            args: args.to_vec(),
            hay: hay.as_ref().to_vec(),
            lidx: None,
        });
    }

    /// A case whose haystack is UTF-16 with a BOM ([`UTF16_BOM`]).
    fn utf16(&mut self, name: &'static str, args: &[&'static str], hay: impl AsRef<[u8]>) {
        self.add(name, args, hay);
        self.0.last_mut().unwrap().lidx = Some(UTF16_BOM);
    }

    /// A case with an explicit encoding ([`TRANSCODED`]).
    fn transcoded(&mut self, name: &'static str, args: &[&'static str], hay: impl AsRef<[u8]>) {
        self.add(name, args, hay);
        self.0.last_mut().unwrap().lidx = Some(TRANSCODED);
    }

    /// A case with a generated name.
    fn add_named(&mut self, name: String, args: &[&'static str], hay: impl AsRef<[u8]>) {
        self.add(Box::leak(name.into_boxed_str()), args, hay);
    }
}

/// Every case, in table order.
pub fn table() -> Vec<Case> {
    let mut t = T(Vec::new(), "");
    basic(&mut t);
    patterns(&mut t);
    case_folding(&mut t);
    word(&mut t);
    line_regexp(&mut t);
    invert(&mut t);
    counts(&mut t);
    prefixes(&mut t);
    max_count(&mut t);
    context(&mut t);
    only_matching(&mut t);
    dotall_trick(&mut t);
    color(&mut t);
    json(&mut t);
    crlf(&mut t);
    line_terminator_patterns(&mut t);
    bom_and_encoding(&mut t);
    replace(&mut t);
    passthru(&mut t);
    trim(&mut t);
    max_columns(&mut t);
    vimgrep(&mut t);
    quiet_and_files(&mut t);
    binary_text(&mut t);
    searcher(&mut t);
    lines(&mut t);
    regex_crate(&mut t);
    literal(&mut t);
    t.0
}

/// The table's own rules: unique names of the form `origin::name` from a
/// known origin.
pub fn check_table(cases: &[Case]) {
    const ORIGINS: &[&str] = &[
        "misc",
        "feature",
        "regression",
        "json",
        "binary",
        "printer",
        "printer_json",
        "summary",
        "searcher",
        "lines",
        "regex",
        "literal",
        "interp",
        "edge",
    ];
    let mut seen = std::collections::HashSet::new();
    for c in cases {
        let (origin, rest) = c
            .name
            .split_once("::")
            .unwrap_or_else(|| panic!("case name {:?} is not origin::name", c.name));
        assert!(
            ORIGINS.contains(&origin) && !rest.is_empty(),
            "case {:?}: unknown origin",
            c.name
        );
        assert!(seen.insert(c.name), "case {:?} twice", c.name);
    }
}

/// Plain searches: a pattern, its matches, exit codes.
#[rustfmt::skip] // a table: one case per line
fn basic(t: &mut T) {
    t.1 = "plain searches";
    t.add("misc::single_file", &["Sherlock"], SHERLOCK);
    t.add("misc::case_insensitive", &["-i", "sherlock"], SHERLOCK);
    // binary_search_mmap and binary_search_no_mmap: --mmap/--no-mmap do not
    // change the output.
    t.add("misc::binary_search", &["foo"], "foo\x00bar\nfoo\x00baz\n");
    t.add("feature::f948_exit_code_match", &["."], SHERLOCK);
    t.add("feature::f948_exit_code_no_match", &["NADA"], SHERLOCK);
    t.add("feature::f948_exit_code_error", &["*"], SHERLOCK);
    t.add("regression::r93", &[r"(\d{1,3}\.){3}\d{1,3}"], "192.168.1.1");
    t.add("regression::r128", &["-n", "x"], b"01234567\x0b\n\x0b\n\x0b\n\x0b\nx");
    t.add(
        "regression::r156",
        &["-N", r#"#(?:parse|include)\s*\(\s*(?:"|')[./A-Za-z_-]+(?:"|')"#],
        r#"#parse('widgets/foo_bar_macros.vm')
#parse ( 'widgets/mobile/foo_bar_macros.vm' )
#parse ("widgets/foobarhiddenformfields.vm")
#parse ( "widgets/foo_bar_legal.vm" )
#include( 'widgets/foo_bar_tips.vm' )
#include('widgets/mobile/foo_bar_macros.vm')
#include ("widgets/mobile/foo_bar_resetpw.vm")
#parse('widgets/foo-bar-macros.vm')
#parse ( 'widgets/mobile/foo-bar-macros.vm' )
#parse ("widgets/foo-bar-hiddenformfields.vm")
#parse ( "widgets/foo-bar-legal.vm" )
#include( 'widgets/foo-bar-tips.vm' )
#include('widgets/mobile/foo-bar-macros.vm')
#include ("widgets/mobile/foo-bar-resetpw.vm")
"#,
    );
    t.add("regression::r1064", &["a(.*c)"], "abc");
    t.add("regression::r1159_invalid_flag", &["--wat", "test"], "test");
    t.add("regression::r1159_exit_status_match", &["test"], "test");
    t.add("regression::r1159_exit_status_no_match", &["nada"], "test");
    t.add("regression::r1203_reverse_suffix_literal", &[r"\d\d\d00"], "153.230000\n");
    t.add("regression::r1203_reverse_suffix_literal_2", &[r"\d\d\d000"], "153.230000\n");
    t.add("regression::r1319", &["TTGAGTCCAGGAG[ATCG]{2}C"], "CCAGCTACTCGGGAGGCTGAGGCTGGAGGATCGCTTGAGTCCAGGAGTTC");
    t.add("regression::r1537", &[";(.*,){1}"], "abc;de,fg");
    t.add(
        "regression::r1559",
        &["TaskID +int"],
        "type A struct {\n\tTaskID int `json:\"taskID\"`\n}\n\ntype B struct {\n\tObjectID string `json:\"objectID\"`\n\tTaskID   int    `json:\"taskID\"`\n}\n",
    );
    // -a is given to ripgrep always; the test's point is that -a makes the
    // pattern legal.
    t.add("regression::r1838_nul_error_with_binary_detection", &[r"foo\x00?"], "foo\n");
    t.add("printer::reports_match", &["Sherlock"], SHERLOCK_NONL);
    t.add("printer::reports_match_none", &["zzzzz"], SHERLOCK_NONL);
    t.add("edge::empty_file", &["x"], "");
    t.add("edge::empty_file_empty_pattern", &["-n", ""], "");
    t.add("edge::only_newline", &["-n", ""], "\n");
    t.add("edge::newlines_only", &["-n", "-b", "^$"], "\n\n\n");
    t.add("edge::no_final_newline", &["-n", "c"], "a\nb\nc");
    t.add("edge::no_newline_at_all", &["-b", "o"], "foo");
    t.add("edge::cr_only_endings", &["-n", "b"], "a\rb\rc");
    t.add("edge::nul_bytes", &["-n", r"a\x00b"], "a\x00b\nab\n\x00\n");
    t.add("edge::nul_count", &["-c", r"\x00"], "a\x00b\nab\n\x00\n");
    t.add("edge::invalid_utf8_unicode_escape", &["-n", r"\xFF"], b"\xff\n\xc3\xbf\n");
    t.add("edge::invalid_utf8_byte_escape", &["-n", r"(?-u)\xFF"], b"\xff\n\xc3\xbf\n");
    t.add("edge::invalid_utf8_dot", &["-o", "-n", "."], b"a\xffb\n\xe6\x97\n");
    t.add("edge::dot_star_every_line", &["-n", ".*"], "a\n\nb\n\n");
    t.add("edge::bad_regex_paren", &["-n", "("], SHERLOCK);
    t.add("edge::bad_regex_class", &["[z-a]"], SHERLOCK);
    t.add("edge::bad_regex_repeat", &["a{2,1}"], SHERLOCK);
    t.add("edge::long_line", &["-b", "-o", "end"], {
        let mut v = b"start\n".to_vec();
        v.extend(std::iter::repeat_n(b'x', 100_000));
        v.extend_from_slice(b" end\nend\n");
        v
    });
    let many: String = (1..=3000).map(|i| format!("line {i}\n")).collect();
    t.add("edge::many_lines_count", &["-c", "7$"], &many);
    t.add("edge::many_lines_max_count", &["-n", "-m3", "5$"], &many);
    t.add("edge::many_lines_context", &["-n", "-B1", "-A1", "^line 2999$"], &many);
    t.add("edge::many_lines_byte_offset", &["-b", "-n", "00$"], &many);
}

/// `-e` and `-F`: several patterns, literal patterns, patterns that look
/// like flags.
#[rustfmt::skip] // a table: one case per line
fn patterns(t: &mut T) {
    t.1 = "-e/-F";
    t.add("misc::literal", &["-F", "()"], "blib\n()\nblab\n");
    t.add("regression::r270", &["-e", "-test"], "-test");
    t.add("regression::r568_leading_hyphen_option_args", &["-e-baz", "-e", "-baz"], "foo bar -baz\n");
    // r1176_literal_file: the pattern file's one pattern as -e.
    t.add("regression::r1176_literal_file", &["-F", "-e", "foo(bar"], "foo(bar");
    // r1259_drop_last_byte_nonl: the pattern file's one pattern as -e.
    t.add("regression::r1259_drop_last_byte_nonl", &["-e", "[foo]"], "fz");
    // r1334_invert_empty_patterns: a pattern file holding one empty line is
    // the pattern "" (a file with no patterns has no command-line form).
    t.add("regression::r1334_one_pattern", &["-e", ""], "one\ntwo\nthree\n");
    t.add("regression::r1334_invert_one_pattern", &["-v", "-e", ""], "one\ntwo\nthree\n");
    // r1334_crazy_literals: the 40 lines of the pattern file as 40 -e.
    let mut crazy = vec!["-F"];
    for _ in 0..40 {
        crazy.extend(["-e", "1.208.0.0/12"]);
    }
    t.add("regression::r1334_crazy_literals", &crazy, "1.208.0.0/12\n");
    t.add("regression::r2480_empty_pattern", &["-e", ""], "FooBar\n");
    t.add("regression::r2480_single_pattern", &["-e", ")("], "FooBar\n");
    t.add("regression::r2480_multiple_patterns", &["--only-matching", "-e", "Foo", "-e", "Bar"], "FooBar\n");
    t.add("regression::r2480_flag_does_not_leak_match", &["--only-matching", "-e", "(?i)foo", "-e", "bar"], "FooBar\n");
    t.add("regression::r2480_flag_does_not_leak_mismatch", &["--only-matching", "-e", "(?i)notfoo", "-e", "bar"], "FooBar\n");
    t.add("edge::fixed_metachars", &["-F", "-n", "a.b"], "a.b\naxb\n");
    t.add("edge::fixed_ignore_case", &["-F", "-i", "A.B"], "a.b\naxb\nA.B\n");
    t.add("edge::fixed_line", &["-F", "-x", "a.b"], "a.b\na.bc\n");
    t.add("edge::fixed_several", &["-F", "-o", "-e", "a", "-e", "b"], "abc\n");
    t.add("edge::fixed_backslash", &["-F", "-n", r"\d"], "\\d\n5\n");
    t.add("edge::several_overlapping", &["-o", "-e", "ab", "-e", "abc"], "abcd\n");
    t.add("edge::several_one_empty", &["-n", "-e", "a", "-e", ""], "b\n\n");
    t.add("edge::several_alternation_order", &["-o", "-e", "a|ab", "-e", "b"], "abab\n");
    t.add("edge::pattern_only_dash", &["-e", "-", "-c"], "a-b\nab\n");
}

/// `-i`, `-S/--smart-case`, `--no-unicode`.
#[rustfmt::skip] // a table: one case per line
fn case_folding(t: &mut T) {
    t.1 = "-i/-S/--no-unicode";
    t.add("feature::f70_smart_case", &["-S", "sherlock"], SHERLOCK);
    t.add("feature::no_unicode", &["-i", "--no-unicode", "Δ"], "δ");
    t.add("regression::r199", &["--smart-case", r"\btest\b"], "tEsT");
    t.add("regression::r229", &["-S", "[E]conomie"], "economie");
    t.add("regression::r251", &["-i", "привет"], "привет\nПривет\nПрИвЕт");
    t.add("regression::r553_switch", &["-i", "sherlock"], SHERLOCK);
    t.add("regression::r553_switch_repeat", &["-i", "sherlock", "-i"], SHERLOCK);
    t.add("edge::kelvin_sign", &["-i", "-n", "k"], "\u{212A}\nK\nk\nx\n");
    t.add("edge::long_s", &["-i", "-n", "s"], "\u{17F}\nS\nx\n");
    t.add("edge::ignore_case_only_matching", &["-i", "-o", "straße"], "STRASSE Straße STRAẞE\n");
    t.add("edge::smart_case_upper", &["-S", "-n", "Foo"], "foo\nFoo\nFOO\n");
    t.add("edge::smart_case_lower", &["-S", "-n", "foo"], "foo\nFoo\nFOO\n");
    t.add("edge::smart_case_escape_not_upper", &["-S", "-n", r"\Sfoo"], "xfoo\nXFOO\n");
    t.add("edge::smart_case_with_ignore_case", &["-S", "-i", "-n", "Foo"], "foo\nFoo\n");
    t.add("edge::no_unicode_word_class", &["--no-unicode", "-o", r"\w+"], "δx y\n");
    t.add("edge::no_unicode_dot", &["--no-unicode", "-c", "^.$"], b"\xff\n\xce\xb4\nx\n");
    t.add("edge::no_unicode_ignore_case_ascii", &["--no-unicode", "-i", "-n", "K"], "k\n\u{212A}\n");
}

/// `-w`, including patterns that are not words.
#[rustfmt::skip] // a table: one case per line
fn word(t: &mut T) {
    t.1 = "-w";
    t.add("misc::word", &["-w", "as"], SHERLOCK);
    t.add("misc::word_period", &["-ow", "."], "...");
    t.add("regression::r506_word_not_parenthesized", &["-w", "-o", "min|max"], "min minimum amin\nmax maximum amax");
    t.add("regression::r1891", &["-won", ""], "\n##\n");
    // --no-filename is given to every ripgrep run.
    t.add("regression::r2574", &["--no-unicode", "-w", "-o", r"(\w+\.)*domain\.(\w+)"], "some.domain.com\nsome.domain.com/x\n");
    t.add("edge::word_at", &["-w", "-o", "-n", "@"], "a@b @ c@\n@\n@@\n");
    t.add("edge::word_space", &["-w", "-o", "-n", r"\s"], "a b\n  \n x\n");
    t.add("edge::word_dot", &["-w", "-o", "-n", "."], "a.b ..\nx\n");
    t.add("edge::word_dash", &["-w", "-o", "-n", "-e", "-"], "a-b - --\n");
    t.add("edge::word_underscore", &["-w", "-n", "foo"], "foo_bar\nfoo-bar\n_foo\nfoo\n");
    t.add("edge::word_digits", &["-w", "-o", "[0-9]+"], "a1 22 b333c 4\n");
    t.add("edge::word_unicode", &["-w", "-o", "-n", "δ"], "αδ δ δx\n");
    t.add("edge::word_no_unicode", &["-w", "--no-unicode", "-o", "-n", "δ"], "αδ δ δx\n");
    t.add("edge::word_ignore_case", &["-w", "-i", "-o", "FOO"], "foo Foo fooX\n");
    t.add("edge::word_line_regexp", &["-w", "-x", "foo"], "foo\n foo\n");
    t.add("edge::word_invert", &["-w", "-v", "foo"], "foo\nfoobar\n");
    t.add("edge::word_empty", &["-w", "-n", ""], "\n a\n--\nab\n");
    t.add("edge::word_dollar", &["-w", "-o", "-n", "a$"], "ba a\nb a\n");
    t.add("edge::word_alternation", &["-w", "-o", "ab|abc"], "abc ab\n");
    t.add("edge::word_count_matches", &["-w", "--count-matches", "o"], "o oo o\n");
    t.add("edge::word_fixed", &["-w", "-F", "-o", "a.b"], "a.b xa.b a.bx\n");
    t.add("edge::word_nonword_start", &["-w", "-o", r"\.b"], "a.b .b\n");
    t.add("edge::word_final_nonl", &["-w", "-c", "end"], "end\nthe end");
}

/// `-x`.
#[rustfmt::skip] // a table: one case per line
fn line_regexp(t: &mut T) {
    t.1 = "-x";
    t.add("misc::line", &["-x", "Watson|and exhibited clearly, with a label attached."], SHERLOCK);
    // r1176_line_regex: the pattern file's one pattern as an argument.
    t.add("regression::r1176_line_regex", &["-x", "foo"], "foobar\nfoo\nbarfoo\n");
    t.add("edge::line_regexp_alternation", &["-x", "a|ab"], "ab\na\nabc\n");
    t.add("edge::line_regexp_empty", &["-x", "-n", ""], "a\n\nb\n");
    t.add("edge::line_regexp_final_nonl", &["-x", "-n", "b"], "a\nb");
    t.add("edge::line_regexp_only_matching", &["-x", "-o", "a+"], "aaa\naab\n");
}

/// `-v`.
#[rustfmt::skip] // a table: one case per line
fn invert(t: &mut T) {
    t.1 = "-v";
    t.add("misc::inverted", &["-v", "Sherlock"], SHERLOCK);
    t.add("misc::inverted_line_numbers", &["-n", "-v", "Sherlock"], SHERLOCK);
    t.add("printer::invert", &["-n", "-v", "Sherlock"], SHERLOCK_NONL);
    t.add("edge::invert_empty_file", &["-v", "x"], "");
    t.add("edge::invert_all_match", &["-v", "-c", ""], "a\nb\n");
    t.add("edge::invert_final_nonl", &["-v", "-n", "a"], "a\nb\na\nc");
}

/// `-c`, `--count-matches`, `--include-zero`.
#[rustfmt::skip] // a table: one case per line
fn counts(t: &mut T) {
    t.1 = "-c/--count-matches/--include-zero";
    // The tests search a directory; one file prints the bare count.
    t.add("misc::count", &["--count", "Sherlock"], SHERLOCK);
    t.add("misc::count_matches", &["--count-matches", "the"], SHERLOCK);
    t.add("misc::count_matches_inverted", &["--count-matches", "--invert-match", "Sherlock"], SHERLOCK);
    t.add("misc::count_matches_via_only", &["--count", "--only-matching", "the"], SHERLOCK);
    t.add("misc::include_zero", &["--count", "--include-zero", "nada"], SHERLOCK);
    t.add("misc::include_zero_override", &["--count", "--include-zero", "--no-include-zero", "nada"], SHERLOCK);
    t.add("regression::r693_context_in_contextless_mode", &["-C1", "-c", "xyz"], "xyz\n");
    t.add("summary::count_no_path", &["-c", "Watson"], SHERLOCK);
    // count_path_with_zero / count_path_without_zero: no path for one file.
    t.add("summary::count_path_with_zero", &["-c", "--include-zero", "NO MATCH"], SHERLOCK);
    t.add("summary::count_path_without_zero", &["-c", "NO MATCH"], SHERLOCK);
    t.add("summary::count_max_matches", &["-c", "-m1", "Watson"], SHERLOCK);
    t.add("summary::count_matches", &["--count-matches", "Watson|Sherlock"], SHERLOCK);
    t.add("edge::count_empty_file", &["-c", "x"], "");
    t.add("edge::count_include_zero_empty_file", &["-c", "--include-zero", "x"], "");
    t.add("edge::count_lines", &["-c", ""], "a\n\nb");
    t.add("edge::count_invert", &["-v", "-c", "a"], "a\nb\n\n");
    t.add("edge::count_matches_invert", &["--count-matches", "-v", "o"], "foo\nbar\nbaz\n");
    t.add("edge::count_matches_empty", &["--count-matches", ""], "ab\n\n");
    t.add("edge::count_matches_include_zero", &["--include-zero", "--count-matches", "nada"], SHERLOCK);
    t.add("edge::include_zero_without_count", &["--include-zero", "nada"], SHERLOCK);
    t.add("edge::count_many_per_line", &["--count-matches", "o"], "foo boo\noo\n");
    t.add("edge::count_and_count_matches", &["-c", "--count-matches", "o"], "foo boo\noo\n");
}

/// `-n`, `-N`, `-b`, `--column`.
#[rustfmt::skip] // a table: one case per line
fn prefixes(t: &mut T) {
    t.1 = "-n/-N/-b/--column";
    t.add("misc::line_numbers", &["-n", "Sherlock"], SHERLOCK);
    t.add("misc::columns", &["--column", "Sherlock"], SHERLOCK);
    // The test searches a directory; the offsets are the point.
    t.add("misc::byte_offset_only_matching", &["-b", "-o", "Sherlock"], SHERLOCK);
    t.add("feature::f243_column_line", &["--column", "test"], "test");
    t.add("regression::r105_part2", &["--column", "test"], "zztest");
    t.add("printer::path", &["-n", "Watson"], SHERLOCK_NONL);
    t.add("printer::line_number", &["-n", "Watson"], SHERLOCK_NONL);
    // column(true) without line numbers: --column turns them on; -N off.
    t.add("printer::column_number", &["--column", "-N", "Watson"], SHERLOCK_NONL);
    t.add("printer::byte_offset", &["-b", "Watson"], SHERLOCK_NONL);
    t.add("edge::line_number_then_no", &["-n", "-N", "a"], "a\nb\na\n");
    t.add("edge::no_line_number_then_yes", &["-N", "-n", "a"], "a\nb\na\n");
    t.add("edge::byte_offset_multibyte", &["-b", "-o", "δ"], "αδ\nδ\n");
    t.add("edge::byte_offset_invert", &["-b", "-v", "a"], "a\nbc\na\nd");
    t.add("edge::column_multibyte", &["--column", "-o", "δ"], "αδ δ\n");
    t.add("edge::column_tab", &["--column", "x"], "\tx\n");
    t.add("edge::column_byte_offset", &["--column", "-b", "x"], "ab\nax\n");
    t.add("edge::column_no_column", &["--column", "--no-column", "x"], "ax\n");
    t.add("edge::column_empty_match", &["--column", "-n", "^"], "a\n\n");
}

/// `-m`, alone and with context.
#[rustfmt::skip] // a table: one case per line
fn max_count(t: &mut T) {
    t.1 = "-m";
    t.add("feature::f159_max_count", &["-m1", "test"], "test\ntest");
    t.add("feature::f159_max_count_zero", &["-m0", "test"], "test\ntest");
    t.add("regression::r1380", &["-A2", "-m1", "d"], A_TO_E);
    t.add("printer::max_matches", &["-m1", "Sherlock"], SHERLOCK_NONL);
    t.add("printer::max_matches_context_a1", &["-m1", "-A1", "Doctor Watsons"], SHERLOCK_NONL);
    t.add("printer::max_matches_context_a4", &["-m1", "-A4", "Doctor Watsons"], SHERLOCK_NONL);
    t.add("printer::max_matches_context_a1_m2", &["-m2", "-A1", "Doctor Watsons|but Doctor"], SHERLOCK_NONL);
    t.add("printer::max_matches_context_a4_m2", &["-m2", "-A4", "Doctor Watsons|but Doctor"], SHERLOCK_NONL);
    t.add("printer::max_matches_context_invert_a1", &["-v", "-m1", "-A1", "success|extent|clew|dusted|exhibited"], SHERLOCK_NONL);
    t.add("printer::max_matches_context_invert_a4", &["-v", "-m1", "-A4", "success|extent|clew|dusted|exhibited"], SHERLOCK_NONL);
    t.add("printer::max_matches_context_invert_a1_m2", &["-v", "-m2", "-A1", "success|extent|clew|exhibited"], SHERLOCK_NONL);
    t.add("printer::max_matches_context_invert_a4_m2", &["-v", "-m2", "-A4", "success|extent|clew|exhibited"], SHERLOCK_NONL);
    t.add("printer::regression_after_context_with_match", &["-m1", "-n", "-A2", "d"], A_TO_E);
    t.add("edge::max_count_lines_not_matches", &["-m2", "-n", "o"], "oo\no\no\n");
    t.add("edge::max_count_count", &["-m1", "-c", "o"], "o\no\n");
    t.add("edge::max_count_zero_count", &["-m0", "-c", "o"], "o\no\n");
    t.add("edge::max_count_count_matches", &["-m1", "--count-matches", "o"], "oo\no\n");
    t.add("edge::max_count_only_matching", &["-m1", "-o", "-b", "o"], "foo\nboo\n");
    t.add("edge::max_count_before", &["-m2", "-B1", "-n", "[357]"], "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
    t.add("edge::max_count_after_match_in_context", &["-m1", "-A3", "-n", "[35]"], "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
    t.add("edge::max_count_invert_after", &["-v", "-m2", "-A1", "-n", "[1-4]"], "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
    t.add("edge::max_count_zero_context", &["-m0", "-C1", "5"], "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
    t.add("edge::max_count_json", &["-m1", "--json", "o"], "o\no\n");
    t.add("edge::max_count_quiet", &["-m1", "-q", "o"], "o\no\n");
}

/// `-A`, `-B`, `-C` and their combinations.
#[rustfmt::skip] // a table: one case per line
fn context(t: &mut T) {
    t.1 = "-A/-B/-C";
    let digits = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
    t.add("misc::after_context", &["-A", "1", "Sherlock"], SHERLOCK);
    t.add("misc::after_context_line_numbers", &["-A", "1", "-n", "Sherlock"], SHERLOCK);
    t.add("misc::before_context", &["-B", "1", "Sherlock"], SHERLOCK);
    t.add("misc::before_context_line_numbers", &["-B", "1", "-n", "Sherlock"], SHERLOCK);
    t.add("misc::context", &["-C", "1", "world|attached"], SHERLOCK);
    t.add("misc::context_line_numbers", &["-C", "1", "-n", "world|attached"], SHERLOCK);
    t.add("feature::f2288_context_partial_override", &["-C1", "-A2", "5"], digits);
    t.add("feature::f2288_context_partial_override_rev", &["-A2", "-C1", "5"], digits);
    t.add("feature::context_sep_default", &["-A1", "foo"], "foo\nctx\nbar\nctx\nfoo\nctx");
    t.add("feature::f1842_field_context_separator_default", &["-n", "-A1", "Doctor Watsons"], SHERLOCK);
    t.add("feature::f1842_field_match_separator_default", &["-n", "Doctor Watsons"], SHERLOCK);
    t.add("regression::r553_flag", &["-C", "1", "world|attached"], SHERLOCK);
    t.add("regression::r553_flag_c0", &["-C", "1", "world|attached", "-C", "0"], SHERLOCK);
    // context_break: the default separator (--context-separator dropped).
    t.add("printer::context_break", &["-B1", "-A1", "Watson"], SHERLOCK_NONL);
    t.add("printer::invert_context", &["-n", "-v", "-B1", "-A1", "Sherlock"], SHERLOCK_NONL);
    t.add("edge::context_merge_adjacent", &["-C1", "-n", "^(3|5)$"], digits);
    t.add("edge::context_gap", &["-C1", "-n", "^(2|6)$"], digits);
    t.add("edge::context_touching", &["-C1", "-n", "^(2|5)$"], digits);
    t.add("edge::context_start_of_file", &["-B3", "-n", "^2$"], digits);
    t.add("edge::context_end_of_file", &["-A3", "-n", "^8$"], digits);
    t.add("edge::context_a0", &["-A0", "-n", "^(2|4)$"], digits);
    t.add("edge::context_c0", &["-C0", "-n", "^(2|3|5)$"], digits);
    t.add("edge::context_b2_c0", &["-B2", "-C0", "5"], digits);
    t.add("edge::context_c3_b0", &["-C3", "-B0", "5"], digits);
    t.add("edge::context_a1_b1_c5", &["-A1", "-B1", "-C5", "5"], digits);
    t.add("edge::context_invert", &["-v", "-n", "-C1", "[2-8]"], digits);
    t.add("edge::context_count", &["-c", "-C2", "5"], digits);
    t.add("edge::context_files_with_matches", &["-l", "-C1", "5"], digits);
    t.add("edge::context_quiet", &["-q", "-C1", "5"], digits);
    t.add("edge::context_final_nonl", &["-B1", "-A1", "-n", "b"], "a\nb\nc");
    t.add("edge::context_final_nonl_after", &["-A1", "-n", "b"], "a\nb\nc");
    t.add("edge::context_empty_lines", &["-C1", "-n", "x"], "\n\nx\n\n\n");
    t.add("edge::context_byte_offset", &["-C1", "-b", "-n", "5"], digits);
    t.add("edge::context_whole_file", &["-C9", "-n", "5"], digits);
    t.add("edge::context_overlapping_many", &["-C2", "-n", "[2468]"], digits);
}

/// ripgrep's printer tests whose multi-line pattern `(?s:.{0})PAT` never
/// crosses a line: run line by line (without `-U`), they must print what
/// `PAT` prints, which is what the tests expect.
#[rustfmt::skip] // a table: one case per line
fn dotall_trick(t: &mut T) {
    t.1 = "(?s) patterns";
    t.add("printer::trim_ascii_multi_line", &["--trim", "(?s:.{0})Watson"], "   Watson");
    t.add("printer::max_matches_multi_line1", &["-m1", "(?s:.{0})Sherlock"], SHERLOCK_NONL);
    t.add("printer::only_matching_multi_line1", &["-o", "--column", "-n", "(?s:.{0})(Doctor Watsons|Sherlock)"], SHERLOCK_NONL);
    t.add("printer::only_matching_max_columns_multi_line1", &["-o", "-M10", "--column", "-n", "(?s:.{0})(Doctor Watsons|Sherlock)"], SHERLOCK_NONL);
    t.add("printer::only_matching_max_columns_preview_multi_line1", &["-o", "-M10", "--max-columns-preview", "--column", "-n", "(?s:.{0})(Doctor Watsons|Sherlock)"], SHERLOCK_NONL);
    t.add("printer::per_match_multi_line1", &["--vimgrep", "(?s:.{0})(Doctor Watsons|Sherlock)"], SHERLOCK_NONL);
    t.add("printer::per_match_multi_line1_only_first_line", &["--vimgrep", "-n", "(?s:.{0})(Doctor Watsons|Sherlock)"], SHERLOCK_NONL);
    t.add("printer::invert_multi_line", &["-n", "-v", "(?s:.{0})Sherlock"], SHERLOCK_NONL);
    t.add("printer::invert_context_multi_line", &["-n", "-v", "-B1", "-A1", "(?s:.{0})Sherlock"], SHERLOCK_NONL);
    t.add("printer::invert_context_only_matching_multi_line", &["-n", "-v", "-o", "-B1", "-A1", "(?s:.{0})Sherlock"], SHERLOCK_NONL);
    t.add("edge::dotall_dot_line_by_line", &["-o", "-n", "(?s)a.b"], "a\nb\naxb\n");
}

/// `-o`: parts, empty matches, with `-c`, `-v`, context.
#[rustfmt::skip] // a table: one case per line
fn only_matching(t: &mut T) {
    t.1 = "-o";
    t.add("feature::f34_only_matching", &["-o", "Sherlock"], SHERLOCK);
    t.add("feature::f34_only_matching_line_column", &["-o", "--column", "-n", "Sherlock"], SHERLOCK);
    t.add("regression::r451_only_matching_as_in_issue", &["--only-matching", "[0-9]+"], "1 2 3\n");
    t.add("regression::r451_only_matching", &["--only-matching", "--column", "[0-9]"], "1 2 3\n123\n");
    t.add("regression::r493", &["-o", r"\b 're \b"], "peshwaship 're seminomata");
    t.add("printer::only_matching", &["-o", "--column", "-n", "Doctor Watsons|Sherlock"], SHERLOCK_NONL);
    t.add("printer::invert_context_only_matching", &["-n", "-v", "-o", "-B1", "-A1", "Sherlock"], SHERLOCK_NONL);
    t.add("edge::only_matching_count", &["-o", "-c", "a"], "aaa\nb\naa\n");
    t.add("edge::only_matching_count_empty", &["-o", "-c", ""], "ab\n\n");
    t.add("edge::only_matching_invert", &["-o", "-v", "a"], "a\nb\n");
    t.add("edge::only_matching_invert_n", &["-o", "-v", "-n", "a"], "a\nb\nab\n");
    t.add("edge::only_matching_after", &["-o", "-n", "-A1", "b"], "ab\nc\nbb\nd\n");
    t.add("edge::only_matching_before", &["-o", "-n", "-B1", "b"], "ab\nc\nbb\nd\n");
    t.add("edge::only_matching_context", &["-o", "-n", "-C1", "b"], "x\nab\nc\nd\ne\nbb\nd\n");
    t.add("edge::only_matching_eof_empty", &["-o", "-n", "x*"], "ab\nx");
    t.add("edge::only_matching_dollar", &["-o", "-n", "$"], "a\nb");
    t.add("edge::only_matching_dollar_final_nl", &["-o", "-n", "$"], "a\nb\n");
    t.add("edge::only_matching_empty", &["-o", "-n", ""], "a\n\nb");
    t.add("edge::only_matching_empty_byte_offset", &["-o", "-b", ""], "ab");
    t.add("edge::only_matching_word_boundary", &["-o", "-n", r"\b"], "ab cd");
    t.add("edge::only_matching_won_empty", &["-won", ""], "a b\n\n  \nword");
    t.add("edge::only_matching_adjacent", &["-o", "a|ab"], "abab\n");
    t.add("edge::only_matching_optional", &["-o", "-b", "a?"], "bab\n");
    t.add("edge::only_matching_caret", &["-o", "-n", "^"], "a\n\nb");
    t.add("edge::only_matching_star_lines", &["-o", "-n", "a*"], "baab\n\naa");
    t.add("edge::only_matching_crlf", &["-o", "--crlf", "b$"], "ab\r\nb\n");
    t.add("edge::only_matching_unicode_boundary", &["-o", "-b", ""], "δ\n");
}

/// `--color always|never`: the exact escape sequences.
#[rustfmt::skip] // a table: one case per line
fn color(t: &mut T) {
    t.1 = "--color";
    // r599: `--color ansi` with --colors for path, line and match: here the
    // default colours and `always`; what is checked is that the empty
    // matches of `^$` get no escape pair.
    t.add("regression::r599", &["--color", "always", "--line-number", "^$"], "\n\ntest\n");
    // r428_color_context_path without -H (no path) and its --colors: the
    // context line after a coloured match.
    t.add("regression::r428_color_context", &["-A1", "-N", "--color=always", "foo"], "foo\nbar");
    t.add("regression::r1765", &["x?", "--crlf", "--color", "always"], "\n");
    t.add("printer::regression_search_empty_with_crlf", &["--crlf", "--color", "always", "x?"], "\n");
    t.add("edge::color_match", &["--color", "always", "Sherlock"], SHERLOCK);
    t.add("edge::color_line_number", &["--color", "always", "-n", "Sherlock"], SHERLOCK);
    t.add("edge::color_column", &["--color", "always", "--column", "Sherlock"], SHERLOCK);
    t.add("edge::color_byte_offset", &["--color", "always", "-b", "Sherlock"], SHERLOCK);
    t.add("edge::color_only_matching", &["--color", "always", "-o", "-n", "Sherlock"], SHERLOCK);
    t.add("edge::color_context", &["--color", "always", "-n", "-C1", "Holmes"], SHERLOCK);
    t.add("edge::color_invert", &["--color", "always", "-v", "Sherlock"], SHERLOCK);
    t.add("edge::color_count", &["--color", "always", "-c", "Sherlock"], SHERLOCK);
    t.add("edge::color_adjacent", &["--color", "always", "o"], "foo\n");
    t.add("edge::color_several_patterns", &["--color", "always", "-e", "foo", "-e", "bar"], "foobar barfoo\n");
    t.add("edge::color_empty_match", &["--color", "always", "-n", "x?"], "ab\nx\n");
    t.add("edge::color_empty_pattern", &["--color", "always", ""], "a\n\n");
    t.add("edge::color_caret", &["--color", "always", "-n", "^"], "a\n\n");
    t.add("edge::color_dollar", &["--color", "always", "$"], "a\n");
    t.add("edge::color_word", &["--color", "always", "-w", "foo"], "foo foobar foo\n");
    t.add("edge::color_ignore_case", &["--color", "always", "-i", "foo"], "FOO fOo\n");
    t.add("edge::color_line_regexp", &["--color", "always", "-x", "foo"], "foo\nfoox\n");
    t.add("edge::color_replace", &["--color", "always", "-r", "X", "o"], "foo\n");
    t.add("edge::color_vimgrep", &["--color", "always", "--vimgrep", "o"], "foo\n");
    t.add("edge::color_passthru", &["--color", "always", "--passthru", "-n", "foo"], "foo\nbar\n");
    t.add("edge::color_max_columns", &["--color", "always", "-M5", "foo"], "xx foo yyyyyy\nfoo\n");
    t.add("edge::color_max_columns_preview", &["--color", "always", "-M5", "--max-columns-preview", "foo"], "xx foo yyyyyy foo\n");
    t.add("edge::color_final_nonl", &["--color", "always", "b"], "ab");
    t.add("edge::color_crlf", &["--color", "always", "--crlf", "b$"], "ab\r\n");
    t.add("edge::color_cr_in_match", &["--color", "always", r"b\r"], "ab\r\n");
    t.add("edge::color_never", &["--color", "never", "-n", "Sherlock"], SHERLOCK);
    t.add("edge::color_whole_line", &["--color", "always", ".*"], "abc\n\n");
    t.add("edge::color_invalid_utf8", &["--color", "always", "-n", r"(?-u)\xff"], b"a\xffb\n");
    t.add("edge::color_json", &["--color", "always", "--json", "Sherlock"], SHERLOCK);
    t.add("edge::color_max_count_context", &["--color", "always", "-m1", "-A1", "-n", "Sherlock"], SHERLOCK);
    t.add("edge::color_byte_offset_only_matching", &["--color", "always", "-b", "-o", "o"], "foo\n");
    t.add("edge::color_trim", &["--color", "always", "--trim", "x"], "  x y\n");
}

/// `--json`: begin/match/context/end/summary messages.
#[rustfmt::skip] // a table: one case per line
fn json(t: &mut T) {
    t.1 = "--json";
    t.add("json::basic", &["--json", "-B1", "Sherlock Holmes"], SHERLOCK);
    t.add("json::replacement", &["--json", "-B1", "Sherlock Holmes", "-r", "John Watson"], SHERLOCK);
    // quiet_stats without --stats (--json always ends with the summary).
    t.add("json::quiet_stats", &["--json", "--quiet", "Sherlock Holmes"], SHERLOCK);
    t.add("json::notutf8_file", &["--json", r"(?-u)\xFF"], b"quux\xffbaz");
    t.add("json::crlf", &["--json", "--crlf", "Sherlock$"], SHERLOCK_CRLF);
    t.add("json::r1095_missing_crlf", &["--json", "test"], "test\r\n");
    t.add("json::r1095_missing_crlf_crlf", &["--json", "test", "--crlf"], "test\r\n");
    t.add("printer_json::max_matches", &["--json", "-m1", "Watson"], SHERLOCK);
    t.add("printer_json::max_matches_after_context", &["--json", "-A2", "-m1", "d"], A_TO_E);
    t.add("printer_json::no_match", &["--json", "DOES NOT MATCH"], SHERLOCK);
    t.add("printer_json::missing_crlf", &["--json", "test"], "test\r\n");
    t.add("printer_json::missing_crlf_crlf", &["--json", "--crlf", "test"], "test\r\n");
    // reports_stats: the stats as the JSON end and summary messages carry
    // them (--stats text is not compared).
    t.add("printer::reports_stats", &["--json", "Sherlock|opposed"], SHERLOCK_NONL);
    t.add("edge::json_escapes", &["--json", "x"], "a\"x\\b\tc\x01d\x7f\u{2028}\n");
    t.add("edge::json_invalid_utf8_line", &["--json", "foo"], b"\xfffoo\xfe\n");
    t.add("edge::json_nul", &["--json", "b"], "a\x00b\n");
    t.add("edge::json_context_final_nonl", &["--json", "-A1", "a"], "a\nb");
    t.add("edge::json_match_final_nonl", &["--json", "z"], "a\nz");
    t.add("edge::json_no_line_number", &["--json", "-N", "foo"], "foo\n");
    t.add("edge::json_invert", &["--json", "-v", "foo"], "foo\nbar\n");
    t.add("edge::json_empty_match", &["--json", "^"], "a\n\n");
    t.add("edge::json_count", &["--json", "-c", "Sherlock"], SHERLOCK);
    t.add("edge::json_count_no_match", &["--json", "-c", "nada"], SHERLOCK);
    t.add("edge::json_count_matches", &["--json", "--count-matches", "o"], "foo\n");
    t.add("edge::json_files_with_matches", &["--json", "-l", "Sherlock"], SHERLOCK);
    t.add("edge::json_max_count_context", &["--json", "-m1", "-A1", "Sherlock"], SHERLOCK);
    t.add("edge::json_only_matching", &["--json", "-o", "Sherlock"], SHERLOCK);
    t.add("edge::json_byte_offset", &["--json", "-b", "Sherlock"], SHERLOCK);
    t.add("edge::json_submatches", &["--json", "o"], "foo boo\n");
    t.add("edge::json_unicode", &["--json", "東京"], "日本語の東京\n");
    t.add("edge::json_crlf_context", &["--json", "--crlf", "-C1", "b"], "a\r\nb\r\nc\r\n");
    t.add("edge::json_word", &["--json", "-w", "foo"], "foo foobar\n");
    t.add("edge::json_empty_file", &["--json", "x"], "");
    t.add("edge::json_replace_groups", &["--json", "-r", "$1$1", "(o+)"], "foo\n");
    t.add("edge::json_context_both", &["--json", "-C1", "5"], "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
    t.add("edge::json_bad_regex", &["--json", "("], SHERLOCK);
    t.add("edge::json_quiet_no_match", &["--json", "-q", "nada"], SHERLOCK);
    t.add("edge::json_many_lines", &["--json", "-m2", "99"], (1..=300).map(|i| format!("line {i}\n")).collect::<String>());
}

/// `--crlf`: `$`, `^`, `-x` around a lone `\r`; output line endings.
#[rustfmt::skip] // a table: one case per line
fn crlf(t: &mut T) {
    t.1 = "--crlf";
    let mixed = "foo\r\nbar\r\nfoo\nfoo";
    let lone = "ab\rcd\nab\r\nab\n";
    t.add("feature::f416_crlf", &["--crlf", "Sherlock$"], SHERLOCK_CRLF);
    t.add("feature::f416_crlf_only_matching", &["--crlf", "-o", "Sherlock$"], SHERLOCK_CRLF);
    t.add("printer::regression_crlf_preserve", &["--crlf", "."], "hello\nworld\r\n");
    t.add("printer::regression_crlf_preserve_replace", &["--crlf", "-r", "$0", "."], "hello\nworld\r\n");
    t.add("edge::crlf_lone_cr_dollar", &["--crlf", "-n", "b$"], lone);
    t.add("edge::crlf_lone_cr_caret", &["--crlf", "-n", "^cd"], lone);
    t.add("edge::crlf_lone_cr_line_regexp", &["--crlf", "-n", "-x", "cd"], lone);
    t.add("edge::crlf_lone_cr_line_regexp_ab", &["--crlf", "-n", "-x", "ab"], lone);
    t.add("edge::crlf_lone_cr_without_crlf", &["-n", "b$"], lone);
    t.add("edge::crlf_lone_cr_only_matching", &["--crlf", "-o", "-n", r"^\w+$"], lone);
    t.add("edge::crlf_lone_cr_count", &["--crlf", "-c", "^cd$"], lone);
    t.add("edge::crlf_lone_cr_final", &["--crlf", "-n", "x$"], "a\nx\r");
    t.add("edge::crlf_output_lines", &["--crlf", "-n", "foo"], mixed);
    t.add("edge::crlf_only_matching_terminator", &["--crlf", "-o", "foo"], mixed);
    t.add("edge::crlf_only_matching_byte_offset", &["--crlf", "-o", "-b", "foo"], mixed);
    t.add("edge::crlf_count", &["--crlf", "-c", "foo"], mixed);
    t.add("edge::crlf_count_matches", &["--crlf", "--count-matches", "o"], mixed);
    t.add("edge::crlf_context", &["--crlf", "-n", "-C1", "bar"], mixed);
    t.add("edge::crlf_dollar_mixed", &["--crlf", "-n", "foo$"], mixed);
    t.add("edge::crlf_no_crlf_dollar", &["-n", "foo$"], mixed);
    t.add("edge::crlf_json", &["--crlf", "--json", "foo$"], mixed);
    t.add("edge::crlf_empty_lines", &["--crlf", "-n", "^$"], "a\r\n\r\n\n\r\nb");
    t.add("edge::crlf_invert", &["--crlf", "-v", "-n", "a$"], "a\r\nb\r\na\n");
    t.add("edge::crlf_replace", &["--crlf", "-r", "X", "o$"], mixed);
    t.add("edge::crlf_word", &["--crlf", "-w", "-o", "foo"], mixed);
    t.add("edge::crlf_max_count", &["--crlf", "-m1", "-A1", "foo"], mixed);
    t.add("edge::crlf_vimgrep", &["--crlf", "--vimgrep", "o$"], mixed);
    t.add("edge::crlf_quiet", &["--crlf", "-q", "foo$"], mixed);
    t.add("edge::crlf_files_with_matches", &["--crlf", "-l", "foo$"], mixed);
    t.add("edge::crlf_passthru", &["--crlf", "--passthru", "-n", "bar"], mixed);
    t.add("edge::crlf_only_cr_lf_line", &["--crlf", "-c", "^$"], "\r\n\r\n");
    t.add("edge::crlf_trim", &["--crlf", "--trim", "x"], " x\r\n");
}

/// Patterns that can match a line terminator: refused, or stripped.
#[rustfmt::skip] // a table: one case per line
fn line_terminator_patterns(t: &mut T) {
    t.1 = "line-terminator patterns";
    t.add("edge::lineterm_class_with_newline", &["-n", r"a[\n]b"], "a\nb\nab\n");
    t.add("edge::lineterm_negated_class_count", &["-c", "[^a]"], "a\naa\n\n");
    t.add("edge::lineterm_negated_class_only", &["-o", "-n", "[^a]"], "a\nab\n\n");
    t.add("edge::lineterm_space_class", &["-o", r"a\sb"], "a\nb a b\n");
    t.add("edge::lineterm_real_newline_e", &["-e", "foo\nbar"], "foo\nbar\n");
    t.add("edge::lineterm_real_newline_fixed", &["-F", "-e", "foo\nbar"], "foo\nbar\n");
    t.add("edge::lineterm_real_newline_fixed_positional", &["-F", "\n"], "foo\nbar\n");
    t.add("edge::lineterm_dotall", &["-o", "(?s)."], "ab\n");
    t.add("edge::lineterm_any_class", &["-c", r"[\s\S]"], "a\n\n");
    t.add("edge::lineterm_nonword", &["-o", "-n", r"\W"], "a b\n");
    t.add("edge::lineterm_nondigit", &["-c", r"\D"], "1\n\n");
    t.add("edge::lineterm_end_of_text", &["-n", r"c\z"], "abc\nabc");
    t.add("edge::lineterm_dollar", &["-n", "c$"], "abc\nabc");
    t.add("edge::lineterm_byte_range", &["-c", r"(?-u:[\x00-\xff])"], "a\n\nb");
    t.add("edge::lineterm_not_newline_star", &["-n", r"[^\n]*x"], "x\nyx\n");
    t.add("edge::lineterm_any_codepoint", &["-c", r"\p{Any}"], "a\n\n");
    t.add("edge::lineterm_cr_no_crlf", &["-n", r"\r"], "a\r\nb\rc\n");
    t.add("edge::lineterm_cr_crlf", &["--crlf", "-n", r"\r"], "a\r\nb\rc\n");
    t.add("edge::lineterm_cr_class_crlf", &["--crlf", "-n", r"[\r]"], "a\r\nb\rc\n");
    t.add("edge::lineterm_crlf_pair_crlf", &["--crlf", r"\r\n"], "a\r\nb\n");
    t.add("edge::lineterm_a_cr_crlf", &["--crlf", r"a\r"], "a\r\nb\n");
    t.add("edge::lineterm_newline_escape_in_class_crlf", &["--crlf", "-n", r"[a\n]"], "a\r\nb\n");
    t.add("edge::lineterm_newline_in_alternation", &["-n", r"x|\n"], "x\ny\n");
    t.add("edge::lineterm_newline_fixed_escape", &["-F", "-n", r"\n"], "a\\nb\nab\n");
}

/// Byte-order marks and `-E/--encoding`.
#[rustfmt::skip] // a table: one case per line
fn bom_and_encoding(t: &mut T) {
    t.1 = "BOM/-E";
    let bom = "\u{FEFF}test123\ntest123";
    t.add("regression::r1163", &["^test123"], bom);
    t.add("regression::r1638", &["--column", "x"], b"\xef\xbb\xbfx");
    t.add("searcher::uft8_bom_sniffing", &["-n", "-b", "foo"], b"\xef\xbb\xbffoo");
    t.transcoded("feature::f1_sjis", &["-Esjis", "Шерлок Холмс"], b"\x84Y\x84u\x84\x82\x84|\x84\x80\x84{ \x84V\x84\x80\x84|\x84}\x84\x83");
    t.utf16("feature::f1_utf16_auto", &["Шерлок Холмс"], b"\xff\xfe(\x045\x04@\x04;\x04>\x04:\x04 \x00%\x04>\x04;\x04<\x04A\x04");
    t.utf16("feature::f1_utf16_explicit", &["-Eutf-16le", "Шерлок Холмс"], b"\xff\xfe(\x045\x04@\x04;\x04>\x04:\x04 \x00%\x04>\x04;\x04<\x04A\x04");
    t.transcoded("feature::f1_eucjp", &["-Eeuc-jp", "Шерлок Холмс"], b"\xa7\xba\xa7\xd6\xa7\xe2\xa7\xdd\xa7\xe0\xa7\xdc \xa7\xb7\xa7\xe0\xa7\xdd\xa7\xde\xa7\xe3");
    // The tests give no pattern; one is added so that only the encoding is
    // wrong.
    t.add("feature::f1_unknown_encoding", &["-Efoobar", "Sherlock"], SHERLOCK);
    t.add("feature::f1_replacement_encoding", &["-Ecsiso2022kr", "Sherlock"], SHERLOCK);
    t.utf16("feature::f1207_auto_encoding", &[r"\x00"], b"\xff\xfe\x00\x62");
    t.add("feature::f1207_ignore_encoding", &["--encoding", "none", r"\x00"], b"\xff\xfe\x00\x62");
    t.add("edge::bom_byte_offset", &["-b", "-n", "test"], bom);
    t.add("edge::bom_only_matching_offset", &["-o", "-b", "test"], bom);
    t.add("edge::bom_column", &["--column", "123"], bom);
    t.add("edge::bom_count", &["-c", ""], bom);
    t.add("edge::bom_invert", &["-v", "-n", "zzz"], bom);
    t.add("edge::bom_only", &["-n", ""], "\u{FEFF}");
    t.add("edge::bom_only_count", &["-c", ""], "\u{FEFF}");
    t.add("edge::bom_then_newline", &["-n", "-b", ""], "\u{FEFF}\nx\n");
    t.add("edge::bom_line_regexp", &["-x", "test123"], bom);
    t.add("edge::bom_caret_dot", &["-n", "-b", "-o", "^."], bom);
    t.add("edge::bom_pattern_feff", &["-n", "\u{FEFF}"], bom);
    t.add("edge::bom_mid_file", &["-n", "-b", "-o", "^."], "a\n\u{FEFF}b\n");
    t.add("edge::bom_json", &["--json", "test"], bom);
    t.add("edge::bom_encoding_none", &["-E", "none", "-b", "-n", "test"], bom);
    t.add("edge::bom_no_encoding", &["--no-encoding", "-b", "test"], bom);
    t.transcoded("edge::bom_encoding_utf8", &["-E", "utf-8", "-b", "-n", "test"], bom);
    t.add("edge::bom_truncated", &["-b", "-n", "x"], b"\xef\xbbx\nx\n");
    t.add("edge::bom_context", &["-n", "-b", "-B1", "2"], "\u{FEFF}1\n2\n");
    t.add("edge::bom_crlf", &["--crlf", "-n", "test123$"], "\u{FEFF}test123\r\ntest123\r\n");
    t.add("edge::bom_color", &["--color", "always", "-n", "test"], bom);
    t.add("edge::bom_word", &["-w", "-o", "-b", "test123"], bom);
    t.utf16("edge::utf16le_bom", &["-n", "a"], b"\xff\xfea\x00\n\x00b\x00\n\x00");
    t.utf16("edge::utf16be_bom", &["-n", "a"], b"\xfe\xff\x00a\x00\n\x00b\x00\n");
    t.utf16("edge::utf16le_bom_count", &["-c", "a"], b"\xff\xfea\x00\n\x00a\x00\n\x00");
    // With -E none ripgrep searches the raw bytes: no transcoding, no
    // refusal.
    t.add("edge::utf16le_bom_encoding_none", &["-E", "none", "-c", ""], b"\xff\xfea\x00\n\x00b\x00\n\x00");
    t.transcoded("edge::encoding_latin1", &["-E", "latin1", "-n", "é"], b"caf\xe9\ncafe\n");
}

/// `-r/--replace`.
#[rustfmt::skip] // a table: one case per line
fn replace(t: &mut T) {
    t.1 = "-r";
    t.add("misc::replace", &["-r", "FooBar", "Sherlock"], SHERLOCK);
    t.add("misc::replace_groups", &["-r", "$2, $1", "([A-Z][a-z]+) ([A-Z][a-z]+)"], SHERLOCK);
    t.add("misc::replace_named_groups", &["-r", "$last, $first", "(?P<first>[A-Z][a-z]+) (?P<last>[A-Z][a-z]+)"], SHERLOCK);
    t.add("misc::replace_with_only_matching", &["-o", "-r", "$1", r"of (\w+)"], SHERLOCK);
    t.add("regression::r568_rni", &["-rni", "bar"], "foo bar -baz\n");
    t.add("regression::r568_r_n_i", &["-r", "-n", "-i", "bar"], "foo bar -baz\n");
    t.add("regression::r1739_replacement_lineterm_match", &[r"-r${0}f", ".*"], "a\n");
    t.add("regression::r2480_capture_groups", &["-e", "Fo(oB)a(r)", "--replace", "${0}_${1}_${2}${3}"], "FooBar\n");
    t.add("printer::replacement", &["-n", "-r", "doctah $1 MD", r"Sherlock|Doctor (\w+)"], SHERLOCK_NONL);
    t.add("printer::replacement_only_matching", &["-n", "-o", "-r", "doctah $1 MD", r"Sherlock|Doctor (\w+)"], SHERLOCK_NONL);
    // replacement_per_match: per-match lines are --vimgrep's (which adds
    // the column).
    t.add("printer::replacement_per_match", &["--vimgrep", "-r", "doctah $1 MD", r"Sherlock|Doctor (\w+)"], SHERLOCK_NONL);
    // interpolate.rs: a pattern whose group 2 is `foo` (group 1 `bar` or
    // empty) against `xxx` / `yyyxxx`, printed with -o -r TEMPLATE.
    let one = "()(?P<foo>xxx)";
    let two = "(?P<bar>yyy)(?P<foo>xxx)";
    for (n, pat, hay, tmpl) in [
        (1, one, "xxx", "test $foo test"),
        (2, one, "xxx", "test$footest"),
        (3, one, "xxx", "test${foo}test"),
        (4, one, "xxx", "test$2test"),
        (5, one, "xxx", "test${2}test"),
        (6, one, "xxx", "test $$foo test"),
        (7, one, "xxx", "test $foo"),
        (8, one, "xxx", "$foo test"),
        (9, two, "yyyxxx", "test $bar$foo"),
        (10, two, "yyyxxx", "test $ test"),
        (11, two, "yyyxxx", "test ${} test"),
        (12, two, "yyyxxx", "test ${ } test"),
        (13, two, "yyyxxx", "test ${a b} test"),
        (14, two, "yyyxxx", "test ${a} test"),
    ] {
        t.add_named(format!("interp::interp{n}"), &["-o", "-r", tmpl, pat], hay);
    }
    t.add("edge::replace_dollar_dollar", &["-r", "$$", "o"], "foo\n");
    t.add("edge::replace_group_braces", &["-r", "${1}x", "(o)"], "foo\n");
    t.add("edge::replace_empty", &["-r", "", "o"], "foo\nbar\n");
    t.add("edge::replace_missing_group", &["-r", "[$9]", "o"], "foo\n");
    t.add("edge::replace_empty_match", &["-r", "X", "x*"], "ab\n");
    t.add("edge::replace_only_matching_empty", &["-o", "-r", "X", "x*"], "ab\n");
    t.add("edge::replace_crlf_line", &["-r", "X", "b"], "ab\r\n");
    t.add("edge::replace_invert", &["-v", "-r", "X", "o"], "foo\nbar\n");
    t.add("edge::replace_count", &["-c", "-r", "X", "o"], "foo\nbar\n");
    t.add("edge::replace_context", &["-n", "-A1", "-r", "X", "o"], "foo\nbar\n");
    t.add("edge::replace_newline_template", &["-r", "a\nb", "o"], "foo\n");
    t.add("edge::replace_final_nonl", &["-r", "X", "b"], "ab");
}

/// `--passthru`.
#[rustfmt::skip] // a table: one case per line
fn passthru(t: &mut T) {
    t.1 = "--passthru";
    let hay = "\nfoo\nbar\nfoobar\n\nbaz\n";
    t.add("feature::f740_passthru", &["-n", "--passthru", "foo"], hay);
    t.add("feature::f740_passthru_multiple", &["-n", "--passthru", "-e", "foo", "-e", "bar"], hay);
    t.add("feature::f740_passthru_count", &["-n", "--passthru", "-c", "foo"], hay);
    t.add("feature::f740_passthru_only_matching", &["-n", "--passthru", "-o", "foo"], hay);
    t.add("feature::f740_passthru_replace", &["-n", "--passthru", "-r", "wat", "foo"], hay);
    let r = "foo\nbar\nbaz\nquux\n";
    t.add("regression::r1868_context", &["-C1", "bar"], r);
    t.add("regression::r1868_passthru", &["--passthru", "bar"], r);
    t.add("regression::r1868_passthru_then_c1", &["--passthru", "-C1", "bar"], r);
    t.add("regression::r1868_c1_then_passthru", &["-C1", "--passthru", "bar"], r);
    t.add("regression::r1868_passthru_then_b1", &["--passthru", "-B1", "bar"], r);
    t.add("regression::r1868_b1_then_passthru", &["-B1", "--passthru", "bar"], r);
    t.add("regression::r1868_passthru_then_a1", &["--passthru", "-A1", "bar"], r);
    t.add("regression::r1868_a1_then_passthru", &["-A1", "--passthru", "bar"], r);
    t.add("printer::replacement_passthru", &["-n", "--passthru", "-r", "doctah $1 MD", r"Sherlock|Doctor (\w+)"], SHERLOCK_NONL);
    t.add("edge::passthru_invert", &["--passthru", "-v", "-n", "o"], "foo\nbar\n");
    t.add("edge::passthru_max_count", &["--passthru", "-m1", "-n", "o"], "o\nx\no\nx\n");
    t.add("edge::passthru_max_count_replace", &["--passthru", "-m1", "-r", "B", "b"], "a\nb\nc\na\nb\nc\n");
    t.add("edge::passthru_byte_offset", &["--passthru", "-b", "o"], "foo\nbar\nboo");
    t.add("edge::passthru_no_match", &["--passthru", "zzz"], "foo\nbar\n");
    t.add("edge::passthru_json", &["--passthru", "--json", "bar"], r);
}

/// `--trim`.
#[rustfmt::skip] // a table: one case per line
fn trim(t: &mut T) {
    t.1 = "--trim";
    t.add("feature::f917_trim", &["-n", "-B1", "-A2", "--trim", "Holmeses"], SHERLOCK_INDENTED);
    t.add("feature::f917_trim_match", &["-n", "-B1", "-A2", "--trim", r"\s+Holmeses"], SHERLOCK_INDENTED);
    t.add("feature::f917_trim_max_columns_normal", &["--trim", "--max-columns-preview", "-M8", "abc"], TRIM_COLUMNS);
    // --colors=path:none dropped: no path is printed.
    t.add("feature::f917_trim_max_columns_matches", &["--trim", "--max-columns-preview", "-M8", "--color=always", "abc"], TRIM_COLUMNS);
    t.add("printer::trim_ascii", &["--trim", "Watson"], "   Watson");
    t.add("printer::trim_ascii_with_line_term", &["-n", "-B1", "--trim", "Watson"], "\n   Watson");
    t.add("edge::trim_tabs_and_cr", &["--trim", "-n", "x"], "\t x\n \r x\n");
    t.add("edge::trim_only_matching", &["--trim", "-o", "-n", " x"], "  x\n");
    t.add("edge::trim_whole_line_blank", &["--trim", "-n", "^"], "   \n\t\n");
    t.add("edge::trim_byte_offset", &["--trim", "-b", "x"], "a\n   x\n");
    t.add("edge::trim_column", &["--trim", "--column", "x"], "   x\n");
    t.add("edge::trim_unicode_space", &["--trim", "x"], "\u{3000}x\n");
}

/// `-M/--max-columns`, `--max-columns-preview`.
#[rustfmt::skip] // a table: one case per line
fn max_columns(t: &mut T) {
    t.1 = "-M";
    t.add("feature::f129_matches", &["-M26", "test"], "test\ntest abcdefghijklmnopqrstuvwxyz test");
    t.add("feature::f129_context", &["-M20", "-C1", "test"], "test\nabcdefghijklmnopqrstuvwxyz");
    t.add("feature::f129_replace", &["-M26", "-rfoo", "test"], "test\ntest abcdefghijklmnopqrstuvwxyz test");
    t.add("feature::f1078_max_columns_preview1", &["-M46", "--max-columns-preview", "exhibited|dusted|has to have it"], SHERLOCK);
    t.add("feature::f1078_max_columns_preview2", &["-M43", "--max-columns-preview", "-rxxx", "exhibited|dusted|has to have it"], SHERLOCK);
    t.add("printer::max_columns", &["-M63", "ash|dusted"], SHERLOCK_NONL);
    t.add("printer::max_columns_preview", &["-M46", "--max-columns-preview", "exhibited|dusted"], SHERLOCK_NONL);
    // The *_with_count tests turn on stats to get match counts in the
    // omission messages; the command line gets them from colours.
    t.add("printer::max_columns_with_count", &["--color", "always", "-M63", "cigar|ash|dusted"], SHERLOCK_NONL);
    t.add("printer::max_columns_with_count_preview_no_match", &["--color", "always", "-M46", "--max-columns-preview", "exhibited|has to have it"], SHERLOCK_NONL);
    t.add("printer::max_columns_with_count_preview_one_match", &["--color", "always", "-M46", "--max-columns-preview", "exhibited|dusted"], SHERLOCK_NONL);
    t.add("printer::max_columns_with_count_preview_two_matches", &["--color", "always", "-M46", "--max-columns-preview", "exhibited|dusted|has to have it"], SHERLOCK_NONL);
    t.add("printer::only_matching_max_columns", &["-o", "-M10", "--column", "-n", "Doctor Watsons|Sherlock"], SHERLOCK_NONL);
    t.add("printer::only_matching_max_columns_preview", &["-o", "-M10", "--max-columns-preview", "--column", "-n", "Doctor Watsons|Sherlock"], SHERLOCK_NONL);
    t.add("printer::replacement_max_columns", &["-n", "-M67", "-r", "doctah $1 MD", r"Sherlock|Doctor (\w+)"], SHERLOCK_NONL);
    t.add("printer::replacement_max_columns_preview1", &["-n", "-M67", "--max-columns-preview", "-r", "doctah $1 MD", r"Sherlock|Doctor (\w+)"], SHERLOCK_NONL);
    t.add("printer::replacement_max_columns_preview2", &["-M43", "--max-columns-preview", "-r", "xxx", "exhibited|dusted|has to have it"], SHERLOCK_NONL);
    t.add("edge::max_columns_exact", &["-M3", "-n", "abc"], "abc\nabcd\n");
    t.add("edge::max_columns_preview_short", &["-M3", "--max-columns-preview", "-n", "abc"], "abcd\nab\n");
    t.add("edge::max_columns_multibyte", &["-M2", "δ"], "δ\nδx\n");
    t.add("edge::max_columns_preview_multibyte", &["-M3", "--max-columns-preview", "δ"], "δδδ\n");
    t.add("edge::max_columns_crlf", &["-M3", "abc"], "abc\r\n");
    t.add("edge::max_columns_zero", &["-M0", "abc"], "abcdef\n");
    t.add("edge::max_columns_invert", &["-M3", "-v", "x"], "abcdef\nx\nab\n");
    t.add("edge::max_columns_json", &["-M3", "--json", "abc"], "abcdef\n");
}

/// `--vimgrep`.
#[rustfmt::skip] // a table: one case per line
fn vimgrep(t: &mut T) {
    t.1 = "--vimgrep";
    t.add("misc::vimgrep", &["--vimgrep", "Sherlock|Watson"], SHERLOCK);
    t.add("misc::vimgrep_no_line", &["--vimgrep", "-N", "Sherlock|Watson"], SHERLOCK);
    t.add("misc::vimgrep_no_line_no_column", &["--vimgrep", "-N", "--no-column", "Sherlock|Watson"], SHERLOCK);
    t.add("regression::r105_part1", &["--vimgrep", "test"], "zztest");
    // per_match: per-match lines are --vimgrep's.
    t.add("printer::per_match", &["--vimgrep", "Doctor Watsons|Sherlock"], SHERLOCK_NONL);
    t.add("edge::vimgrep_only_matching", &["--vimgrep", "-o", "o"], "foo\n");
    t.add("edge::vimgrep_empty_match", &["--vimgrep", "x?"], "ab\n");
    t.add("edge::vimgrep_context_ignored", &["--vimgrep", "-C1", "b"], "a\nb\nc\n");
    t.add("edge::vimgrep_byte_offset", &["--vimgrep", "-b", "o"], "foo\n");
    t.add("edge::vimgrep_invert", &["--vimgrep", "-v", "o"], "foo\nbar\n");
    t.add("edge::vimgrep_multibyte_column", &["--vimgrep", "x"], "δx\n");
}

/// `-q`, `-l/--files-with-matches`.
#[rustfmt::skip] // a table: one case per line
fn quiet_and_files(t: &mut T) {
    t.1 = "-q/-l";
    t.add("misc::quiet", &["-q", "Sherlock"], SHERLOCK);
    t.add("misc::files_with_matches", &["--files-with-matches", "Sherlock"], SHERLOCK);
    t.add("regression::r279", &["-q", "test"], "test");
    t.add("regression::r1130", &["--files-with-matches", "test"], "test");
    t.add("regression::r1159_exit_status_quiet_match", &["-q", "test"], "test");
    t.add("regression::r1159_exit_status_quiet_no_match", &["-q", "nada"], "test");
    t.add("regression::r3108_quiet_non_match", &["-q", "abc"], "xyz");
    t.add("regression::r3108_quiet_yes_match", &["-q", "abc"], "abc");
    t.add("regression::r3108_files_with_matches_quiet_non_match", &["--files-with-matches", "-q", "abc"], "xyz");
    t.add("regression::r3108_files_with_matches_quiet_yes_match", &["--files-with-matches", "-q", "abc"], "abc");
    t.add("summary::path_with_match_found", &["-l", "Watson"], SHERLOCK);
    t.add("summary::path_with_match_not_found", &["-l", "ZZZZZZZZ"], SHERLOCK);
    t.add("summary::quiet", &["-q", "Watson|Sherlock"], SHERLOCK);
    t.add("edge::quiet_bad_regex", &["-q", "("], SHERLOCK);
    t.add("edge::quiet_empty_file", &["-q", ""], "");
    t.add("edge::files_with_matches_count", &["-l", "-c", "o"], "foo\n");
    t.add("edge::files_with_matches_invert", &["-l", "-v", "o"], "foo\nbar\n");
    t.add("edge::files_with_matches_invert_none", &["-l", "-v", "o"], "foo\n");
    t.add("edge::quiet_invert", &["-q", "-v", ""], "a\n");
}

/// ripgrep `tests/binary.rs` with `-a` (always given): a 90 KB file with a
/// NUL byte at line 1870 is searched as text.
#[rustfmt::skip] // a table: one case per line
fn binary_text(t: &mut T) {
    t.1 = "binary (-a)";
    t.add("binary::after_match1_explicit_text", &["-n", "Project Gutenberg EBook"], SHERLOCK_NUL);
    t.add("binary::after_match1_explicit_count_text", &["-c", "Project Gutenberg EBook"], SHERLOCK_NUL);
    t.add("binary::after_match2_implicit_text", &["-n", "Project Gutenberg EBook|a medical student"], SHERLOCK_NUL);
    t.add("binary::before_match1_explicit_text", &["-n", "Heaven"], SHERLOCK_NUL);
    t.add("binary::before_match2_explicit_text", &["-n", "a medical student"], SHERLOCK_NUL);
    t.add("binary::mmap_match_near_nul", &["-n", "abcdef"], SHERLOCK_NUL);
    t.add("binary::mmap_match_count", &["-c", "Project Gutenberg EBook|Heaven"], SHERLOCK_NUL);
    t.add("binary::mmap_after_nul_match", &["-n", "medical student"], SHERLOCK_NUL);
    t.add("binary::after_match1_implicit_path_text", &["-l", "Project Gutenberg EBook"], SHERLOCK_NUL);
    t.add("binary::after_match1_implicit_quiet_text", &["-q", "Project Gutenberg EBook"], SHERLOCK_NUL);
}

/// ripgrep's searcher unit tests (`glue.rs`, `mod.rs`): `OFFSET:line`
/// is `-b`, `LINE:OFFSET:line` is `-n -b`.
#[rustfmt::skip] // a table: one case per line
fn searcher(t: &mut T) {
    t.1 = "searcher";
    t.add("searcher::basic1", &["-b", "Sherlock"], SHERLOCK_NONL);
    t.add("searcher::basic2", &["-b", "NADA"], SHERLOCK_NONL);
    t.add("searcher::basic3", &["-b", "a"], SHERLOCK_NONL);
    t.add("searcher::basic4", &["-b", "a"], "a\nb\n\nc\n\n\nd\n");
    t.add("searcher::invert1", &["-b", "-v", "Sherlock"], SHERLOCK_NONL);
    t.add("searcher::line_number1", &["-n", "-b", "Sherlock"], SHERLOCK_NONL);
    t.add("searcher::line_number_invert1", &["-b", "-v", "Sherlock"], SHERLOCK_NONL);
    t.add("searcher::line_number_invert1_n", &["-n", "-b", "-v", "Sherlock"], SHERLOCK_NONL);
    // multi_line_overlap1/2 search "abc\ndef" (a real newline) in
    // multi-line mode; line by line ripgrep refuses the pattern.
    t.add("searcher::multi_line_overlap1", &["-b", "abc\ndef"], "xxx\nabc\ndefxxxabc\ndefxxx\nxxx");
    t.add("searcher::multi_line_overlap2", &["-b", "abc\ndef"], "xxx\nabc\ndefabc\ndefxxx\nxxx");
    for (name, hay) in [
        ("empty_line1", ""),
        ("empty_line2", "\n"),
        ("empty_line3", "\n\n"),
        ("empty_line4", "a\nb\n\nc\n\n\nd\n"),
        ("empty_line5", "a\nb\n\nc\n\n\nd"),
        ("empty_line6", "a\nb\n\nc\n\n\nd\n\n"),
    ] {
        t.add_named(format!("searcher::{name}"), &["-b", "^$"], hay);
        t.add_named(format!("searcher::{name}_n"), &["-n", "-b", "^$"], hay);
    }
    t.add("searcher::big1", &["-b", "a"], big1());
    // binary1/binary2 with -a: no binary detection, the NUL is a byte.
    t.add("searcher::binary1_text", &["-b", "a"], "\x00a");
    t.add("searcher::binary2_text", &["-b", "a"], "a\x00");
    t.add("searcher::passthru_sherlock1", &["--passthru", "-b", "Sherlock"], SHERLOCK_NONL);
    t.add("searcher::passthru_sherlock_invert1", &["--passthru", "-v", "-b", "Sherlock"], SHERLOCK_NONL);
    // The context tests: before and after with line numbers (`_n`) and
    // without, after only, before only.
    for (name, hay, pat, n, invert) in [
        ("context_sherlock1", SHERLOCK_NONL, "Sherlock", "1", false),
        ("context_sherlock_invert1", SHERLOCK_NONL, "Sherlock", "1", true),
        ("context_sherlock2", SHERLOCK_NONL, " a ", "1", false),
        ("context_sherlock_invert2", SHERLOCK_NONL, " a ", "1", true),
        ("context_sherlock3", SHERLOCK_NONL, "Sherlock", "2", false),
        ("context_sherlock4", SHERLOCK_NONL, "dusted", "2", false),
        ("context_sherlock5", SHERLOCK_NONL, "success|attached", "2", false),
        ("context_sherlock6", SHERLOCK_NONL, "Sherlock", "3", false),
        ("context_code1", CODE, "stdin", "2", false),
        ("context_code2", CODE, "stdout", "2", false),
        ("context_code3", CODE, "fn main|let mut rdr", "2", false),
    ] {
        let v: &[&'static str] = if invert { &["-v"] } else { &[] };
        let with = |rest: &[&'static str]| -> Vec<&'static str> {
            v.iter().chain(rest).copied().chain([pat]).collect()
        };
        t.add_named(format!("searcher::{name}_n"), &with(&["-n", "-b", "-A", n, "-B", n]), hay);
        t.add_named(format!("searcher::{name}"), &with(&["-b", "-A", n, "-B", n]), hay);
        t.add_named(format!("searcher::{name}_after"), &with(&["-b", "-A", n]), hay);
        t.add_named(format!("searcher::{name}_before"), &with(&["-b", "-B", n]), hay);
    }
    t.add("searcher::regression_2260", &["-n", r"^\w+$"], "GATC\n");
}

/// ripgrep `crates/searcher/src/lines.rs`: what a line is. `line_count` as
/// `-c ''`, `line_iter` as `-n -b ''`.
#[rustfmt::skip] // a table: one case per line
fn lines(t: &mut T) {
    t.1 = "lines";
    for (i, hay) in ["", "\n", "\n\n", "a\nb\nc"].into_iter().enumerate() {
        t.add_named(format!("lines::line_count_{}", i + 1), &["-c", ""], hay);
    }
    for (i, hay) in [
        "abc",
        "abc\n",
        "abc\nxyz",
        "abc\nxyz\n",
        "abc\n\n",
        "abc\n\n\n",
        "abc\n\nxyz",
        "abc\n\nxyz\n",
        "abc\nxyz\n\n",
        "\n",
        "",
    ]
    .into_iter()
    .enumerate()
    {
        t.add_named(format!("lines::line_iter_{}", i + 1), &["-n", "-b", ""], hay);
    }
}

/// ripgrep `crates/regex`'s unit tests as searches.
#[rustfmt::skip] // a table: one case per line
fn regex_crate(t: &mut T) {
    t.1 = "regex crate";
    // matcher.rs
    t.add("regex::matcher_word", &["-w", "-e", "-2"], "abc -2 foo");
    t.add("regex::matcher_word_boundary_escape", &[r"\b-2\b"], "abc -2 foo");
    t.add("regex::matcher_line_terminator", &[r"abc\sxyz"], "abc\nxyz");
    t.add("regex::matcher_line_terminator_error", &[r"a\nz"], "a\nz\n");
    t.add("regex::matcher_line_terminator_crlf_lf", &["abc$"], "abc\n");
    t.add("regex::matcher_line_terminator_crlf_no_crlf", &["abc$"], "abc\r\n");
    t.add("regex::matcher_line_terminator_crlf", &["--crlf", "abc$"], "abc\r\n");
    t.add("regex::matcher_case_smart", &["-S", "abc"], "ABC");
    t.add("regex::matcher_case_smart_upper", &["-S", "aBc"], "ABC");
    // strip.rs: classes lose the line terminator; a pattern that needs it
    // is refused.
    t.add("regex::strip_class_newline", &["-o", r"[a\n]"], "a\nb\n");
    t.add("regex::strip_class_newline_crlf", &["--crlf", "-o", r"[a\n]"], "a\r\nb\n");
    t.add("regex::strip_class_cr_crlf", &["--crlf", "-o", r"[a\r]"], "a\r\nb\r\n");
    t.add("regex::strip_class_crlf_crlf", &["--crlf", "-o", r"[a\r\n]"], "a\r\nb\r\n");
    t.add("regex::strip_space_bytes", &["-o", "-n", r"(?-u)\s"], "a b\tc\x0bd\x0ce\r\n");
    for (n, pat) in [
        (1, r"\n"),
        (2, r"abc\n"),
        (3, r"\nabc"),
        (4, r"abc\nxyz"),
        (5, r"\x0A"),
        (6, r"\u000A"),
        (7, r"\U0000000A"),
        (8, r"\u{A}"),
        (9, "\n"),
    ] {
        t.add_named(format!("regex::strip_error_{n}"), &[pat], "abc\nxyz\n");
    }
    // ban.rs: patterns with a NUL (legal with -a).
    for (n, pat) in [
        (1, r"\x00"),
        (2, r"a\x00"),
        (3, r"\x00b"),
        (4, r"a\x00b"),
        (5, r"\x00|ab"),
        (6, r"ab|\x00"),
        (7, r"\x00?"),
        (8, r"(\x00)"),
        (9, r"[\x00]"),
        (10, r"[^[^\x00]]"),
        (11, r"[^\x00]"),
        (12, r"[\x00a]"),
    ] {
        t.add_named(format!("regex::ban_{n}"), &["-n", pat], BYTES);
    }
    // ast.rs: which patterns count as having upper case for -S.
    for (n, pat) in [
        (1, ""),
        (2, "foo"),
        (3, "Foo"),
        (4, "foO"),
        (5, r"foo\\"),
        (6, r"foo\w"),
        (7, r"foo\S"),
        (8, r"foo\p{Ll}"),
        (9, "foo[a-z]"),
        (10, "foo[A-Z]"),
        (11, r"foo[\S\t]"),
        (12, r"foo\\S"),
        (13, r"\p{Ll}"),
        (14, r"aBc\w"),
        (15, r"a\u0061"),
    ] {
        t.add_named(format!("regex::ast_{n}"), &["-S", "-n", pat], SMART);
    }
    // non_matching.rs: what can and cannot match the bytes.
    for (name, pat) in [
        ("dot", "."),
        ("dot_s", "(?s)."),
        ("dot_bytes", "(?-u)."),
        ("dot_s_bytes", "(?s-u)."),
        ("literal_a", "a"),
        ("literal_snowman", "☃"),
        ("literal_xff", r"\xFF"),
        ("literal_xff_bytes", r"(?-u)\xFF"),
        ("anchor_caret", "^"),
        ("anchor_dollar", "$"),
        ("anchor_start", r"\A"),
        ("anchor_end", r"\z"),
        ("anchor_caret_m", "(?m)^"),
        ("anchor_dollar_m", "(?m)$"),
    ] {
        t.add_named(format!("regex::non_matching_{name}"), &["-o", "-n", pat], BYTES);
    }
}

/// ripgrep `crates/regex/src/literal.rs`: the patterns whose literals it
/// extracts, searched with `-o -n` (a wrong prefilter shows as a missed or
/// extra match).
#[rustfmt::skip] // a table: one case per line
fn literal(t: &mut T) {
    t.1 = "literals";
    let groups: &[(&str, &[&str])] = &[
        ("various", &[
            r"foo", r"[a-z]foo[a-z]", r"[a-z](foo)(bar)[a-z]", r"[a-z]([a-z]foo)(bar[a-z])[a-z]",
            r"[a-z]([a-z]foo)([a-z]foo)[a-z]", r"(\d{1,3}\.){3}\d{1,3}", r"[a-z]([a-z]foo){3}[a-z]",
            r"[a-z](foo[a-z]){3}[a-z]", r"[a-z]([a-z]foo[a-z]){3}[a-z]",
            r"[a-z]([a-z]foo){3}(bar[a-z]){3}[a-z]",
        ]),
        ("heuristics", &[r"[a-z]+(ab|cd|ef)[a-z]+hiya[a-z]+", r"[a-z]+(abc|def|ghi)[a-z]+hiya[a-z]+"]),
        ("literal", &[
            "a", "aaaaa", "(?i-u)a", "(?i-u)ab", "ab(?i-u)c", r"(?-u:\xFF)", "Z", "☃", "(?i)☃",
            "☃☃☃☃☃", "Δ", "δ", "(?i)Δ", "(?i)δ", "(?i)S", "(?i)s", "(?i)ſ",
            "ͱͳͷΐάέήίΰαβγδεζηθικλμνξοπρςστυφχψωϊϋ",
        ]),
        ("class", &["[abc]", "a[123]b", "[εδ]", r"(?i)[εδ]"]),
        ("look", &[
            r"a\Ab", r"a\zb", r"a(?m:^)b", r"a(?m:$)b", r"a\bb", r"a\Bb", r"a(?-u:\b)b",
            r"a(?-u:\B)b", r"^ab", r"$ab", r"(?m:^)ab", r"(?m:$)ab", r"\bab", r"\Bab",
            r"(?-u:\b)ab", r"(?-u:\B)ab", r"ab^", r"ab$", r"ab(?m:^)", r"ab(?m:$)", r"ab\b",
            r"ab\B", r"ab(?-u:\b)", r"ab(?-u:\B)", r"^aZ*b",
        ]),
        ("repetition", &[
            r"a?", r"a??", r"a*", r"a*?", r"a+", r"(a+)+", r"aZ{0}b", r"aZ?b", r"aZ??b", r"aZ*b",
            r"aZ*?b", r"aZ+b", r"aZ+?b", r"aZ{2}b", r"aZ{2,3}b", r"(abc)?", r"(abc)??", r"a*b",
            r"a*?b", r"ab+", r"a*b+", r"a*b*c", r"(a+)?(b+)?c", r"(a+|)(b+|)c", r"a*b*c*",
            r"a*b*c+", r"a*b+c", r"a*b+c*", r"ab*", r"ab*c", r"ab+c", r"z*azb",
            r"[ab]{3}", r"[ab]{3,4}",
        ]),
        ("concat", &[r"abc()xyz", r"(abc)(xyz)", r"abc()mno()xyz", r"abc[a&&b]xyz", r"abc[a&&b]*xyz"]),
        ("alternation", &[
            r"abc|mno|xyz", r"abc|mZ*o|xyz", r"abc|M[a&&b]N|xyz", r"abc|M[a&&b]*N|xyz",
            r"(?:|aa)aaa", r"(?:|aa)(?:aaa)*", r"(?:|aa)(?:aaa)*?", r"a|b*", r"a|b+", r"a*b|c",
            r"a|(?:b|c*)", r"(a|b)*c|(a|ab)*c", r"(ab|cd)(ef|gh)", r"(ab|cd)(ef|gh)(ij|kl)",
        ]),
        ("impossible", &[
            r"[a&&b]", r"a[a&&b]", r"[a&&b]b", r"a[a&&b]b", r"a|[a&&b]|b", r"a|c[a&&b]|b",
            r"a|[a&&b]d|b", r"a|c[a&&b]d|b", r"[a&&b]*", r"M[a&&b]*N",
        ]),
        ("anything", &[
            r".", r"(?s).", r"[A-Za-z]", r"[A-Z]", r"[A-Z]{0}", r"[A-Z]?", r"[A-Z]*", r"[A-Z]+",
            r"1[A-Z]", r"1[A-Z]2", r"[A-Z]+123", r"[A-Z]+123[A-Z]+", r"1|[A-Z]|3", r"1|2[A-Z]|3",
            r"1|[A-Z]2[A-Z]|3", r"1|[A-Z]2|3", r"1|2[A-Z]3|4", r"(?:|1)[A-Z]2", r"a.z",
        ]),
        ("empty", &[r"", r"^", r"$", r"(?m:^)", r"(?m:$)", r"\b", r"\B", r"(?-u:\b)", r"(?-u:\B)"]),
        ("crazy_repeats", &[
            r"(?:){4294967295}", r"(?:){64}{64}{64}{64}{64}{64}", r"x{0}{4294967295}",
            r"(?:|){4294967295}", r"(?:){8}{8}{8}{8}{8}{8}{8}{8}{8}{8}{8}{8}{8}{8}",
            r"a{8}{8}{8}{8}{8}{8}{8}{8}{8}{8}{8}{8}{8}{8}",
        ]),
        ("optimize", &[
            r"foobarfoobar|foobar|foobarzfoobar|foobarfoobar", r"abba|akka|abccba", r"sam|samwise",
            r"foobarfoo|foo||foozfoo|foofoo", r"foobarfoo|foo| |foofoo",
        ]),
        ("case_insensitive_alternation", &[r"(?i:e.x|ex)"]),
    ];
    for (group, pats) in groups {
        for pat in *pats {
            t.add_named(format!("literal::{group}/{pat}"), &["-o", "-n", "-e", pat], LITERALS);
        }
    }
}
