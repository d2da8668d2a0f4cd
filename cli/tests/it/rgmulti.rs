//! ripgrep's own tests that search several files or a directory, as a
//! table-driven cross-check of `lidx grep` against the live ripgrep 15.2.0.
//!
//! [`table`] holds 228 cases from 167 of those tests, one per search a test
//! runs: a name tied to its origin in ripgrep's
//! `tests/{misc,feature,regression,json}.rs` (`misc::glob_negate`,
//! `regression::r829_2731/./some_dir`: a test that runs several searches
//! gives each a suffix), a directory layout (files and
//! their bytes, empty directories, symbolic links; a `.git` directory or
//! file marks a repository, as ripgrep's tests mark it), the arguments and
//! the working directory inside the layout. Each case is run in two fresh
//! copies of its layout:
//!
//! - ripgrep as `rg --no-config --sort path ARGS` (ripgrep's file order is
//!   otherwise up to its threads; lidx always visits files in path order);
//! - lidx as `lidx grep ARGS`, twice: the first run builds the sidecars
//!   (`FILE.lidx`, noted on stderr), the second is compared; the first must
//!   print the same and exit the same (present sidecars change nothing).
//!
//! Exit status and stdout must equal ripgrep's (JSON `elapsed` and
//! `elapsed_total` timings and `--stats` seconds are zeroed in both, the
//! copy's absolute path reads `{root}`). When ripgrep exits 2, lidx's stderr
//! must be one line `lidx: ...`; otherwise, when ripgrep's stderr is empty,
//! lidx's must be too. lidx may not refuse a flag ripgrep takes, even where
//! ripgrep exits 2 for another reason (`--no-messages` when nothing was
//! searched). Both run with stdin closed (`/dev/null`, which
//! ripgrep does not search), so a search without PATH walks the working
//! directory. A case may carry a deliberate lidx expectation in place of
//! ripgrep's ([`Override`], with its reason), only for a difference
//! `cli/src/paths.rs` documents.
//!
//! Adapted, not skipped: the tests of the walk that list files with
//! `--files` (lidx has no `--files`) run `--files-without-match` with a
//! pattern no file holds ([`NO_LINE`]), which lists the same files (every
//! file they walk is empty or text): `misc::files`, `feature::f89_files`,
//! `f1138`, `f1414`, `f1420`, `f1466`, `regression::r64`, `r391`, `r483_*`,
//! `r829_2747`, `r829_2778`, `r829_2836`, `r1446`, `r2198`, `r2711`, `r2990`,
//! `r3127_*`, `r3173`, `r3179`, `r3275`. Where a test needs an absolute path
//! (`r3179`, `r3275`) the table writes `{root}` for the copy's. Also
//! ported: the single-file searches whose subject is the printed path
//! (`-H`, `--heading`, `-l`, `--files-without-match`, exit statuses with a
//! missing file), which `rgsuite` leaves out: `misc::with_filename`,
//! `misc::with_heading`, `regression::r210`, `r1130`, `r1159_exit_status`,
//! `r3108`. Every other single-file test is `rgsuite`'s.
//!
//! Skipped, by reason (the tests of those five files that search several
//! files or a directory and are not in the table):
//!
//! - file types (`-t`, `-T`, `--type-add`, `--type-clear`):
//!   `misc::file_types`, `file_types_all`, `file_types_negate`,
//!   `file_types_negate_all`, `file_type_clear`, `file_type_add`,
//!   `file_type_add_compose`;
//! - standard input: `feature::f7_stdin` (patterns from stdin),
//!   `regression::r1223_no_dir_check_for_default_path`, `multiline::stdin`;
//! - preprocessors (`--pre`): `misc::preprocessing_glob`;
//! - multiline (`-U`): `feature::f917_trim_multi_standard`,
//!   `f917_trim_max_columns_multi_standard`,
//!   `f917_trim_max_columns_multi_only_matching`,
//!   `f917_trim_max_columns_multi_per_match`, `json::r1095_crlf_empty_match`
//!   (every test of `multiline.rs` is `-U` on one file);
//! - encodings (`-E`, UTF-16 sniffing): `feature::f1_sjis`,
//!   `f1_utf16_auto`, `f1_utf16_explicit`, `f1_eucjp`;
//! - binary detection: `misc::unrestricted3` (`-uuu` prints ripgrep's
//!   `binary file matches` line; lidx searches the file as text),
//!   `regression::r1838_nul_error_with_binary_detection` without `-a`
//!   (ripgrep refuses a pattern that can match NUL while binary detection
//!   is on; lidx has no such mode: named files are text, walked files with
//!   a NUL are skipped whole);
//! - `--sort` by time: `misc::sort_accessed`, `sortr_accessed`,
//!   `feature::f2361_sort_nested_files`;
//! - `--files` over files of NUL bytes sized for `--max-filesize`:
//!   `misc::max_filesize_parse_no_suffix`, `_k_suffix`, `_m_suffix`,
//!   `max_filesize_suffix_overflow`;
//! - PCRE2 (the ripgrep 15.2.0 build CI uses has none):
//!   `feature::f1155_auto_hybrid_regex`.
//!
//! Not run (marked `unsupported` in the table, counted in the summary):
//! `regression::r2658_null_data_line_regexp`, `--null-data` (records that
//! end in NUL; lidx indexes lines that end in a newline, and `lidx grep
//! --null-data` is an error).
//!
//! Every disagreement is collected and the test fails once at the end with
//! a tally by kind and, per failing case, its arguments, layout, and both
//! outputs; the list is also written to `target/tmp/rgmulti-report.txt`.
//! Without ripgrep 15.2.0 (`$LIDX_RG`, else `rg` on PATH, else
//! `~/.cache/lidx-ci/ripgrep-15.2.0/bin/rg`, each checked with `--version`)
//! the test says `SKIPPED` ([`crate::run::missing_tool`], a failure under
//! `LIDX_REQUIRE_TOOLS=1`).
//!
//! ```text
//! cargo test -p lidx-cli --test it rgmulti
//! RGMULTI=r829,f45 cargo test -p lidx-cli --test it rgmulti -- --nocapture
//! ```
//!
//! `RGMULTI` keeps the cases whose name contains one of its comma-separated
//! parts; `RGMULTI_THREADS` sets how many cases run at once (default 2).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

/// The ripgrep release the cases are checked against.
const RG_VERSION: &str = "15.2.0";

/// How long one process may run before it is killed (the run then fails).
const TIMEOUT: Duration = Duration::from_secs(60);

/// ripgrep's `tests/hay.rs` `SHERLOCK`.
const SHERLOCK: &[u8] = b"\
For the Doctor Watsons of this world, as opposed to the Sherlock
Holmeses, success in the province of detective work must always
be, to a very large extent, the result of luck. Sherlock Holmes
can extract a clew from a wisp of straw or a flake of cigar ash;
but Doctor Watson has to have it taken out for him and dusted,
and exhibited clearly, with a label attached.
";

/// The pattern of the `--files` stand-in: no file of any case holds it.
const NO_LINE: &str = "no-line-holds-this";

/// One entry of a layout. `{root}` in a file's bytes becomes the copy's
/// absolute path.
#[derive(Debug, Clone, Copy)]
enum Entry {
    /// A file and its bytes (its directories are created).
    File(&'static str, &'static [u8]),
    /// A file whose name is not UTF-8.
    RawFile(&'static [u8], &'static [u8]),
    /// An empty directory (`.git/`: a repository, as ripgrep's tests make
    /// one).
    Dir(&'static str),
    /// A symbolic link at the first path to the second (an absolute
    /// target, as ripgrep's tests make them).
    Link(&'static str, &'static str),
}

use Entry::{Dir, File, Link, RawFile};

/// A lidx expectation that deliberately replaces ripgrep's.
#[derive(Debug, Clone)]
struct Override {
    code: i32,
    stdout: &'static [u8],
    why: &'static str,
}

/// One search.
#[derive(Debug, Clone)]
struct Case {
    name: &'static str,
    layout: Vec<Entry>,
    /// `{root}` in an argument becomes the copy's absolute path.
    args: Vec<&'static str>,
    /// A last argument that is not UTF-8 (a path).
    raw_arg: Option<&'static [u8]>,
    /// The working directory, relative to the layout's root.
    cwd: &'static str,
    /// Environment variables of both runs (`{root}` as in arguments).
    env: Vec<(&'static str, &'static str)>,
    lidx: Option<Override>,
    /// A flag lidx does not support (the reason): the case is not run,
    /// and counted.
    unsupported: Option<&'static str>,
}

fn case(name: &'static str, layout: &[Entry], args: &[&'static str]) -> Case {
    Case {
        name,
        layout: layout.to_vec(),
        args: args.to_vec(),
        raw_arg: None,
        cwd: "",
        env: Vec::new(),
        lidx: None,
        unsupported: None,
    }
}

/// A `--files` search of ripgrep's, as `--files-without-match NO_LINE`
/// (lists the same files where every walked file is empty or text).
fn files(name: &'static str, layout: &[Entry], args: &[&'static str]) -> Case {
    let mut all = vec!["--files-without-match", NO_LINE];
    all.extend_from_slice(args);
    case(name, layout, &all)
}

impl Case {
    fn cwd(mut self, dir: &'static str) -> Case {
        self.cwd = dir;
        self
    }

    fn raw_arg(mut self, arg: &'static [u8]) -> Case {
        self.raw_arg = Some(arg);
        self
    }

    fn env(mut self, key: &'static str, value: &'static str) -> Case {
        self.env.push((key, value));
        self
    }

    /// A flag lidx does not support (the reason says which and why): not
    /// run.
    fn unsupported(mut self, why: &'static str) -> Case {
        self.unsupported = Some(why);
        self
    }

    /// A deliberate difference. No case has one: no disagreement found so
    /// far is one that `cli/src/paths.rs` documents.
    #[allow(dead_code)]
    fn lidx(mut self, code: i32, stdout: &'static [u8], why: &'static str) -> Case {
        self.lidx = Some(Override { code, stdout, why });
        self
    }
}

/// The cases, in the order of ripgrep's test files.
fn table() -> Vec<Case> {
    let sherlock: &[Entry] = &[File("sherlock", SHERLOCK)];
    let py_rs: &[Entry] = &[
        File("sherlock", SHERLOCK),
        File("file.py", b"Sherlock"),
        File("file.rs", b"Sherlock"),
    ];
    let mut v = vec![
        // tests/misc.rs
        case("misc::dir", sherlock, &["Sherlock"]),
        case(
            "misc::with_filename",
            sherlock,
            &["-H", "Sherlock", "sherlock"],
        ),
        case(
            "misc::with_heading",
            sherlock,
            &["--with-filename", "--heading", "Sherlock", "sherlock"],
        ),
        case(
            "misc::with_heading_default",
            &[
                File("sherlock", SHERLOCK),
                File("foo", b"Sherlock Holmes lives on Baker Street."),
            ],
            &["-j1", "--heading", "Sherlock"],
        ),
        case("misc::glob", py_rs, &["-g", "*.rs", "Sherlock"]),
        case(
            "misc::glob_negate",
            &[File("file.py", b"Sherlock"), File("file.rs", b"Sherlock")],
            &["-g", "!*.rs", "Sherlock"],
        ),
        case(
            "misc::glob_case_insensitive",
            &[File("sherlock", SHERLOCK), File("file.HTML", b"Sherlock")],
            &["--iglob", "*.html", "Sherlock"],
        ),
        case(
            "misc::glob_case_sensitive",
            &[
                File("sherlock", SHERLOCK),
                File("file1.HTML", b"Sherlock"),
                File("file2.html", b"Sherlock"),
            ],
            &["--glob", "*.html", "Sherlock"],
        ),
        case(
            "misc::glob_always_case_insensitive",
            &[File("sherlock", SHERLOCK), File("file.HTML", b"Sherlock")],
            &["--glob-case-insensitive", "--glob", "*.html", "Sherlock"],
        ),
        case(
            "misc::byte_offset_only_matching",
            sherlock,
            &["-b", "-o", "Sherlock"],
        ),
        case("misc::count", sherlock, &["--count", "Sherlock"]),
        case("misc::count_matches", sherlock, &["--count-matches", "the"]),
        case(
            "misc::count_matches_inverted",
            sherlock,
            &["--count-matches", "--invert-match", "Sherlock"],
        ),
        case(
            "misc::count_matches_via_only",
            sherlock,
            &["--count", "--only-matching", "the"],
        ),
        case(
            "misc::include_zero",
            sherlock,
            &["--count", "--include-zero", "nada"],
        ),
        case(
            "misc::include_zero_override",
            sherlock,
            &["--count", "--include-zero", "--no-include-zero", "nada"],
        ),
        case(
            "misc::files_with_matches",
            sherlock,
            &["--files-with-matches", "Sherlock"],
        ),
        case(
            "misc::files_without_match",
            &[File("sherlock", SHERLOCK), File("file.py", b"foo")],
            &["--files-without-match", "Sherlock"],
        ),
        case(
            "misc::ignore_hidden",
            &[File(".sherlock", SHERLOCK)],
            &["Sherlock"],
        ),
        case(
            "misc::no_ignore_hidden",
            &[File(".sherlock", SHERLOCK)],
            &["--hidden", "Sherlock"],
        ),
        case(
            "misc::ignore_git",
            &[
                File("sherlock", SHERLOCK),
                Dir(".git"),
                File(".gitignore", b"sherlock\n"),
            ],
            &["Sherlock"],
        ),
        case(
            "misc::ignore_generic",
            &[File("sherlock", SHERLOCK), File(".ignore", b"sherlock\n")],
            &["Sherlock"],
        ),
        case(
            "misc::ignore_ripgrep",
            &[File("sherlock", SHERLOCK), File(".rgignore", b"sherlock\n")],
            &["Sherlock"],
        ),
        case(
            "misc::no_ignore",
            &[
                File("sherlock", SHERLOCK),
                File(".gitignore", b"sherlock\n"),
            ],
            &["--no-ignore", "Sherlock"],
        ),
        case(
            "misc::ignore_git_parent",
            &[
                Dir(".git"),
                File(".gitignore", b"sherlock\n"),
                File("foo/sherlock", SHERLOCK),
            ],
            &["Sherlock"],
        )
        .cwd("foo"),
        case(
            "misc::ignore_git_parent_stop",
            &[
                File(".gitignore", b"sherlock\n"),
                Dir("foo/.git"),
                File("foo/bar/sherlock", SHERLOCK),
            ],
            &["Sherlock"],
        )
        .cwd("foo/bar"),
        case(
            "misc::ignore_git_parent_stop_file",
            &[
                File(".gitignore", b"sherlock\n"),
                File("foo/.git", b""),
                File("foo/bar/sherlock", SHERLOCK),
            ],
            &["Sherlock"],
        )
        .cwd("foo/bar"),
        case(
            "misc::ignore_ripgrep_parent_no_stop",
            &[
                File(".rgignore", b"sherlock\n"),
                Dir("foo/.git"),
                File("foo/bar/sherlock", SHERLOCK),
            ],
            &["Sherlock"],
        )
        .cwd("foo/bar"),
        case(
            "misc::no_parent_ignore_git",
            &[
                Dir(".git"),
                File(".gitignore", b"sherlock\n"),
                File("foo/.gitignore", b"watson\n"),
                File("foo/sherlock", SHERLOCK),
                File("foo/watson", SHERLOCK),
            ],
            &["--no-ignore-parent", "Sherlock"],
        )
        .cwd("foo"),
    ];
    let multi_root: &[Entry] = &[
        Dir(".git"),
        File(".gitignore", b"src/invalid\n"),
        File("src/invalid", b"this\n"),
        File("src/valid", b"this\n"),
        File("tests/valid", b"this\n"),
    ];
    let multi_rgignore: &[Entry] = &[
        File(".rgignore", b"beta/**/*.svg\n"),
        File("alpha/a.txt", b"AWS\n"),
        File("beta/x.svg", b"AWS\n"),
    ];
    let symlinks: &[Entry] = &[
        Dir("foo/bar"),
        Link("foo/bar/baz", "foo/baz"),
        File("foo/baz/sherlock", SHERLOCK),
    ];
    let binary: &[Entry] = &[File("file", b"foo\x00bar\nfoo\x00baz\n")];
    v.extend([
        case(
            "misc::ignore_git_multi_root_order/src,tests",
            multi_root,
            &["--files-with-matches", "this", "src", "tests"],
        ),
        case(
            "misc::ignore_git_multi_root_order/tests,src",
            multi_root,
            &["--files-with-matches", "this", "tests", "src"],
        ),
        case(
            "misc::ignore_rgignore_multi_root_order/alpha,beta",
            multi_rgignore,
            &["--files-with-matches", "AWS", "alpha", "beta"],
        ),
        case(
            "misc::ignore_rgignore_multi_root_order/beta,alpha",
            multi_rgignore,
            &["--files-with-matches", "AWS", "beta", "alpha"],
        ),
        case("misc::symlink_nofollow", symlinks, &["Sherlock"]).cwd("foo/bar"),
        case("misc::symlink_follow", symlinks, &["-L", "Sherlock"]).cwd("foo/bar"),
        case(
            "misc::unrestricted1",
            &[
                File("sherlock", SHERLOCK),
                File(".gitignore", b"sherlock\n"),
            ],
            &["-u", "Sherlock"],
        ),
        case(
            "misc::unrestricted2",
            &[File(".sherlock", SHERLOCK)],
            &["-uu", "Sherlock"],
        ),
        case("misc::vimgrep", sherlock, &["--vimgrep", "Sherlock|Watson"]),
        case(
            "misc::vimgrep_no_line",
            sherlock,
            &["--vimgrep", "-N", "Sherlock|Watson"],
        ),
        case(
            "misc::vimgrep_no_line_no_column",
            sherlock,
            &["--vimgrep", "-N", "--no-column", "Sherlock|Watson"],
        ),
        case("misc::binary_quit", binary, &["--no-mmap", "foo", "-gfile"]),
        case(
            "misc::binary_quit_mmap",
            binary,
            &["--mmap", "foo", "-gfile"],
        ),
        files(
            "misc::files",
            &[File("file", b""), File("dir/file", b"")],
            &[],
        ),
        case(
            "misc::sort_files",
            &[
                File("a", b"test"),
                File("dir/c", b"test"),
                File("b", b"test"),
                File("dir/d", b"test"),
            ],
            &["--sort", "path", "test"],
        ),
    ]);

    // tests/feature.rs
    let f45: &[Entry] = &[
        File(".not-an-ignore", b"foo\n/bar"),
        File("bar/test", b"test"),
        File("baz/bar/test", b"test"),
        File("baz/baz/bar/test", b"test"),
        File("baz/foo", b"test"),
        File("baz/test", b"test"),
        File("foo", b"test"),
        File("test", b"test"),
    ];
    let py_foo: &[Entry] = &[File("sherlock", SHERLOCK), File("file.py", b"foo")];
    let f129: &[Entry] = &[File("foo", b"test\ntest abcdefghijklmnopqrstuvwxyz test")];
    let f263: &[Entry] = &[
        File("foo", b"test"),
        File("abc", b"test"),
        File("zoo", b"test"),
        File("bar", b"test"),
    ];
    let two_sherlocks: &[Entry] = &[File("sherlock_1", SHERLOCK), File("sherlock_2", SHERLOCK)];
    let trim_hay: &[Entry] = &[File(
        "haystack",
        b"     0123456789abcdefghijklmnopqrstuvwxyz",
    )];
    let f1138: &[Entry] = &[
        Dir(".git"),
        File(".gitignore", b"foo"),
        File(".ignore", b"bar"),
        File(".fzf-ignore", b"quux"),
        File("foo", b""),
        File("bar", b""),
        File("quux", b""),
    ];
    let f1414: &[Entry] = &[
        File(".gitignore", b"foo"),
        File("foo", b""),
        File("bar", b""),
    ];
    let f1420: &[Entry] = &[
        File(".git/info/exclude", b"foo"),
        File("bar", b""),
        File("foo", b""),
    ];
    let f1466: &[Entry] = &[
        File(".myignore", b"bar"),
        File("bar", b""),
        File("foo", b""),
    ];
    let f1404: &[Entry] = &[
        File(".ignore", b"ignored-dir/**"),
        File("ignored-dir/foo", b"needle"),
    ];
    v.extend([
        case(
            "feature::f20_no_filename",
            sherlock,
            &["--no-filename", "--no-filename", "Sherlock"],
        ),
        case("feature::f34_only_matching", sherlock, &["-o", "Sherlock"]),
        case(
            "feature::f34_only_matching_line_column",
            sherlock,
            &["-o", "--column", "-n", "Sherlock"],
        ),
        case("feature::f45_relative_cwd/no_rules", f45, &["-l", "test"]),
        case(
            "feature::f45_relative_cwd/ignore_file",
            f45,
            &["-l", "test", "--ignore-file", ".not-an-ignore"],
        ),
        case(
            "feature::f45_relative_cwd/in_baz",
            f45,
            &["--ignore-file", "../.not-an-ignore", "-l", "test"],
        )
        .cwd("baz"),
        case(
            "feature::f45_precedence_with_others",
            &[
                File(".not-an-ignore", b"*.log"),
                File(".ignore", b"!imp.log"),
                File("imp.log", b"test"),
                File("wat.log", b"test"),
            ],
            &["--ignore-file", ".not-an-ignore", "test"],
        ),
        case(
            "feature::f45_precedence_internal",
            &[
                File(".not-an-ignore1", b"*.log"),
                File(".not-an-ignore2", b"!imp.log"),
                File("imp.log", b"test"),
                File("wat.log", b"test"),
            ],
            &[
                "--ignore-file",
                ".not-an-ignore1",
                "--ignore-file",
                ".not-an-ignore2",
                "test",
            ],
        ),
        case(
            "feature::f68_no_ignore_vcs",
            &[
                Dir(".git"),
                File(".gitignore", b"foo"),
                File(".ignore", b"bar"),
                File("foo", b"test"),
                File("bar", b"test"),
            ],
            &["--no-ignore-vcs", "test"],
        ),
        case("feature::f70_smart_case", sherlock, &["-S", "sherlock"]),
        case(
            "feature::f89_files_with_matches",
            sherlock,
            &["--null", "--files-with-matches", "Sherlock"],
        ),
        case(
            "feature::f89_files_without_match",
            py_foo,
            &["--null", "--files-without-match", "Sherlock"],
        ),
        case(
            "feature::f89_count",
            sherlock,
            &["--null", "--count", "Sherlock"],
        ),
        files("feature::f89_files", sherlock, &["--null"]),
        case(
            "feature::f89_match",
            sherlock,
            &["--null", "-C1", "Sherlock"],
        ),
        case(
            "feature::f109_max_depth",
            &[File("one/pass", b"far"), File("one/too/many", b"far")],
            &["--maxdepth", "2", "far"],
        ),
        case(
            "feature::f109_case_sensitive_part1",
            &[File("foo", b"tEsT")],
            &["--smart-case", "--case-sensitive", "test"],
        ),
        case(
            "feature::f109_case_sensitive_part2",
            &[File("foo", b"tEsT")],
            &["--ignore-case", "--case-sensitive", "test"],
        ),
        case("feature::f129_matches", f129, &["-M26", "test"]),
        case(
            "feature::f129_context",
            &[File("foo", b"test\nabcdefghijklmnopqrstuvwxyz")],
            &["-M20", "-C1", "test"],
        ),
        case("feature::f129_replace", f129, &["-M26", "-rfoo", "test"]),
        case(
            "feature::f159_max_count",
            &[File("foo", b"test\ntest")],
            &["-m1", "test"],
        ),
        case(
            "feature::f159_max_count_zero",
            &[File("foo", b"test\ntest")],
            &["-m0", "test"],
        ),
        case(
            "feature::f243_column_line",
            &[File("foo", b"test")],
            &["--column", "test"],
        ),
        case("feature::f263_sort_files", f263, &["--sort-files", "test"]),
        case(
            "feature::f263_sort_files_reverse",
            f263,
            &["--sortr=path", "test"],
        ),
        case(
            "feature::f275_pathsep",
            &[File("foo/bar", b"test")],
            &["test", "--path-separator", "Z"],
        ),
        case(
            "feature::f362_exceeds_regex_size_limit",
            &[],
            &["--regex-size-limit", "10K", r"[0-9]\w+"],
        ),
        case(
            "feature::f411_single_threaded_search_stats",
            sherlock,
            &["-j1", "--stats", "Sherlock"],
        ),
        case(
            "feature::f411_parallel_search_stats",
            two_sherlocks,
            &["-j2", "--stats", "Sherlock"],
        ),
        case(
            "feature::f411_single_threaded_quiet_search_stats",
            sherlock,
            &["--quiet", "-j1", "--stats", "Sherlock"],
        ),
        case(
            "feature::f411_parallel_quiet_search_stats",
            two_sherlocks,
            &["-j2", "--quiet", "--stats", "Sherlock"],
        ),
        case(
            "feature::f419_zero_as_shortcut_for_null",
            sherlock,
            &["-0", "--count", "Sherlock"],
        ),
        case("feature::f948_exit_code_match", sherlock, &["."]),
        case("feature::f948_exit_code_no_match", sherlock, &["NADA"]),
        case("feature::f948_exit_code_error", sherlock, &["*"]),
        case(
            "feature::f917_trim_max_columns_normal",
            trim_hay,
            &[
                "--trim",
                "--max-columns-preview",
                "-M8",
                "--no-filename",
                "abc",
            ],
        ),
        case(
            "feature::f917_trim_max_columns_matches",
            trim_hay,
            &[
                "--trim",
                "--max-columns-preview",
                "-M8",
                "--color=always",
                "--colors=path:none",
                "--no-filename",
                "abc",
            ],
        ),
        case(
            "feature::f1078_max_columns_preview1",
            sherlock,
            &[
                "-M46",
                "--max-columns-preview",
                "exhibited|dusted|has to have it",
            ],
        ),
        case(
            "feature::f1078_max_columns_preview2",
            sherlock,
            &[
                "-M43",
                "--max-columns-preview",
                "-rxxx",
                "exhibited|dusted|has to have it",
            ],
        ),
        files("feature::f1138_no_ignore_dot/default", f1138, &[]),
        files(
            "feature::f1138_no_ignore_dot/no_ignore_dot",
            f1138,
            &["--no-ignore-dot"],
        ),
        files(
            "feature::f1138_no_ignore_dot/ignore_file",
            f1138,
            &["--no-ignore-dot", "--ignore-file", ".fzf-ignore"],
        ),
        files("feature::f1414_no_require_git/default", f1414, &[]),
        files(
            "feature::f1414_no_require_git/no_require_git",
            f1414,
            &["--no-require-git"],
        ),
        files(
            "feature::f1414_no_require_git/require_git",
            f1414,
            &["--no-require-git", "--require-git"],
        ),
        files("feature::f1420_no_ignore_exclude/default", f1420, &[]),
        files(
            "feature::f1420_no_ignore_exclude/no_ignore_exclude",
            f1420,
            &["--no-ignore-exclude"],
        ),
        files("feature::f1466_no_ignore_files/default", f1466, &[]),
        files(
            "feature::f1466_no_ignore_files/ignore_file",
            f1466,
            &["--ignore-file", ".myignore"],
        ),
        files(
            "feature::f1466_no_ignore_files/no_ignore_files",
            f1466,
            &["--ignore-file", ".myignore", "--no-ignore-files"],
        ),
        files(
            "feature::f1466_no_ignore_files/ignore_files",
            f1466,
            &[
                "--ignore-file",
                ".myignore",
                "--no-ignore-files",
                "--ignore-files",
            ],
        ),
        files(
            "feature::f1466_no_ignore_files/u",
            f1466,
            &["--ignore-file", ".myignore", "-u"],
        ),
        case(
            "feature::f1404_nothing_searched_warning",
            f1404,
            &["needle"],
        ),
        case(
            "feature::f1404_nothing_searched_ignored",
            f1404,
            &["--no-messages", "needle"],
        ),
        case(
            "feature::no_unicode",
            &[File("test", "δ".as_bytes())],
            &["-i", "--no-unicode", "Δ"],
        ),
        case(
            "feature::stop_on_nonmatch",
            &[File("test", b"line1\nline2\nline3\nline4\nline5")],
            &["--stop-on-nonmatch", "[235]"],
        ),
    ]);

    // tests/regression.rs
    let r25: &[Entry] = &[
        Dir(".git"),
        File(".gitignore", b"/llvm/"),
        File("src/llvm/foo", b"test"),
    ];
    let r184: &[Entry] = &[File(".gitignore", b".*"), File("foo/bar/baz", b"test")];
    let r256: &[Entry] = &[File("bar/baz", b"test"), Link("foo", "bar")];
    let r2711: &[Entry] = &[
        Dir("a/b"),
        File("a/.ignore", b".foo"),
        File("a/b/.foo", b""),
    ];
    let r829: &[Entry] = &[
        Dir("a/b"),
        File(".ignore", b"/a/b"),
        File("a/b/test.txt", b"Sample text"),
    ];
    let r2731: &[Entry] = &[
        File("some_dir/build/foo", b"string"),
        File(".ignore", b"build/\n!/some_dir/build/"),
    ];
    let r2747: &[Entry] = &[
        File("a/c/b/foo", b""),
        File("a/src/f/b/foo", b""),
        File(".ignore", b"/a/*/b"),
    ];
    let r2778: &[Entry] = &[
        File(".ignore", b"/parent/*.txt"),
        File("parent/ignore-me.txt", b""),
        File("parent/subdir/dont-ignore-me.txt", b""),
    ];
    let r2836: &[Entry] = &[
        File(".ignore", b"/testdir/sub/sub2/\n"),
        File("testdir/sub/sub2/foo", b""),
    ];
    let r1130: &[Entry] = &[File("foo", b"test")];
    let r1164: &[Entry] = &[
        Dir(".git"),
        File(".gitignore", b"myfile"),
        File("MYFILE", b"test"),
    ];
    let f1757: &[Entry] = &[
        File(".ignore", b"rust/target"),
        File("rust/source.rs", b"needle"),
        File("rust/target/rustdoc-output.html", b"needle"),
    ];
    let f1757_1: &[Entry] = &[
        File(".ignore", b"rust1/target/onemore"),
        File("rust/source.rs", b"needle"),
        File("rust/target/rustdoc-output.html", b"needle"),
        File("rust1/source.rs", b"needle"),
        File("rust1/target/onemore/rustdoc-output.html", b"needle"),
    ];
    let r1838: &[Entry] = &[File("test", b"foo\n")];
    let r2198: &[Entry] = &[
        File(".ignore", b"a"),
        File(".rgignore", b"b"),
        File("a", b""),
        File("b", b""),
        File("c", b""),
    ];
    let r2770: &[Entry] = &[
        File(".git", b""),
        File(".gitignore", b"**/bar/*"),
        File("foo/bar/baz", b"quux"),
    ];
    let r2990: &[Entry] = &[File("asdf/foo", b""), File("asdf./foo", b"")];
    let r3108: &[Entry] = &[File("yes-match", b"abc"), File("non-match", b"xyz")];
    let r3173: &[Entry] = &[
        File("subdir/.foo.txt", b"text"),
        File(".ignore", b"!.foo.txt"),
    ];
    v.extend([
        case(
            "regression::r16",
            &[
                Dir(".git"),
                File(".gitignore", b"ghi/"),
                File("ghi/toplevel.txt", b"xyz"),
                File("def/ghi/subdir.txt", b"xyz"),
            ],
            &["xyz"],
        ),
        case("regression::r25/root", r25, &["test"]),
        case("regression::r25/src", r25, &["test"]).cwd("src"),
        case(
            "regression::r30",
            &[
                File(".gitignore", b"vendor/**\n!vendor/manifest"),
                File("vendor/manifest", b"test"),
            ],
            &["test"],
        ),
        case(
            "regression::r49",
            &[
                File(".gitignore", b"foo/bar"),
                File("test/foo/bar/baz", b"test"),
            ],
            &["xyz"],
        ),
        case(
            "regression::r50",
            &[
                File(".gitignore", b"XXX/YYY/"),
                File("abc/def/XXX/YYY/bar", b"test"),
                File("ghi/XXX/YYY/bar", b"test"),
            ],
            &["xyz"],
        ),
        files(
            "regression::r64",
            &[File("dir/abc", b""), File("foo/abc", b"")],
            &["foo"],
        ),
        case(
            "regression::r65",
            &[
                Dir(".git"),
                File(".gitignore", b"a/"),
                File("a/foo", b"xyz"),
                File("a/bar", b"xyz"),
            ],
            &["xyz"],
        ),
        case(
            "regression::r67",
            &[
                Dir(".git"),
                File(".gitignore", b"/*\n!/dir"),
                File("foo/bar", b"test"),
                File("dir/bar", b"test"),
            ],
            &["test"],
        ),
        case(
            "regression::r87",
            &[
                Dir(".git"),
                File(".gitignore", b"foo\n**no-vcs**"),
                File("foo", b"test"),
            ],
            &["test"],
        ),
        case(
            "regression::r90",
            &[
                Dir(".git"),
                File(".gitignore", b"!.foo"),
                File(".foo", b"test"),
            ],
            &["test"],
        ),
        case(
            "regression::r93",
            &[File("foo", b"192.168.1.1")],
            &[r"(\d{1,3}\.){3}\d{1,3}"],
        ),
        case(
            "regression::r99",
            &[
                File("foo1", b"test"),
                File("foo2", b"zzz"),
                File("bar", b"test"),
            ],
            &["-j1", "--heading", "test"],
        ),
        case(
            "regression::r105_part1",
            &[File("foo", b"zztest")],
            &["--vimgrep", "test"],
        ),
        case(
            "regression::r105_part2",
            &[File("foo", b"zztest")],
            &["--column", "test"],
        ),
        case(
            "regression::r127",
            &[
                Dir(".git"),
                File(".gitignore", b"foo/sherlock\n"),
                File("foo/sherlock", SHERLOCK),
                File("foo/watson", SHERLOCK),
            ],
            &["Sherlock"],
        ),
        case(
            "regression::r128",
            &[File("foo", b"01234567\x0b\n\x0b\n\x0b\n\x0b\nx")],
            &["-n", "x"],
        ),
        case(
            "regression::r131",
            &[
                Dir(".git"),
                File(".gitignore", "TopÑapa".as_bytes()),
                File("TopÑapa", b"test"),
            ],
            &["test"],
        ),
        case(
            "regression::r137",
            &[
                File("sherlock", SHERLOCK),
                Link("sym1", "sherlock"),
                Link("sym2", "sherlock"),
            ],
            &["-j1", "Sherlock", "./", "sym1", "sym2"],
        ),
        case("regression::r184/root", r184, &["test"]),
        case("regression::r184/foo_bar", r184, &["test"]).cwd("./foo/bar"),
        case(
            "regression::r199",
            &[File("foo", b"tEsT")],
            &["--smart-case", r"\btest\b"],
        ),
        case(
            "regression::r206",
            &[File("foo/bar.txt", b"test")],
            &["test", "-g", "*.txt"],
        ),
        case(
            "regression::r210",
            &[RawFile(b"foo\xffbar", b"test")],
            &["-H", "test"],
        )
        .raw_arg(b"foo\xffbar"),
        case(
            "regression::r228",
            &[Dir("foo")],
            &["--ignore-file", "foo", "test"],
        ),
        case(
            "regression::r229",
            &[File("foo", b"economie")],
            &["-S", "[E]conomie"],
        ),
        case(
            "regression::r251",
            &[File("foo", "привет\nПривет\nПрИвЕт".as_bytes())],
            &["-i", "привет"],
        ),
        case("regression::r256", r256, &["test", "foo"]),
        case("regression::r256_j1", r256, &["-j1", "test", "foo"]),
        case(
            "regression::r270",
            &[File("foo", b"-test")],
            &["-e", "-test"],
        ),
        case("regression::r279", &[File("foo", b"test")], &["-q", "test"]),
        files(
            "regression::r391",
            &[
                Dir(".git"),
                File("lock", b""),
                File("bar.py", b""),
                File(".git/packed-refs", b""),
                File(".git/description", b""),
            ],
            &[
                "--no-ignore",
                "--hidden",
                "--follow",
                "--glob",
                "!{.git,node_modules,plugged}/**",
                "--glob",
                "*.{js,json,php,md,styl,scss,sass,pug,html,config,py,cpp,c,go,hs}",
            ],
        ),
        case(
            "regression::r405",
            &[
                File("foo/bar/file1.txt", b"test"),
                File("bar/foo/file2.txt", b"test"),
            ],
            &["-g", "!/foo/**", "test"],
        ),
        case(
            "regression::r428_color_context_path",
            &[File("sherlock", b"foo\nbar")],
            &[
                "-A1",
                "-H",
                "--no-heading",
                "-N",
                "--colors=match:none",
                "--color=always",
                "--hyperlink-format=",
                "foo",
            ],
        ),
        case(
            "regression::r428_unrecognized_style",
            &[File("file.txt", b"Sherlock")],
            &["--colors=match:style:", "Sherlock"],
        ),
        files(
            "regression::r483_matching_no_stdout",
            &[File("file.py", b"")],
            &["--quiet", "--glob", "*.py"],
        ),
        files(
            "regression::r483_non_matching_exit_code",
            &[File("file.rs", b"")],
            &["--quiet", "--glob", "*.py"],
        ),
        case("regression::r553_switch/i", sherlock, &["-i", "sherlock"]),
        case(
            "regression::r553_switch/i_i",
            sherlock,
            &["-i", "sherlock", "-i"],
        ),
        case(
            "regression::r693_context_in_contextless_mode",
            &[File("foo", b"xyz\n"), File("bar", b"xyz\n")],
            &["-C1", "-c", "--sort-files", "xyz"],
        ),
        case(
            "regression::r807",
            &[
                Dir(".git"),
                File(".gitignore", b".a/b"),
                File(".a/b/file", b"test"),
                File(".a/c/file", b"test"),
            ],
            &["--hidden", "test"],
        ),
        files("regression::r2711/root", r2711, &["--hidden"]),
        files("regression::r2711/./", r2711, &["--hidden", "./"]),
        files("regression::r2711/a", r2711, &["--hidden", "a"]),
        files("regression::r2711/a_b", r2711, &["--hidden", "a/b"]),
        files("regression::r2711/./a", r2711, &["--hidden", "./a"]),
        files("regression::r2711/cwd_a", r2711, &["--hidden"]).cwd("a"),
        files("regression::r2711/cwd_a_b", r2711, &["--hidden"]).cwd("a/b"),
        files("regression::r2711/cwd_./a", r2711, &["--hidden"]).cwd("./a"),
        case("regression::r829_original/root", r829, &["Sample"]),
        case("regression::r829_original/a", r829, &["Sample", "a"]),
        case("regression::r829_original/cwd_a", r829, &["Sample"]).cwd("a"),
        case("regression::r829_2731/root", r2731, &["-l", "string"]),
        case(
            "regression::r829_2731/some_dir",
            r2731,
            &["-l", "string", "some_dir"],
        ),
        case(
            "regression::r829_2731/./some_dir",
            r2731,
            &["-l", "string", "./some_dir"],
        ),
        case(
            "regression::r829_2731/some_dir_build",
            r2731,
            &["-l", "string", "some_dir/build"],
        ),
        case(
            "regression::r829_2731/./some_dir_build",
            r2731,
            &["-l", "string", "./some_dir/build"],
        ),
        files("regression::r829_2747/root", r2747, &[]),
        files("regression::r829_2747/a_src", r2747, &["a/src"]),
        files("regression::r829_2747/cwd_a_src", r2747, &[]).cwd("a/src"),
        files("regression::r829_2778/root", r2778, &[]),
        files("regression::r829_2778/cwd_parent", r2778, &[]).cwd("parent"),
        files("regression::r829_2836/root", r2836, &[]),
        files("regression::r829_2836/cwd_testdir", r2836, &[]).cwd("testdir"),
        case(
            "regression::r829_2933",
            &[
                File(".ignore", b"/testdir/sub/sub2/"),
                File("testdir/sub/sub2/testfile", b"needle"),
            ],
            &["--files-with-matches", "needle"],
        )
        .cwd("testdir"),
        case("regression::r1064", &[File("input", b"abc")], &["a(.*c)"]),
        case(
            "regression::r1098",
            &[
                Dir(".git"),
                File(".gitignore", b"a**b"),
                File("afoob", b"test"),
            ],
            &["test"],
        ),
        case(
            "regression::r1130/with",
            r1130,
            &["--files-with-matches", "test", "foo"],
        ),
        case(
            "regression::r1130/without",
            r1130,
            &["--files-without-match", "nada", "foo"],
        ),
        case("regression::r1159_exit_status/match", r1130, &["test"]),
        case(
            "regression::r1159_exit_status/q_match",
            r1130,
            &["-q", "test"],
        ),
        case(
            "regression::r1159_exit_status/match_error",
            r1130,
            &["test", "no-file"],
        ),
        case(
            "regression::r1159_exit_status/q_match_error",
            r1130,
            &["-q", "test", "foo", "no-file"],
        ),
        case("regression::r1159_exit_status/no_match", r1130, &["nada"]),
        case(
            "regression::r1159_exit_status/q_no_match",
            r1130,
            &["-q", "nada"],
        ),
        case(
            "regression::r1159_exit_status/no_match_error",
            r1130,
            &["nada", "no-file"],
        ),
        case(
            "regression::r1159_exit_status/q_no_match_error",
            r1130,
            &["-q", "nada", "foo", "no-file"],
        ),
        case(
            "regression::r1163",
            &[File("bom.txt", "\u{FEFF}test123\ntest123".as_bytes())],
            &["^test123"],
        ),
        case(
            "regression::r1164/insensitive",
            r1164,
            &["--ignore-file-case-insensitive", "test"],
        ),
        case(
            "regression::r1164/sensitive_again",
            r1164,
            &[
                "--ignore-file-case-insensitive",
                "test",
                "--no-ignore-file-case-insensitive",
            ],
        ),
        case(
            "regression::r1173",
            &[Dir(".git"), File(".gitignore", b"**"), File("foo", b"test")],
            &["test"],
        ),
        case(
            "regression::r1174",
            &[
                Dir(".git"),
                File(".gitignore", b"**/**/*"),
                File("a/foo", b"test"),
            ],
            &["test"],
        ),
        case(
            "regression::r1319",
            &[File(
                "input",
                b"CCAGCTACTCGGGAGGCTGAGGCTGGAGGATCGCTTGAGTCCAGGAGTTC",
            )],
            &["TTGAGTCCAGGAG[ATCG]{2}C"],
        ),
        case(
            "regression::r1389_bad_symlinks_no_biscuit",
            &[File("mydir/file.txt", b"test"), Link("mylink", "mydir")],
            &["test", "--no-ignore", "--sort", "path", "mylink"],
        ),
        files(
            "regression::r1446_respect_excludes_in_worktree",
            &[
                File("repo/.git/info/exclude", b"ignored"),
                File("repo/.git/worktrees/repotree/commondir", b"../.."),
                File("repotree/.git", b"gitdir: repo/.git/worktrees/repotree"),
                File("repotree/ignored", b""),
                File("repotree/not-ignored", b""),
            ],
            &["repotree"],
        ),
        case(
            "regression::r1537",
            &[File("foo", b"abc;de,fg")],
            &[";(.*,){1}"],
        ),
        case(
            "regression::r1559",
            &[File(
                "foo",
                b"type A struct {\n\tTaskID int `json:\"taskID\"`\n}\n\n\
                  type B struct {\n\tObjectID string `json:\"objectID\"`\n\
                  \tTaskID   int    `json:\"taskID\"`\n}\n",
            )],
            &["TaskID +int"],
        ),
        case(
            "regression::r1638",
            &[File("foo", b"\xef\xbb\xbfx")],
            &["--column", "x"],
        ),
        case(
            "regression::f1757/rust",
            f1757,
            &["--files-with-matches", "needle", "rust"],
        ),
        case(
            "regression::f1757/./rust",
            f1757,
            &["--files-with-matches", "needle", "./rust"],
        ),
        case(
            "regression::f1757/rust1",
            f1757_1,
            &["--files-with-matches", "needle", "rust1"],
        ),
        case(
            "regression::f1757/./rust1",
            f1757_1,
            &["--files-with-matches", "needle", "./rust1"],
        ),
        case(
            "regression::r1765",
            &[File("test", b"\n")],
            &["x?", "--crlf", "--color", "always"],
        ),
        case(
            "regression::r1838_nul_error_with_binary_detection/a",
            r1838,
            &["-a", r"foo\x00?"],
        ),
        files("regression::r2198/default", r2198, &[]),
        files(
            "regression::r2198/no_ignore_dot",
            r2198,
            &["--no-ignore-dot"],
        ),
        case(
            "regression::r2236",
            &[File(".ignore", br"foo\/"), File("foo/bar", b"test\n")],
            &["test"],
        ),
        case(
            "regression::r2574",
            &[File("haystack", b"some.domain.com\nsome.domain.com/x\n")],
            &[
                "--no-filename",
                "--no-unicode",
                "-w",
                "-o",
                r"(\w+\.)*domain\.(\w+)",
            ],
        ),
        case(
            "regression::r2658_null_data_line_regexp",
            &[File("haystack", b"foo\0bar\0quux\0")],
            &["--null-data", "--line-regexp", "bar"],
        )
        .unsupported("--null-data: NUL-terminated records; lidx indexes newline-terminated lines"),
        case(
            "regression::r2770_gitignore_error/root",
            r2770,
            &["-l", "quux"],
        ),
        case(
            "regression::r2770_gitignore_error/foo",
            r2770,
            &["-l", "quux"],
        )
        .cwd("foo"),
        case(
            "regression::r2944_incorrect_bytes_searched",
            &[File("haystack", b"foo1\nfoo2\nfoo3\nfoo4\nfoo5\n")],
            &["--stats", "-m2", "foo", "."],
        ),
        files(
            "regression::r2990_trip_over_trailing_dot/asdf",
            r2990,
            &["-g", "!asdf/"],
        ),
        files(
            "regression::r2990_trip_over_trailing_dot/asdf.",
            r2990,
            &["-g", "!asdf./"],
        ),
        case(
            "regression::r3067_gitignore_error",
            &[
                File(".git", b""),
                File(".gitignore", b"foobar/debug"),
                File("foobar/some/debug/flag", b"baz"),
                File("foobar/debug/flag2", b"baz"),
            ],
            &["baz"],
        ),
        case(
            "regression::r3108_files_without_match_quiet_exit/q_non",
            r3108,
            &["-q", "abc", "non-match"],
        ),
        case(
            "regression::r3108_files_without_match_quiet_exit/q_yes",
            r3108,
            &["-q", "abc", "yes-match"],
        ),
        case(
            "regression::r3108_files_without_match_quiet_exit/l_q_non",
            r3108,
            &["--files-with-matches", "-q", "abc", "non-match"],
        ),
        case(
            "regression::r3108_files_without_match_quiet_exit/l_q_yes",
            r3108,
            &["--files-with-matches", "-q", "abc", "yes-match"],
        ),
        case(
            "regression::r3108_files_without_match_quiet_exit/without_non",
            r3108,
            &["--files-without-match", "abc", "non-match"],
        ),
        case(
            "regression::r3108_files_without_match_quiet_exit/without_yes",
            r3108,
            &["--files-without-match", "abc", "yes-match"],
        ),
        case(
            "regression::r3108_files_without_match_quiet_exit/without_q_non",
            r3108,
            &["--files-without-match", "-q", "abc", "non-match"],
        ),
        case(
            "regression::r3108_files_without_match_quiet_exit/without_q_yes",
            r3108,
            &["--files-without-match", "-q", "abc", "yes-match"],
        ),
        files(
            "regression::r3127_gitignore_allow_unclosed_class",
            &[
                Dir(".git"),
                File(".gitignore", b"[abc"),
                File("[abc", b""),
                File("test", b""),
            ],
            &[],
        ),
        files(
            "regression::r3127_glob_flag_not_allow_unclosed_class",
            &[File("[abc", b""), File("test", b"")],
            &["-g", "[abc"],
        ),
        files(
            "regression::r3173_hidden_whitelist_only_dot/root",
            r3173,
            &[],
        ),
        files(
            "regression::r3173_hidden_whitelist_only_dot/.",
            r3173,
            &["."],
        ),
        files(
            "regression::r3173_hidden_whitelist_only_dot/./",
            r3173,
            &["./"],
        ),
        files(
            "regression::r3173_hidden_whitelist_only_dot/subdir",
            r3173,
            &[],
        )
        .cwd("subdir"),
        files(
            "regression::r3173_hidden_whitelist_only_dot/subdir_.",
            r3173,
            &["."],
        )
        .cwd("subdir"),
        files(
            "regression::r3173_hidden_whitelist_only_dot/subdir_./",
            r3173,
            &["./"],
        )
        .cwd("subdir"),
        files(
            "regression::r3179_global_gitignore_cwd",
            &[
                File("a/b/c/haystack", b""),
                File(".test.gitignore", b"/haystack"),
            ],
            &["--ignore-file", "{root}/.test.gitignore", "{root}"],
        )
        .cwd("a/b/c"),
        files(
            "regression::r3275_git_global_config_env",
            &[
                File(".git", b""),
                File("foo/foo1", b""),
                File("foo/foo2", b""),
                File("global-excludes-nonstandard", b"foo2"),
                File(
                    "global-config-nonstandard",
                    b"[core]\n\texcludesFile = {root}/global-excludes-nonstandard",
                ),
            ],
            &["foo"],
        )
        .env("GIT_CONFIG_GLOBAL", "{root}/global-config-nonstandard"),
    ]);

    // tests/json.rs
    let r1095: &[Entry] = &[File("foo", b"test\r\n")];
    v.extend([
        case(
            "json::notutf8",
            &[RawFile(b"foo\xffbar", b"quux\xffbaz")],
            &["--json", r"(?-u)\xFF"],
        ),
        case(
            "json::notutf8_file",
            &[File("foo", b"quux\xffbaz")],
            &["--json", r"(?-u)\xFF"],
        ),
        case("json::r1095_missing_crlf", r1095, &["--json", "test"]),
        case(
            "json::r1095_missing_crlf/crlf",
            r1095,
            &["--json", "test", "--crlf"],
        ),
    ]);
    v
}

/// What a process did.
#[derive(Debug, Clone)]
struct Run {
    code: i32,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// Runs `cmd` with stdin closed; kills it (by its id) after [`TIMEOUT`].
fn run(mut cmd: Command) -> Run {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let o = match rx.recv_timeout(TIMEOUT) {
        Ok(o) => o.expect("wait"),
        Err(_) => {
            // SAFETY: kill(2) on the id of our own child, which has not
            // been reaped (the waiting thread still holds it).
            unsafe {
                libc::kill(pid as libc::pid_t, libc::SIGKILL);
            }
            let mut o = rx.recv().expect("wait").expect("wait");
            o.stderr
                .extend_from_slice(format!("(rgmulti: killed after {TIMEOUT:?})\n").as_bytes());
            o
        }
    };
    Run {
        code: o.status.code().unwrap_or(-1),
        stdout: o.stdout,
        stderr: o.stderr,
    }
}

/// The ripgrep to run: `$LIDX_RG`, else `rg` on PATH, else CI's cached
/// release, whichever is ripgrep 15.2.0. `Err` says what was found.
fn find_rg() -> Result<PathBuf, String> {
    let candidates: Vec<PathBuf> = match std::env::var_os("LIDX_RG") {
        Some(p) => vec![PathBuf::from(p)],
        None => {
            let mut v = vec![PathBuf::from("rg")];
            if let Some(home) = std::env::var_os("HOME") {
                v.push(
                    Path::new(&home)
                        .join(".cache/lidx-ci")
                        .join(format!("ripgrep-{RG_VERSION}"))
                        .join("bin/rg"),
                );
            }
            v
        }
    };
    let want = format!("ripgrep {RG_VERSION}");
    let mut seen = Vec::new();
    for path in candidates {
        let out = Command::new(&path)
            .arg("--version")
            .stdin(Stdio::null())
            .output();
        let first = match out {
            Ok(o) => String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .unwrap_or("")
                .to_string(),
            Err(e) => {
                seen.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        if first == want || first.starts_with(&format!("{want} ")) {
            return Ok(path);
        }
        seen.push(format!("{} is {first:?}", path.display()));
    }
    Err(format!(
        "no ripgrep {RG_VERSION} ({}; set LIDX_RG)",
        seen.join(", ")
    ))
}

/// `s` with `{root}` replaced by `root`.
fn rooted(s: &[u8], root: &Path) -> Vec<u8> {
    let pat = b"{root}";
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i..].starts_with(pat) {
            out.extend_from_slice(root.as_os_str().as_bytes());
            i += pat.len();
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

fn os(bytes: Vec<u8>) -> OsString {
    use std::os::unix::ffi::OsStringExt;
    OsString::from_vec(bytes)
}

/// A fresh copy of `case`'s layout; returns the directory (removed on
/// drop) and its canonical path.
fn materialize(case: &Case) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("rgmulti-")
        .tempdir()
        .expect("tempdir");
    let root = dir.path().canonicalize().expect("canonicalize");
    let parent = |p: &Path| {
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        }
    };
    for e in &case.layout {
        match *e {
            File(name, bytes) => {
                let p = root.join(name);
                parent(&p);
                std::fs::write(&p, rooted(bytes, &root))
                    .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            }
            RawFile(name, bytes) => {
                let p = root.join(OsStr::from_bytes(name));
                parent(&p);
                std::fs::write(&p, bytes).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            }
            Dir(name) => {
                let p = root.join(name);
                std::fs::create_dir_all(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            }
            Link(link, target) => {
                let p = root.join(link);
                parent(&p);
                std::os::unix::fs::symlink(root.join(target), &p)
                    .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            }
        }
    }
    (dir, root)
}

/// `prog ARGS` in the case's working directory of the copy at `root`.
fn command(prog: &Path, lead: &[&str], case: &Case, root: &Path) -> Command {
    let mut cmd = Command::new(prog);
    cmd.current_dir(root.join(case.cwd)).args(lead);
    for a in &case.args {
        cmd.arg(os(rooted(a.as_bytes(), root)));
    }
    if let Some(raw) = case.raw_arg {
        cmd.arg(OsStr::from_bytes(raw));
    }
    for (k, v) in &case.env {
        cmd.env(k, os(rooted(v.as_bytes(), root)));
    }
    cmd.env_remove("RIPGREP_CONFIG_PATH")
        .env_remove("NO_COLOR")
        .env("LC_ALL", "C")
        .env("RUST_BACKTRACE", "1");
    cmd
}

/// JSON timings (`elapsed`, `elapsed_total`; ripgrep writes the summary's
/// keys in another order than the other messages'): their `secs`, `nanos`
/// and `human` fields.
static JSON_TIME: LazyLock<regex::bytes::Regex> =
    LazyLock::new(|| regex::bytes::Regex::new(r#""(secs|nanos)":\d+|"human":"[^"]*""#).unwrap());

/// `--stats` timings.
static STATS_TIME: LazyLock<regex::bytes::Regex> =
    LazyLock::new(|| regex::bytes::Regex::new(r"(?m)^\d+\.\d+ seconds").unwrap());

/// An output with the copy's path as `{root}` and timings zeroed.
fn normalized(out: &[u8], root: &Path) -> Vec<u8> {
    let root = root.as_os_str().as_bytes();
    let mut v = Vec::with_capacity(out.len());
    let mut i = 0;
    while i < out.len() {
        if out[i..].starts_with(root) {
            v.extend_from_slice(b"{root}");
            i += root.len();
        } else {
            v.push(out[i]);
            i += 1;
        }
    }
    // JSON lines only.
    let mut z = Vec::with_capacity(v.len());
    for line in v.split_inclusive(|&b| b == b'\n') {
        if line.starts_with(b"{") {
            z.extend_from_slice(&JSON_TIME.replace_all(line, |c: &regex::bytes::Captures| {
                match c.get(1) {
                    Some(k) => [b"\"", k.as_bytes(), b"\":0"].concat(),
                    None => b"\"human\":\"0s\"".to_vec(),
                }
            }));
        } else {
            z.extend_from_slice(line);
        }
    }
    STATS_TIME
        .replace_all(&z, &b"0.000000 seconds"[..])
        .into_owned()
}

/// Printable bytes: `\n`, `\t`, `\r`, `\\`, other control and invalid bytes
/// as `\xHH`.
fn escape(bytes: &[u8]) -> String {
    let mut s = String::new();
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => s.push_str("\\\\"),
                '\n' => s.push_str("\\n"),
                '\r' => s.push_str("\\r"),
                '\t' => s.push_str("\\t"),
                c if (c as u32) < 0x20 || c == '\x7f' => {
                    s.push_str(&format!("\\x{:02x}", c as u32))
                }
                c => s.push(c),
            }
        }
        for b in chunk.invalid() {
            s.push_str(&format!("\\x{b:02x}"));
        }
    }
    s
}

/// An output, one line per line (indented), or `(nothing)`.
fn show(out: &[u8]) -> String {
    if out.is_empty() {
        return "(nothing)".into();
    }
    let lines: Vec<String> = out
        .split_inclusive(|&b| b == b'\n')
        .take(30)
        .map(|l| {
            let mut e = escape(l);
            if e.len() > 240 {
                let cut = (0..=240).rev().find(|&c| e.is_char_boundary(c)).unwrap();
                e.truncate(cut);
                e.push_str("...");
            }
            e
        })
        .collect();
    let more = out
        .split_inclusive(|&b| b == b'\n')
        .count()
        .saturating_sub(30);
    let mut s = lines.join("\n               ");
    if more > 0 {
        s.push_str(&format!("\n               ... {more} more lines"));
    }
    s
}

/// An argument list, quoted where needed.
fn quote(case: &Case) -> String {
    let mut parts: Vec<String> = case
        .args
        .iter()
        .map(|a| {
            if !a.is_empty()
                && a.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,{}".contains(&b))
            {
                (*a).to_string()
            } else {
                format!("'{}'", escape(a.as_bytes()).replace('\'', "'\\''"))
            }
        })
        .collect();
    if let Some(raw) = case.raw_arg {
        parts.push(format!("$'{}'", escape(raw)));
    }
    parts.join(" ")
}

/// The layout in one line: names, short contents, links.
fn describe_layout(case: &Case) -> String {
    let file = |name: String, bytes: &[u8]| {
        if bytes.len() <= 40 {
            format!("{name}=\"{}\"", escape(bytes))
        } else {
            format!("{name}({} bytes)", bytes.len())
        }
    };
    let parts: Vec<String> = case
        .layout
        .iter()
        .map(|e| match *e {
            File(n, b) => file(n.to_string(), b),
            RawFile(n, b) => file(escape(n), b),
            Dir(n) => format!("{n}/"),
            Link(l, t) => format!("{l} -> {t}"),
        })
        .collect();
    if parts.is_empty() {
        "(empty)".into()
    } else {
        parts.join("  ")
    }
}

/// A disagreement of one case.
struct Failure {
    /// The kind, for the tally.
    class: String,
    report: String,
}

/// Runs one case: ripgrep in one copy, lidx twice in another.
fn check(rg_path: &Path, case: &Case) -> Option<Failure> {
    let (_rg_dir, rg_root) = materialize(case);
    let rg = run(command(
        rg_path,
        &["--no-config", "--sort", "path"],
        case,
        &rg_root,
    ));
    let (_lx_dir, lx_root) = materialize(case);
    let bin = Path::new(crate::run::BIN);
    let first = run(command(bin, &["grep"], case, &lx_root));
    let got = run(command(bin, &["grep"], case, &lx_root));

    let rg_out = normalized(&rg.stdout, &rg_root);
    let got_out = normalized(&got.stdout, &lx_root);
    let first_out = normalized(&first.stdout, &lx_root);
    let (want_code, want_out, want_quiet, from) = match &case.lidx {
        Some(o) => (o.code, o.stdout.to_vec(), true, "lidx override"),
        None => (rg.code, rg_out.clone(), rg.stderr.is_empty(), "rg"),
    };
    let stderr = String::from_utf8_lossy(&got.stderr).into_owned();
    let first_err = String::from_utf8_lossy(&first.stderr).into_owned();
    let mut problems = Vec::new();
    for bad in ["panicked", "RUST_BACKTRACE", "backtrace", "internal error"] {
        if stderr.contains(bad) || first_err.contains(bad) {
            problems.push(format!("stderr contains {bad:?}"));
        }
    }
    if got.code != want_code {
        problems.push(format!("exit {} (want {want_code})", got.code));
    }
    if got_out != want_out {
        problems.push("stdout differs".into());
    }
    // An exit 2 for a flag lidx does not know is not ripgrep's exit 2 for
    // something else (`--no-messages` exits 2 when nothing was searched).
    let rg_err = String::from_utf8_lossy(&rg.stderr);
    if stderr.contains("unexpected argument '") && !rg_err.contains("unrecognized flag") {
        problems.push("lidx refuses a flag ripgrep takes".into());
    }
    if want_code == 2 {
        if stderr.lines().count() != 1 || !stderr.ends_with('\n') || !stderr.starts_with("lidx: ") {
            problems.push("on exit 2, stderr must be one line `lidx: ...`".into());
        }
    } else if want_quiet && !stderr.is_empty() {
        problems.push("stderr not empty (ripgrep's is)".into());
    }
    if first.code != got.code || first_out != got_out {
        problems.push(format!(
            "the first run (building sidecars) exited {} and printed {}",
            first.code,
            show(&first_out)
        ));
    }
    if problems.is_empty() {
        return None;
    }
    let class = match stderr.split("unexpected argument '").nth(1) {
        Some(rest) if got.code == 2 && !rg_err.contains("unrecognized flag") => {
            format!(
                "unsupported flag {}",
                rest.split('\'').next().unwrap_or(rest)
            )
        }
        _ if got.code != want_code => format!("exit status {} (rg {})", got.code, want_code),
        _ if got_out != want_out => "output".to_string(),
        _ => "stderr or sidecars".to_string(),
    };
    let mut s = format!("=== {}\n", case.name);
    s.push_str(&format!("    args:   {}\n", quote(case)));
    if !case.cwd.is_empty() {
        s.push_str(&format!("    cwd:    {}\n", case.cwd));
    }
    for (k, v) in &case.env {
        s.push_str(&format!("    env:    {k}={v}\n"));
    }
    s.push_str(&format!("    layout: {}\n", describe_layout(case)));
    if let Some(o) = &case.lidx {
        s.push_str(&format!("    deliberate difference: {}\n", o.why));
    }
    s.push_str(&format!("    differs: {}\n", problems.join("; ")));
    s.push_str(&format!(
        "    {from:<10} {}  [exit {want_code}]\n",
        show(&want_out)
    ));
    if !rg.stderr.is_empty() {
        s.push_str(&format!(
            "    rg stderr  {}\n",
            show(&normalized(&rg.stderr, &rg_root))
        ));
    }
    s.push_str(&format!(
        "    lidx       {}  [exit {}]\n",
        show(&got_out),
        got.code
    ));
    if !got.stderr.is_empty() {
        s.push_str(&format!(
            "    lidx stderr {}\n",
            show(&normalized(&got.stderr, &lx_root))
        ));
    }
    Some(Failure { class, report: s })
}

/// Says `msg` on stderr past the harness's capture.
fn say(msg: &str) {
    let _ = writeln!(std::io::stderr(), "{msg}");
}

#[test]
fn rgmulti_cases_match_rg() {
    let all = table();
    let mut names = std::collections::HashSet::new();
    for c in &all {
        assert!(names.insert(c.name), "two cases are named {}", c.name);
    }
    let filter: Vec<String> = std::env::var("RGMULTI")
        .unwrap_or_default()
        .split(',')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    let cases: Vec<Case> = all
        .into_iter()
        .filter(|c| filter.is_empty() || filter.iter().any(|p| c.name.contains(p.as_str())))
        .collect();
    assert!(!cases.is_empty(), "RGMULTI={filter:?} selects no case");
    let (unsupported, cases): (Vec<Case>, Vec<Case>) =
        cases.into_iter().partition(|c| c.unsupported.is_some());
    let rg_path = match find_rg() {
        Ok(p) => p,
        Err(e) => {
            crate::run::missing_tool(&format!(
                "{e}: rgmulti (ripgrep's multi-file tests) is skipped"
            ));
            return;
        }
    };
    let threads: usize = std::env::var("RGMULTI_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(2)
        .max(1);
    let next = AtomicUsize::new(0);
    let failures: Mutex<Vec<(usize, Failure)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= cases.len() {
                        break;
                    }
                    if let Some(f) = check(&rg_path, &cases[i]) {
                        failures.lock().unwrap().push((i, f));
                    }
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort_by_key(|(i, _)| *i);
    let summary = format!(
        "rgmulti: {} cases, {} passed, {} failed, {} not run (unsupported: {})",
        cases.len() + unsupported.len(),
        cases.len() - failures.len(),
        failures.len(),
        unsupported.len(),
        unsupported
            .iter()
            .filter_map(|c| c.unsupported)
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
            .join(", ")
    );
    say(&summary);
    if failures.is_empty() {
        return;
    }
    let mut classes: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (i, f) in &failures {
        classes.entry(&f.class).or_default().push(cases[*i].name);
    }
    let mut by_size: Vec<(&&str, &Vec<&str>)> = classes.iter().collect();
    by_size.sort_by_key(|(k, v)| (std::cmp::Reverse(v.len()), **k));
    let mut head = String::from("Failing cases by kind:\n");
    for (class, names) in by_size {
        head.push_str(&format!(
            "  {:3}  {class}: {}\n",
            names.len(),
            names.join(", ")
        ));
    }
    let body: Vec<&str> = failures.iter().map(|(_, f)| f.report.as_str()).collect();
    let text = format!("{summary}\n\n{head}\n{}", body.join("\n"));
    let report = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rgmulti-report.txt");
    let _ = std::fs::write(&report, &text);
    panic!(
        "{text}\n{} failing cases (also in {}; run one: RGMULTI=NAME cargo test -p lidx-cli --test it rgmulti -- --nocapture)",
        failures.len(),
        report.display()
    );
}
