//! The `lidx` command line: argument parsing (clap derive), one file per
//! subcommand, and the policy shared by all of them — 1-based line numbers,
//! 0-based byte offsets, exit status 0 (output), 1 (nothing: past the end),
//! 2 (error, one line on stderr naming the file and the problem).
//!
//! A face of the `lidx` library like any other program: it uses only the
//! library's public API.

mod completions;
mod count;
mod family;
mod grep;
mod index;
mod info;
mod line_at;
mod lines;
mod man;
mod merged;
mod pack;
mod paths;
mod prepare;
mod progress;
pub mod range;
mod time;
mod verify;
mod view;

use clap::{Args, Parser, Subcommand};
use lidx::{Action, Error, Index, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Instant goto-line, byte-offset → line, and line counts on huge text files,
/// through a small persistent sidecar index (FILE.lidx).
#[derive(Debug, Parser)]
#[command(name = "lidx", version, about, long_about = None, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

// `allow_negative_numbers`: no option of these is a number, so `-1` is a
// value, and the parser of that value says what is wrong with it (a RANGE
// never starts with '-'; `--spacing -5` is not a size), rather than clap
// calling it an unknown option. Not for grep, where GNU grep reads `-5` as
// `-C 5`: there it stays an unknown option.
//
// `defer`: a subcommand's arguments are made only when it is the one run
// (or its help, completions, the manual or a suggestion for a mistyped
// argument are asked for), not all of them
// at every start (issue 24: `lidx --version` 1.40 -> 1.13 ms, 65 fewer
// page faults). The argument structs carry plain comments, not doc
// comments: a deferred struct's doc comment would replace the
// subcommand's about line (the test below checks).
#[derive(Debug, Subcommand)]
#[command(defer = true)]
enum Command {
    /// Build (or extend, or refresh) the sidecar index of FILE.
    #[command(allow_negative_numbers = true)]
    Index(index::IndexArgs),
    /// Print lines by 1-based number: N, A:B (inclusive), A:, :B, A:+K;
    /// '$' is the last line, '$-K' the K-th before it.
    #[command(allow_negative_numbers = true)]
    Lines(lines::LinesArgs),
    /// Print the number of lines (as `grep -a -c ''`).
    #[command(allow_negative_numbers = true)]
    Count(count::CountArgs),
    /// Print the 1-based number of the line holding a 0-based byte offset.
    #[command(allow_negative_numbers = true)]
    LineAt(line_at::LineAtArgs),
    /// Print the 1-based number of the first line at or after a time
    /// (through the sidecar's time index, built when missing).
    LineAtTime(time::LineAtTimeArgs),
    /// Describe FILE's sidecar: lines, sizes, checkpoints, pages, freshness.
    #[command(allow_negative_numbers = true)]
    Info(info::InfoArgs),
    /// Search lines matching a regex, restricted to line or byte ranges,
    /// in parallel, with exact line numbers (ripgrep-compatible output).
    Grep(Box<grep::GrepArgs>),
    /// Check every page CRC, the tree and the fingerprint (--full: re-scan
    /// the source and compare every checkpoint).
    #[command(allow_negative_numbers = true)]
    Verify(verify::VerifyArgs),
    /// Compress FILE into a seekable zstd archive (FILE.zst; or gzip,
    /// --format gz) whose frames start at line checkpoints, and write its
    /// sidecar in the same pass.
    #[command(allow_negative_numbers = true)]
    Pack(pack::PackArgs),
    /// View FILE in a full-screen pager (keys as in less: g G :N / ? n N
    /// & F m ' q); the sidecar is built in the background if missing.
    View(Box<view::ViewArgs>),
    /// Print a shell completion script (bash, zsh, fish, elvish,
    /// powershell).
    Completions(completions::CompletionsArgs),
    /// Print the manual page (roff): `lidx man > lidx.1; man ./lidx.1`.
    Man(man::ManArgs),
}

// Options shared by the query subcommands (a plain comment: see
// `Command`, whose subcommands are deferred).
#[derive(Debug, Args, Clone)]
pub struct QueryOpts {
    /// Sidecar path (default: FILE.lidx, or the user cache directory when
    /// FILE's directory is not writable).
    #[arg(long = "index", value_name = "PATH")]
    pub index: Option<PathBuf>,
    /// Fail instead of building a missing sidecar or refreshing a stale one.
    #[arg(long)]
    pub no_build: bool,
    /// Page-cache budget in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 16)]
    pub cache_mb: usize,
    /// No progress line and no notes on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Set from [`family::Rotated`] by the commands that take `-R`.
    #[arg(skip)]
    pub rotated: bool,
}

/// The parser of a FILE argument: any path, with `-` meaning standard input
/// (which works when it is a redirected regular file, see
/// [`lidx::locate::named_source`]).
fn file_arg() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser;
    clap::builder::OsStringValueParser::new().map(|s| stdin_alias(s.into()))
}

/// `-` as a FILE is standard input, as with other Unix tools (`./-` names
/// a file called `-`).
fn stdin_alias(file: PathBuf) -> PathBuf {
    if file.as_os_str() == "-" {
        PathBuf::from("/dev/stdin")
    } else {
        file
    }
}

/// A warning about a truncated archive, printed if the command succeeds.
static DAMAGE_WARNING: parking_lot::Mutex<Option<String>> = parking_lot::Mutex::new(None);

/// A finished command: the exit status.
pub type Status = i32;

/// Parses the arguments, runs the command, returns the exit status.
pub fn run() -> Status {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return 0;
            }
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                let _ = e.print();
                return 2;
            }
            eprintln!("lidx: {}", one_line(&e));
            return 2;
        }
    };
    let result = match cli.command {
        Command::Index(a) => index::run(a),
        Command::Lines(a) => lines::run(a),
        Command::Count(a) => count::run(a),
        Command::LineAt(a) => line_at::run(a),
        Command::LineAtTime(a) => time::run_line_at_time(a),
        Command::Info(a) => info::run(a),
        Command::Verify(a) => verify::run(a),
        Command::Grep(a) => grep::run(*a),
        Command::View(a) => view::run(*a),
        Command::Pack(a) => pack::run(a),
        Command::Completions(a) => completions::run(a),
        Command::Man(a) => man::run(a),
    };
    #[cfg(feature = "remote")]
    if std::env::var_os("LIDX_REMOTE_STATS").is_some_and(|v| v == "1") {
        let t = lidx::io::remote::totals();
        if t.requests > 0 {
            eprintln!(
                "lidx: remote: {} requests, {} bytes, {} round trips",
                t.requests, t.bytes, t.waits
            );
        }
    }
    match result {
        Ok(status) => {
            if let Some(w) = DAMAGE_WARNING.lock().take() {
                eprintln!("{w}");
            }
            status
        }
        Err(e) if e.is_broken_pipe() => 0,
        Err(e) => {
            eprintln!("lidx: {e}");
            2
        }
    }
}

/// A clap error as one line: the message with its continuation lines
/// (`... not provided: <FILE>`) and tips (`to pass '-x' as a value, use
/// '-- -x'`), without the usage text.
fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut message = String::new();
    let mut tips = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        if let Some(tip) = line.strip_prefix("tip: ") {
            tips.push(tip);
        } else if !line.is_empty() {
            if !message.is_empty() {
                message.push(' ');
            }
            message.push_str(line.trim_start_matches("error: "));
        }
    }
    if message.is_empty() {
        message.push_str("invalid arguments");
    }
    if !tips.is_empty() {
        message.push_str(&format!(" (tip: {})", tips.join("; ")));
    }
    message
}

/// Opens FILE's index as the query commands do: build a missing sidecar,
/// extend a grown one, rebuild a changed one (notes on stderr), unless
/// `--no-build`.
pub fn open_index(file: &Path, opts: &QueryOpts) -> lidx::Result<Index> {
    open_with(file, opts, &open_options(opts))
}

/// The open options of the query commands.
pub fn open_options(opts: &QueryOpts) -> OpenOptions {
    let mut oo = OpenOptions::new();
    oo.cache_bytes(opts.cache_mb.saturating_mul(1 << 20))
        .refresh(!opts.no_build);
    if let Some(p) = &opts.index {
        oo.sidecar(p);
    }
    oo
}

/// Opens FILE's index with `oo`, as [`open_index`] does.
pub fn open_with(file: &Path, opts: &QueryOpts, oo: &OpenOptions) -> lidx::Result<Index> {
    let mut bar = progress::Progress::new(&file.display().to_string(), opts.quiet);
    let start = std::time::Instant::now();
    let opened = oo.open_with_progress(file, &mut |d, t| bar.update(d, t));
    bar.finish();
    let opened = opened?;
    if let Some(what) = opened.index.damage() {
        // Shown when the command succeeds (an error already says it):
        // answers are limited to the lines before the end of the archive.
        let n = opened.index.line_count();
        *DAMAGE_WARNING.lock() = Some(format!(
            "lidx: warning: {what}; the {} before it {} indexed in memory (no sidecar written)",
            lidx::count_of(n, "line", "lines"),
            if n == 1 { "was" } else { "were" }
        ));
    } else if !opts.quiet {
        note_action(file, &opened.index, opened.action, start.elapsed());
    }
    if let Some(w) = &opened.warning {
        eprintln!("lidx: warning: {w}");
    }
    Ok(opened.index)
}

/// Prints the warning of a damaged archive now (a command over several
/// files prints each after the file's output).
pub fn take_damage_warning() {
    if let Some(w) = DAMAGE_WARNING.lock().take() {
        eprintln!("{w}");
    }
}

/// Reports a file's error in a command over several files (which goes on
/// with the next file, and exits 2 at the end): one line naming the file.
pub fn file_error(file: &Path, e: &Error) {
    let text = e.to_string();
    let name = file.display().to_string();
    if text.contains(&name) {
        eprintln!("lidx: {text}");
    } else {
        eprintln!("lidx: {name}: {text}");
    }
}

/// `path:`, the name before a file's answer when a command answers for
/// several files (as `grep -H` prints it); empty when `named` is false.
pub fn name_prefix(path: &Path, named: bool) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let mut v = Vec::new();
    if named {
        v.extend_from_slice(path.as_os_str().as_bytes());
        v.push(b':');
    }
    v
}

/// The exit status of a command over several files: 2 when one failed,
/// else 0 when something was found, else 1.
pub fn status(failed: bool, found: bool) -> Status {
    if failed {
        2
    } else if found {
        0
    } else {
        1
    }
}

/// Prints what opening did, if it did anything.
pub fn note_action(file: &Path, index: &Index, action: Action, took: std::time::Duration) {
    let what = match action {
        Action::Opened => return,
        Action::Verified => {
            "verified: the file's modification time differs, its content is the one indexed"
                .to_string()
        }
        Action::Built => "built".to_string(),
        Action::Extended => "extended (the file grew)".to_string(),
        Action::Rebuilt(v) => format!("rebuilt (the file was {v})"),
        Action::Forced => "rebuilt".to_string(),
        Action::TimeAdded => "rebuilt with a time index".to_string(),
        Action::Damaged => return,
    };
    eprintln!(
        "lidx: note: {}: {}: {} in {:.2} s",
        index.sidecar_path().display(),
        what,
        lidx::count_of(index.line_count(), "line", "lines"),
        took.as_secs_f64()
    );
    let _ = file;
}

/// Buffered stdout for bulk output.
pub fn stdout() -> std::io::BufWriter<std::io::StdoutLock<'static>> {
    std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock())
}

/// Flushes `out`, mapping the error.
pub fn flush(out: &mut impl Write) -> lidx::Result<()> {
    out.flush()
        .map_err(|e| Error::io("write", Path::new("<stdout>"), e))
}

/// Prefixes an out-of-range error with the file name.
pub fn past_end(file: &Path, e: &Error) -> String {
    format!("lidx: {}: {e}", file.display())
}

fn main() {
    // A bug must not spill a backtrace on users: one line, exit 2.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("lidx: internal error: {msg}{at} (please report this)");
        std::process::exit(2);
    }));
    std::process::exit(run());
}

#[cfg(test)]
mod tests {
    /// clap's own checks of the whole command tree (a short option used
    /// twice in one subcommand, as `-R` once was in `view`), which a
    /// release build skips and a debug build runs only for the subcommand
    /// parsed.
    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }

    /// A subcommand's about line is its variant's doc comment, also once
    /// its deferred arguments are made (an argument struct's doc comment
    /// would replace it).
    #[test]
    fn deferred_arguments_keep_the_about_lines() {
        use clap::CommandFactory;
        let cli = super::Cli::command();
        for sub in cli.get_subcommands() {
            let before = sub.get_about().map(|a| a.to_string());
            assert!(before.is_some(), "{} has no about line", sub.get_name());
            let mut built = sub.clone();
            built.build();
            let after = built.get_about().map(|a| a.to_string());
            assert_eq!(after, before, "lidx {}", sub.get_name());
            let long = |c: &clap::Command| c.get_long_about().map(|a| a.to_string());
            assert_eq!(long(&built), long(sub), "lidx {}", sub.get_name());
        }
    }
}
