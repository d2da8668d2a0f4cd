//! Generated documentation: `lidx completions SHELL` and `lidx man` come
//! from the clap definitions, so they name every subcommand and option.

use crate::run::{Rules, lidx_with};

/// Every subcommand, as `lidx --help` lists them.
fn subcommands() -> Vec<String> {
    let help = lidx_with(["--help"], Rules::SILENT_ERROR).stdout_str();
    let list = help
        .split("Commands:")
        .nth(1)
        .expect("a Commands: section")
        .split("Options:")
        .next()
        .unwrap();
    let names: Vec<String> = list
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .filter(|l| !l.starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_string)
        .collect();
    for want in ["index", "lines", "grep", "view", "completions", "man"] {
        assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
    }
    names
}

#[test]
fn completions_name_every_subcommand() {
    let subs = subcommands();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = lidx_with(["completions", shell], Rules::SILENT_ERROR);
        assert_eq!(out.code, 0, "{shell}: {}", out.stderr);
        let text = out.stdout_str();
        assert!(text.len() > 1000, "{shell}: {} bytes", text.len());
        for s in &subs {
            assert!(text.contains(s.as_str()), "{shell}: no {s}");
        }
        // Options of the subcommands too.
        for opt in ["no-build", "ignore-case", "follow"] {
            assert!(text.contains(opt), "{shell}: no {opt}");
        }
    }
    let out = lidx_with(["completions", "tcsh"], Rules::SILENT_ERROR);
    assert_eq!(out.code, 2);
}

#[test]
fn man_page_names_every_subcommand() {
    let out = lidx_with(["man"], Rules::SILENT_ERROR);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let page = out.stdout_str();
    assert!(
        page.starts_with(".ie") || page.starts_with(".TH"),
        "{}",
        &page[..80]
    );
    assert!(page.contains(".TH lidx 1"), "title");
    for s in subcommands() {
        assert!(
            page.contains(&format!(".SH \"LIDX {}\"", s.to_uppercase())),
            "no section for {s}"
        );
        let roff = s.replace('-', "\\-");
        assert!(
            page.contains(&format!("lidx {roff}")),
            "no synopsis for {s}"
        );
    }
    for opt in ["no\\-build", "ignore\\-case", "follow"] {
        assert!(page.contains(opt), "no {opt}");
    }
    // man(1) renders it, when it is installed.
    if crate::run::tool_runs("man") {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("lidx.1");
        std::fs::write(&p, &page).unwrap();
        let o = std::process::Command::new("man")
            .arg("-l")
            .arg(&p)
            .env("MANPAGER", "cat")
            .env("MANWIDTH", "100")
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "man -l: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(String::from_utf8_lossy(&o.stdout).contains("LIDX VIEW"));
    }
}
