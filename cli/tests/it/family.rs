//! Rotation families (`-R`): the real `logrotate` rotating a log that a
//! writer process appends to, with each of its schemes (numbered, compressed
//! with `delaycompress`, `dateext`, `copytruncate`, `create`), while
//! `lidx lines -f -R` follows the family.
//!
//! The oracle is the writer's own sequence: it writes `line K` for K = 1,
//! 2, ... and the family is first numbered when it holds lines 1..., so the
//! global number of `line K` must be K, after every rotation, compression
//! and deletion of the oldest member. The members' text, concatenated in
//! any order (`gzip -dc` for archives), must hold every K from the oldest
//! kept to the last written exactly once (logrotate lost nothing), and
//! `lidx lines -R -n` must print exactly `K:line K` for those K, in order;
//! `lidx grep -R -n` must print what `rg -n` prints on the members' text in
//! K order, its numbers raised by the first K minus one. The follower must
//! print `K:line K` for every K written, each once, in order.
//!
//! Bad input: a missing member, a member replaced by another file, a
//! member grown after rotation, a damaged archive, a damaged manifest,
//! files none of which the manifest knows, a member lidx cannot read —
//! each an error on one line naming the file, exit 2, nothing on stdout.

use crate::run::{BIN, Out, Rules, checked, have_tool, lidx_with};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// A log under logrotate's care, and the process that writes it.
struct Rotated {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    conf: PathBuf,
    state: PathBuf,
    writer: Child,
    to_writer: ChildStdin,
    from_writer: BufReader<ChildStdout>,
    /// Lines written so far (`line 1` .. `line written`).
    written: u64,
}

impl Rotated {
    /// A log rotated with `scheme` (logrotate directives), keeping 3
    /// rotated members.
    fn new(scheme: &str) -> Rotated {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_path_buf();
        let live = d.join("app.log");
        let conf = d.join("rotate.conf");
        let state = d.join("state");
        std::fs::write(
            &conf,
            format!(
                "\"{}\" {{\n    rotate 3\n    missingok\n{}\n}}\n",
                live.display(),
                scheme
                    .lines()
                    .map(|l| format!("    {}\n", l.trim()))
                    .collect::<String>()
            ),
        )
        .unwrap();
        // The writer opens the log for each line (as loggers that reopen
        // do): after a rotation, its next line goes to the new live file.
        // `SYNC` asks it to say it has written everything before.
        let mut writer = Command::new("sh")
            .arg("-c")
            .arg(
                r#"while IFS= read -r l; do if [ "$l" = SYNC ]; then echo ok; else printf '%s\n' "$l" >> "$1"; fi; done"#,
            )
            .arg("sh")
            .arg(&live)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the writer");
        let to_writer = writer.stdin.take().unwrap();
        let from_writer = BufReader::new(writer.stdout.take().unwrap());
        Rotated {
            _dir: dir,
            dir: d,
            conf,
            state,
            writer,
            to_writer,
            from_writer,
            written: 0,
        }
    }

    /// Has the writer append `n` lines, and waits until it has.
    fn write(&mut self, n: u64) {
        let mut batch = String::new();
        for _ in 0..n {
            self.written += 1;
            batch.push_str(&format!("line {}\n", self.written));
        }
        batch.push_str("SYNC\n");
        self.to_writer.write_all(batch.as_bytes()).unwrap();
        self.to_writer.flush().unwrap();
        let mut ack = String::new();
        self.from_writer.read_line(&mut ack).unwrap();
        assert_eq!(ack, "ok\n");
    }

    /// Runs logrotate now.
    fn rotate(&self) {
        let o = Command::new("logrotate")
            .arg("-f")
            .arg("-s")
            .arg(&self.state)
            .arg(&self.conf)
            .output()
            .expect("run logrotate");
        assert!(
            o.status.success(),
            "logrotate: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }

    /// The K of every line in the family's files (any order).
    fn ks_in_files(&self) -> Vec<u64> {
        let mut ks = Vec::new();
        for e in std::fs::read_dir(&self.dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_str().unwrap().to_string();
            if !name.starts_with("app.log") || name.ends_with(".lidx") {
                continue;
            }
            for line in text_of(&p).lines() {
                let k = line
                    .strip_prefix("line ")
                    .and_then(|k| k.parse().ok())
                    .unwrap_or_else(|| panic!("{name}: unexpected line {line:?}"));
                ks.push(k);
            }
        }
        ks.sort_unstable();
        ks
    }

    fn lidx(&self, args: &[&str]) -> Out {
        let mut cmd = Command::new(BIN);
        cmd.current_dir(&self.dir).args(args).stdin(Stdio::null());
        checked(cmd, Rules::SILENT_ERROR)
    }

    /// Checks the family against the writer's sequence (module doc).
    fn check(&self, scheme: &str, step: usize) {
        let ks = self.ks_in_files();
        let first = ks[0];
        let expected: Vec<u64> = (first..=self.written).collect();
        assert_eq!(
            ks, expected,
            "{scheme} step {step}: logrotate lost or doubled lines"
        );
        let o = self.lidx(&["lines", "-R", "-q", "-n", "app.log", "1:"]);
        let want: String = expected.iter().map(|k| format!("{k}:line {k}\n")).collect();
        assert_eq!(
            (o.code, o.stdout_str()),
            (0, want),
            "{scheme} step {step}: global numbers: {}",
            o.stderr
        );
        let o = self.lidx(&["count", "-R", "-q", "app.log"]);
        assert_eq!(
            o.stdout_str(),
            format!("{}\n", expected.len()),
            "{scheme} step {step}: count"
        );
        // A middle line by its global number, and one from the end.
        let mid = first + (self.written - first) / 2;
        let o = self.lidx(&["lines", "-R", "-q", "app.log", &mid.to_string()]);
        assert_eq!(
            o.stdout_str(),
            format!("line {mid}\n"),
            "{scheme} step {step}"
        );
        let o = self.lidx(&["lines", "-R", "-q", "-n", "app.log", "$-1:$"]);
        assert_eq!(
            o.stdout_str(),
            format!(
                "{}:line {}\n{}:line {}\n",
                self.written - 1,
                self.written - 1,
                self.written,
                self.written
            ),
            "{scheme} step {step}"
        );
        if first > 1 {
            // Lines of deleted members are gone, not renumbered.
            let o = self.lidx(&["lines", "-R", "-q", "app.log", "1"]);
            assert_eq!(o.code, 1, "{scheme} step {step}: {o:?}");
            assert!(o.stderr.contains("rotated away"), "{}", o.stderr);
        }
        // grep: ripgrep on the members' text in K order, numbers raised.
        let text: String = expected.iter().map(|k| format!("line {k}\n")).collect();
        let hay = self.dir.join("oracle.txt");
        std::fs::write(&hay, &text).unwrap();
        let rg = Command::new("rg")
            .args(["-n", "--no-config", "line [0-9]*7$"])
            .arg(&hay)
            .output()
            .unwrap();
        std::fs::remove_file(&hay).unwrap();
        let want: String = String::from_utf8(rg.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                let (n, rest) = l.split_once(':').unwrap();
                format!("{}:{rest}\n", n.parse::<u64>().unwrap() + first - 1)
            })
            .collect();
        let o = self.lidx(&["grep", "-R", "-n", "line [0-9]*7$", "app.log"]);
        assert_eq!(o.stdout_str(), want, "{scheme} step {step}: grep -R");
    }
}

impl Drop for Rotated {
    fn drop(&mut self) {
        let _ = self.writer.kill();
        let _ = self.writer.wait();
    }
}

/// A member's text (`gzip -dc` for an archive).
fn text_of(p: &Path) -> String {
    if p.extension().is_some_and(|e| e == "gz") {
        let o = Command::new("gzip").arg("-dc").arg(p).output().unwrap();
        assert!(o.status.success(), "gzip -dc {}", p.display());
        String::from_utf8(o.stdout).unwrap()
    } else {
        std::fs::read_to_string(p).unwrap()
    }
}

/// logrotate's schemes, as configuration directives.
const SCHEMES: [(&str, &str); 5] = [
    ("numbered", "nocompress"),
    ("delaycompress", "compress\ndelaycompress"),
    ("dateext", "dateext\ndateformat -%Y%m%d%H%M%S\ncompress"),
    ("copytruncate", "copytruncate\ncompress"),
    ("create", "create 0644\ncompress"),
];

/// Rotations per scheme: enough for the oldest member to be deleted
/// twice (logrotate keeps 3).
const ROTATIONS: usize = 5;

#[test]
fn logrotate_schemes_keep_global_numbers_and_the_follower_misses_nothing() {
    if !have_tool("logrotate", "the rotation family tests")
        || !have_tool("rg", "the rotation family tests' grep oracle")
        || !have_tool("gzip", "the rotation family tests")
    {
        return;
    }
    std::thread::scope(|s| {
        for (name, scheme) in SCHEMES {
            s.spawn(move || one_scheme(name, scheme));
        }
    });
}

fn one_scheme(name: &str, scheme: &str) {
    let mut log = Rotated::new(scheme);
    log.write(50);
    log.check(name, 0);
    let follow_out = log.dir.join("followed.txt");
    let mut follower = Command::new(BIN)
        .current_dir(&log.dir)
        .args(["lines", "-f", "-R", "-q", "-n", "app.log", "1:"])
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&follow_out).unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    for step in 1..=ROTATIONS {
        log.write(40 + step as u64);
        log.rotate();
        log.write(7);
        log.check(name, step);
    }
    // Everything written reaches the follower, once, in order.
    let want: String = (1..=log.written)
        .map(|k| format!("{k}:line {k}\n"))
        .collect();
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline
        && std::fs::read_to_string(&follow_out).unwrap().len() < want.len()
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    // A moment more: nothing may follow the last line.
    std::thread::sleep(Duration::from_millis(500));
    let got = std::fs::read_to_string(&follow_out).unwrap();
    let _ = follower.kill();
    let out = follower.wait_with_output().unwrap();
    assert_eq!(
        got,
        want,
        "{name}: the follower's output; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // No sidecar is left without its file.
    for e in std::fs::read_dir(&log.dir).unwrap() {
        let p = e.unwrap().path();
        let n = p.file_name().unwrap().to_str().unwrap();
        if let Some(source) = n.strip_suffix(".lidx")
            && source != "app.log.family"
        {
            assert!(log.dir.join(source).exists(), "{name}: orphan sidecar {n}");
        }
    }
}

/// A family written by hand: `app.log.2.gz` (lines 1–10), `app.log.1`
/// (11–20), `app.log` (21–25), all last modified an hour ago (no member
/// is waited for), numbered once.
fn hand_family() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_path_buf();
    let text = |a: u64, b: u64| -> String { (a..=b).map(|k| format!("line {k}\n")).collect() };
    std::fs::write(d.join("app.log.2"), text(1, 10)).unwrap();
    gzip_in_place(&d.join("app.log.2"));
    std::fs::write(d.join("app.log.1"), text(11, 20)).unwrap();
    std::fs::write(d.join("app.log"), text(21, 25)).unwrap();
    age(&d, &["app.log.2.gz", "app.log.1", "app.log"]);
    let o = in_dir(&d, &["count", "-R", "-q", "app.log"]);
    assert_eq!((o.code, o.stdout_str()), (0, "25\n".into()), "{o:?}");
    (dir, d)
}

/// Sets the files' modification time an hour back.
fn age(d: &Path, names: &[&str]) {
    for n in names {
        assert!(
            Command::new("touch")
                .args(["-d", "1 hour ago"])
                .arg(d.join(n))
                .status()
                .unwrap()
                .success()
        );
    }
}

fn in_dir(d: &Path, args: &[&str]) -> Out {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(d).args(args).stdin(Stdio::null());
    checked(cmd, Rules::SILENT_ERROR)
}

/// Compresses `file` as logrotate's compress does: `file.gz` in its place.
fn gzip_in_place(file: &Path) {
    let ok = Command::new("gzip").arg(file).status().unwrap().success();
    assert!(ok, "gzip {}", file.display());
}

/// `lidx lines -R -n app.log 1:` fails naming `who`.
fn refused(d: &Path, who: &str) {
    let o = in_dir(d, &["lines", "-R", "-q", "-n", "app.log", "1:"]);
    assert_eq!(o.code, 2, "{o:?}");
    assert!(o.stdout.is_empty(), "no line on error: {o:?}");
    assert!(o.stderr.contains(who), "{who} in {}", o.stderr);
}

#[test]
fn a_family_is_numbered_once_and_renames_change_nothing() {
    if !have_tool("gzip", "the rotation family tests") {
        return;
    }
    let (_t, d) = hand_family();
    let o = in_dir(&d, &["lines", "-R", "-q", "-n", "app.log", "10:11"]);
    assert_eq!(o.stdout_str(), "10:line 10\n11:line 11\n");
    // A numbered rotation by hand: every name shifts, the oldest goes.
    std::fs::rename(d.join("app.log.2.gz"), d.join("app.log.3.gz")).unwrap();
    std::fs::rename(d.join("app.log.1"), d.join("app.log.2")).unwrap();
    std::fs::rename(d.join("app.log"), d.join("app.log.1")).unwrap();
    std::fs::write(d.join("app.log"), "line 26\n").unwrap();
    age(&d, &["app.log"]);
    let o = in_dir(&d, &["lines", "-R", "-n", "app.log", "$-2:"]);
    assert_eq!(o.stdout_str(), "24:line 24\n25:line 25\n26:line 26\n");
    // Only the new live file needed a sidecar: the others followed their
    // files (the note counts what was built).
    assert!(
        o.stderr.contains("1 rebuilt") || o.stderr.contains("1 built"),
        "{}",
        o.stderr
    );
    std::fs::remove_file(d.join("app.log.3.gz")).unwrap();
    let o = in_dir(&d, &["lines", "-R", "-q", "-n", "app.log", "1:12"]);
    assert_eq!(o.stdout_str(), "11:line 11\n12:line 12\n");
    let o = in_dir(&d, &["line-at-time", "-R", "-q", "app.log", "now"]);
    assert_eq!(o.code, 2, "no stamps: {o:?}");
    // Global byte offsets: line 11 starts after lines 1–10 (10 × 8 bytes
    // less one for "line 10\n" being 8 bytes: 9 × 7 + 8 = 71).
    let o = in_dir(&d, &["line-at", "-R", "-q", "app.log", "71"]);
    assert_eq!(o.stdout_str(), "11\n");
    let o = in_dir(&d, &["line-at", "-R", "-q", "app.log", "0"]);
    assert_eq!(o.code, 1, "{o:?}");
    // --no-build: answered from what is recorded, nothing written; with
    // no manifest, an error (a numbering is not given out unrecorded).
    let listing = |d: &Path| {
        let mut v: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        v.sort();
        v
    };
    let before = listing(&d);
    let o = in_dir(&d, &["lines", "-R", "--no-build", "-q", "app.log", "11"]);
    assert_eq!(o.stdout_str(), "line 11\n", "{o:?}");
    assert_eq!(listing(&d), before);
    let manifest = std::fs::read(d.join("app.log.family.lidx")).unwrap();
    std::fs::remove_file(d.join("app.log.family.lidx")).unwrap();
    let o = in_dir(&d, &["lines", "-R", "--no-build", "-q", "app.log", "11"]);
    assert_eq!(o.code, 2, "{o:?}");
    assert!(o.stderr.contains("--no-build"), "{}", o.stderr);
    assert!(!d.join("app.log.family.lidx").exists());
    std::fs::write(d.join("app.log.family.lidx"), manifest).unwrap();
    // info -R: the members, their global lines and bytes.
    let o = in_dir(&d, &["info", "-R", "--json", "app.log"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (j["first_line"].as_u64(), j["last_line"].as_u64()),
        (Some(11), Some(26))
    );
    let m = j["members"].as_array().unwrap();
    let got: Vec<(String, u64, u64, u64)> = m
        .iter()
        .map(|m| {
            (
                m["path"].as_str().unwrap().to_string(),
                m["first_line"].as_u64().unwrap(),
                m["last_line"].as_u64().unwrap(),
                m["first_byte"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("app.log.2".to_string(), 11, 20, 71),
            ("app.log.1".to_string(), 21, 25, 151),
            ("app.log".to_string(), 26, 26, 191),
        ]
    );
    // --by-member: the members' own names and numbers.
    let o = in_dir(
        &d,
        &["grep", "-R", "--by-member", "-n", "line 1[15]$", "app.log"],
    );
    assert_eq!(o.stdout_str(), "app.log.2:1:line 11\napp.log.2:5:line 15\n");
}

#[test]
fn bad_families_are_refused_naming_the_file() {
    if !have_tool("gzip", "the rotation family tests") {
        return;
    }
    // A missing member between others.
    let (_t, d) = hand_family();
    std::fs::remove_file(d.join("app.log.1")).unwrap();
    refused(&d, "app.log.1");

    // A member replaced by another file.
    let (_t, d) = hand_family();
    std::fs::write(d.join("app.log.1"), "something else\n").unwrap();
    age(&d, &["app.log.1"]);
    refused(&d, "app.log.1");

    // A rotated member that grew.
    let (_t, d) = hand_family();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(d.join("app.log.1"))
        .unwrap();
    f.write_all(b"late line\n").unwrap();
    drop(f);
    age(&d, &["app.log.1"]);
    refused(&d, "app.log.1");

    // A damaged archive.
    let (_t, d) = hand_family();
    let gz = d.join("app.log.2.gz");
    let bytes = std::fs::read(&gz).unwrap();
    std::fs::write(&gz, &bytes[..bytes.len() - 12]).unwrap();
    age(&d, &["app.log.2.gz"]);
    refused(&d, "app.log.2.gz");

    // A member in a format lidx does not read.
    let (_t, d) = hand_family();
    std::fs::write(d.join("app.log.3.xz"), b"\xfd7zXZ\0").unwrap();
    refused(&d, "app.log.3.xz");

    // Files none of which the manifest knows.
    let (_t, d) = hand_family();
    for n in ["app.log.2.gz", "app.log.1", "app.log"] {
        std::fs::remove_file(d.join(n)).unwrap();
    }
    std::fs::write(d.join("app.log"), "a new start\n").unwrap();
    std::fs::write(d.join("app.log.1"), "an old one\n").unwrap();
    age(&d, &["app.log", "app.log.1"]);
    refused(&d, "--force");

    // A damaged manifest; renumbering is the way out.
    let (_t, d) = hand_family();
    let m = d.join("app.log.family.lidx");
    let mut bytes = std::fs::read(&m).unwrap();
    bytes[40] ^= 1;
    std::fs::write(&m, &bytes).unwrap();
    refused(&d, "app.log.family.lidx");
    let o = in_dir(&d, &["index", "-R", "--force", "app.log"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert!(o.stderr.contains("renumbered"), "{}", o.stderr);
    let o = in_dir(&d, &["lines", "-R", "-q", "-n", "app.log", "1"]);
    assert_eq!(o.stdout_str(), "1:line 1\n");

    // -R with options that name one file, and with a URL.
    let o = lidx_with(
        ["lines", "-R", "--index", "x.lidx", "app.log", "1"],
        Rules::SILENT_ERROR,
    );
    assert_eq!(o.code, 2, "{o:?}");
    let o = lidx_with(
        ["count", "-R", "http://127.0.0.1:9/app.log"],
        Rules::SILENT_ERROR,
    );
    assert_eq!(o.code, 2, "{o:?}");
}

#[test]
fn times_across_members() {
    if !have_tool("gzip", "the rotation family tests") {
        return;
    }
    // One stamped line a minute, 30 lines over three members.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let line = |k: u64| format!("2026-11-30T10:{:02}:00Z event {k}\n", k - 1);
    let text = |a: u64, b: u64| -> String { (a..=b).map(line).collect() };
    std::fs::write(d.join("svc.log.2"), text(1, 10)).unwrap();
    gzip_in_place(&d.join("svc.log.2"));
    std::fs::write(d.join("svc.log.1"), text(11, 20)).unwrap();
    std::fs::write(d.join("svc.log"), text(21, 30)).unwrap();
    age(d, &["svc.log.2.gz", "svc.log.1", "svc.log"]);
    let o = in_dir(
        d,
        &[
            "lines",
            "-R",
            "-q",
            "-n",
            "--since",
            "2026-11-30T10:08:00Z",
            "--until",
            "2026-11-30T10:22:00Z",
            "svc.log",
        ],
    );
    // Minutes 8..22 are lines 9..22 (until is exclusive).
    let want: String = (9..=22).map(|k| format!("{k}:{}", line(k))).collect();
    assert_eq!((o.code, o.stdout_str()), (0, want), "{}", o.stderr);
    let o = in_dir(
        d,
        &[
            "line-at-time",
            "-R",
            "-q",
            "svc.log",
            "2026-11-30T10:15:30Z",
        ],
    );
    assert_eq!(o.stdout_str(), "17\n");
    let o = in_dir(
        d,
        &[
            "grep",
            "-R",
            "-n",
            "--since",
            "2026-11-30T10:18:00Z",
            "event (1|2)9$",
            "svc.log",
        ],
    );
    assert_eq!(o.stdout_str(), format!("19:{}29:{}", line(19), line(29)));
}

/// `lidx view --rotated`: the members read as one, with global numbers
/// (the oldest member deleted: the first line shown is 1001), `:N` to a
/// global line across a member boundary, `G` to the end; the rows are
/// `sed`'s on the whole log written at once.
#[test]
fn the_viewer_reads_a_family_in_global_numbers() {
    use crate::view::{Pane, ROWS, numbered, quits, sed};
    if !crate::view::tools() || !have_tool("gzip", "the rotation family tests") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let all = crate::view::log(3000);
    std::fs::write(d.join("all.txt"), &all).unwrap();
    let lines: Vec<&[u8]> = all.split_inclusive(|&b| b == b'\n').collect();
    let part = |a: usize, b: usize| lines[a - 1..b].concat();
    for (name, a, b) in [
        ("app.log.3", 1, 1000),
        ("app.log.2", 1001, 2000),
        ("app.log.1", 2001, 2500),
        ("app.log", 2501, 3000),
    ] {
        std::fs::write(d.join(name), part(a, b)).unwrap();
    }
    for n in ["app.log.3", "app.log.2"] {
        gzip_in_place(&d.join(n));
    }
    age(d, &["app.log.3.gz", "app.log.2.gz", "app.log.1", "app.log"]);
    let o = in_dir(d, &["count", "-R", "-q", "app.log"]);
    assert_eq!(o.stdout_str(), "3000\n", "{o:?}");
    std::fs::remove_file(d.join("app.log.3.gz")).unwrap();
    let Some(p) = Pane::start(d, "--rotated app.log") else {
        return;
    };
    let f = d.join("all.txt");
    let r = ROWS as u64;
    p.expect(
        "first screen",
        &numbered(&sed(&f, 1001, 1000 + r), 4, ROWS),
        "lines 1001-1029/3000",
    );
    p.text(":2490");
    p.keys(&["Enter"]);
    p.expect(
        ":2490",
        &numbered(&sed(&f, 2490, 2489 + r), 4, ROWS),
        "lines 2490-",
    );
    p.keys(&["G"]);
    p.expect(
        "G",
        &numbered(&sed(&f, 3001 - r, 3000), 4, ROWS),
        "lines 2972-3000/3000",
    );
    p.keys(&["q"]);
    quits(&p, 0);
}

/// `:@T` in `lidx view --rotated`: a jump to a time goes through the
/// members' time indexes to the global line of the first stamp at or
/// after T, whichever member holds it (the rows are `sed`'s on the whole
/// log written at once, the line found by reading the stamps).
#[test]
fn the_viewer_jumps_to_a_time_across_members() {
    use crate::view::{Pane, ROWS, numbered, quits, sed};
    if !crate::view::tools() || !have_tool("gzip", "the rotation family tests") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // One stamped line every 10 s, some followed by an unstamped one.
    let mut all = String::new();
    for k in 0..600u64 {
        all += &format!(
            "2026-11-30T{:02}:{:02}:{:02}Z worker{} step {k}\n",
            8 + k / 360,
            k / 6 % 60,
            k % 6 * 10,
            k % 7
        );
        if k % 5 == 0 {
            all += &format!("    at frame {k}\n");
        }
    }
    std::fs::write(d.join("all.txt"), &all).unwrap();
    let f = d.join("all.txt");
    let lines: Vec<&str> = all.split_inclusive('\n').collect();
    let part = |a: usize, b: usize| lines[a..b].concat();
    let n = lines.len();
    std::fs::write(d.join("app.log.2"), part(0, 250)).unwrap();
    std::fs::write(d.join("app.log.1"), part(250, 500)).unwrap();
    std::fs::write(d.join("app.log"), part(500, n)).unwrap();
    gzip_in_place(&d.join("app.log.2"));
    age(d, &["app.log.2.gz", "app.log.1", "app.log"]);
    let o = in_dir(
        d,
        &["index", "-R", "-q", "--time", "--tz", "UTC", "app.log"],
    );
    assert_eq!(o.code, 0, "{o:?}");
    let Some(p) = Pane::start(d, "--rotated app.log") else {
        return;
    };
    let r = ROWS as u64;
    p.expect(
        "first screen",
        &numbered(&sed(&f, 1, r), 3, ROWS),
        "lines 1-",
    );
    // In the middle member, then in the first (compressed) one, then a
    // time between two stamps (the next stamped line).
    for t in [
        "2026-11-30T08:50:00Z",
        "2026-11-30T08:05:00Z",
        "2026-11-30T09:12:05Z",
    ] {
        let want = lines
            .iter()
            .position(|l| l.len() > 20 && l.as_bytes()[4] == b'-' && &l[..20] >= t)
            .unwrap() as u64
            + 1;
        p.text(&format!(":@{t}"));
        p.keys(&["Enter"]);
        p.expect(
            &format!(":@{t}"),
            &numbered(&sed(&f, want, want + r - 1), 3, ROWS),
            &format!("lines {want}-"),
        );
    }
    p.keys(&["q"]);
    quits(&p, 0);
}

/// `F` in `lidx view --rotated`: the family is followed across a write,
/// a rotation (the live file renamed, a new one created) and the oldest
/// member's deletion; the screen ends with the last lines written, in
/// global numbers that did not change (the rows are `sed`'s on the whole
/// log written at once).
#[test]
fn the_viewer_follows_a_family_across_rotations() {
    use crate::view::{Pane, ROWS, numbered, quits, sed};
    if !crate::view::tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let all = crate::view::log(200);
    std::fs::write(d.join("all.txt"), &all).unwrap();
    let f = d.join("all.txt");
    let lines: Vec<&[u8]> = all.split_inclusive(|&b| b == b'\n').collect();
    let part = |a: usize, b: usize| lines[a - 1..b].concat();
    std::fs::write(d.join("app.log.1"), part(1, 100)).unwrap();
    std::fs::write(d.join("app.log"), part(101, 150)).unwrap();
    age(d, &["app.log.1", "app.log"]);
    let Some(p) = Pane::start(d, "--rotated app.log") else {
        return;
    };
    let r = ROWS as u64;
    p.expect(
        "first screen",
        &numbered(&sed(&f, 1, r), 3, ROWS),
        "lines 1-",
    );
    let append = |a: usize, b: usize| {
        let mut live = std::fs::OpenOptions::new()
            .append(true)
            .open(d.join("app.log"))
            .unwrap();
        std::io::Write::write_all(&mut live, &part(a, b)).unwrap();
    };
    // Lines written before F are there once it is pressed.
    append(151, 153);
    p.keys(&["F"]);
    p.expect("F", &numbered(&sed(&f, 154 - r, 153), 3, ROWS), "following");
    // A write to the live file.
    append(154, 160);
    p.expect(
        "a write",
        &numbered(&sed(&f, 161 - r, 160), 3, ROWS),
        &format!("lines {}-160/160", 161 - r),
    );
    // A rotation: app.log.1 → .2, app.log → .1, a new app.log.
    std::fs::rename(d.join("app.log.1"), d.join("app.log.2")).unwrap();
    std::fs::rename(d.join("app.log"), d.join("app.log.1")).unwrap();
    std::fs::write(d.join("app.log"), part(161, 175)).unwrap();
    p.expect(
        "a rotation",
        &numbered(&sed(&f, 176 - r, 175), 3, ROWS),
        &format!("lines {}-175/175", 176 - r),
    );
    // The oldest member deleted, a line more: the numbers stay.
    std::fs::remove_file(d.join("app.log.2")).unwrap();
    append(176, 180);
    p.expect(
        "the oldest deleted",
        &numbered(&sed(&f, 181 - r, 180), 3, ROWS),
        &format!("lines {}-180/180", 181 - r),
    );
    p.keys(&["q"]);
    quits(&p, 0);
}
