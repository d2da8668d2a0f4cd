//! A source that grows is extended incrementally; the result must be the
//! sidecar a fresh build of the final file writes (only the recorded mtime
//! may differ), and every answer must match the model. Rewritten and shrunk
//! sources are rebuilt.

use crate::oracle::config;
use crate::oracle::{Depth, Model, check_index, stored_checkpoints};
use lidx::{Action, Index, OpenOptions, Verdict};
use proptest::collection::vec;
use proptest::prelude::*;
use std::io::Write;
use std::path::Path;

/// Superblock byte ranges that hold the source's mtime (spec §3): the
/// nanoseconds at 92..96 and the seconds at 96..104. The CRC at 252..256
/// covers them, so it differs too.
const MTIME: std::ops::Range<usize> = 92..104;
const SB_CRC: std::ops::Range<usize> = 252..256;

fn append(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(bytes).unwrap();
}

/// Asserts that sidecars `got` (extended) and `want` (fresh) are identical
/// except for the mtime fields and the superblock CRC.
pub fn assert_same_sidecar(got: &[u8], want: &[u8], ctx: &str) {
    assert_eq!(got.len(), want.len(), "{ctx}: sidecar sizes");
    let sa = lidx::format::Superblock::decode(&got[..256]).expect("extended superblock");
    let sb = lidx::format::Superblock::decode(&want[..256]).expect("fresh superblock");
    let page = sa.page_size as usize;
    let mut na = sa.clone();
    na.fingerprint.mtime_sec = 0;
    na.fingerprint.mtime_nsec = 0;
    let mut nb = sb.clone();
    nb.fingerprint.mtime_sec = 0;
    nb.fingerprint.mtime_nsec = 0;
    assert_eq!(na, nb, "{ctx}: superblocks (mtime aside)");
    for i in 0..256 {
        if !MTIME.contains(&i) && !SB_CRC.contains(&i) {
            assert_eq!(got[i], want[i], "{ctx}: superblock byte {i}");
        }
    }
    assert!(
        got[256..page] == want[256..page],
        "{ctx}: rest of page 0 differs"
    );
    if let Some(p) = (page..got.len())
        .step_by(page)
        .find(|&p| got[p..p + page] != want[p..p + page])
    {
        panic!("{ctx}: node page {} differs", p / page);
    }
    assert_eq!(stored_checkpoints(got), stored_checkpoints(want), "{ctx}");
}

/// A fresh build of `content` under the same basename, elsewhere.
fn fresh_sidecar(content: &[u8], name: &str, spacing: u64, page_size: u32) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, content).unwrap();
    let o = OpenOptions::new()
        .spacing(spacing)
        .page_size(page_size)
        .open(&path)
        .unwrap();
    assert_eq!(o.action, Action::Built);
    std::fs::read(o.index.sidecar_path()).unwrap()
}

fn chunk() -> impl Strategy<Value = Vec<u8>> {
    let line = prop_oneof![
        4 => vec(prop_oneof![Just(b'a'), Just(b'\r'), Just(0u8), Just(0xfeu8)], 0..8),
        1 => (20usize..900).prop_map(|n| vec![b'L'; n]),
    ];
    prop_oneof![
        // Several lines, ending mid-line or with a newline.
        6 => (vec(line, 1..25), any::<bool>()).prop_map(|(ls, nl)| {
            let mut v = ls.join(&b'\n');
            if nl {
                v.push(b'\n');
            }
            if v.is_empty() {
                v.push(b'\n');
            }
            v
        }),
        1 => Just(b"\n".to_vec()),
        1 => Just(b"continued".to_vec()),
        1 => (1usize..40).prop_map(|n| vec![b'\n'; n]),
    ]
}

/// Builds `initial`'s sidecar, then appends each of `appends` in turn and
/// checks that opening extends it into a fresh build's sidecar. `legacy`:
/// the first sidecar is put in the layout of 1.0 and 1.1 (internal pages
/// among the leaves, the root last), as a sidecar written before 1.2.
fn check_extensions(
    initial: &[u8],
    appends: &[Vec<u8>],
    spacing: u64,
    page_size: u32,
    seed: u64,
    legacy: bool,
) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grow.log");
    std::fs::write(&path, initial).unwrap();
    let first = OpenOptions::new()
        .spacing(spacing)
        .page_size(page_size)
        .open(&path)
        .unwrap();
    assert_eq!(first.action, Action::Built);
    let side = first.index.sidecar_path().to_path_buf();
    drop(first);
    if legacy {
        let old = crate::legacy::to_legacy(&std::fs::read(&side).unwrap());
        std::fs::write(&side, &old).unwrap();
        let o = OpenOptions::new().open(&path).unwrap();
        assert_eq!(o.action, Action::Opened);
        assert!(!o.index.superblock().head_first());
        o.index.verify(true).unwrap();
    }
    let mut content = initial.to_vec();
    for (step, bytes) in appends.iter().enumerate() {
        append(&path, bytes);
        content.extend_from_slice(bytes);
        let ctx = format!(
            "step {step}: +{} bytes -> {} bytes, spacing {spacing}, page {page_size}",
            bytes.len(),
            content.len()
        );
        // Strict opening refuses the grown source.
        match Index::open(&path) {
            Err(lidx::Error::Stale {
                verdict: Verdict::Appended,
                ..
            }) => {}
            other => panic!("{ctx}: strict open of a grown source gave {other:?}"),
        }
        // Default options (another spacing and page size): extended with
        // the sidecar's own parameters.
        let opened = OpenOptions::new().cache_bytes(1024).open(&path).unwrap();
        assert_eq!(opened.action, Action::Extended, "{ctx}");
        assert_eq!(opened.index.verdict(), Verdict::Unchanged, "{ctx}");
        let m = Model::new(content.clone());
        let depth = Depth {
            all_lines_up_to: 600,
            all_offsets_up_to: 3000,
            samples: 300,
            ranges: 10,
        };
        check_index(&opened.index, &m, spacing, depth, seed ^ step as u64, &ctx);
        let got = std::fs::read(opened.index.sidecar_path()).unwrap();
        let want = fresh_sidecar(&content, "grow.log", spacing, page_size);
        assert_same_sidecar(&got, &want, &ctx);
        assert_eq!(stored_checkpoints(&got), m.checkpoints(spacing), "{ctx}");
        drop(opened);
        // And it is fresh now.
        assert_eq!(
            OpenOptions::new().open(&path).unwrap().action,
            Action::Opened,
            "{ctx}"
        );
    }
}

proptest! {
    #![proptest_config(config(32))]

    #[test]
    fn extension_equals_fresh_build(
        initial in prop_oneof![1 => Just(Vec::new()), 4 => chunk()],
        appends in vec(chunk(), 1..5),
        spacing in prop_oneof![Just(1u64), 2u64..40, 40u64..2000, Just(1u64 << 40)],
        page_size in prop_oneof![Just(512u32), Just(4096u32)],
        seed: u64,
        legacy: bool,
    ) {
        check_extensions(&initial, &appends, spacing, page_size, seed, legacy);
    }
}

/// Growth that changes the tree's height: 1 → 2 → 3 levels at page size
/// 512 and spacing 1, with appends that split a line and one that ends
/// right after a line longer than the spacing.
#[test]
fn extension_across_tree_heights() {
    let lines = |n: usize| b"ab\n".repeat(n);
    let mut tail_long = b"half a li".to_vec();
    tail_long.extend(b"ne\n");
    let appends = vec![
        lines(10),           // 20 -> 30 lines: height 1
        b"partial".to_vec(), // a final line without newline
        b" line done\n".to_vec(),
        lines(40),        // height 2
        vec![b'Z'; 5000], // a long final line without newline
        b"\n".to_vec(),   // ... now terminated
        lines(800),       // height 3
        tail_long,
    ];
    for legacy in [false, true] {
        check_extensions(&lines(20), &appends, 1, 512, 7, legacy);
        check_extensions(&lines(20), &appends, 64, 512, 8, legacy);
    }
    // From a legacy tree of height 3 (internal pages between the leaves).
    check_extensions(&lines(900), &appends[..3], 1, 512, 9, true);
}

/// A sidecar written before 1.2 (the 1.0 layout: the root last, internal
/// pages among the leaves) through the binary: `lidx info` says v1.0,
/// `lidx verify --full` passes, lookups agree with `sed`'s lines, and once
/// the source has grown, `lidx index` extends it into exactly the 1.2
/// sidecar a fresh build writes.
#[test]
fn old_layout_sidecar_through_the_binary() {
    use crate::run::{Rules, lidx_with};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.log");
    let content: Vec<u8> = (0..3000)
        .flat_map(|i| format!("line {i}\n").into_bytes())
        .collect();
    std::fs::write(&path, &content).unwrap();
    let o = OpenOptions::new()
        .spacing(1)
        .page_size(512)
        .open(&path)
        .unwrap();
    let side = o.index.sidecar_path().to_path_buf();
    drop(o);
    let old = crate::legacy::to_legacy(&std::fs::read(&side).unwrap());
    let sb = lidx::format::Superblock::decode(&old[..256]).unwrap();
    assert_eq!(sb.height, 3);
    assert_eq!(sb.root_page + 1, sb.page_count, "the root last");
    std::fs::write(&side, &old).unwrap();
    // `lidx COMMAND FILE ARGS...`
    let run = |command: &str, args: &[&str]| {
        let mut a: Vec<std::ffi::OsString> = vec![command.into(), path.clone().into_os_string()];
        a.extend(args.iter().map(|s| s.into()));
        lidx_with(a, Rules::SILENT_ERROR)
    };
    let info = run("info", &[]);
    assert_eq!(info.code, 0, "{info:?}");
    assert!(
        info.stdout_str().contains("format:       v1.0\n"),
        "{info:?}"
    );
    let v = run("verify", &["--full"]);
    assert_eq!(v.code, 0, "{v:?}");
    assert!(
        v.stdout_str().contains("every checkpoint re-scanned"),
        "{v:?}"
    );
    let l = run("lines", &["1234"]);
    assert_eq!((l.code, l.stdout_str()), (0, "line 1233\n".to_string()));
    assert_eq!(
        std::fs::read(&side).unwrap(),
        old,
        "reading changed nothing"
    );
    append(&path, b"line 3000\nline 3001\n");
    content_after_growth(&path, &side, &content);
}

fn content_after_growth(path: &Path, side: &Path, before: &[u8]) {
    use crate::run::{Rules, lidx_with};
    let mut a: Vec<std::ffi::OsString> = vec!["index".into()];
    a.push(path.as_os_str().to_owned());
    let o = lidx_with(a, Rules::SILENT_ERROR);
    assert_eq!(o.code, 0, "{o:?}");
    let got = std::fs::read(side).unwrap();
    let mut grown = before.to_vec();
    grown.extend_from_slice(b"line 3000\nline 3001\n");
    let want = fresh_sidecar(&grown, "old.log", 1, 512);
    assert_same_sidecar(&got, &want, "extended from the 1.0 layout");
    let sb = lidx::format::Superblock::decode(&got[..256]).unwrap();
    assert!(sb.head_first() && sb.version_minor == 2);
}

/// An `Index` keeps answering for the bytes it indexed while its source
/// grows underneath: the appended bytes stay invisible until reopening.
#[test]
fn open_index_ignores_later_growth() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.log");
    std::fs::write(&path, b"one\ntwo\nthr").unwrap();
    let index = Index::open_or_build(&path).unwrap();
    append(&path, b"ee\nfour\n");
    assert_eq!(index.line_count(), 3);
    assert_eq!(index.line_span(2).unwrap(), 8..11);
    let mut buf = lidx::LineBuf::new();
    index.read_lines(0..10, &mut buf).unwrap();
    assert_eq!(
        buf.iter().collect::<Vec<_>>(),
        [&b"one"[..], b"two", b"thr"]
    );
    let mut out = Vec::new();
    assert_eq!(index.write_lines(2..3, true, &mut out).unwrap(), 1);
    assert_eq!(out, b"3:thr");
    let m = Model::new(b"one\ntwo\nthr".to_vec());
    check_index(&index, &m, 65536, Depth::default(), 1, "before reopening");
    drop(index);
    let grown = Index::open_or_build(&path).unwrap();
    let m = Model::new(b"one\ntwo\nthree\nfour\n".to_vec());
    check_index(&grown, &m, 65536, Depth::default(), 2, "after reopening");
}

/// A rewritten source (same size, other bytes; shorter; longer with a
/// changed head) is rebuilt, never extended; the same bytes with a new
/// modification time are re-read once and kept (spec R-43); answers match
/// the model either way.
#[test]
fn rewritten_sources_are_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.txt");
    std::fs::write(&path, b"aaaa\nbbbb\ncccc\n").unwrap();
    let built = OpenOptions::new().spacing(2).open(&path).unwrap();
    assert_eq!(built.action, Action::Built);
    drop(built);
    for (what, content) in [
        ("same size", &b"aaaa\nbbXb\ncccc\n"[..]),
        ("shorter", b"aaaa\n"),
        ("longer, head changed", b"Xaaa\nbbbb\ncccc\ndddd\n"),
        ("same size, same bytes", b"Xaaa\nbbbb\ncccc\ndddd\n"),
        ("empty", b""),
        ("grown from empty", b"\n\nx"),
    ] {
        // A different mtime even on coarse-grained filesystems.
        std::fs::write(&path, content).unwrap();
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        let t = std::time::SystemTime::now() + std::time::Duration::from_secs(what.len() as u64);
        f.set_modified(t).unwrap();
        drop(f);
        let kept = what == "same size, same bytes";
        let strict = Index::open(&path);
        assert!(
            if kept {
                strict.is_ok()
            } else {
                matches!(strict, Err(lidx::Error::Stale { .. }))
            },
            "{what}: strict open gave {strict:?}"
        );
        let o = OpenOptions::new().open(&path).unwrap();
        let expect = if what == "grown from empty" {
            Action::Extended
        } else if kept {
            // The strict open above re-read it and remembered that.
            Action::Opened
        } else {
            Action::Rebuilt(Verdict::Rewritten)
        };
        assert_eq!(o.action, expect, "{what}");
        // A rebuild takes the options' spacing (the default), an
        // extension keeps the old one (the one of the "empty" rebuild).
        let m = Model::new(content.to_vec());
        check_index(&o.index, &m, 65536, Depth::default(), 3, what);
    }
}

/// The superblock keeps at most 96 bytes of the source's basename; a file
/// with a longer name, rewritten, is still recognised as the sidecar's own
/// file (and rebuilt), not refused as another file's.
#[test]
fn rewritten_source_with_a_long_name_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    for len in [95usize, 96, 97, 120, 250] {
        let name = format!("{}.log", "n".repeat(len - 4));
        let path = dir.path().join(&name);
        std::fs::write(&path, b"a\nb\n").unwrap();
        assert_eq!(
            OpenOptions::new().open(&path).unwrap().action,
            Action::Built
        );
        std::fs::write(&path, b"c\nd\ne\n").unwrap();
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(3))
            .unwrap();
        drop(f);
        match OpenOptions::new().open(&path) {
            Ok(o) => {
                assert_eq!(
                    o.action,
                    Action::Rebuilt(Verdict::Rewritten),
                    "name of {len} bytes"
                );
                assert_eq!(o.index.line_count(), 3);
            }
            Err(e) => panic!("name of {len} bytes: {e}"),
        }
    }
}

/// The source shrinks under an open `Index`: every query is the answer for
/// the indexed bytes or an error; never a panic, never another answer.
#[test]
fn source_shrinking_under_an_open_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shrink.log");
    let mut rng = crate::oracle::Rng::new(44);
    let data = crate::oracle::random_text(&mut rng, 4000, 30, true);
    std::fs::write(&path, &data).unwrap();
    let m = Model::new(data.clone());
    let index = OpenOptions::new().spacing(512).open(&path).unwrap().index;
    let f = std::fs::File::options().write(true).open(&path).unwrap();
    f.set_len(data.len() as u64 / 2).unwrap();
    drop(f);
    let changed = |e: &lidx::Error| {
        matches!(
            e,
            lidx::Error::SourceChanged { .. } | lidx::Error::Io { .. }
        )
    };
    let mut errors = 0;
    let n = m.line_count();
    for l in (0..n).step_by(7) {
        match index.line_span(l) {
            Ok(span) => assert_eq!(span, m.span(l), "line {l}"),
            Err(e) => {
                assert!(changed(&e), "{e:?}");
                errors += 1;
            }
        }
    }
    for o in (0..m.len()).step_by(331) {
        match index.line_at(o) {
            Ok(l) => assert_eq!(l, m.line_at(o).unwrap(), "offset {o}"),
            Err(e) => assert!(changed(&e), "{e:?}"),
        }
    }
    let mut buf = lidx::LineBuf::new();
    for r in [0..n, n / 2..n, n - 3..n, 0..10] {
        match index.read_lines(r.clone(), &mut buf) {
            Ok(k) => {
                assert_eq!(k as u64, r.end - r.start);
                assert_eq!(buf.bytes(), m.bytes(m.lines_span(&r)));
            }
            Err(e) => assert!(changed(&e), "{r:?}: {e:?}"),
        }
        let mut out = Vec::new();
        match index.write_lines(r.clone(), false, &mut out) {
            Ok(_) => assert_eq!(out, m.render(&r, false)),
            Err(e) => assert!(changed(&e), "{r:?}: {e:?}"),
        }
    }
    assert!(errors > 0, "no lookup noticed the missing half");
    assert!(index.read_lines(0..n, &mut buf).is_err());
}

/// Progress reports during a build and an extension: bytes scanned so far
/// out of the source size, never decreasing, ending at the size.
#[test]
fn progress_reports_end_at_the_source_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.log");
    let mut rng = crate::oracle::Rng::new(45);
    let data = crate::oracle::random_text(&mut rng, 60_000, 20, true);
    std::fs::write(&path, &data).unwrap();
    for (step, action) in [(0, Action::Built), (1, Action::Extended)] {
        if step == 1 {
            append(&path, &data[..100_000]);
        }
        let size = std::fs::metadata(&path).unwrap().len();
        let mut seen: Vec<(u64, u64)> = Vec::new();
        let o = OpenOptions::new()
            .spacing(100)
            .open_with_progress(&path, &mut |d, t| seen.push((d, t)))
            .unwrap();
        assert_eq!(o.action, action);
        assert!(!seen.is_empty(), "{action:?}: no progress");
        assert!(
            seen.iter().all(|&(d, t)| t == size && d <= t),
            "{action:?}: {seen:?}"
        );
        assert!(
            seen.windows(2).all(|w| w[0].0 <= w[1].0),
            "{action:?}: {seen:?}"
        );
        assert_eq!(seen.last().unwrap().0, size, "{action:?}");
    }
}

/// A progress callback that returns false cancels: a build, an extension,
/// a gzip build and a content check each stop with `Error::Cancelled`,
/// write nothing (no sidecar, no temporary file; an existing sidecar stays
/// byte for byte), and a later open without cancelling works.
#[test]
fn cancelled_builds_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = crate::oracle::Rng::new(46);
    let data = crate::oracle::random_text(&mut rng, 200_000, 40, true);
    let plain = dir.path().join("c.log");
    std::fs::write(&plain, &data).unwrap();
    let gz = dir.path().join("c.log.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut e, &data).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let entries = || {
        let mut v: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let cancel_after = |calls: u32| {
        let mut n = 0;
        move |_: u64, _: u64| {
            n += 1;
            n <= calls
        }
    };
    for src in [&plain, &gz] {
        let before = entries();
        let r = OpenOptions::new().open_cancellable(src, &mut cancel_after(0));
        assert!(
            matches!(r, Err(lidx::Error::Cancelled { .. })),
            "{src:?}: {r:?}"
        );
        assert_eq!(entries(), before, "{src:?}: nothing written");
        let o = OpenOptions::new().open(src).unwrap();
        assert_eq!(o.action, Action::Built);
    }
    // An extension, and a plain file's content check (its time changed).
    let side = dir.path().join("c.log.lidx");
    let old = std::fs::read(&side).unwrap();
    append(&plain, &data[..300_000]);
    let r = OpenOptions::new().open_cancellable(&plain, &mut cancel_after(0));
    assert!(matches!(r, Err(lidx::Error::Cancelled { .. })), "{r:?}");
    assert!(std::fs::read(&side).unwrap() == old, "extension cancelled");
    let o = OpenOptions::new().open(&plain).unwrap();
    assert_eq!(o.action, Action::Extended);
    let f = std::fs::File::options().write(true).open(&plain).unwrap();
    f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(60))
        .unwrap();
    drop(f);
    let r = OpenOptions::new().open_cancellable(&plain, &mut cancel_after(0));
    assert!(matches!(r, Err(lidx::Error::Cancelled { .. })), "{r:?}");
    let o = OpenOptions::new().open(&plain).unwrap();
    assert_eq!(o.action, Action::Verified);
    assert!(
        !entries().iter().any(|e| e.contains(".tmp-")),
        "{:?}",
        entries()
    );
}

/// `Follower::poll_index` hands over an index holding the new complete
/// lines (a last line still being written is in the index, not in the
/// event), and reports a truncated file as a restart, as `poll` does.
#[test]
fn follower_poll_index_hands_over_the_index() {
    use lidx::{FollowEvent, Follower, OpenOptions};
    use std::io::Write as _;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.log");
    std::fs::write(&path, b"one\ntwo\n").unwrap();
    let oo = OpenOptions::new();
    let mut f = Follower::new(&path, 2, &oo).unwrap();
    assert_eq!(f.poll_index().unwrap().0, FollowEvent::Idle);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    file.write_all(b"three\nfour\nfi").unwrap();
    let (e, index) = f.poll_index().unwrap();
    assert_eq!(e, FollowEvent::Lines(2));
    let index = index.expect("an index with the new lines");
    assert_eq!(index.line_count(), 5);
    assert_eq!(index.complete_lines().unwrap(), 4, "fi has no \\n yet");
    let mut buf = lidx::LineBuf::new();
    index.read_lines(2..5, &mut buf).unwrap();
    assert_eq!(
        buf.iter().collect::<Vec<_>>(),
        [&b"three"[..], b"four", b"fi"]
    );
    assert_eq!(f.next_line(), 4);
    assert!(matches!(f.poll_index().unwrap(), (FollowEvent::Idle, None)));
    file.write_all(b"ve\n").unwrap();
    let (e, index) = f.poll_index().unwrap();
    assert_eq!(e, FollowEvent::Lines(1));
    let index = index.unwrap();
    assert_eq!(index.line_count(), 5);
    assert_eq!(index.complete_lines().unwrap(), 5);
    std::fs::write(&path, b"").unwrap();
    assert_eq!(f.poll_index().unwrap().0, FollowEvent::Restarted);
    let empty = OpenOptions::new().open(&path).unwrap().index;
    assert_eq!(empty.complete_lines().unwrap(), 0);
    std::fs::write(&path, b"x\n").unwrap();
    let (e, index) = f.poll_index().unwrap();
    assert_eq!(e, FollowEvent::Lines(1));
    assert_eq!(index.unwrap().line_count(), 1);
}
