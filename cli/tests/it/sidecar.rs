//! Damaged sidecars: a flipped bit is an error, never a wrong answer; damage
//! crafted to pass the CRCs (redb-style: self-references, impossible
//! counts, bad keys) never panics or hangs, and whenever it changes an
//! answer, `verify(true)` reports it. Plus the file-level cases: truncated,
//! foreign, unsupported version or features.

use crate::oracle::{Model, Rng, random_text};
use lidx::io::MemSource;
use lidx::{BuildOptions, Error, Index, OpenOptions, Verdict};
use std::panic::{AssertUnwindSafe, catch_unwind};

const PAGE: usize = 512;

fn sample() -> (Vec<u8>, Vec<u8>) {
    let mut rng = Rng::new(21);
    let data = random_text(&mut rng, 70, 6, false);
    let opts = BuildOptions {
        spacing: 1,
        page_size: PAGE as u32,
        ..BuildOptions::default()
    };
    let sidecar = lidx::build_to_vec(&MemSource::new(data.clone()), &opts).unwrap();
    (data, sidecar)
}

/// Outcome of asking a (possibly damaged) index everything.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// Every answer was right.
    Right,
    /// Some query failed with an error (and none was wrong).
    Error(String),
    /// Some answer differed from the model.
    Wrong(String),
}

fn ask_everything(index: &Index, m: &Model) -> Outcome {
    let mut err = None;
    macro_rules! check {
        ($got:expr, $want:expr, $what:expr) => {
            match $got {
                Ok(v) if v == $want => {}
                Ok(v) => return Outcome::Wrong(format!("{}: {:?} != {:?}", $what, v, $want)),
                Err(e) => {
                    err.get_or_insert(e.to_string());
                }
            }
        };
    }
    if index.line_count() != m.line_count() {
        return Outcome::Wrong(format!("line_count {}", index.line_count()));
    }
    for l in 0..m.line_count() {
        check!(index.line_span(l), m.span(l), format!("line_span({l})"));
    }
    for o in 0..m.len() {
        check!(
            index.line_at(o),
            m.line_at(o).unwrap(),
            format!("line_at({o})")
        );
    }
    let mut out = Vec::new();
    let all = 0..m.line_count();
    match index.write_lines(all.clone(), true, &mut out) {
        Ok(_) if out == m.render(&all, true) => {}
        Ok(_) => return Outcome::Wrong("write_lines".into()),
        Err(e) => {
            err.get_or_insert(e.to_string());
        }
    }
    match err {
        None => Outcome::Right,
        Some(e) => Outcome::Error(e),
    }
}

fn open_mem(data: &[u8], sidecar: Vec<u8>) -> lidx::Result<Index> {
    Index::from_parts(
        Box::new(MemSource::new(data.to_vec())),
        Box::new(MemSource::new(sidecar)),
        (0, 0),
        PAGE * 2,
    )
}

/// Every single-bit flip in every page: opening fails, or each query is
/// right or an error; the error names the page's damage.
#[test]
fn bit_flips_are_errors_never_wrong_answers() {
    let (data, sidecar) = sample();
    let m = Model::new(data.clone());
    let pages = sidecar.len() / PAGE;
    assert!(pages >= 4, "want a 2-level tree, got {pages} pages");
    assert_eq!(
        ask_everything(&open_mem(&data, sidecar.clone()).unwrap(), &m),
        Outcome::Right
    );
    let mut rng = Rng::new(5);
    let mut errors = 0;
    for at in 0..sidecar.len() {
        let in_page = at % PAGE;
        // Every header and superblock byte; a sample of the rest.
        if in_page >= 256 && !in_page.is_multiple_of(7) {
            continue;
        }
        let mut bad = sidecar.clone();
        bad[at] ^= 1 << rng.below(8);
        let outcome = catch_unwind(AssertUnwindSafe(|| match open_mem(&data, bad) {
            Err(e) => {
                assert!(
                    e.is_sidecar_damage() || matches!(e, Error::UnsupportedVersion { .. }),
                    "byte {at}: {e:?}"
                );
                Outcome::Error(e.to_string())
            }
            Ok(index) => ask_everything(&index, &m),
        }))
        .unwrap_or_else(|_| panic!("panic after flipping a bit of byte {at}"));
        match outcome {
            Outcome::Wrong(w) => panic!("flipped a bit of byte {at}: wrong answer {w}"),
            Outcome::Error(e) => {
                errors += 1;
                assert!(e.contains("<memory>"), "{e}");
            }
            // Only the unused rest of page 0 is outside every CRC.
            Outcome::Right => assert!((256..PAGE).contains(&at), "byte {at} flip went unnoticed"),
        }
    }
    assert!(errors > 1000, "{errors}");
}

/// Damage that passes the CRCs: random values written into node pages
/// and superblock fields, then the CRC recomputed. No panic, no hang; a
/// changed answer is always caught by a full verify.
#[test]
fn resealed_damage_never_panics_and_full_verify_catches_it() {
    let (data, sidecar) = sample();
    let m = Model::new(data.clone());
    let pages = sidecar.len() / PAGE;
    let mut rng = Rng::new(6);
    let mut wrong = 0;
    for round in 0..3000 {
        let mut bad = sidecar.clone();
        let page = rng.below(pages as u64) as usize;
        let base = page * PAGE;
        let what: String;
        if page == 0 {
            // A superblock field: anything in 8..252 except the magic.
            let at = 8 + rng.below(244) as usize;
            let v = match rng.below(3) {
                0 => 0,
                1 => rng.below(256) as u8,
                _ => bad[at].wrapping_add(1),
            };
            bad[at] = v;
            let crc = lidx::format::crc32(&bad[..252]);
            bad[252..256].copy_from_slice(&crc.to_le_bytes());
            what = format!("superblock byte {at} = {v}");
        } else {
            // A node page: header field or key/child word.
            let at = 4 + rng.below((PAGE - 4) as u64) as usize;
            let v: u64 = match rng.below(5) {
                0 => 0,
                1 => page as u64,                 // self-reference
                2 => rng.below(pages as u64 + 2), // another page id
                3 => rng.below(1 << 16),
                _ => rng.next_u64(),
            };
            let width = [1usize, 2, 4, 8][rng.below(4) as usize].min(PAGE - at);
            bad[base + at..base + at + width].copy_from_slice(&v.to_le_bytes()[..width]);
            lidx::format::seal_page(&mut bad[base..base + PAGE]);
            what = format!("page {page} bytes {at}..+{width} = {v}");
        }
        let r = catch_unwind(AssertUnwindSafe(|| {
            let index = match open_mem(&data, bad) {
                Err(_) => return,
                Ok(i) => i,
            };
            if index.verdict() != Verdict::Unchanged {
                return; // the CLI refuses or rebuilds such a sidecar
            }
            let outcome = ask_everything(&index, &m);
            let full = index.verify(true);
            if let Outcome::Wrong(w) = &outcome {
                wrong += 1;
                assert!(
                    full.is_err(),
                    "round {round}, {what}: wrong answer ({w}) but verify(true) passed"
                );
            }
        }));
        if r.is_err() {
            panic!("round {round}: panic after {what}");
        }
    }
    assert!(
        wrong > 0,
        "no crafted damage changed an answer: the test is too weak"
    );
}

/// A page whose child pointer is itself (or its parent): an error, not a
/// loop, for every query that descends through it.
#[test]
fn self_referencing_internal_page() {
    let (data, sidecar) = sample();
    let sb = lidx::format::Superblock::decode(&sidecar[..256]).unwrap();
    assert_eq!(sb.height, 2);
    let root = sb.root_page as usize;
    let m = Model::new(data.clone());
    for target in [sb.root_page, 0, sb.page_count, u32::MAX] {
        let mut bad = sidecar.clone();
        let page = &mut bad[root * PAGE..(root + 1) * PAGE];
        let n = u16::from_le_bytes([page[6], page[7]]) as usize;
        let children = 16 + 16 * n;
        for i in 0..n {
            page[children + 4 * i..children + 4 * i + 4].copy_from_slice(&target.to_le_bytes());
        }
        lidx::format::seal_page(page);
        let index = open_mem(&data, bad).unwrap();
        match ask_everything(&index, &m) {
            Outcome::Error(e) => assert!(e.contains("corrupt"), "{e}"),
            other => panic!("child {target}: {other:?}"),
        }
        assert!(index.verify(false).is_err());
    }
}

fn flip(path: &std::path::Path, at: u64) {
    let mut b = std::fs::read(path).unwrap();
    b[at as usize] ^= 0x40;
    std::fs::write(path, b).unwrap();
}

/// Real files through `OpenOptions`: damage is reported with the sidecar's
/// path and never "repaired" behind the user's back (except with `force`).
#[test]
fn damaged_sidecar_files() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("d.log");
    let side = dir.path().join("d.log.lidx");
    let mut rng = Rng::new(3);
    let data = random_text(&mut rng, 3000, 20, true);
    std::fs::write(&src, &data).unwrap();
    let m = Model::new(data);
    let build = || {
        OpenOptions::new()
            .spacing(1)
            .page_size(512)
            .force(true)
            .open(&src)
            .unwrap()
    };
    let side_str = side.display().to_string();
    let damaged = |e: Error, what: &str| {
        assert!(e.is_sidecar_damage(), "{what}: {e:?}");
        assert!(e.to_string().contains(&side_str), "{what}: {e}");
    };

    // A flipped byte in the first leaf: the lookups that need it fail.
    drop(build());
    let first_leaf = lidx::read_superblock(&side).unwrap().first_leaf as u64;
    flip(&side, first_leaf * 512 + 40);
    let index = OpenOptions::new().open(&src).unwrap().index;
    damaged(index.line_start(1).unwrap_err(), "leaf flip");
    damaged(index.line_at(0).unwrap_err(), "leaf flip");
    damaged(index.verify(false).unwrap_err(), "leaf flip verify");
    // Lookups elsewhere are still right.
    let l = m.line_count() - 1;
    assert_eq!(index.line_span(l).unwrap(), m.span(l));
    drop(index);

    // The root page: opening fails.
    drop(build());
    let sb = lidx::read_superblock(&side).unwrap();
    flip(&side, sb.root_page as u64 * 512 + 100);
    damaged(OpenOptions::new().open(&src).unwrap_err(), "root flip");
    damaged(Index::open(&src).unwrap_err(), "root flip, strict");

    // The superblock.
    drop(build());
    flip(&side, 33);
    damaged(
        OpenOptions::new().open(&src).unwrap_err(),
        "superblock flip",
    );
    assert!(matches!(
        lidx::read_superblock(&side),
        Err(Error::ChecksumMismatch { page: 0, .. })
    ));

    // Truncated, to a page boundary and to nothing.
    for keep in [512 * 3, 300, 0] {
        drop(build());
        let b = std::fs::read(&side).unwrap();
        std::fs::write(&side, &b[..keep]).unwrap();
        damaged(
            OpenOptions::new().open(&src).unwrap_err(),
            &format!("truncated to {keep}"),
        );
    }

    // Unsupported major version (checked before the CRC) and features.
    drop(build());
    let mut b = std::fs::read(&side).unwrap();
    b[8..10].copy_from_slice(&2u16.to_le_bytes());
    std::fs::write(&side, &b).unwrap();
    match OpenOptions::new().open(&src) {
        Err(e @ Error::UnsupportedVersion { got: (2, 2), .. }) => {
            assert!(e.to_string().contains(&side_str), "{e}")
        }
        other => panic!("version 2: {other:?}"),
    }
    b[8..10].copy_from_slice(&1u16.to_le_bytes());
    b[16] = 0x80;
    let crc = lidx::format::crc32(&b[..252]);
    b[252..256].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(&side, &b).unwrap();
    assert!(matches!(
        OpenOptions::new().open(&src),
        Err(Error::UnsupportedFeature { bits: 0x80, .. })
    ));

    // Not a sidecar at all: an error, and the file is left alone...
    let foreign = b"these are my notes, not an index\n".repeat(40);
    std::fs::write(&side, &foreign).unwrap();
    assert!(matches!(
        OpenOptions::new().open(&src),
        Err(Error::NotAnIndex { .. })
    ));
    assert!(matches!(Index::open(&src), Err(Error::NotAnIndex { .. })));
    assert_eq!(std::fs::read(&side).unwrap(), foreign);
    // ... unless forced.
    let forced = OpenOptions::new().force(true).open(&src).unwrap();
    assert_eq!(forced.action, lidx::Action::Forced);
    assert_eq!(forced.index.line_count(), m.line_count());
}

/// A sidecar copied next to another file is refused, not silently rebuilt
/// over (it may be someone's prebuilt index for the other file).
#[test]
fn sidecar_of_another_file() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    let b = dir.path().join("b.txt");
    std::fs::write(&a, b"alpha\nbeta\n").unwrap();
    std::fs::write(&b, b"gamma\ndelta\nepsilon\n").unwrap();
    drop(Index::open_or_build(&a).unwrap());
    std::fs::copy(dir.path().join("a.txt.lidx"), dir.path().join("b.txt.lidx")).unwrap();
    let before = std::fs::read(dir.path().join("b.txt.lidx")).unwrap();
    match OpenOptions::new().open(&b) {
        Err(e @ Error::Foreign { .. }) => {
            let s = e.to_string();
            assert!(s.contains("b.txt.lidx") && s.contains("a.txt"), "{s}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        std::fs::read(dir.path().join("b.txt.lidx")).unwrap(),
        before
    );
    // An explicit sidecar path elsewhere works as usual.
    let other = dir.path().join("elsewhere.idx");
    let o = OpenOptions::new().sidecar(&other).open(&b).unwrap();
    assert_eq!(o.action, lidx::Action::Built);
    assert_eq!(o.index.sidecar_path(), other.as_path());
    assert_eq!(o.index.line_count(), 3);
    assert!(other.exists());
}

/// `--no-build` semantics: a missing sidecar is `Error::Missing`, nothing
/// is written.
#[test]
fn missing_sidecar_without_refresh() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("m.txt");
    std::fs::write(&src, b"x\n").unwrap();
    match OpenOptions::new().refresh(false).open(&src) {
        Err(e @ Error::Missing { .. }) => assert!(e.to_string().contains("m.txt.lidx"), "{e}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(Index::open(&src), Err(Error::Missing { .. })));
    assert!(!dir.path().join("m.txt.lidx").exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}
