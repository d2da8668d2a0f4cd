//! Shipped pairs: a source and its sidecar copied (no `-p`), touched,
//! renamed, put in a read-only directory, or changed after shipping,
//! through the real binary. The sidecar travels with its file: a copy is
//! recognised by its content (spec R-43) and used as it is, never rebuilt
//! or rewritten; a change that matters is never answered from it.
//!
//! Oracles: the text itself (the naive model), `sed -n` on it, and for
//! archives the text that flate2 compressed.

use crate::cli::ReadOnlyDir;
use crate::oracle::{Model, Rng, random_text};
use crate::run::{Out, Rules};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Runs `lidx ARGS` with its user cache directory in `cache` (sidecars
/// that fall back there, and remembered content checks).
fn lidx(cache: &Path, args: &[&str]) -> Out {
    let mut cmd = std::process::Command::new(crate::run::BIN);
    cmd.args(args)
        .env("XDG_CACHE_HOME", cache)
        .stdin(std::process::Stdio::null());
    crate::run::checked(cmd, Rules::SILENT_ERROR)
}

/// A gzip member of `text` at `level`.
fn member(text: &[u8], level: u32) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
    e.write_all(text).unwrap();
    e.finish().unwrap()
}

/// A text of `lines` lines from `seed`.
fn text(seed: u64, lines: usize) -> Vec<u8> {
    random_text(&mut Rng::new(seed), lines, 80, true)
}

/// One shipped source: its file name, bytes on disk, and text.
struct Kind {
    name: &'static str,
    file: Vec<u8>,
    text: Vec<u8>,
}

fn kinds() -> Vec<Kind> {
    let plain = text(1, 20_000);
    let one = text(2, 20_000);
    let parts: Vec<Vec<u8>> = (0..5).map(|k| text(10 + k, 4_000)).collect();
    vec![
        Kind {
            name: "app.log",
            file: plain.clone(),
            text: plain,
        },
        Kind {
            name: "app.log.gz",
            file: member(&one, 6),
            text: one,
        },
        Kind {
            name: "members.log.gz",
            file: parts.iter().flat_map(|p| member(p, 6)).collect(),
            text: parts.concat(),
        },
    ]
}

/// Indexes `src` in place with the default options.
fn index(cache: &Path, src: &Path) {
    let o = lidx(cache, &["index", "-q", src.to_str().unwrap()]);
    assert_eq!((o.code, o.stderr.as_str()), (0, ""), "index {src:?}");
}

/// Copies `from` to `to` as `cp` without `-p` does: new bytes, a new
/// modification time (set a minute ahead, whatever the clock's grain).
fn copy(from: &Path, to: &Path) {
    std::fs::copy(from, to).unwrap();
    let f = std::fs::File::options().write(true).open(to).unwrap();
    f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(60))
        .unwrap();
}

fn sidecar(src: &Path) -> PathBuf {
    let mut s = src.as_os_str().to_owned();
    s.push(".lidx");
    PathBuf::from(s)
}

/// Asks `src` for three lines, a count and a line-at, checking each
/// against the text; returns the stderr of the first command.
fn answers(cache: &Path, src: &Path, text: &[u8], ctx: &str) -> String {
    let m = Model::new(text.to_vec());
    let n = m.line_count();
    let p = src.to_str().unwrap();
    let mut first = None;
    for (a, b) in [(1, 1), (n / 2, n / 2 + 3), (n - 1, n)] {
        let o = lidx(cache, &["lines", p, &format!("{a}:{b}")]);
        assert_eq!(o.code, 0, "{ctx}: lines {a}:{b}: {}", o.stderr);
        assert!(
            o.stdout == m.render(&(a - 1..b), false),
            "{ctx}: lines {a}:{b}"
        );
        first.get_or_insert(o.stderr);
    }
    let o = lidx(cache, &["count", p]);
    assert_eq!(o.stdout_str(), format!("{n}\n"), "{ctx}: count");
    let off = m.span(n / 3).start + 1;
    let o = lidx(cache, &["line-at", p, &off.to_string()]);
    let want = m.line_at(off).unwrap() + 1;
    assert_eq!(o.stdout_str(), format!("{want}\n"), "{ctx}: line-at");
    first.unwrap()
}

/// The bytes and modification time of a file (to show it was not
/// rewritten).
fn stamp(p: &Path) -> (Vec<u8>, std::time::SystemTime) {
    (
        std::fs::read(p).unwrap(),
        std::fs::metadata(p).unwrap().modified().unwrap(),
    )
}

/// `cp` without `-p` of a pair, `touch` of the source, and a pair renamed
/// together: the shipped sidecar is used as it is (same bytes, same
/// modification time), answers are the text's, and nothing is written
/// next to it. A plain file is re-read once (a note says so) and that is
/// remembered; an archive is recognised by its member trailers, silently.
#[test]
fn copied_touched_and_renamed_pairs_are_used_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    for k in kinds() {
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        for d in [&a, &b] {
            let _ = std::fs::remove_dir_all(d);
            std::fs::create_dir_all(d).unwrap();
        }
        let orig = a.join(k.name);
        std::fs::write(&orig, &k.file).unwrap();
        index(&cache, &orig);
        // cp without -p.
        let src = b.join(k.name);
        copy(&orig, &src);
        copy(&sidecar(&orig), &sidecar(&src));
        let before = stamp(&sidecar(&src));
        let note = answers(&cache, &src, &k.text, &format!("{} copied", k.name));
        if k.name.ends_with(".gz") {
            assert_eq!(note, "", "{}: an archive needs no re-read", k.name);
        } else {
            assert!(
                note.contains(": verified: the file's modification time differs"),
                "{}: {note}",
                k.name
            );
        }
        // Remembered: the next query is silent, `info` says why.
        assert_eq!(answers(&cache, &src, &k.text, k.name), "");
        let o = lidx(&cache, &["info", src.to_str().unwrap()]);
        assert!(
            o.stdout_str()
                .contains("fresh:        yes (content verified"),
            "{}: {}",
            k.name,
            o.stdout_str()
        );
        assert!(
            stamp(&sidecar(&src)) == before,
            "{}: sidecar rewritten",
            k.name
        );
        // touch.
        let f = std::fs::File::options().write(true).open(&src).unwrap();
        f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(120))
            .unwrap();
        drop(f);
        answers(&cache, &src, &k.text, &format!("{} touched", k.name));
        assert!(stamp(&sidecar(&src)) == before, "{}: touched", k.name);
        // Renamed together (mv keeps the time; a plain file's remembered
        // check was for its old name, so it is re-read once more) and
        // copied-then-renamed.
        let moved = b.join(format!("renamed-{}", k.name));
        std::fs::rename(&src, &moved).unwrap();
        std::fs::rename(sidecar(&src), sidecar(&moved)).unwrap();
        let note = answers(&cache, &moved, &k.text, "renamed");
        assert_eq!(note.is_empty(), k.name.ends_with(".gz"), "{note}");
        let elsewhere = b.join(format!("other-{}", k.name));
        copy(&moved, &elsewhere);
        copy(&sidecar(&moved), &sidecar(&elsewhere));
        answers(&cache, &elsewhere, &k.text, "copied and renamed");
        assert!(stamp(&sidecar(&elsewhere)).0 == before.0);
        assert_eq!(
            std::fs::read_dir(&b).unwrap().count(),
            4,
            "{}: nothing written next to the pairs",
            k.name
        );
    }
    // Nothing was built in the cache directory either: only the notes of
    // content checks.
    let built = cache.join("lidx");
    let sidecars = std::fs::read_dir(&built)
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".lidx"))
                .count()
        })
        .unwrap_or(0);
    assert_eq!(sidecars, 0, "no sidecar built in {}", built.display());
}

/// A shipped pair in a directory lidx may not write (as root, lidx runs as
/// another user): the copy's sidecar is used in place; once the source
/// really changes, the new sidecar goes to the cache directory and the
/// shipped one is left as it was.
#[test]
fn read_only_directory_uses_the_shipped_sidecar_in_place() {
    let Some(d) = ReadOnlyDir::new("read_only_directory_uses_the_shipped_sidecar_in_place") else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let own_cache = work.path().join("cache");
    for k in kinds() {
        let orig = work.path().join(k.name);
        std::fs::write(&orig, &k.file).unwrap();
        index(&own_cache, &orig);
        let src = d.write(k.name, &k.file);
        let side = d.write(
            &format!("{}.lidx", k.name),
            &std::fs::read(sidecar(&orig)).unwrap(),
        );
        let before = stamp(&side);
        let p = src.to_str().unwrap();
        let m = Model::new(k.text.clone());
        let n = m.line_count();
        let o = d.run(&["lines", p, &format!("{}:", n - 2)]);
        assert_eq!(o.code, 0, "{}: {}", k.name, o.stderr);
        assert!(o.stdout == m.render(&(n - 3..n), false), "{}", k.name);
        assert!(!o.stderr.contains("built"), "{}: {}", k.name, o.stderr);
        let o = d.run(&["info", p]);
        assert!(
            o.stdout_str()
                .contains(&format!("sidecar:      {}\n", side.display())),
            "{}: used in place: {}",
            k.name,
            o.stdout_str()
        );
        assert!(!d.cache_sidecar(&src).exists(), "{}", k.name);
        assert!(
            stamp(&side) == before,
            "{}: shipped sidecar rewritten",
            k.name
        );

        // The source changes: answered from a new sidecar in the cache
        // directory, the shipped one untouched.
        let changed = if k.name.ends_with(".gz") {
            let mut t = k.text.clone();
            t.extend_from_slice(b"one more line\n");
            let mut f = k.file.clone();
            f.extend(member(b"one more line\n", 6));
            (f, t)
        } else {
            let mut t = k.text.clone();
            t[0] = b'#';
            (t.clone(), t)
        };
        d.write(k.name, &changed.0);
        let m = Model::new(changed.1.clone());
        let n = m.line_count();
        let o = d.run(&["lines", p, &format!("{}:", n - 1)]);
        assert_eq!(o.code, 0, "{}: {}", k.name, o.stderr);
        assert!(o.stdout == m.render(&(n - 2..n), false), "{}", k.name);
        assert!(d.cache_sidecar(&src).exists(), "{}: {}", k.name, o.stderr);
        assert!(
            stamp(&side) == before,
            "{}: shipped sidecar rewritten",
            k.name
        );
        // `info` describes what queries use (issue 21, item 16): the
        // sidecar in the cache directory, fresh; not the shipped one,
        // stale.
        let o = d.run(&["info", p]);
        let out = o.stdout_str();
        assert!(
            out.contains(&format!(
                "sidecar:      {}\n",
                d.cache_sidecar(&src).display()
            )) && out.contains("fresh:        yes"),
            "{}: {out}",
            k.name
        );
    }
}

/// Changes after shipping that a sidecar must not answer: a plain file
/// whose newlines moved across a checkpoint (same size, head and tail),
/// and an archive whose middle members were swapped (same size, head and
/// tail); both are rebuilt and answer as `sed -n` on their text. A moved
/// newline that shifts no checkpoint keeps the sidecar, and every answer
/// is still right.
#[test]
fn same_size_changes_in_the_middle_are_never_wrong_lines() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    // Plain: one newline removed, another added 70,000 bytes further.
    let t = text(7, 20_000);
    let src = dir.path().join("moved.log");
    std::fs::write(&src, &t).unwrap();
    index(&cache, &src);
    let mut moved = t.clone();
    let a = t.len() / 2 + t[t.len() / 2..].iter().position(|&b| b == b'\n').unwrap();
    moved[a] = b'x';
    let b = a + 70_000 + t[a + 70_000..].iter().position(|&c| c != b'\n').unwrap();
    moved[b] = b'\n';
    std::fs::write(&src, &moved).unwrap();
    copy(&src.clone(), &dir.path().join("tmp"));
    std::fs::rename(dir.path().join("tmp"), &src).unwrap();
    let note = answers(&cache, &src, &moved, "newline moved across a checkpoint");
    assert!(note.contains("rebuilt"), "{note}");
    // A newline swapped with its neighbour inside a span: kept, right.
    let mut swapped = moved.clone();
    let c = moved.len() / 3
        + moved[moved.len() / 3..]
            .iter()
            .position(|&x| x == b'\n')
            .unwrap();
    swapped.swap(c, c + 1);
    std::fs::write(&src, &swapped).unwrap();
    let note = answers(&cache, &src, &swapped, "newline swapped in a span");
    assert!(note.contains("verified"), "{note}");

    // gzip: five members of stored blocks (equal texts make equal
    // members); members 2 and 3 swapped.
    let parts: Vec<Vec<u8>> = (0..5)
        .map(|k| {
            let mut t = text(20 + k, 2_000);
            t.resize(90_000, b'z');
            t.push(b'\n');
            t
        })
        .collect();
    let gz =
        |order: &[usize]| -> Vec<u8> { order.iter().flat_map(|&i| member(&parts[i], 0)).collect() };
    let src = dir.path().join("swapped.log.gz");
    std::fs::write(&src, gz(&[0, 1, 2, 3, 4])).unwrap();
    index(&cache, &src);
    let now = gz(&[0, 2, 1, 3, 4]);
    assert_eq!(now.len(), std::fs::metadata(&src).unwrap().len() as usize);
    std::fs::write(&src, &now).unwrap();
    let f = std::fs::File::options().write(true).open(&src).unwrap();
    f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(60))
        .unwrap();
    drop(f);
    let text_now: Vec<u8> = [0, 2, 1, 3, 4]
        .iter()
        .flat_map(|&i| parts[i].clone())
        .collect();
    let note = answers(&cache, &src, &text_now, "members swapped");
    assert!(note.contains("rebuilt (the file was rewritten)"), "{note}");
}

/// A shipped archive that grew by an appended member (log rotation with
/// `gzip >>`) after it was copied: extended, answers the whole text.
#[test]
fn a_copied_archive_that_grew_is_extended() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let t = text(30, 10_000);
    let orig = dir.path().join("a.log.gz");
    std::fs::write(&orig, member(&t, 6)).unwrap();
    index(&cache, &orig);
    let src = dir.path().join("b.log.gz");
    copy(&orig, &src);
    copy(&sidecar(&orig), &sidecar(&src));
    let more = text(31, 500);
    std::fs::OpenOptions::new()
        .append(true)
        .open(&src)
        .unwrap()
        .write_all(&member(&more, 6))
        .unwrap();
    let note = answers(&cache, &src, &[t, more].concat(), "grown copy");
    assert!(note.contains("extended"), "{note}");
}
