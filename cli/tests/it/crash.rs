//! Crash safety of `lidx index`: the sidecar is written under a temporary
//! name, fsynced and renamed into place, so a writer killed at any moment
//! must leave under `FILE.lidx` either the previous sidecar (byte for byte)
//! or a complete new one — never a partial one.
//!
//! One generated source of some tens of MB in a temporary directory,
//! indexed with a small spacing (so a build lasts long enough to be hit
//! anywhere). Then, round after round, `lidx index --force` (or, one round
//! in four, an append to the source followed by a plain `lidx index`, which
//! extends) is started and SIGKILLed after a random delay spread over
//! 0..1.2× the duration of an uninterrupted run (deterministic seed; the
//! phase a kill lands in depends on timing and is reported, not required).
//!
//! After every round: a sidecar that was not replaced (same inode) must be
//! the previous one byte for byte — stale after a killed extension, which is
//! fine; a replaced one must be fresh for the source as it is, pass
//! `lidx verify --full`, and equal byte for byte every other complete
//! sidecar built for that same source. Queries (`lidx lines`, `lidx count`,
//! or the library on the indexed prefix of a stale sidecar) must match the
//! model. Temp files (`.FILE.lidx.tmp-PID-N`) may only belong to killed
//! runs, and none may survive a run that completed.
//!
//! About 16 s in a debug build on 2 idle cores (the source starts at 28 MiB
//! and grows to about 55 MB by the appends). The kills per kind and phase
//! are printed on stderr (`cargo test -p lidx-cli --test it crash -- --nocapture`).

use crate::oracle::Rng;
use lidx::{Error, OpenOptions, Verdict};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_lidx");
const SPACING: &str = "256";
const SEED: u64 = 0x0063_7261_7368;
const INITIAL_BYTES: u64 = 28 << 20;
/// Bytes appended before each extension round.
const APPEND_BYTES: u64 = 3 << 19;
/// The loop runs until at least this many runs died of SIGKILL...
const MIN_KILLS: u32 = 44;
/// ...and at least this many rounds were played (some delays land after
/// the run finished: those rounds check a completed run instead).
const MIN_ROUNDS: u32 = 52;
const MAX_ROUNDS: u32 = 160;

/// The generated source and its model: line `i` is [`Source::line`]`(i)`
/// followed by `\n`.
struct Source {
    path: PathBuf,
    filler: Vec<u8>,
    /// Start offset of every line.
    starts: Vec<u64>,
    len: u64,
}

impl Source {
    fn new(path: PathBuf) -> Source {
        std::fs::write(&path, b"").unwrap();
        let filler = (0..1024u32)
            .map(|i| {
                b"abcdefghijklmnopqrstuvwxyz ,.;-ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789"
                    [i as usize % 68]
            })
            .collect();
        Source {
            path,
            filler,
            starts: Vec::new(),
            len: 0,
        }
    }

    fn count(&self) -> u64 {
        self.starts.len() as u64
    }

    /// Line `i` (0-based), without its `\n`: mostly 10..110 bytes, one in
    /// 200 longer than the spacing.
    fn line(&self, i: u64) -> Vec<u8> {
        let h = Rng::new(i).next_u64();
        let len = if h.is_multiple_of(200) {
            300 + (h >> 16) % 600
        } else {
            (h >> 16) % 100
        } as usize;
        let off = ((h >> 40) % 64) as usize;
        let mut v = format!("{i:09}").into_bytes();
        v.extend_from_slice(&self.filler[off..off + len]);
        v
    }

    /// Appends whole lines until at least `bytes` more are in the file.
    fn append(&mut self, bytes: u64) {
        let f = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.path)
            .unwrap();
        let mut out = std::io::BufWriter::with_capacity(1 << 20, f);
        let target = self.len + bytes;
        while self.len < target {
            let mut l = self.line(self.count());
            l.push(b'\n');
            out.write_all(&l).unwrap();
            self.starts.push(self.len);
            self.len += l.len() as u64;
        }
        out.flush().unwrap();
    }

    /// What `lidx lines` prints for 1-based line `n`.
    fn printed(&self, n: u64) -> Vec<u8> {
        let mut l = self.line(n - 1);
        l.push(b'\n');
        l
    }

    /// Byte span of 0-based line `i`, its `\n` included.
    fn span(&self, i: u64) -> std::ops::Range<u64> {
        let i = i as usize;
        self.starts[i]..self.starts.get(i + 1).copied().unwrap_or(self.len)
    }
}

/// The sidecar currently under the final name, as last checked.
struct Snapshot {
    ino: u64,
    bytes: Vec<u8>,
    /// Lines and bytes of the source prefix it describes.
    lines: u64,
    len: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Force,
    Extend,
}

/// Where a run was when it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    /// Killed before its temp file existed (startup, fingerprint, probe).
    BeforeTemp,
    /// Killed with its temp file shorter than the final sidecar (pages
    /// being written).
    WritingTemp,
    /// Killed with the superblock written into its temp file, not yet
    /// renamed (fsync, rename).
    SuperblockWritten,
    /// Killed after the rename (directory fsync, reopen, exit).
    AfterRename,
    /// Not killed: the run had finished before the kill.
    Completed,
}

struct Harness {
    src: Source,
    sidecar: PathBuf,
    prev: Snapshot,
    /// A complete sidecar built for the source as it is now, once one was
    /// seen: every later complete one for the same source must equal it.
    reference: Option<Vec<u8>>,
    killed_pids: HashSet<u32>,
    rng: Rng,
}

/// A finished run: pid, status, stderr, wall time.
struct Run {
    pid: u32,
    status: ExitStatus,
    stderr: String,
    took: Duration,
}

fn index_args(kind: Kind, file: &Path) -> Vec<std::ffi::OsString> {
    let mut a: Vec<std::ffi::OsString> = vec!["index".into(), "--quiet".into()];
    if kind == Kind::Force {
        // The spacing is given again so the rebuild stays as slow (and the
        // sidecar as large) as the first build.
        a.extend(["--force".into(), "--spacing".into(), SPACING.into()]);
    }
    a.push(file.into());
    a
}

/// Starts `lidx index` and, with `kill_after`, sends SIGKILL after that
/// delay (a no-op on a run that already exited; its status tells).
fn run_index(kind: Kind, file: &Path, kill_after: Option<Duration>) -> Run {
    let start = Instant::now();
    let mut child = Command::new(BIN)
        .args(index_args(kind, file))
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn lidx");
    let pid = child.id();
    if let Some(d) = kill_after {
        std::thread::sleep(d.saturating_sub(start.elapsed()));
        child.kill().expect("kill lidx");
    }
    let out = child.wait_with_output().expect("wait lidx");
    Run {
        pid,
        status: out.status,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        took: start.elapsed(),
    }
}

fn lidx(args: &[&std::ffi::OsStr]) -> (i32, Vec<u8>, String) {
    let o = Command::new(BIN)
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("run lidx");
    (
        o.status.code().unwrap_or(-1),
        o.stdout,
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `.NAME.tmp-PID-N` files next to `sidecar`: (name, PID, size).
fn temps(sidecar: &Path) -> Vec<(String, u32, u64)> {
    let name = sidecar.file_name().unwrap().to_str().unwrap();
    let prefix = format!(".{name}.tmp-");
    let mut out = Vec::new();
    for e in std::fs::read_dir(sidecar.parent().unwrap()).unwrap() {
        let e = e.unwrap();
        let n = e.file_name().to_string_lossy().into_owned();
        if let Some(rest) = n.strip_prefix(&prefix) {
            let pid = rest
                .split('-')
                .next()
                .and_then(|p| p.parse().ok())
                .unwrap_or_else(|| panic!("temp file with no PID: {n}"));
            // It may vanish between the listing and the stat only if some
            // process is still running, which none should be.
            let len = e.metadata().unwrap().len();
            out.push((n, pid, len));
        }
    }
    out
}

/// The first 8 bytes of a file (zeros past its end).
fn head(path: &Path) -> [u8; 8] {
    use std::io::Read;
    let mut b = [0u8; 8];
    let f = std::fs::File::open(path).unwrap();
    let _ = f.take(8).read(&mut b).unwrap();
    b
}

impl Harness {
    /// Checks the state a finished (killed or completed) run left, updates
    /// the snapshot, and says in which phase the run ended.
    fn after(&mut self, run: &Run, ctx: &str) -> Phase {
        let killed = run.status.signal() == Some(libc::SIGKILL);
        if !killed {
            assert!(
                run.status.success() && run.stderr.is_empty(),
                "{ctx}: uninterrupted run failed: {:?}, stderr {:?}",
                run.status,
                run.stderr
            );
        }
        let temps = temps(&self.sidecar);
        for (name, pid, _) in &temps {
            assert!(
                self.killed_pids.contains(pid) || (killed && *pid == run.pid),
                "{ctx}: temp file {name} belongs to no killed run (this run: pid {}, {:?})",
                run.pid,
                run.status
            );
        }
        if !killed {
            assert!(
                temps.is_empty(),
                "{ctx}: temp files survived a successful `lidx index`: {temps:?}"
            );
        }
        let own_temp = temps.iter().find(|t| t.1 == run.pid).map(|t| &t.0);
        let ino = std::fs::metadata(&self.sidecar)
            .unwrap_or_else(|e| panic!("{ctx}: {}: {e}", self.sidecar.display()))
            .ino();
        let phase = if ino == self.prev.ino {
            assert!(killed, "{ctx}: a completed run did not replace the sidecar");
            let bytes = std::fs::read(&self.sidecar).unwrap();
            assert!(
                bytes == self.prev.bytes,
                "{ctx}: the sidecar was modified in place ({} bytes, was {})",
                bytes.len(),
                self.prev.bytes.len()
            );
            match own_temp {
                None => Phase::BeforeTemp,
                // Page 0 stays zero until the superblock is written last.
                Some(name) if head(&self.sidecar.with_file_name(name)) != [0; 8] => {
                    Phase::SuperblockWritten
                }
                Some(_) => Phase::WritingTemp,
            }
        } else {
            assert!(
                own_temp.is_none(),
                "{ctx}: the sidecar was replaced but the run's temp file is still there"
            );
            self.check_new(ctx);
            if killed {
                Phase::AfterRename
            } else {
                Phase::Completed
            }
        };
        if killed {
            self.killed_pids.insert(run.pid);
        }
        self.check_queries(ctx);
        phase
    }

    /// The sidecar under the final name was replaced: it must be complete
    /// and fresh for the source as it is now.
    fn check_new(&mut self, ctx: &str) {
        let bytes = std::fs::read(&self.sidecar).unwrap();
        let ino = std::fs::metadata(&self.sidecar).unwrap().ino();
        let opened = OpenOptions::new()
            .refresh(false)
            .open(&self.src.path)
            .unwrap_or_else(|e| panic!("{ctx}: new sidecar does not open: {e}"));
        assert_eq!(opened.action, lidx::Action::Opened, "{ctx}");
        assert_eq!(opened.index.verdict(), Verdict::Unchanged, "{ctx}");
        assert_eq!(opened.index.line_count(), self.src.count(), "{ctx}: lines");
        assert_eq!(opened.index.source_len(), self.src.len, "{ctx}: length");
        assert_eq!(
            opened.index.superblock().spacing,
            SPACING.parse::<u64>().unwrap(),
            "{ctx}: spacing"
        );
        let (code, out, err) = lidx(&[
            "verify".as_ref(),
            "--full".as_ref(),
            self.src.path.as_os_str(),
        ]);
        assert_eq!(
            code,
            0,
            "{ctx}: lidx verify --full: {}{err}",
            String::from_utf8_lossy(&out)
        );
        match &self.reference {
            Some(r) => assert!(
                *r == bytes,
                "{ctx}: a new complete sidecar for the same source differs from the earlier one \
                 ({} vs {} bytes)",
                bytes.len(),
                r.len()
            ),
            None => self.reference = Some(bytes.clone()),
        }
        self.prev = Snapshot {
            ino,
            bytes,
            lines: self.src.count(),
            len: self.src.len,
        };
    }

    /// Answers through the sidecar as it is must match the model: the CLI
    /// (`--no-build`, so nothing is written) when it is fresh; `verify`
    /// and the library over the indexed prefix when it is stale.
    fn check_queries(&mut self, ctx: &str) {
        let n = self.src.count();
        let file = self.src.path.as_os_str();
        if self.prev.len == self.src.len {
            let (code, out, err) = lidx(&["count".as_ref(), "--no-build".as_ref(), file]);
            assert_eq!(code, 0, "{ctx}: lidx count: {err}");
            assert_eq!(String::from_utf8_lossy(&out), format!("{n}\n"), "{ctx}");
            let mut picks = vec![1, n, n / 2];
            picks.extend((0..4).map(|_| 1 + self.rng.below(n)));
            let args: Vec<String> = picks.iter().map(u64::to_string).collect();
            let mut argv: Vec<&std::ffi::OsStr> = vec!["lines".as_ref(), "--no-build".as_ref()];
            argv.push(file);
            argv.extend(args.iter().map(std::ffi::OsStr::new));
            let (code, out, err) = lidx(&argv);
            assert_eq!(code, 0, "{ctx}: lidx lines {args:?}: {err}");
            let want: Vec<u8> = picks.iter().flat_map(|&p| self.src.printed(p)).collect();
            assert!(
                out == want,
                "{ctx}: lidx lines {args:?} differs from the model"
            );
            return;
        }
        // A killed extension: the old sidecar, legitimately stale.
        assert!(self.prev.len < self.src.len, "{ctx}");
        match OpenOptions::new().refresh(false).open(&self.src.path) {
            Err(Error::Stale { verdict, .. }) => assert_eq!(verdict, Verdict::Appended, "{ctx}"),
            other => panic!("{ctx}: expected a stale sidecar, got {other:?}"),
        }
        let (code, out, err) = lidx(&["verify".as_ref(), file]);
        let out = String::from_utf8_lossy(&out);
        assert!(
            code == 1 && out.contains("stale"),
            "{ctx}: lidx verify on the old sidecar: {code} {out}{err}"
        );
        let index = OpenOptions::new().inspect(&self.src.path).unwrap();
        assert_eq!(index.verdict(), Verdict::Appended, "{ctx}");
        index
            .verify(false)
            .unwrap_or_else(|e| panic!("{ctx}: old sidecar's pages: {e}"));
        let old = self.prev.lines;
        assert_eq!(index.line_count(), old, "{ctx}");
        assert_eq!(index.source_len(), self.prev.len, "{ctx}");
        let mut picks = vec![0, old - 1, old / 2];
        picks.extend((0..4).map(|_| self.rng.below(old)));
        for l in picks {
            assert_eq!(
                index.line_span(l).unwrap(),
                self.src.span(l),
                "{ctx}: line {l} of the old prefix"
            );
        }
    }
}

#[test]
fn killed_index_runs_leave_the_old_or_a_complete_sidecar() {
    let t0 = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.log");
    let sidecar = dir.path().join("app.log.lidx");
    let mut src = Source::new(path.clone());
    src.append(INITIAL_BYTES);
    let built = Command::new(BIN)
        .args(["index", "--quiet", "--spacing", SPACING])
        .arg(&path)
        .status()
        .unwrap();
    assert!(built.success(), "initial build");
    let mut h = Harness {
        src,
        sidecar: sidecar.clone(),
        prev: Snapshot {
            ino: 0,
            bytes: Vec::new(),
            lines: 0,
            len: 0,
        },
        reference: None,
        killed_pids: HashSet::new(),
        rng: Rng::new(SEED),
    };
    h.check_new("initial build");
    h.check_queries("initial build");

    // One uninterrupted run of each kind sets the delay scales.
    let run = run_index(Kind::Force, &path, None);
    assert_eq!(h.after(&run, "timing run"), Phase::Completed);
    let t_force = run.took;
    let len_at_timing = h.src.len;
    h.src.append(APPEND_BYTES);
    h.reference = None;
    let run = run_index(Kind::Extend, &path, None);
    assert_eq!(h.after(&run, "timing run"), Phase::Completed);
    let t_extend = run.took;
    let len_at_extend = h.src.len;

    let mut tally: BTreeMap<(Kind, Phase), u32> = BTreeMap::new();
    let mut kills = 0u32;
    let mut round = 0u32;
    let mut play = |h: &mut Harness, kind: Kind, delay: Duration, round: u32| -> Phase {
        if kind == Kind::Extend {
            h.src.append(APPEND_BYTES);
            h.reference = None;
        }
        let ctx = format!(
            "round {round} ({kind:?}, kill after {:.1} ms, source {} bytes)",
            delay.as_secs_f64() * 1e3,
            h.src.len
        );
        let run = run_index(kind, &path, Some(delay));
        let phase = h.after(&run, &ctx);
        *tally.entry((kind, phase)).or_default() += 1;
        phase
    };
    while kills < MIN_KILLS || round < MIN_ROUNDS {
        assert!(round < MAX_ROUNDS, "only {kills} kills in {round} rounds");
        let kind = if h.rng.below(4) == 0 {
            Kind::Extend
        } else {
            Kind::Force
        };
        // 0..1.2× the uninterrupted duration, scaled with the source,
        // which grows (a build scans all of it; an extension copies the
        // sidecar, which grows with it, and scans the new bytes).
        let full = match kind {
            Kind::Force => t_force.mul_f64(h.src.len as f64 / len_at_timing as f64),
            Kind::Extend => t_extend.mul_f64(h.src.len as f64 / len_at_extend as f64),
        };
        let delay = full.mul_f64(1.2 * h.rng.below(1_000_001) as f64 / 1e6);
        if play(&mut h, kind, delay, round) != Phase::Completed {
            kills += 1;
        }
        round += 1;
    }
    // Leave at least one stale temp file behind for the final run to clean.
    let mut extra = 0;
    while temps(&sidecar).is_empty() {
        assert!(extra < 30, "no kill left a temp file behind");
        let full = t_force.mul_f64(h.src.len as f64 / len_at_timing as f64);
        let delay = full.mul_f64(0.3 + 0.5 * h.rng.below(1001) as f64 / 1e3);
        if play(&mut h, Kind::Force, delay, round) != Phase::Completed {
            kills += 1;
        }
        round += 1;
        extra += 1;
    }
    let stale = temps(&sidecar);

    // A final uninterrupted run: complete, and no temp file remains.
    let run = run_index(Kind::Force, &path, None);
    assert_eq!(h.after(&run, "final run"), Phase::Completed);
    let left = temps(&sidecar);
    assert!(
        left.is_empty(),
        "stale temp files {left:?} survived the final successful run (there were {stale:?})"
    );
    let n = h.src.count();
    let offset = h.rng.below(h.src.len);
    let want = h.src.starts.partition_point(|&s| s <= offset);
    let (code, out, err) = lidx(&[
        "line-at".as_ref(),
        "--no-build".as_ref(),
        path.as_os_str(),
        offset.to_string().as_ref(),
    ]);
    assert_eq!(
        (code, out, err),
        (0, format!("{want}\n").into_bytes(), String::new())
    );
    eprintln!(
        "crash: {kills} SIGKILLs landed in {round} rounds ({extra} extra to leave a temp file); \
         source {} bytes, {n} lines; sidecar {} bytes; uninterrupted: force {:.0} ms, \
         extend {:.0} ms; {} stale temp file(s) removed by the final run; total {:.1} s",
        h.src.len,
        h.prev.bytes.len(),
        t_force.as_secs_f64() * 1e3,
        t_extend.as_secs_f64() * 1e3,
        stale.len(),
        t0.elapsed().as_secs_f64()
    );
    for ((kind, phase), count) in &tally {
        eprintln!("crash:   {kind:?} {phase:?}: {count}");
    }
    assert!(kills >= 40, "{kills} kills");
}

/// Several processes building, rebuilding and querying the same file's
/// sidecar at once (no sidecar at the start, so the queries build too):
/// each writes its own temp file and renames it into place, so every run
/// succeeds with the right answer, the sidecar left behind is complete and
/// fresh, and no temp file survives.
#[test]
fn concurrent_writers_and_readers_of_one_sidecar() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(SEED ^ 7);
    let path = dir.path().join("shared.log");
    let mut data = Vec::new();
    let mut lines = 0u64;
    while data.len() < 16 << 20 {
        let n = 20 + rng.below(100) as usize;
        data.extend(std::iter::repeat_n(b'a' + (lines % 26) as u8, n));
        data.push(b'\n');
        lines += 1;
    }
    std::fs::write(&path, &data).unwrap();
    let file = path.as_os_str();
    let spawn = |args: &[&std::ffi::OsStr]| {
        Command::new(BIN)
            .args(args)
            .env("RUST_BACKTRACE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn lidx")
    };
    let mut children = Vec::new();
    for k in 0..8 {
        let args: Vec<&std::ffi::OsStr> = match k % 4 {
            0 => vec![
                "index".as_ref(),
                "-q".as_ref(),
                "--force".as_ref(),
                "--spacing".as_ref(),
                "64".as_ref(),
                file,
            ],
            1 => vec!["count".as_ref(), "-q".as_ref(), file],
            2 => vec!["lines".as_ref(), "-q".as_ref(), file, "1000".as_ref()],
            _ => vec!["index".as_ref(), "-q".as_ref(), file],
        };
        children.push((k, spawn(&args)));
    }
    let line_1000: Vec<u8> = data
        .split_inclusive(|&b| b == b'\n')
        .nth(999)
        .unwrap()
        .to_vec();
    for (k, child) in children {
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "run {k}: {:?}: {err}", o.status);
        assert!(!err.contains("panicked"), "run {k}: {err}");
        match k % 4 {
            1 => assert_eq!(o.stdout, format!("{lines}\n").into_bytes(), "run {k}"),
            2 => assert_eq!(o.stdout, line_1000, "run {k}"),
            _ => {}
        }
    }
    let sidecar = dir.path().join("shared.log.lidx");
    let (code, out, err) = lidx(&["verify".as_ref(), "--full".as_ref(), file]);
    assert_eq!(code, 0, "{}{err}", String::from_utf8_lossy(&out));
    assert!(temps(&sidecar).is_empty(), "{:?}", temps(&sidecar));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}
