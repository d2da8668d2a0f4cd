//! BGZF archives (bgzip's output) are decoded in parallel at ingest (issue
//! 15, item 3): the sidecar must be the one the sequential decode writes
//! (`-j 1`), byte for byte; every answer must be the text's (`zcat`, and
//! the text the test made); and where the parallel decode stops (a member
//! that is not BGZF, damage, padding, the end of the file inside a
//! member), the sequential decoder takes over with its usual answers and
//! messages, the same for any `-j`.

use crate::oracle::{Rng, random_text};
use crate::run::{Out, Rules, have_tool, lidx_with};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// `tool ARGS` with `input` on stdin; its stdout.
pub(crate) fn pipe(tool: &str, args: &[&str], input: &[u8]) -> Vec<u8> {
    let mut child = Command::new(tool)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "{tool} {args:?} failed");
    out.stdout
}

/// Text of about `size` bytes: short lines, lines longer than a BGZF
/// member (64 KiB), and no final newline.
fn text(seed: u64, size: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut t = Vec::new();
    while t.len() < size {
        t.extend(random_text(&mut rng, 500, 200, true));
        if rng.below(4) == 0 {
            t.extend(std::iter::repeat_n(
                b'W',
                70_000 + rng.below(90_000) as usize,
            ));
            t.push(b'\n');
        }
    }
    t.extend_from_slice(b"no newline at the end");
    t
}

/// Runs `lidx ARGS` for a command that may stream before an error.
pub(crate) fn lidx(args: &[&str]) -> Out {
    lidx_with(args, Rules::STREAMING)
}

/// Indexes `path` with `-j j` into `sidecar`; the sidecar's bytes and
/// what the command said.
pub(crate) fn index(path: &Path, sidecar: &Path, j: &str) -> (Vec<u8>, Out) {
    let o = lidx_with(
        [
            "index",
            "-q",
            "--force",
            "-j",
            j,
            "--index",
            sidecar.to_str().unwrap(),
            path.to_str().unwrap(),
        ],
        Rules::SILENT_ERROR,
    );
    (std::fs::read(sidecar).unwrap_or_default(), o)
}

/// `path` indexed with `-j 1` and with `-j 2` and `-j 3`: the same
/// sidecar (or the same error).
pub(crate) fn same_for_any_j(path: &Path, ctx: &str) -> Vec<u8> {
    let dir = path.parent().unwrap();
    let (one, o1) = index(path, &dir.join("j1.lidx"), "1");
    for j in ["2", "3"] {
        let (many, oj) = index(path, &dir.join(format!("j{j}.lidx")), j);
        assert_eq!(
            (oj.code, &oj.stderr),
            (o1.code, &o1.stderr),
            "{ctx}: -j {j} said"
        );
        assert!(one == many, "{ctx}: -j {j} wrote another sidecar than -j 1");
    }
    one
}

/// Every line of `want` (the text) from `path`'s sidecar, and a few
/// single lines.
pub(crate) fn answers_are_the_text(path: &Path, want: &[u8], ctx: &str) {
    let p = path.to_str().unwrap();
    let o = lidx(&["lines", p, "1:"]);
    assert_eq!(o.code, 0, "{ctx}: {}", o.stderr);
    // lidx prints the bytes as they are: a last line without a newline
    // stays without.
    assert!(o.stdout == want, "{ctx}: lines 1: differs from the text");
    let lines: Vec<&[u8]> = want.split_inclusive(|&b| b == b'\n').collect();
    let o = lidx(&["count", p]);
    assert_eq!(
        o.stdout_str().trim(),
        lines.len().to_string(),
        "{ctx}: count"
    );
    for n in [1, lines.len() / 3, lines.len() / 2 + 1, lines.len()] {
        if n == 0 {
            continue;
        }
        let o = lidx(&["lines", p, &n.to_string()]);
        assert!(o.stdout == lines[n - 1], "{ctx}: line {n}");
    }
}

/// What `lidx info --json` says of `path`'s windows (`gzip.windowless`).
fn windowless(path: &Path) -> Option<bool> {
    let o = lidx(&["info", "--json", path.to_str().unwrap()]);
    assert_eq!(o.code, 0, "info: {}", o.stderr);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    j["gzip"]["windowless"].as_bool()
}

#[test]
fn bgzip_archives_index_in_parallel_as_in_sequence() {
    if !have_tool("bgzip", "BGZF archives") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (seed, size, args) in [
        (1, 3 << 20, &["-c"][..]),
        (2, 2 << 20, &["-c", "-l", "1"][..]),
        (3, 2 << 20, &["-c", "-l", "9", "-@", "2"][..]),
        (4, 0, &["-c"][..]),
    ] {
        let t = if size == 0 {
            Vec::new()
        } else {
            text(seed, size)
        };
        let archive = pipe("bgzip", args, &t);
        let path = dir.path().join("a.log.gz");
        std::fs::write(&path, &archive).unwrap();
        let ctx = format!("bgzip {args:?}, {} bytes", t.len());
        same_for_any_j(&path, &ctx);
        if !t.is_empty() {
            assert_eq!(pipe("zcat", &[], &archive), t, "{ctx}: zcat");
            answers_are_the_text(&path, &t, &ctx);
            assert_eq!(windowless(&path), Some(true), "{ctx}: info");
        }
        // A span smaller than a member: the sequential decode (its access
        // points fall inside members); the same answers.
        let o = lidx(&[
            "index",
            "-q",
            "--force",
            "--span",
            "40000",
            path.to_str().unwrap(),
        ]);
        assert_eq!(o.code, 0, "{ctx}: --span 40000: {}", o.stderr);
        if !t.is_empty() {
            answers_are_the_text(&path, &t, &format!("{ctx}, --span 40000"));
            assert_eq!(windowless(&path), Some(false), "{ctx}: --span 40000: info");
        }
    }
}

#[test]
fn where_the_parallel_decode_stops_the_sequential_one_answers() {
    if !have_tool("bgzip", "BGZF archives") || !have_tool("gzip", "a plain member") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let a = text(7, 1 << 20);
    let b = text(8, 300_000);
    let bgzf_a = pipe("bgzip", &["-c"], &a);
    let bgzf_b = pipe("bgzip", &["-c"], &b);
    let gzip_b = pipe("gzip", &["-c"], &b);
    // bgzip ends with an empty member (the EOF marker): cut it off to put
    // other members after the text of `a`.
    let body_a = &bgzf_a[..bgzf_a.len() - 28];
    let path = dir.path().join("m.log.gz");
    let both = [a.clone(), b.clone()].concat();
    // A plain gzip member after BGZF ones, and BGZF after it.
    for (name, archive) in [
        ("bgzf + gzip", [body_a, &gzip_b[..]].concat()),
        (
            "bgzf + gzip + bgzf",
            [body_a, &gzip_b[..], &bgzf_b[..]].concat(),
        ),
        (
            "bgzf + zero padding",
            [&bgzf_a[..], &[0u8; 5000][..]].concat(),
        ),
    ] {
        std::fs::write(&path, &archive).unwrap();
        same_for_any_j(&path, name);
        let want = match name {
            "bgzf + gzip" => both.clone(),
            "bgzf + gzip + bgzf" => [a.clone(), b.clone(), b.clone()].concat(),
            _ => a.clone(),
        };
        // `a` has no final newline: its last line runs into `b`'s first.
        answers_are_the_text(&path, &want, name);
    }
    // Damage in a middle member, a truncated archive, trailing garbage:
    // the same message and exit status for any -j, and the same answers
    // (the lines before the damage).
    let mid = bgzf_a.len() / 2;
    let mut flipped = bgzf_a.clone();
    flipped[mid] ^= 0x40;
    for (name, archive) in [
        ("a flipped byte", flipped),
        ("truncated", bgzf_a[..mid].to_vec()),
        ("trailing garbage", [&bgzf_a[..], b"garbage!"].concat()),
    ] {
        std::fs::write(&path, &archive).unwrap();
        same_for_any_j(&path, name);
        let o = lidx(&["lines", path.to_str().unwrap(), "1:"]);
        assert_eq!(o.code, 2, "{name}: lines 1: {}", o.stderr);
        assert!(
            o.stdout.ends_with(b"\n") && a.starts_with(&o.stdout),
            "{name}: lines 1: prints complete lines of the text before the damage"
        );
    }
}
