//! Running the real binary and checking the rules every run must follow:
//! exit status 0, 1 or 2; every stderr line `lidx: ...` (unless the caller
//! expects clap's multi-line usage text); exactly one stderr line on 2;
//! never a panic or a backtrace.

use std::io::Write;
use std::process::Command;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_lidx");

/// What a run printed.
#[derive(Debug)]
pub struct Out {
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Out {
    pub fn stdout_str(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

/// Which of the error-case rules apply.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    /// Every stderr line starts with `lidx: ` (off only for clap's usage
    /// text) and an error is exactly one line.
    pub one_line: bool,
    /// On exit 2: stderr ends with a newline and nothing was printed to
    /// stdout (off for streaming commands, which may have printed lines
    /// before they reached damage; their callers check the output is a true
    /// prefix).
    pub silent_error: bool,
}

impl Rules {
    /// A command that prints nothing before an error.
    pub const SILENT_ERROR: Rules = Rules {
        one_line: true,
        silent_error: true,
    };
    /// A command that may have streamed output before an error.
    pub const STREAMING: Rules = Rules {
        one_line: true,
        silent_error: false,
    };
}

/// True when `tool --version` runs (sed, grep, rg, gzip, pigz, gztool all
/// answer it), or `tool -V` for the few that only know that (`compress`),
/// or `tool version` (`openssl`);
/// callers say what they skip when it does not ([`have_tool`],
/// [`missing_tool`]).
pub fn tool_runs(tool: &str) -> bool {
    ["--version", "-V", "version"].iter().any(|flag| {
        Command::new(tool)
            .arg(flag)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// True when the environment says every external tool must be present
/// (`LIDX_REQUIRE_TOOLS=1`, set by CI).
pub fn tools_required() -> bool {
    std::env::var_os("LIDX_REQUIRE_TOOLS").is_some_and(|v| v == "1")
}

/// The one rule for a tool a test needs and cannot find: say
/// `SKIPPED: {what}` on stderr (written past the test harness's capture, so
/// it is seen in a passing run), or, under `LIDX_REQUIRE_TOOLS=1`, fail the
/// test. `what` names the tool and the check that is skipped.
pub fn missing_tool(what: &str) {
    assert!(
        !tools_required(),
        "LIDX_REQUIRE_TOOLS=1 but a tool is missing: {what}"
    );
    let _ = writeln!(std::io::stderr(), "SKIPPED: {what}");
}

/// True when `tool --version` runs; otherwise applies [`missing_tool`] with
/// `{tool} not found: {skipped}`.
pub fn have_tool(tool: &str, skipped: &str) -> bool {
    let ok = tool_runs(tool);
    if !ok {
        missing_tool(&format!("{tool} not found: {skipped}"));
    }
    ok
}

/// Runs `lidx ARGS` with stdin closed and checks `rules` ([`checked`]).
pub fn lidx_with<S: AsRef<std::ffi::OsStr>>(
    args: impl IntoIterator<Item = S>,
    rules: Rules,
) -> Out {
    let mut cmd = Command::new(BIN);
    cmd.args(args).stdin(std::process::Stdio::null());
    checked(cmd, rules)
}

/// Runs `cmd` with `RUST_BACKTRACE=1` and `LC_ALL=C` and checks `rules`.
pub fn checked(mut cmd: Command, rules: Rules) -> Out {
    cmd.env("RUST_BACKTRACE", "1").env("LC_ALL", "C");
    let what = format!("{cmd:?}");
    let o = cmd.output().expect("run lidx");
    let out = Out {
        code: o.status.code().unwrap_or(-1),
        stdout: o.stdout,
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    };
    for bad in ["panicked", "RUST_BACKTRACE", "backtrace", "internal error"] {
        assert!(
            !out.stderr.contains(bad),
            "{what}: {bad} in stderr: {}",
            out.stderr
        );
    }
    assert!(
        matches!(out.code, 0..=2),
        "{what}: exit status {}",
        out.code
    );
    if !rules.one_line {
        return out;
    }
    for line in out.stderr.lines() {
        assert!(line.starts_with("lidx: "), "{what}: stderr line {line:?}");
    }
    if out.code == 2 {
        assert_eq!(out.stderr.lines().count(), 1, "{what}: {}", out.stderr);
        if rules.silent_error {
            assert!(out.stderr.ends_with('\n'), "{what}");
            assert!(out.stdout.is_empty(), "{what}: output on error");
        }
    }
    out
}
