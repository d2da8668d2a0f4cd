//! `lidx view -` pages a pipe as `less` does, and `lidx view FILE` works
//! with standard input elsewhere (keys come from the terminal). The pipe
//! is a FIFO this test writes to at its own pace, so that what has
//! arrived when is known: the first lines show at once, the line count
//! grows while the screen stays, `G` goes to the end as it is, the status
//! line says when the input ended, and the spool (under `$TMPDIR`) is gone
//! after `q` and after `kill -TERM`.

use crate::run::BIN;
use crate::view::{Pane, ROWS, W, kill, log, numbered, quits, rows_of, sed, tools, viewer_pid};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// Rows showing `line A` … `line B` (gutter `g` digits), padded.
fn lines(a: u64, b: u64, g: usize) -> Vec<String> {
    let l: Vec<(u64, String)> = (a..=b).map(|n| (n, format!("line {n}"))).collect();
    numbered(&l, g, ROWS)
}

fn feed(w: &mut std::fs::File, a: u64, b: u64) {
    let text: String = (a..=b).map(|n| format!("line {n}\n")).collect();
    w.write_all(text.as_bytes()).unwrap();
    w.flush().unwrap();
}

/// The names in `dir`.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A pane running `lidx view - < FIFO` with its spool under `tmp`, and
/// the FIFO's write end.
fn piped(dir: &Path, tmp: &Path) -> Option<(Pane, std::fs::File)> {
    let fifo = dir.join("in.fifo");
    let ok = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("run mkfifo")
        .success();
    assert!(ok, "mkfifo");
    std::fs::create_dir(tmp).unwrap();
    let env = format!("TMPDIR={}", tmp.display());
    let p = Pane::start_command(dir, &format!("{BIN} view - < in.fifo"), W, 30, &[&env])?;
    // Opening the write end waits for the shell to open the read end.
    let w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    Some((p, w))
}

#[test]
fn view_pages_a_pipe_as_it_arrives() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    let Some((p, mut w)) = piped(dir.path(), &tmp) else {
        return;
    };
    // The first lines show at once, the input still open.
    let at = Instant::now();
    feed(&mut w, 1, 10);
    p.expect("the first lines", &lines(1, 10, 2), "/10+");
    assert!(
        at.elapsed() < Duration::from_secs(5),
        "the first lines took {:?}",
        at.elapsed()
    );
    let s = p.screen();
    assert!(s[rows_of(&s)].contains("reading input"), "{}", s.join("\n"));
    // The spool: a private folder under $TMPDIR.
    assert_eq!(names(&tmp).len(), 1, "{:?}", names(&tmp));
    // More arrives: the count grows, the screen stays where it is.
    feed(&mut w, 11, 200);
    p.expect("more lines", &lines(1, ROWS as u64, 3), "/200+");
    // G: the end as it is now.
    p.keys(&["G"]);
    p.expect("G", &lines(201 - ROWS as u64, 200, 3), "(END)");
    feed(&mut w, 201, 250);
    p.expect("more after G", &lines(201 - ROWS as u64, 200, 3), "/250+");
    p.keys(&["G"]);
    p.expect("G again", &lines(251 - ROWS as u64, 250, 3), "/250+");
    // F follows the end.
    p.keys(&["F"]);
    p.wait("following", |s| s[rows_of(s)].contains("following"));
    feed(&mut w, 251, 300);
    p.expect("followed", &lines(301 - ROWS as u64, 300, 3), "/300+");
    p.keys(&["x"]);
    // The end of the input is said.
    drop(w);
    p.wait("input ended", |s| {
        let st = &s[rows_of(s)];
        st.contains("/300 ") && st.contains("input ended")
    });
    p.keys(&["g"]);
    p.expect("g", &lines(1, ROWS as u64, 3), "lines 1-");
    p.keys(&["q"]);
    quits(&p, 0);
    assert!(names(&tmp).is_empty(), "left behind: {:?}", names(&tmp));
}

#[test]
fn view_removes_the_spool_of_a_pipe_on_kill() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    let Some((p, mut w)) = piped(dir.path(), &tmp) else {
        return;
    };
    feed(&mut w, 1, 5);
    p.expect("the first lines", &lines(1, 5, 1), "/5+");
    assert_eq!(names(&tmp).len(), 1, "{:?}", names(&tmp));
    kill("TERM", viewer_pid(&p));
    quits(&p, 143);
    assert!(names(&tmp).is_empty(), "left behind: {:?}", names(&tmp));
    drop(w);
}

#[test]
fn view_reads_keys_from_the_terminal_when_stdin_is_not_one() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("app.log");
    std::fs::write(&f, log(500)).unwrap();
    let Some(p) = Pane::start(dir.path(), "app.log < /dev/null") else {
        return;
    };
    let r = ROWS as u64;
    p.expect("first screen", &numbered(&sed(&f, 1, r), 3, ROWS), "/500");
    p.keys(&["G"]);
    p.expect("G", &numbered(&sed(&f, 501 - r, 500), 3, ROWS), "(END)");
    p.keys(&["q"]);
    quits(&p, 0);
    // `-` with the terminal as standard input: said, not hung.
    let p = Pane::start(dir.path(), "-").unwrap();
    let s = p.wait("error", |s| s.iter().any(|l| l.starts_with("EXIT=")));
    assert!(
        s.iter()
            .any(|l| l.contains("standard input is the terminal")),
        "{}",
        s.join("\n")
    );
    quits(&p, 2);
}
