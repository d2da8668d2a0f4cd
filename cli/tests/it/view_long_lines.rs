//! Searching lines longer than what the viewer holds of a line (256
//! KiB): a match past that part is said in the status line (where it is),
//! one inside it is brought on screen (its row when wrapping, its columns
//! when chopping), and the search holds one window of the line, not the
//! line: the viewer's peak RSS (VmHWM) rises by less than 1 MiB while it
//! searches a 2 MB line, over what a search among short lines took.

use crate::view::{Pane, ROWS, rows_of, text_rows, tools, viewer_pid};

/// The viewer's peak resident set, in KiB.
fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

#[test]
fn view_search_finds_matches_in_lines_longer_than_it_holds() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("long.log");
    let mut text = Vec::new();
    for i in 1..=40 {
        text.extend_from_slice(format!("line {i} hay\n").as_bytes());
    }
    // Line 41: 2,000,000 x, then its only match at byte 2,000,001.
    text.extend(std::iter::repeat_n(b'x', 2_000_000));
    text.extend_from_slice(b" needle end\n");
    text.extend_from_slice(b"line 42 hay\n");
    // Line 43: a match inside the part held, at byte 150,000.
    text.extend(std::iter::repeat_n(b'y', 150_000));
    text.extend_from_slice(b"pin");
    text.extend(std::iter::repeat_n(b'y', 1000));
    text.push(b'\n');
    for i in 44..=200 {
        text.extend_from_slice(format!("line {i} hay\n").as_bytes());
    }
    std::fs::write(&f, &text).unwrap();
    // The sidecar first: the build's buffers are not in the peak.
    let out = crate::run::lidx_with(
        ["index".as_ref(), f.as_os_str()],
        crate::run::Rules::SILENT_ERROR,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let Some(p) = Pane::start(dir.path(), "long.log") else {
        return;
    };
    p.wait("open", |s| s[rows_of(s)].contains("lines 1-29/200"));
    // Line 41 drawn once (its 256 KiB laid out), and a search among short
    // lines (a regex compiled, its caches and the scanner's buffer), then
    // back to the top: the peak so far is the screen's and a search's.
    p.text("41G");
    p.wait("41G", |s| s[rows_of(s)].contains("lines 41-41/200"));
    p.text("/line 50 hay");
    p.keys(&["Enter"]);
    p.wait("/line 50", |s| s[rows_of(s)].contains("lines 50-"));
    p.keys(&["g"]);
    p.wait("g", |s| s[rows_of(s)].contains("lines 1-29/200"));
    let pid = viewer_pid(&p);
    let before = peak_kib(pid);
    p.text("/needle");
    p.keys(&["Enter"]);
    let s = p.wait("the match past the cut", |s| {
        s[rows_of(s)].contains("match at byte 2,000,001 of line 41, past the 256 KiB shown")
    });
    assert!(
        s[rows_of(&s)].contains("lines 41-41/200"),
        "{}",
        s[rows_of(&s)]
    );
    let after = peak_kib(pid);
    assert!(
        after <= before + 1024,
        "peak RSS {before} KiB -> {after} KiB while searching a 2 MB line"
    );
    // A match inside the held part: its row is the top one (wrapped)...
    p.text("/pin");
    p.keys(&["Enter"]);
    p.wait("the row of the match", |s| {
        text_rows(s, crate::view::W)[0].contains("pin") && s[rows_of(s)].contains("lines 43-")
    });
    // ... or, chopped, the columns that show it.
    p.keys(&["-", "S", "g"]);
    p.wait("chopped", |s| {
        text_rows(s, crate::view::W)[0].starts_with("  1 line 1 hay")
    });
    p.keys(&["n"]);
    p.wait("the columns of the match", |s| {
        let rows = text_rows(s, crate::view::W);
        rows.iter()
            .any(|r| r.starts_with(" 43 ") && r.contains("pin"))
            && rows.len() == ROWS
    });
    p.keys(&["q"]);
    crate::view::quits(&p, 0);
}
