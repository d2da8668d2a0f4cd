//! `lidx view`'s messages and habits as `less` users expect them: a regex
//! error about the pattern typed (not the matcher's wrapping of it), with
//! a caret under the character at fault; messages as wide as the terminal
//! (and wrapped over more rows when longer), not cut.

use crate::view::{Pane, ROWS, log, numbered, quits, rows_of, sed, tools};

#[test]
fn view_says_a_regex_error_about_the_pattern_typed() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("app.log");
    std::fs::write(&f, log(500)).unwrap();
    let Some(p) = Pane::start(dir.path(), "app.log") else {
        return;
    };
    let first = numbered(&sed(&f, 1, ROWS as u64), 3, ROWS);
    p.expect("first screen", &first, "/500");
    p.text("/ab{2,1}");
    p.keys(&["Enter"]);
    // The message's rows over the last rows of text: what is wrong, the
    // pattern after its prompt, a caret under the part at fault.
    let s = p.wait("the error", |s| {
        let n = rows_of(s);
        n >= 3 && s[n - 2].trim_end() == "/ab{2,1}"
    });
    let n = rows_of(&s);
    assert_eq!(
        s[n - 3].trim_end(),
        "invalid pattern: invalid repetition count range, the start must be <= the end",
        "{}",
        s.join("\n")
    );
    assert_eq!(s[n - 1].trim_end(), "   ^^^^^", "{}", s.join("\n"));
    assert!(!s.iter().any(|l| l.contains("(?:")), "{}", s.join("\n"));
    // Any key clears it; an error at the matcher's own group is said
    // without a caret.
    p.keys(&["j"]);
    p.expect(
        "cleared",
        &numbered(&sed(&f, 2, ROWS as u64 + 1), 3, ROWS),
        "/500",
    );
    p.text("&a(");
    p.keys(&["Enter"]);
    let s = p.wait("unclosed", |s| {
        let n = rows_of(s);
        s[n - 1].trim_end() == "&a("
    });
    let n = rows_of(&s);
    assert_eq!(s[n - 2].trim_end(), "invalid pattern: unclosed group");
    assert!(!s.iter().any(|l| l.contains("(?:")), "{}", s.join("\n"));
    p.keys(&["q"]);
    quits(&p, 0);
}

#[test]
fn view_messages_use_the_terminal_width() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let name = "a-log-with-a-long-name.log";
    let f = dir.path().join(name);
    std::fs::write(&f, log(500)).unwrap();
    let out = crate::run::lidx_with(
        ["index".as_ref(), f.as_os_str()],
        crate::run::Rules::SILENT_ERROR,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    // 60 columns: the message is longer than that.
    let Some(p) = Pane::start_sized(dir.path(), name, 60, 20, &[]) else {
        return;
    };
    p.wait("open", |s| s[rows_of(s)].contains("/500"));
    p.text(":@12:00");
    p.keys(&["Enter"]);
    let want = format!("no time index: build one with `lidx index --time {name}`");
    let s = p.wait("the whole message", |s| {
        let joined: String = s[..rows_of(s)].iter().map(|l| l.trim_end()).collect();
        joined.contains(&want)
    });
    // The status row still says where the screen is.
    assert!(s[rows_of(&s)].contains("lines 1-"), "{}", s.join("\n"));
    // A message that fits is on the status row, before the position.
    p.keys(&["m", "a"]);
    p.wait("mark", |s| {
        s[rows_of(s)].starts_with("mark a set at line 1  ") && s[rows_of(s)].contains("lines 1-")
    });
    p.keys(&["q"]);
    quits(&p, 0);
}

/// `h` (and `H`) opens a help screen listing every key, `:@T` and `''`
/// included; it scrolls, and `q` or `Esc` closes it (the viewer goes on
/// where it was).
#[test]
fn view_h_opens_a_help_screen() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("app.log");
    std::fs::write(&f, log(500)).unwrap();
    let Some(p) = Pane::start_sized(dir.path(), "--line 100 app.log", 100, 20, &[]) else {
        return;
    };
    let at_100 = numbered(&sed(&f, 100, 118), 3, 19);
    p.expect("line 100", &at_100, "/500");
    for (open, close) in [("h", "q"), ("H", "Escape")] {
        p.keys(&[open]);
        let s = p.wait("help", |s| {
            s[0].starts_with("Keys of lidx view") && s[rows_of(s)].contains("q or Esc closes")
        });
        assert!(s.iter().any(|l| l.contains(":@T")), "{}", s.join("\n"));
        // The rest of it, a page down.
        p.keys(&["Space"]);
        let s = p.wait("help, page 2", |s| s[rows_of(s)].contains("(END)"));
        for key in ["''", "mx", "-S", "^Z", "q  Q  ZZ  :q"] {
            assert!(
                s.iter().any(|l| l.trim_start().starts_with(key)),
                "{key}: {}",
                s.join("\n")
            );
        }
        p.keys(&[close]);
        p.expect("closed", &at_100, "lines 100-");
    }
    p.keys(&["q"]);
    quits(&p, 0);
}

/// `-R` (as `less -R`): colour sequences style the text instead of
/// showing as `^[[31m`, other escapes still show escaped; `-R` in the
/// viewer toggles it.
#[test]
fn view_r_shows_colour_sequences_as_colours() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("colour.log"),
        b"\x1b[31mred\x1b[0m plain \x1b[1;32mgreen\x1b[0m\nosc \x1b]0;title\x07 end\n",
    )
    .unwrap();
    let Some(p) = Pane::start(dir.path(), "-R colour.log") else {
        return;
    };
    let shown = p.wait("colours", |s| {
        s[0].starts_with("1 red plain green") && s[rows_of(s)].contains("/2")
    });
    assert!(
        shown[1].starts_with("2 osc ^[]0;title^G end"),
        "{}",
        shown.join("\n")
    );
    // The pane's cells have the colours: red (1), then bold green (2).
    let styled = p.tmux(&["capture-pane", "-p", "-e", "-t", "0"]);
    let row = styled.lines().next().unwrap();
    let red = row.find("red").unwrap();
    let green = row.find("green").unwrap();
    assert!(
        row[..red].contains("31m") || row[..red].contains("38;5;1m"),
        "{row:?}"
    );
    assert!(
        row[red..green].contains("32m") || row[red..green].contains("38;5;2m"),
        "{row:?}"
    );
    assert!(!row.contains("^["), "{row:?}");
    // Toggled off: escaped again.
    p.keys(&["-", "R"]);
    p.wait("escaped", |s| {
        s[0].starts_with("1 ^[[31mred^[[0m plain ^[[1;32mgreen^[[0m")
    });
    p.keys(&["-", "R"]);
    p.wait("colours again", |s| s[0].starts_with("1 red plain green"));
    p.keys(&["q"]);
    quits(&p, 0);
}
