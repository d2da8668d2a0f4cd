//! `lidx view` driven in a pseudo-terminal: the real binary in a tmux pane
//! (a private server per test), keys sent with `send-keys`, the screen read
//! with `capture-pane` and compared, row by row, with what `sed -n` and
//! `rg -n` print for the same lines (with the line-number gutter), or with
//! hand-written rows for the bytes shown escaped. Every check polls the
//! pane until it shows what is expected or a timeout passes (no fixed
//! sleeps). Needs tmux (SKIPPED without it, a failure under
//! `LIDX_REQUIRE_TOOLS=1`).

use crate::run::{BIN, Rules, have_tool, lidx_with};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

pub(crate) const W: usize = 100;
pub(crate) const H: usize = 30;
/// Text rows: all but the status row.
pub(crate) const ROWS: usize = H - 1;

/// A tmux server running one pane.
pub(crate) struct Pane {
    socket: String,
    width: usize,
}

impl Pane {
    /// `lidx view ARGS` in `dir`, in a `W`×`H` pane; after it exits the
    /// pane shows its exit status and whether the terminal is back in
    /// canonical mode.
    pub(crate) fn start(dir: &Path, args: &str) -> Option<Pane> {
        Pane::start_sized(dir, args, W, H, &[])
    }

    pub(crate) fn start_sized(
        dir: &Path,
        args: &str,
        w: usize,
        h: usize,
        env: &[&str],
    ) -> Option<Pane> {
        Pane::start_command(dir, &format!("{BIN} view {args}"), w, h, env)
    }

    /// `command` (a shell command line) in a `w`×`h` pane.
    pub(crate) fn start_command(
        dir: &Path,
        command: &str,
        w: usize,
        h: usize,
        env: &[&str],
    ) -> Option<Pane> {
        if !have_tool("tmux", "the pseudo-terminal tests of lidx") {
            return None;
        }
        static N: AtomicUsize = AtomicUsize::new(0);
        let socket = format!(
            "lidx-view-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        );
        let script = format!(
            "{} {command}; echo EXIT=$?; stty -a | tr ' ' '\\n' | grep -x -- '-*icanon'; sleep 600",
            env.join(" ")
        );
        let ok = Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d"])
            .args(["-x", &w.to_string(), "-y", &h.to_string()])
            .arg("-c")
            .arg(dir)
            .args(["sh", "-c", &script])
            .env("LC_ALL", "C.UTF-8")
            .status()
            .expect("run tmux")
            .success();
        assert!(ok, "tmux new-session");
        Some(Pane { socket, width: w })
    }

    pub(crate) fn tmux(&self, args: &[&str]) -> String {
        let o = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("run tmux");
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    /// Sends keys (tmux key names: `Enter`, `Escape`, `C-c`, or text).
    pub(crate) fn keys(&self, keys: &[&str]) {
        let mut a = vec!["send-keys", "-t", "0"];
        a.extend_from_slice(keys);
        self.tmux(&a);
    }

    /// Types `text` literally.
    pub(crate) fn text(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "0", "-l", text]);
    }

    pub(crate) fn screen(&self) -> Vec<String> {
        self.tmux(&["capture-pane", "-p", "-t", "0"])
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// The screen once `ok` holds for it (panics with it after 60 s: a
    /// loaded machine is slow, and only a failure waits that long).
    pub(crate) fn wait(&self, what: &str, ok: impl Fn(&[String]) -> bool) -> Vec<String> {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if ok(&s) {
                return s;
            }
            if start.elapsed() > Duration::from_secs(60) {
                panic!("{what}: the screen is\n{}", s.join("\n"));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the text rows to be `rows` and the status row to contain
    /// `status`.
    pub(crate) fn expect(&self, what: &str, rows: &[String], status: &str) -> Vec<String> {
        let width = self.width;
        self.wait(what, |s| {
            text_rows(s, width) == rows && s.get(rows_of(s)).is_some_and(|l| l.contains(status))
        })
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        // The server leaves its socket behind: removed too.
        let socket = self.tmux(&["display", "-p", "#{socket_path}"]);
        self.tmux(&["kill-server"]);
        let socket = socket.trim();
        if !socket.is_empty() {
            let _ = std::fs::remove_file(socket);
        }
    }
}

/// Index of the status row (the last row of the pane).
pub(crate) fn rows_of(s: &[String]) -> usize {
    s.len().saturating_sub(1)
}

/// The text rows of a screen: each without the scrollbar (the pane's last
/// column), trailing blanks trimmed.
pub(crate) fn text_rows(s: &[String], width: usize) -> Vec<String> {
    s[..rows_of(s)]
        .iter()
        .map(|r| {
            let mut r = r.clone();
            if r.chars().count() == width {
                r.pop();
            }
            r.trim_end().to_string()
        })
        .collect()
}

/// Rows as the viewer shows `lines` (number, text) with a gutter of
/// `gutter` digits, padded with empty rows to `rows`.
pub(crate) fn numbered(lines: &[(u64, String)], gutter: usize, rows: usize) -> Vec<String> {
    let mut out: Vec<String> = lines
        .iter()
        .map(|(n, t)| format!("{n:>gutter$} {t}").trim_end().to_string())
        .take(rows)
        .collect();
    out.resize(rows, String::new());
    out
}

/// `sed -n 'A,Bp' FILE` as (number, line) pairs.
pub(crate) fn sed(file: &Path, a: u64, b: u64) -> Vec<(u64, String)> {
    let o = Command::new("sed")
        .arg("-n")
        .arg(format!("{a},{b}p"))
        .arg(file)
        .output()
        .expect("run sed");
    String::from_utf8(o.stdout)
        .expect("ASCII lines")
        .lines()
        .enumerate()
        .map(|(i, l)| (a + i as u64, l.to_string()))
        .collect()
}

/// `rg -n PATTERN FILE` as (number, line) pairs.
pub(crate) fn rg(pattern: &str, file: &Path) -> Vec<(u64, String)> {
    let o = Command::new("rg")
        .args(["-n", "--no-heading", "-a", pattern])
        .arg(file)
        .output()
        .expect("run rg");
    String::from_utf8(o.stdout)
        .expect("ASCII lines")
        .lines()
        .map(|l| {
            let (n, t) = l.split_once(':').expect("N:line");
            (n.parse().expect("a number"), t.to_string())
        })
        .collect()
}

/// A log of `n` lines with words to search for.
pub(crate) fn log(n: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 1..=n {
        let word = match i % 97 {
            0 => "needle",
            13 => "Needle",
            _ => "hay",
        };
        out.extend_from_slice(
            format!("{i:06} {word} event={} user{}\n", i * 7 % 1000, i % 13).as_bytes(),
        );
    }
    out
}

pub(crate) fn tools() -> bool {
    have_tool("sed", "lidx view's oracle rows") && have_tool("rg", "lidx view's search oracle")
}

/// Waits for the viewer to exit and checks that it said 0 and left the
/// terminal as it found it (canonical mode, the main screen).
pub(crate) fn quits(p: &Pane, code: i32) {
    let s = p.wait("exit", |s| {
        s.iter().any(|l| l.starts_with("EXIT=")) && s.iter().any(|l| l.ends_with("icanon"))
    });
    let exit = s.iter().find(|l| l.starts_with("EXIT=")).unwrap();
    assert_eq!(exit, &format!("EXIT={code}"), "{}", s.join("\n"));
    assert!(
        s.iter().any(|l| l == "icanon"),
        "raw mode left on: {}",
        s.join("\n")
    );
    assert_eq!(
        p.tmux(&["display", "-p", "-t", "0", "#{alternate_on}"])
            .trim(),
        "0"
    );
    assert_eq!(
        p.tmux(&["display", "-p", "-t", "0", "#{mouse_any_flag}"])
            .trim(),
        "0"
    );
    assert_eq!(
        p.tmux(&["display", "-p", "-t", "0", "#{cursor_flag}"])
            .trim(),
        "1"
    );
}

/// The pane's terminal modes: alternate screen, mouse, cursor (`110` in
/// the viewer, `001` outside).
pub(crate) fn modes(p: &Pane) -> String {
    p.tmux(&[
        "display",
        "-p",
        "-t",
        "0",
        "#{alternate_on}#{mouse_any_flag}#{cursor_flag}",
    ])
    .trim()
    .to_string()
}

/// The process id of the viewer: the `lidx` process under the pane's
/// shell.
pub(crate) fn viewer_pid(p: &Pane) -> u32 {
    let shell: u32 = p
        .tmux(&["display", "-p", "-t", "0", "#{pane_pid}"])
        .trim()
        .parse()
        .expect("a pane pid");
    let mut todo = vec![shell];
    while let Some(pid) = todo.pop() {
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        if comm.trim() == "lidx" {
            return pid;
        }
        let children =
            std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
        todo.extend(
            children
                .split_whitespace()
                .filter_map(|c| c.parse::<u32>().ok()),
        );
    }
    panic!("no lidx process under the pane's shell {shell}")
}

pub(crate) fn kill(signal: &str, pid: u32) {
    let ok = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .expect("run kill")
        .success();
    assert!(ok, "kill -{signal} {pid}");
}

#[test]
fn view_goto_page_top_bottom_percent_marks() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("app.log");
    std::fs::write(&f, log(5000)).unwrap();
    let Some(p) = Pane::start(dir.path(), "app.log") else {
        return;
    };
    let r = ROWS as u64;
    let g = 4;
    p.expect(
        "first screen",
        &numbered(&sed(&f, 1, r), g, ROWS),
        "lines 1-29/5000",
    );
    p.text(":4321");
    p.keys(&["Enter"]);
    p.expect(
        ":4321",
        &numbered(&sed(&f, 4321, 4320 + r), g, ROWS),
        "lines 4321-",
    );
    p.keys(&["ma", "Space"]);
    p.expect(
        "page down",
        &numbered(&sed(&f, 4321 + r, 4320 + 2 * r), g, ROWS),
        "",
    );
    p.keys(&["b", "k", "k"]);
    p.expect(
        "page up, 2 up",
        &numbered(&sed(&f, 4319, 4318 + r), g, ROWS),
        "",
    );
    p.keys(&["G"]);
    p.expect("G", &numbered(&sed(&f, 5001 - r, 5000), g, ROWS), "(END)");
    p.keys(&["j"]);
    p.expect(
        "no scrolling past the end",
        &numbered(&sed(&f, 5001 - r, 5000), g, ROWS),
        "(END)",
    );
    p.keys(&["g"]);
    p.expect("g", &numbered(&sed(&f, 1, r), g, ROWS), "lines 1-");
    // Long walks: each block of lines read once, the walk resumed where it
    // waited for one.
    p.text("2000j");
    p.expect("2000j", &numbered(&sed(&f, 2001, 2000 + r), g, ROWS), "");
    p.text("1500k");
    p.expect("1500k", &numbered(&sed(&f, 501, 500 + r), g, ROWS), "");
    p.text("1234G");
    p.expect("1234G", &numbered(&sed(&f, 1234, 1233 + r), g, ROWS), "");
    p.keys(&["'", "a"]);
    p.expect("'a", &numbered(&sed(&f, 4321, 4320 + r), g, ROWS), "");
    p.keys(&["'", "'"]);
    p.expect("''", &numbered(&sed(&f, 1234, 1233 + r), g, ROWS), "");
    // 50%: the line holding byte size/2 (lines are 29 or 30 bytes long).
    let size = std::fs::metadata(&f).unwrap().len();
    let text = std::fs::read(&f).unwrap();
    let half = text[..(size / 2) as usize]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64
        + 1;
    p.text("50%");
    p.expect("50%", &numbered(&sed(&f, half, half - 1 + r), g, ROWS), "");
    p.text("d");
    p.expect(
        "d",
        &numbered(&sed(&f, half + 14, half + 13 + r), g, ROWS),
        "",
    );
    p.keys(&["-", "N"]);
    let plain: Vec<String> = sed(&f, half + 14, half + 13 + r)
        .into_iter()
        .map(|l| l.1)
        .collect();
    p.expect("-N", &plain, "");
    p.keys(&["q"]);
    quits(&p, 0);
}

#[test]
fn view_search_forward_backward_wrap_and_highlight() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("app.log");
    std::fs::write(&f, log(3000)).unwrap();
    let Some(p) = Pane::start(dir.path(), "app.log") else {
        return;
    };
    let r = ROWS as u64;
    let g = 4;
    p.expect(
        "first screen",
        &numbered(&sed(&f, 1, r), g, ROWS),
        "lines 1-",
    );
    let hits = rg("needle", &f);
    let at = |n: u64| numbered(&sed(&f, n, n - 1 + r), g, ROWS);
    // Forward from the top: the first match goes to the top row.
    p.text("/needle");
    p.keys(&["Enter"]);
    p.expect("/needle", &at(hits[0].0), "");
    p.keys(&["n"]);
    p.expect("n", &at(hits[1].0), "");
    p.keys(&["n"]);
    p.expect("n", &at(hits[2].0), "");
    p.keys(&["N"]);
    p.expect("N", &at(hits[1].0), "");
    // Backward from line 2000.
    p.text(":2000");
    p.keys(&["Enter"]);
    p.expect(":2000", &at(2000), "");
    p.text("?needle");
    p.keys(&["Enter"]);
    let before = hits.iter().rev().find(|h| h.0 < 2000).unwrap().0;
    p.expect("?needle", &at(before), "");
    // -i: both spellings, as rg -i.
    p.keys(&["-", "i"]);
    p.text(":1");
    p.keys(&["Enter"]);
    p.text("/needle");
    p.keys(&["Enter"]);
    let both = rg("(?i)needle", &f);
    p.expect("-i /needle", &at(both[0].0), "");
    p.keys(&["n"]);
    p.expect("-i n", &at(both[1].0), "");
    // Past the last match: the end is said, and n wraps to the top.
    let last = both.last().unwrap().0;
    p.text(&format!(":{}", last + 1));
    p.keys(&["Enter"]);
    let top = (last + 1).min(3001 - r);
    p.expect("past the last match", &at(top), "");
    // One search covers the file once: past the end it goes on from the
    // other end (and says so), and says "not found" in one step.
    p.keys(&["n"]);
    p.expect(
        "wrapped",
        &at(both[0].0),
        "search hit BOTTOM, continued at TOP",
    );
    p.text("/no such thing");
    p.keys(&["Enter"]);
    let s = p.wait("not found", |s| {
        s[rows_of(s)].contains("Pattern not found: no such thing")
    });
    assert_eq!(text_rows(&s, W), at(both[0].0), "not found: no move");
    p.text("?needle");
    p.keys(&["Enter"]);
    let above = both.iter().rev().find(|h| h.0 < both[0].0);
    assert!(above.is_none(), "the first match is the first");
    let last = both.last().unwrap().0;
    p.expect(
        "? wrapped",
        &at(last.min(3001 - r)),
        "search hit TOP, continued at BOTTOM",
    );
    // An invalid regex is a message, not an exit.
    p.text("/a(");
    p.keys(&["Enter"]);
    p.wait("bad regex", |s| {
        s.iter()
            .any(|l| l.starts_with("invalid pattern: unclosed group"))
    });
    // Matches are highlighted: the pane's escape sequences show reverse video.
    p.keys(&["g"]);
    p.text("/event=7");
    p.keys(&["Enter"]);
    let first = rg("event=7", &f)[0].0;
    p.expect("/event=7", &at(first), "");
    let styled = p.tmux(&["capture-pane", "-p", "-e", "-t", "0"]);
    let row = styled.lines().next().unwrap();
    assert!(row.contains("\x1b[") && row.contains("event=7"), "{row:?}");
    p.keys(&["q"]);
    quits(&p, 0);
}

#[test]
fn view_filter_shows_matching_lines_with_their_numbers() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("app.log");
    // More lines than one filter chunk, so that several are computed.
    std::fs::write(&f, log(40000)).unwrap();
    let Some(p) = Pane::start(dir.path(), "app.log") else {
        return;
    };
    p.wait("open", |s| s[rows_of(s)].contains("/40000"));
    let hits = rg("needle event=\\d+ user1", &f);
    assert!(hits.len() > 2 * ROWS, "{}", hits.len());
    p.text("&needle event=\\d+ user1");
    p.keys(&["Enter"]);
    p.expect("&", &numbered(&hits[..ROWS], 5, ROWS), "&needle event=");
    p.keys(&["Space"]);
    p.expect("& page", &numbered(&hits[ROWS..2 * ROWS], 5, ROWS), "");
    p.keys(&["G"]);
    p.expect(
        "& G",
        &numbered(&hits[hits.len() - ROWS..], 5, ROWS),
        "(END)",
    );
    p.keys(&["k"]);
    p.expect(
        "& k",
        &numbered(&hits[hits.len() - ROWS - 1..hits.len() - 1], 5, ROWS),
        "",
    );
    // The filter off: the file again, from the same line.
    let top = hits[hits.len() - ROWS - 1].0;
    p.keys(&["&", "Enter"]);
    p.expect(
        "& off",
        &numbered(&sed(&f, top, top + ROWS as u64 - 1), 5, ROWS),
        "filter off",
    );
    p.keys(&["q"]);
    quits(&p, 0);
}

/// The rows of `text` wrapped at `width` columns.
pub(crate) fn wrapped(text: &str, width: usize) -> Vec<String> {
    text.as_bytes()
        .chunks(width)
        .map(|c| String::from_utf8(c.to_vec()).unwrap())
        .collect()
}

#[test]
fn view_gzip_crlf_invalid_utf8_control_bytes_and_a_long_line() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let long: String = (0..7000).map(|i| (b'a' + (i % 26) as u8) as char).collect();
    let mut text = Vec::new();
    text.extend_from_slice(b"first\rline\r\n");
    text.extend_from_slice(b"tab\there\r\n");
    text.extend_from_slice(b"bad \xff\xfe utf8 \xc3(\r\n");
    text.extend_from_slice(b"nul \0 esc \x1b[31m red bell \x07 del \x7f\n");
    text.extend_from_slice(long.as_bytes());
    text.push(b'\n');
    for i in 6..=200 {
        text.extend_from_slice(format!("line {i}\r\n").as_bytes());
    }
    let f = dir.path().join("odd.log.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    std::io::Write::write_all(&mut gz, &text).unwrap();
    std::fs::write(&f, gz.finish().unwrap()).unwrap();
    let Some(p) = Pane::start(dir.path(), "odd.log.gz") else {
        return;
    };
    // Gutter 3 digits + a space, scrollbar: 95 columns of text.
    let tw = W - 1 - 4;
    let mut want = vec![
        // CRLF: the \r before \n is not shown (as less); one elsewhere is.
        "  1 first^Mline".to_string(),
        "  2 tab     here".to_string(),
        "  3 bad <FF><FE> utf8 <C3>(".to_string(),
        "  4 nul ^@ esc ^[[31m red bell ^G del ^?".to_string(),
    ];
    let long_rows = wrapped(&long, tw);
    assert!(long_rows.len() > ROWS, "longer than the screen");
    want.push(format!("  5 {}", long_rows[0]));
    for r in &long_rows[1..ROWS - 4] {
        want.push(format!("    {r}"));
    }
    p.expect("escaped and wrapped", &want, "odd.log.gz lines 1-5/200");
    // Scrolling moves through the long line row by row.
    p.keys(&["j", "j", "j", "j", "j"]);
    let mut want: Vec<String> = long_rows[1..].iter().map(|r| format!("    {r}")).collect();
    for (n, l) in (6..).zip(&long_rows[long_rows.len()..]) {
        want.push(format!("{n:>3} {l}"));
    }
    for n in 6..200u64 {
        want.push(format!("{n:>3} line {n}"));
    }
    want.truncate(ROWS);
    p.expect("inside the long line", &want, "lines 5-");
    // Chopped: one row per line, scrolled sideways by half a screen.
    p.keys(&["g", "-", "S"]);
    p.wait("chop", |s| {
        text_rows(s, W)[4] == format!("  5 {}", &long[..tw])
    });
    p.keys(&["Right"]);
    p.wait("right", |s| {
        let rows = text_rows(s, W);
        rows[4] == format!("  5 {}", &long[tw / 2..tw / 2 + tw]) && rows[0] == "  1"
    });
    p.keys(&["G"]);
    let last: Vec<String> = (201 - ROWS as u64..=200)
        .map(|n| {
            let l = format!("line {n}");
            format!("{n:>3} {}", l.get(tw / 2..).unwrap_or(""))
                .trim_end()
                .to_string()
        })
        .collect();
    p.expect("G in the archive", &last, "(END)");
    p.keys(&["q"]);
    quits(&p, 0);
}

#[test]
fn view_follow_shows_appended_lines_and_survives_truncation() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("grow.log");
    std::fs::write(&f, log(100)).unwrap();
    let Some(p) = Pane::start(dir.path(), "grow.log") else {
        return;
    };
    p.wait("open", |s| s[rows_of(s)].contains("/100"));
    p.keys(&["F"]);
    p.wait("following", |s| s[rows_of(s)].contains("following"));
    let mut all = log(100);
    for round in 0..3 {
        let mut more = Vec::new();
        for i in 0..7 {
            more.extend_from_slice(format!("appended {round} {i}\n").as_bytes());
        }
        let mut file = std::fs::OpenOptions::new().append(true).open(&f).unwrap();
        std::io::Write::write_all(&mut file, &more).unwrap();
        all.extend_from_slice(&more);
        let n = all.iter().filter(|&&b| b == b'\n').count() as u64;
        p.expect(
            "appended lines",
            &numbered(&sed(&f, n + 1 - ROWS as u64, n), 3, ROWS),
            &format!("/{n}"),
        );
    }
    // Truncated and rewritten: followed again from its first line.
    std::fs::write(&f, b"").unwrap();
    p.wait("truncation noticed", |s| {
        s[rows_of(s)].contains("truncated or replaced")
    });
    std::fs::write(&f, b"new 1\nnew 2\n").unwrap();
    p.expect(
        "the new file",
        &numbered(&[(1, "new 1".into()), (2, "new 2".into())], 1, ROWS),
        "/2",
    );
    p.keys(&["x"]);
    p.wait("stopped", |s| s[rows_of(s)].contains("stopped following"));
    p.keys(&["q"]);
    quits(&p, 0);
}

#[test]
fn view_resize_lays_the_screen_out_again() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("app.log");
    std::fs::write(&f, log(500)).unwrap();
    let Some(p) = Pane::start(dir.path(), "--line 200 app.log") else {
        return;
    };
    p.expect(
        "--line 200",
        &numbered(&sed(&f, 200, 199 + ROWS as u64), 3, ROWS),
        "",
    );
    p.tmux(&["resize-window", "-t", "0", "-x", "30", "-y", "12"]);
    // 30 columns: 4 of gutter, 1 of scrollbar, 25 of text; lines of 29 or
    // 30 bytes wrap into 2 rows.
    let mut want = Vec::new();
    for (n, l) in sed(&f, 200, 206) {
        let rows = wrapped(&l, 25);
        want.push(format!("{n:>3} {}", rows[0]));
        for r in &rows[1..] {
            want.push(format!("    {r}"));
        }
    }
    want.truncate(11);
    let width = 30;
    p.wait("resized", |s| text_rows(s, width) == want);
    p.tmux(&[
        "resize-window",
        "-t",
        "0",
        "-x",
        &W.to_string(),
        "-y",
        &H.to_string(),
    ]);
    p.expect(
        "resized back",
        &numbered(&sed(&f, 200, 199 + ROWS as u64), 3, ROWS),
        "",
    );
    p.keys(&["q"]);
    quits(&p, 0);
}

#[test]
fn view_errors_and_panics_restore_the_terminal() {
    // Not a terminal: one line, exit 2.
    let out = lidx_with(["view", "Cargo.toml"], Rules::SILENT_ERROR);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("needs a terminal"), "{}", out.stderr);
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // A missing file: said before the screen changes.
    let Some(p) = Pane::start(dir.path(), "missing.log") else {
        return;
    };
    let s = p.wait("error", |s| s.iter().any(|l| l.starts_with("EXIT=")));
    assert!(
        s.iter().any(|l| l.starts_with("lidx: missing.log: open")),
        "{}",
        s.join("\n")
    );
    quits(&p, 2);
    // A panic (a test hook): the terminal is restored, then the one-line
    // internal error.
    std::fs::write(dir.path().join("a.log"), log(10)).unwrap();
    let p = Pane::start_sized(dir.path(), "a.log", W, H, &["LIDX_VIEW_TEST_PANIC=1"]).unwrap();
    p.wait("open", |s| s[rows_of(s)].contains("/10"));
    p.keys(&["!"]);
    let s = p.wait("panic", |s| s.iter().any(|l| l.starts_with("EXIT=")));
    assert!(
        s.iter().any(|l| l.contains("lidx: internal error")),
        "{}",
        s.join("\n")
    );
    quits(&p, 2);
    // A directory is not a file: an error, the terminal restored.
    let p = Pane::start(dir.path(), ".").unwrap();
    let s = p.wait("error", |s| s.iter().any(|l| l.starts_with("EXIT=")));
    assert!(
        s.iter().any(|l| l.starts_with("lidx: ")),
        "{}",
        s.join("\n")
    );
    quits(&p, 2);
}

/// The line (1-based) holding byte `offset` of `text`.
pub(crate) fn line_of(text: &[u8], offset: u64) -> u64 {
    text[..offset as usize]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64
        + 1
}

#[test]
fn view_mouse_wheel_and_scrollbar_click() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("app.log");
    let text = log(3000);
    std::fs::write(&f, &text).unwrap();
    let Some(p) = Pane::start(dir.path(), "app.log") else {
        return;
    };
    let r = ROWS as u64;
    let at = |n: u64| numbered(&sed(&f, n, n - 1 + r), 4, ROWS);
    p.expect("first screen", &at(1), "/3000");
    // SGR mouse reports, as a terminal sends them: the wheel moves 3 lines.
    p.text("\x1b[<65;10;5M");
    p.expect("wheel down", &at(4), "lines 4-");
    p.text("\x1b[<65;10;5M");
    p.text("\x1b[<65;10;5M");
    p.expect("wheel down twice", &at(10), "lines 10-");
    p.text("\x1b[<64;10;5M");
    p.expect("wheel up", &at(7), "lines 7-");
    // A click on the scrollbar (the last column), row 15 of 29: the line
    // holding byte size × 14 / 28.
    p.text(&format!("\x1b[<0;{W};15M"));
    let line = line_of(&text, text.len() as u64 * 14 / 28);
    p.expect("scrollbar click", &at(line), "");
    p.text(&format!("\x1b[<0;{W};15m"));
    p.keys(&["q"]);
    quits(&p, 0);
}

#[test]
fn view_shows_the_top_at_once_while_the_sidecar_is_built() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("app.log");
    // 3 MiB: 24 reads of 128 KiB, each made 150 ms slow: a build of 3.6 s.
    std::fs::write(&f, log(100_000)).unwrap();
    let Some(p) = Pane::start_sized(dir.path(), "app.log", W, H, &["LIDX_VIEW_TEST_SLOW=150"])
    else {
        return;
    };
    let r = ROWS as u64;
    let g = 6;
    // The head of the file (its first 256 KiB, read directly) with the
    // build's progress; the gutter is as wide as the head's line count.
    let text = std::fs::read(&f).unwrap();
    let gh = (line_of(&text, 256 << 10)).to_string().len();
    p.expect(
        "the head while indexing",
        &numbered(&sed(&f, 1, r), gh, ROWS),
        " indexing ",
    );
    // Moving works on the head meanwhile.
    p.keys(&["j", "j"]);
    p.expect(
        "j on the head",
        &numbered(&sed(&f, 3, r + 2), gh, ROWS),
        " indexing ",
    );
    // Keys the head cannot answer wait for the index, in order.
    p.text(":90000");
    p.keys(&["Enter", "j"]);
    p.expect(
        "after the build",
        &numbered(&sed(&f, 90001, 90000 + r), g, ROWS),
        "/100000",
    );
    assert!(dir.path().join("app.log.lidx").exists());
    p.keys(&["q"]);
    quits(&p, 0);
    // Quitting during a build cancels it: no sidecar is written.
    let f2 = dir.path().join("other.log");
    std::fs::write(&f2, log(100_000)).unwrap();
    let p = Pane::start_sized(dir.path(), "other.log", W, H, &["LIDX_VIEW_TEST_SLOW=150"]).unwrap();
    p.wait("indexing", |s| s[rows_of(s)].contains(" indexing "));
    p.keys(&["q"]);
    quits(&p, 0);
    assert!(!dir.path().join("other.log.lidx").exists());
}

#[test]
fn view_search_shows_progress_and_esc_cancels_it() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("app.log");
    // 3 MiB: pieces of about 1 MiB, each made 3.2 s slow.
    std::fs::write(&f, log(100_000)).unwrap();
    // The sidecar first, so that only the search is slow.
    let out = crate::run::lidx_with(
        ["index".as_ref(), f.as_os_str()],
        crate::run::Rules::SILENT_ERROR,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let Some(p) = Pane::start_sized(dir.path(), "app.log", W, H, &["LIDX_VIEW_TEST_SLOW=400"])
    else {
        return;
    };
    let r = ROWS as u64;
    p.expect("open", &numbered(&sed(&f, 1, r), 6, ROWS), "/100000");
    p.text("/no such line");
    p.keys(&["Enter"]);
    p.wait("searching", |s| {
        s[rows_of(s)].contains("searching /no such line") && s[rows_of(s)].contains("Esc cancels")
    });
    // Moving still works while it runs.
    p.keys(&["j"]);
    p.wait("j while searching", |s| {
        s[rows_of(s)].contains("searching")
            && text_rows(s, W) == numbered(&sed(&f, 2, r + 1), 6, ROWS)
    });
    p.wait("progress", |s| {
        let st = &s[rows_of(s)];
        st.split_once("searching /no such line ")
            .is_some_and(|(_, rest)| rest.starts_with(|c: char| c.is_ascii_digit()))
    });
    p.keys(&["Escape"]);
    p.expect(
        "cancelled",
        &numbered(&sed(&f, 2, r + 1), 6, ROWS),
        "search cancelled",
    );
    // The cancelled search says nothing later.
    std::thread::sleep(Duration::from_millis(2000));
    let s = p.screen();
    assert!(!s[rows_of(&s)].contains("search hit"), "{}", s.join("\n"));
    p.keys(&["q"]);
    quits(&p, 0);
}

/// The progress bar of a long build (here made long by
/// `LIDX_TEST_SLOW_BUILD`), plain and gzip: on a terminal, the file, a
/// bar, the percentage, bytes, rate and ETA on stderr, cleared at the end.
#[test]
fn index_shows_a_progress_bar_on_a_terminal() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let text = log(100_000);
    std::fs::write(dir.path().join("big.log"), &text).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    std::io::Write::write_all(&mut gz, &text).unwrap();
    std::fs::write(dir.path().join("big.log.gz"), gz.finish().unwrap()).unwrap();
    // A plain build reports every block its workers read (1 MiB; the
    // file is under 3 MiB), a gzip build at its first access point, then
    // every 4 MiB of compressed bytes (here: only at the end), so their
    // reports are made long enough for the bar to show (after 0.4 s).
    for (name, slow) in [
        ("big.log", "LIDX_TEST_SLOW_BUILD=400"),
        ("big.log.gz", "LIDX_TEST_SLOW_BUILD=600"),
    ] {
        let Some(p) =
            Pane::start_command(dir.path(), &format!("{BIN} index {name}"), W, H, &[slow])
        else {
            return;
        };
        let bar = p.wait("the bar", |s| {
            s.iter().any(|l| {
                l.starts_with(&format!("lidx: indexing {name} "))
                    && l.contains('%')
                    && l.contains("ETA")
                    && l.contains("/s")
            })
        });
        let s = p.wait("built", |s| s.iter().any(|l| l.starts_with("EXIT=")));
        assert!(
            s.iter().any(|l| l.starts_with("EXIT=0")),
            "{}",
            s.join("\n")
        );
        // The bar is cleared: the summary line stays, the bar does not.
        assert!(
            !s.iter().any(|l| l.contains("ETA")),
            "{}\n(the bar was {})",
            s.join("\n"),
            bar.join("\n")
        );
        assert!(s.iter().any(|l| l.contains("built:")), "{}", s.join("\n"));
    }
}

/// `:@T` goes to the first line at or after time T through the time
/// index (the oracle: the generator's times); without a time index it
/// says how to build one.
#[test]
fn view_goes_to_a_time() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("timed.log");
    let mut text = Vec::new();
    // 3000 lines 7 seconds apart from 2026-11-30T10:00:00Z; every 10th
    // line a continuation without a stamp.
    for i in 0..3000u64 {
        if i % 10 == 9 {
            text.extend_from_slice(format!("    at worker {i}\n").as_bytes());
        } else {
            let s = 36_000 + 7 * i;
            text.extend_from_slice(
                format!(
                    "2026-11-30T{:02}:{:02}:{:02}Z INFO event {i}\n",
                    s / 3600,
                    s / 60 % 60,
                    s % 60
                )
                .as_bytes(),
            );
        }
    }
    std::fs::write(&f, &text).unwrap();
    let o = crate::run::lidx_with(
        ["index", "-q", "--time", "--tz", "UTC", f.to_str().unwrap()],
        crate::run::Rules::SILENT_ERROR,
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let Some(p) = Pane::start(dir.path(), "timed.log") else {
        return;
    };
    let r = ROWS as u64;
    p.expect(
        "first screen",
        &numbered(&sed(&f, 1, r), 4, ROWS),
        "lines 1-",
    );
    // 12:00:00 is 7200 s in: line i = 1028 is at 7196 s, 1029 has no
    // stamp (it has 1028's time), 1030 (7210 s) is the first at or after
    // (1-based 1031).
    p.text(":@2026-11-30 12:00");
    p.keys(&["Enter"]);
    p.expect(
        ":@12:00",
        &numbered(&sed(&f, 1031, 1030 + r), 4, ROWS),
        "lines 1031-",
    );
    // 13:30+01:00 is 12:30Z, 9000 s in: line 1286 (9002 s), 1-based 1287.
    p.text(":@2026-11-30T13:30:00+01:00");
    p.keys(&["Enter"]);
    p.expect(
        ":@ with a zone",
        &numbered(&sed(&f, 1287, 1286 + r), 4, ROWS),
        "lines 1287-",
    );
    p.keys(&["q"]);
    quits(&p, 0);
    // A file without a time index: the viewer says how to build one.
    let g = dir.path().join("plain.log");
    std::fs::write(&g, &text).unwrap();
    let Some(p) = Pane::start(dir.path(), "plain.log") else {
        return;
    };
    p.expect(
        "first screen",
        &numbered(&sed(&g, 1, r), 4, ROWS),
        "lines 1-",
    );
    p.text(":@12:00");
    p.keys(&["Enter"]);
    p.wait("no time index", |s| {
        s.iter()
            .any(|l| l.contains("no time index: build one with"))
    });
    p.keys(&["q"]);
    quits(&p, 0);
}
