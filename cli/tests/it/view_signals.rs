//! `lidx view` and signals, in a tmux pane: `TERM`, `INT` and `HUP` end
//! it as they end any program (exit status 128 + n) with the terminal as
//! it found it — the main screen, no mouse reporting, the cursor shown,
//! canonical mode: tmux's `#{alternate_on}#{mouse_any_flag}#{cursor_flag}`
//! is `001`, as after `less` — also while the sidecar is being built;
//! `Ctrl-Z` and `TSTP` suspend it as `less` does, and `fg` brings it back
//! redrawn.

use crate::run::BIN;
use crate::view::{
    H, Pane, ROWS, W, kill, log, modes, numbered, quits, rows_of, sed, tools, viewer_pid,
};

#[test]
fn view_ends_on_term_int_hup_with_the_terminal_restored() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("app.log");
    std::fs::write(&f, log(500)).unwrap();
    for (signal, code) in [("TERM", 143), ("INT", 130), ("HUP", 129)] {
        let Some(p) = Pane::start(dir.path(), "app.log") else {
            return;
        };
        p.expect(
            "first screen",
            &numbered(&sed(&f, 1, ROWS as u64), 3, ROWS),
            "/500",
        );
        assert_eq!(modes(&p), "110", "in the viewer");
        kill(signal, viewer_pid(&p));
        quits(&p, code);
        assert_eq!(modes(&p), "001", "after kill -{signal}");
    }
}

#[test]
fn view_ends_on_term_while_the_sidecar_is_built() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // 3 MiB read 128 KiB at a time, each read made 150 ms slow.
    std::fs::write(dir.path().join("app.log"), log(100_000)).unwrap();
    for (signal, code) in [("TERM", 143), ("HUP", 129)] {
        let Some(p) = Pane::start_sized(dir.path(), "app.log", W, H, &["LIDX_VIEW_TEST_SLOW=150"])
        else {
            return;
        };
        p.wait("indexing", |s| s[rows_of(s)].contains(" indexing "));
        kill(signal, viewer_pid(&p));
        quits(&p, code);
        assert_eq!(modes(&p), "001", "after kill -{signal}");
        // The build was cancelled: no sidecar, no temporary file.
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["app.log"], "after kill -{signal}");
    }
}

/// `Ctrl-Z` and `kill -TSTP` in an interactive shell with job control:
/// the terminal restored while stopped, the viewer redrawn on `fg`.
#[test]
fn view_suspends_on_ctrl_z_and_comes_back_on_fg() {
    if !tools() || !crate::run::have_tool("bash", "the job control test of lidx view") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("app.log");
    std::fs::write(&f, log(500)).unwrap();
    let Some(p) = Pane::start_command(dir.path(), "PS1='$ ' bash --norc --noprofile -i", W, H, &[])
    else {
        return;
    };
    p.wait("the shell", |s| s.iter().any(|l| l.starts_with("$")));
    p.text(&format!("{BIN} view --line 100 app.log"));
    p.keys(&["Enter"]);
    let at_100 = numbered(&sed(&f, 100, 99 + ROWS as u64), 3, ROWS);
    p.expect("the viewer", &at_100, "/500");
    assert_eq!(modes(&p), "110");
    for how in ["C-z", "TSTP"] {
        if how == "C-z" {
            p.keys(&["C-z"]);
        } else {
            kill("TSTP", viewer_pid(&p));
        }
        let s = p.wait("stopped", |s| s.iter().any(|l| l.contains("Stopped")));
        assert_eq!(modes(&p), "001", "stopped by {how}: {}", s.join("\n"));
        p.text("clear; fg");
        p.keys(&["Enter"]);
        p.expect("back on fg", &at_100, "/500");
        assert_eq!(modes(&p), "110", "back from {how}");
        // And it still takes keys.
        p.keys(&["j"]);
        p.expect(
            "j",
            &numbered(&sed(&f, 101, 100 + ROWS as u64), 3, ROWS),
            "lines 101-",
        );
        p.keys(&["k"]);
        p.expect("k", &at_100, "lines 100-");
    }
    p.keys(&["q"]);
    p.wait("quit", |_| modes(&p) == "001");
    p.text("echo EXIT=$?");
    p.keys(&["Enter"]);
    p.wait("exit status", |s| s.iter().any(|l| l == "EXIT=0"));
}
