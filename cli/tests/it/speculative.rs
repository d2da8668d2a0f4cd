//! Ordinary gzip archives are decoded on several cores at ingest (issue
//! 24, item 1): workers decode chunks from the first deflate block they
//! find, without the window, and the exact decode switches to a chunk
//! only where it reaches that block. The sidecar must be the one `-j 1`
//! writes, byte for byte, whatever the archive holds: gzip -1/-6/-9,
//! pigz (sync flushes, empty stored blocks), several members, stored
//! blocks, text compressed more than a chunk holds, damage, and stored
//! deflate data that the block finder takes for blocks (false starts,
//! which must never change an answer). Answers are checked against the
//! text and `zcat`; the decoder's own count says the chunks were used
//! (or, for the false starts, found and passed over).

use crate::bgzf::{answers_are_the_text, index, pipe, same_for_any_j};
use crate::oracle::Rng;
use crate::run::{Rules, have_tool};
use std::path::Path;
use std::process::Command;

/// Log-like text of about `size` bytes (about 4:1 under gzip -6), with
/// no newline at the end when `seed` is odd.
fn log(seed: u64, size: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let words = [
        "GET",
        "POST",
        "alice",
        "bob",
        "carol",
        "/api/items",
        "/login",
        "ok",
        "denied",
    ];
    let mut t = Vec::with_capacity(size + 200);
    while t.len() < size {
        let w = |rng: &mut Rng| words[rng.below(words.len() as u64) as usize];
        let line = format!(
            "2026-12-07T{:02}:{:02}:{:02}.{:03}Z {} user={} path={} ms={} id={:x}\n",
            rng.below(24),
            rng.below(60),
            rng.below(60),
            rng.below(1000),
            w(&mut rng),
            w(&mut rng),
            w(&mut rng),
            rng.below(5000),
            rng.next_u64() >> 24,
        );
        t.extend_from_slice(line.as_bytes());
    }
    if seed % 2 == 1 {
        t.pop();
    }
    t
}

/// Noise: incompressible bytes (gzip stores them).
fn noise(seed: u64, size: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    (0..size).map(|_| rng.next_u64() as u8).collect()
}

/// A gzip member of stored blocks holding `data` as it is.
fn stored_member(data: &[u8]) -> Vec<u8> {
    let mut m = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    for b in data.chunks(60_000) {
        m.push(0);
        m.extend_from_slice(&(b.len() as u16).to_le_bytes());
        m.extend_from_slice(&(!(b.len() as u16)).to_le_bytes());
        m.extend_from_slice(b);
    }
    m.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    m.extend_from_slice(&crc32fast::hash(data).to_le_bytes());
    m.extend_from_slice(&(data.len() as u32).to_le_bytes());
    m
}

/// `lidx index -j 2` with the decoder's cost report on: (chunks used,
/// false starts).
fn chunk_counts(path: &Path) -> (u64, u64) {
    let mut cmd = Command::new(crate::run::BIN);
    cmd.args(["index", "-q", "--force", "-j", "2", "--index"])
        .arg(path.with_extension("stats.lidx"))
        .arg(path)
        .env("LIDX_SPECULATIVE_STATS", "1");
    let o = crate::run::checked(cmd, Rules::STREAMING);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let line = o
        .stderr
        .lines()
        .find(|l| l.starts_with("lidx: speculative: "))
        .unwrap_or_else(|| panic!("no cost report: {}", o.stderr));
    let field = |name: &str| -> u64 {
        let at = line
            .find(name)
            .unwrap_or_else(|| panic!("{name} in {line}"))
            + name.len();
        line[at..]
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    (field("chunks used "), field("false starts "))
}

/// Writes `archive` to `name`, and checks: the same sidecar for any
/// `-j`, the text (also as `zcat` says), and that at least `min_used`
/// chunks were used; returns the false starts.
fn check(dir: &Path, name: &str, archive: &[u8], text: &[u8], min_used: u64) -> u64 {
    let path = dir.join(name);
    std::fs::write(&path, archive).unwrap();
    same_for_any_j(&path, name);
    assert!(pipe("zcat", &[], archive) == text, "{name}: zcat");
    answers_are_the_text(&path, text, name);
    let (used, false_starts) = chunk_counts(&path);
    assert!(
        used >= min_used,
        "{name}: {used} chunks used, want {min_used}"
    );
    false_starts
}

#[test]
fn gzip_and_pigz_archives_decode_in_chunks_as_in_sequence() {
    if !have_tool("gzip", "gzip archives") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let t = log(1, 4 << 20);
    for level in ["-1", "-6", "-9"] {
        let gz = pipe("gzip", &["-c", level], &t);
        check(dir.path(), &format!("gzip{level}.log.gz"), &gz, &t, 3);
    }
    if have_tool("pigz", "pigz archives") {
        // pigz ends every 128 KiB of input with a sync flush.
        let gz = pipe("pigz", &["-c", "-6", "-p", "2"], &t);
        check(dir.path(), "pigz.log.gz", &gz, &t, 3);
    }
}

#[test]
fn members_stored_blocks_and_long_runs() {
    if !have_tool("gzip", "gzip archives") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let a = log(2, 2 << 20);
    let b = log(3, 1 << 20);
    // Members: chunks in each, none across a member's end.
    let both = [a.clone(), b.clone(), a.clone()].concat();
    let gz = [
        pipe("gzip", &["-c"], &a),
        pipe("gzip", &["-c", "-1"], &b),
        pipe("gzip", &["-c"], &a),
    ]
    .concat();
    check(dir.path(), "members.log.gz", &gz, &both, 3);
    // Stored blocks in the middle of a member (incompressible bytes),
    // and a stretch compressed far more than a chunk holds.
    let mixed = [
        log(4, 1 << 20),
        noise(5, 600_000),
        log(6, 1 << 20),
        b"the same line again\n".repeat(300_000),
        log(7, 1 << 20),
    ]
    .concat();
    let gz = pipe("gzip", &["-c"], &mixed);
    check(dir.path(), "mixed.log.gz", &gz, &mixed, 2);
}

#[test]
fn stored_deflate_data_makes_false_starts_never_wrong_answers() {
    if !have_tool("gzip", "gzip archives") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // The text is itself a gzip archive, stored as it is: the finder
    // sees real deflate blocks everywhere, none at the stream's own
    // block boundaries.
    let inner = pipe("gzip", &["-c"], &log(8, 5 << 20));
    let outer = stored_member(&inner);
    let false_starts = check(dir.path(), "stored.gz", &outer, &inner, 0);
    assert!(false_starts >= 3, "{false_starts} false starts");
    // gzip of the same text: gzip stores most of it, in blocks of its
    // own, between compressed ones.
    let gz = pipe("gzip", &["-c"], &inner);
    check(dir.path(), "gzip-stored.gz", &gz, &inner, 0);
    // A compressed member, the stored one, and another compressed one.
    let a = log(9, 2 << 20);
    let archive = [pipe("gzip", &["-c"], &a), outer, pipe("gzip", &["-c"], &a)].concat();
    let text = [a.clone(), inner, a].concat();
    let false_starts = check(dir.path(), "sandwich.gz", &archive, &text, 2);
    assert!(false_starts >= 3, "{false_starts} false starts");
}

#[test]
fn damage_gives_the_same_error_for_any_j() {
    if !have_tool("gzip", "gzip archives") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let t = log(10, 3 << 20);
    let gz = pipe("gzip", &["-c"], &t);
    let path = dir.path().join("bad.log.gz");
    for (name, bad) in [
        ("a changed byte", {
            let mut g = gz.clone();
            g[gz.len() / 2] ^= 0x40;
            g
        }),
        ("a changed trailer", {
            let mut g = gz.clone();
            let n = g.len();
            g[n - 6] ^= 1;
            g
        }),
        ("cut", gz[..gz.len() * 3 / 4].to_vec()),
        ("trailing garbage", [&gz[..], b"not gzip"].concat()),
    ] {
        std::fs::write(&path, &bad).unwrap();
        // The same error (or the same sidecar) for -j 1, 2, 3.
        same_for_any_j(&path, name);
        if name != "trailing garbage" {
            let (_, o) = index(&path, &dir.path().join("one.lidx"), "2");
            assert_eq!(o.code, 2, "{name}: {}", o.stderr);
        }
    }
}
