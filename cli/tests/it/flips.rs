//! The binary against a damaged sidecar, exhaustively: every byte of a
//! small sidecar changed, one position at a time, and the sidecar cut at
//! every page boundary, for a plain text and for a gzip archive.
//!
//! After each change, a fixed set of commands that together read every
//! page is run, without `--no-build`: `lines` of every line one by one,
//! `line-at`, `count` and `verify --full`. Each run must either
//! - exit 2 with one line naming the sidecar (having printed at most a true
//!   prefix of the right output: `lines` streams), or
//! - print exactly what the model says, which proves the change harmless
//!   for that command (the only bytes no CRC covers are the reserved tail of
//!   page 0, R-2),
//!
//! and the damaged sidecar must be left as it was: a query never rebuilds
//! over damage.

use crate::oracle::{Model, Rng, random_text};
use crate::run::{Out, Rules};
use lidx::OpenOptions;
use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::PathBuf;

const PAGE: usize = 512;

/// Worker threads for a sweep (each has its own copy of source and
/// sidecar); the test machine has 2 cores.
const WORKERS: usize = 2;

fn lidx(args: &[OsString]) -> Out {
    crate::run::lidx_with(args, Rules::STREAMING)
}

/// One command and what it must print on an intact sidecar.
struct Query {
    args: Vec<OsString>,
    code: i32,
    stdout: Vec<u8>,
}

/// A source with its fresh sidecar, in a directory of its own.
struct Copy {
    _dir: tempfile::TempDir,
    side: PathBuf,
    fresh: Vec<u8>,
    queries: Vec<Query>,
}

/// How a run on a damaged sidecar ended.
#[derive(Debug, Default)]
struct Tally {
    /// One-byte changes made.
    changes: usize,
    /// Truncated sidecars tried.
    cuts: usize,
    /// Runs that exited 2 naming the sidecar.
    detected: usize,
    /// Runs that printed exactly the right output.
    exact: usize,
    /// Positions where no command of the set noticed the change.
    harmless_positions: Vec<usize>,
}

fn arg(s: impl AsRef<OsStr>) -> OsString {
    s.as_ref().to_owned()
}

/// Writes `data` (gzip-compressed with a sync flush every 500 bytes when
/// `gzip`) into a fresh directory, builds its sidecar with 512-byte pages
/// and the given spacing and span, and lists the commands to run.
fn copy(data: &[u8], gzip: bool, spacing: u64, span: u64) -> Copy {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join(if gzip { "s.log.gz" } else { "s.log" });
    let bytes = if gzip {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
        for piece in data.chunks(500) {
            e.write_all(piece).unwrap();
            e.flush().unwrap();
        }
        e.finish().unwrap()
    } else {
        data.to_vec()
    };
    std::fs::write(&src, bytes).unwrap();
    OpenOptions::new()
        .page_size(PAGE as u32)
        .spacing(spacing)
        .span(span)
        .open(&src)
        .unwrap();
    let mut side = src.as_os_str().to_owned();
    side.push(".lidx");
    let side = PathBuf::from(side);
    let fresh = std::fs::read(&side).unwrap();
    let m = Model::new(data.to_vec());
    let n = m.line_count();
    let mut every_line = vec![arg("lines"), arg("-n"), arg(&src)];
    every_line.extend((1..=n).map(|l| arg(l.to_string())));
    let mid = m.len() / 2;
    let mut queries = vec![
        Query {
            args: every_line,
            code: 0,
            stdout: m.render(&(0..n), true),
        },
        Query {
            args: vec![arg("line-at"), arg(&src), arg(mid.to_string())],
            code: 0,
            stdout: format!("{}\n", m.line_at(mid).unwrap() + 1).into_bytes(),
        },
        Query {
            args: vec![arg("count"), arg(&src)],
            code: 0,
            stdout: format!("{n}\n").into_bytes(),
        },
    ];
    // `verify --full` says what it checked; its report on the intact
    // sidecar is the one to expect.
    let verify = vec![arg("verify"), arg("--full"), arg(&src)];
    let o = lidx(&verify);
    assert_eq!(o.code, 0, "intact: {o:?}");
    queries.push(Query {
        args: verify,
        code: 0,
        stdout: o.stdout,
    });
    for q in &queries {
        let o = lidx(&q.args);
        assert_eq!((o.code, &o.stdout), (q.code, &q.stdout), "intact: {o:?}");
    }
    Copy {
        _dir: dir,
        side,
        fresh,
        queries,
    }
}

/// Runs every query against the sidecar as it is now (`damaged`, changed
/// by `what`) and checks the rules of the module; returns true when every
/// query printed exactly the right output.
fn run_damaged(c: &Copy, damaged: &[u8], what: &str, tally: &mut Tally) -> bool {
    let side = c.side.to_str().unwrap();
    let mut all_exact = true;
    for q in &c.queries {
        let o = lidx(&q.args);
        if o.code == 2 {
            assert!(
                o.stderr.contains(side),
                "{what}: {:?}: the error must name the sidecar: {}",
                q.args[0],
                o.stderr
            );
            assert!(
                q.stdout.starts_with(&o.stdout),
                "{what}: {:?}: printed a wrong line before the error",
                q.args[0]
            );
            tally.detected += 1;
            all_exact = false;
        } else {
            assert_eq!(
                (o.code, &o.stdout),
                (q.code, &q.stdout),
                "{what}: {:?}: WRONG ANSWER (stderr {})",
                q.args[0],
                o.stderr
            );
            tally.exact += 1;
        }
        assert!(
            std::fs::read(&c.side).unwrap() == damaged,
            "{what}: {:?} replaced or changed the damaged sidecar",
            q.args[0]
        );
    }
    all_exact
}

/// Changes every byte of the sidecar in turn (with a varying nonzero mask)
/// and cuts it at every page boundary, across [`WORKERS`] copies.
fn sweep(name: &str, make: impl Fn() -> Copy + Sync) -> Tally {
    let tallies: Vec<Tally> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..WORKERS)
            .map(|w| {
                let make = &make;
                s.spawn(move || {
                    let c = make();
                    let len = c.fresh.len();
                    assert_eq!(len % PAGE, 0);
                    let mut tally = Tally::default();
                    let mut rng = Rng::new(w as u64 + 7);
                    for at in (w..len).step_by(WORKERS) {
                        let mask = 1 + rng.below(255) as u8;
                        let mut bad = c.fresh.clone();
                        bad[at] ^= mask;
                        std::fs::write(&c.side, &bad).unwrap();
                        let what = format!("{name}: byte {at} ^ {mask:#04x}");
                        tally.changes += 1;
                        if run_damaged(&c, &bad, &what, &mut tally) {
                            tally.harmless_positions.push(at);
                        }
                    }
                    // Cut at every page boundary, and one byte past each.
                    for page in (w..len / PAGE).step_by(WORKERS) {
                        for keep in [page * PAGE, page * PAGE + 1] {
                            let bad = c.fresh[..keep].to_vec();
                            std::fs::write(&c.side, &bad).unwrap();
                            let what = format!("{name}: cut to {keep} of {len} bytes");
                            tally.cuts += 1;
                            assert!(
                                !run_damaged(&c, &bad, &what, &mut tally),
                                "{what}: not noticed"
                            );
                        }
                    }
                    tally
                })
            })
            .collect();
        workers.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut all = Tally::default();
    for t in tallies {
        all.changes += t.changes;
        all.cuts += t.cuts;
        all.detected += t.detected;
        all.exact += t.exact;
        all.harmless_positions.extend(t.harmless_positions);
    }
    all.harmless_positions.sort();
    all
}

/// The only positions a complete set of commands may miss are the bytes no
/// CRC covers: `256..page_size` of page 0.
fn check_harmless(name: &str, tally: &Tally) {
    for &at in &tally.harmless_positions {
        assert!(
            (256..PAGE).contains(&at),
            "{name}: a change at byte {at} went unnoticed by every command"
        );
    }
    assert_eq!(
        tally.harmless_positions.len(),
        PAGE - 256,
        "{name}: the reserved tail of page 0 is ignored"
    );
    eprintln!(
        "{name}: {} one-byte changes and {} cuts; {} runs exited 2 naming the sidecar, \
         {} printed the exact answer, {} positions unnoticed by every command",
        tally.changes,
        tally.cuts,
        tally.detected,
        tally.exact,
        tally.harmless_positions.len()
    );
}

/// A plain text of 90 lines indexed with spacing 1: a checkpoint per line,
/// so the tree has several leaves and an internal level.
#[test]
fn every_byte_of_a_plain_sidecar_flipped_and_cut_via_the_cli() {
    let mut rng = Rng::new(5);
    let data = random_text(&mut rng, 90, 12, true);
    let tally = sweep("plain", || copy(&data, false, 1, 1 << 20));
    check_harmless("plain", &tally);
}

/// A gzip archive of about 2 KiB of text, with a sync flush every 500
/// bytes and a 512-byte span: several access points, each with a window in
/// blob pages, and a tree of more than one leaf.
#[test]
fn every_byte_of_a_gzip_sidecar_flipped_and_cut_via_the_cli() {
    let mut rng = Rng::new(6);
    let data = random_text(&mut rng, 100, 40, true);
    let tally = sweep("gzip", || copy(&data, true, 16, 512));
    check_harmless("gzip", &tally);
}
