//! zstd seekable sources end to end (spec §13): archives written by
//! `lidx pack`, by another writer (the `zeekstd` crate, frames of a fixed
//! size that cut lines anywhere) and by a minimal independent writer in
//! this file (the `zstd` crate's frames, without checksums, and a seek
//! table built by hand), each checked against its text: `zstd -d` restores
//! the packed file byte for byte, every command answers as the naive model
//! and as `zstd -dc | sed -n` does, damage (a flipped bit, a cut) is an
//! error naming the file or the right answer, never a wrong line; a plain
//! `.zst` is refused with a message naming `lidx pack`; appended archives
//! extend the index, and a follower sees their lines.
//!
//! Tools not on PATH (`zstd`, `sed`) are reported as `SKIPPED: ...`, or
//! fail the test under `LIDX_REQUIRE_TOOLS=1` ([`crate::run::missing_tool`]).

use crate::oracle::{Depth, Model, Rng, check_index};
use crate::run::{Out, Rules, have_tool};
use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs `lidx ARGS` and checks the CLI's rules (one-line errors, exit 0..=2,
/// no panic).
fn lidx<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Out {
    crate::run::lidx_with(args, Rules::STREAMING)
}

fn os(s: impl AsRef<OsStr>) -> OsString {
    s.as_ref().to_owned()
}

/// `tool ARGS` with `stdin` fed: exit status and stdout.
fn pipe(tool: &str, args: &[&OsStr], stdin: &[u8]) -> (i32, Vec<u8>) {
    let mut child = Command::new(tool)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    (out.status.code().unwrap_or(-1), out.stdout)
}

/// `zstd -dc FILE`: the oracle's text.
fn zstd_dc(path: &Path) -> (i32, Vec<u8>) {
    pipe("zstd", &[OsStr::new("-dcq"), path.as_os_str()], b"")
}

/// `zstd -dc FILE | sed -n SCRIPT`.
fn zstd_sed(path: &Path, script: &str) -> Vec<u8> {
    let (code, text) = zstd_dc(path);
    assert_eq!(code, 0, "zstd -dc {}", path.display());
    pipe("sed", &[OsStr::new("-n"), OsStr::new(script)], &text).1
}

/// Log-like text of about `target` bytes: lines of mixed lengths, empty
/// lines, CRLF lines, bytes that are not UTF-8, lines of `long` bytes at
/// every `long_every`-th line (0: none), ending without `\n` if `ragged`.
fn text(seed: u64, target: usize, long: usize, long_every: u64, ragged: bool) -> Vec<u8> {
    const WORDS: &[&str] = &[
        "GET /index.html",
        "served",
        "timeout",
        "cache miss",
        "user=alice",
        "ERROR upstream",
        "retry",
        "took",
    ];
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(target + long + 200);
    let mut n = 0u64;
    while out.len() < target {
        n += 1;
        if long_every > 0 && n.is_multiple_of(long_every) {
            out.extend(format!("{n:08} LONG").as_bytes());
            while !out.len().is_multiple_of(long) {
                out.extend(WORDS[rng.below(WORDS.len() as u64) as usize].as_bytes());
                out.push(b' ');
            }
            out.push(b'\n');
            continue;
        }
        match rng.below(50) {
            0 => {
                out.push(b'\n');
                continue;
            }
            1 => out.extend(b"\xff\xfe odd \xc3\x28 "),
            _ => {}
        }
        out.extend(
            format!(
                "{n:08} 2024-05-{:02} [w{}]",
                1 + rng.below(28),
                rng.below(9)
            )
            .as_bytes(),
        );
        for _ in 0..rng.below(12) {
            out.push(b' ');
            out.extend(WORDS[rng.below(WORDS.len() as u64) as usize].as_bytes());
        }
        if rng.below(20) == 0 {
            out.push(b'\r');
        }
        out.push(b'\n');
    }
    if ragged {
        out.extend(b"the last line, without a newline");
    }
    out
}

/// `lidx pack -q ARGS FILE -o OUT`; asserts success.
pub(crate) fn pack(file: &Path, out: &Path, extra: &[&str]) {
    let mut a: Vec<OsString> = vec![os("pack"), os("-q")];
    a.extend(extra.iter().map(os));
    a.extend([os(file), os("-o"), os(out)]);
    let o = lidx(&a);
    assert_eq!(o.code, 0, "pack {}: {}", file.display(), o.stderr);
}

/// The frames of `archive` as its seek table places them.
fn frames(archive: &Path) -> Vec<lidx::zstd::Frame> {
    let src = lidx::io::FileSource::open(archive).unwrap();
    lidx::zstd::seek_table(&src).unwrap()
}

/// Restores `mtime` of `path` (after a damaging write), so that the
/// sidecar's fingerprint still holds where it does not hash.
fn set_mtime(path: &Path, mtime: std::time::SystemTime) {
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.set_modified(mtime).unwrap();
}

/// `lidx pack` archives restore their file byte for byte with `zstd -d`
/// (a log, one without a final newline, an empty file, lines longer than a
/// frame, CRLF only, one line), every frame starts at a checkpoint and
/// holds at least `--frame` bytes (but the last), and the sidecar written
/// with the archive is the one a build of the archive gives.
#[test]
fn pack_round_trips_through_zstd() {
    if !have_tool("zstd", "pack round trips through zstd -d") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let crlf: Vec<u8> = (0..5000)
        .flat_map(|i| format!("line {i}\r\n").into_bytes())
        .collect();
    let cases: Vec<(&str, Vec<u8>, u64, u64)> = vec![
        // name, text, frame, spacing
        ("log", text(1, 600_000, 0, 0, false), 20_000, 4096),
        ("ragged", text(2, 300_000, 0, 0, true), 8192, 1024),
        ("empty", Vec::new(), 4096, 1024),
        ("long-lines", text(3, 400_000, 30_000, 7, true), 4096, 1024),
        ("crlf", crlf, 10_000, 512),
        ("one-line", b"no newline at all".to_vec(), 4096, 1024),
        ("newlines", vec![b'\n'; 10_000], 1000, 100),
    ];
    for (name, data, frame, spacing) in cases {
        let file = dir.path().join(format!("{name}.txt"));
        let out = dir.path().join(format!("{name}.txt.zst"));
        std::fs::write(&file, &data).unwrap();
        let (f, s) = (frame.to_string(), spacing.to_string());
        pack(&file, &out, &["--frame", &f, "--spacing", &s, "-j", "2"]);
        let (code, restored) = zstd_dc(&out);
        assert_eq!(code, 0, "{name}: zstd -d");
        assert!(restored == data, "{name}: zstd -d restores the file");
        let o = Command::new("zstd").arg("-tq").arg(&out).status().unwrap();
        assert!(o.success(), "{name}: zstd -t");
        // Frames at checkpoints (spec §13.4).
        let m = Model::new(data.clone());
        let cps: std::collections::BTreeSet<u64> =
            m.checkpoints(spacing).iter().map(|c| c.offset).collect();
        let fs = frames(&out);
        assert!(!fs.is_empty(), "{name}: one frame at least");
        for (i, fr) in fs.iter().enumerate() {
            assert!(
                data.is_empty() || cps.contains(&fr.uncomp),
                "{name}: frame {i} starts at {}, not a checkpoint",
                fr.uncomp
            );
            if i + 1 < fs.len() {
                assert!(fr.text_len as u64 >= frame, "{name}: frame {i} short");
            }
            assert!(fr.xxh.is_some(), "{name}: the table has checksums");
        }
        let total: u64 = fs.iter().map(|f| f.text_len as u64).sum();
        assert_eq!(total, data.len() as u64, "{name}: frames hold the text");
        // The sidecar pack wrote equals a fresh build of the archive.
        let sidecar = dir.path().join(format!("{name}.txt.zst.lidx"));
        let packed = std::fs::read(&sidecar).unwrap();
        let o = lidx([
            os("index"),
            os("-q"),
            os("--force"),
            os("--spacing"),
            os(&s),
            os(&out),
        ]);
        assert_eq!(o.code, 0, "{name}: index: {}", o.stderr);
        assert!(
            std::fs::read(&sidecar).unwrap() == packed,
            "{name}: pack's sidecar differs from a build's"
        );
        let index = lidx::Index::open(&out).unwrap();
        check_index(&index, &m, spacing, Depth::default(), 3, name);
        let o = lidx([os("verify"), os("--full"), os(&out)]);
        assert_eq!(o.code, 0, "{name}: verify: {}", o.stderr);
    }
}

/// `lidx pack --format gz` archives restore their file with `gzip -d`
/// (the same cases, and a line longer than a span, which is cut across
/// members), pass `gzip -t`, and their sidecar is the one a build of the
/// archive gives: an access point at every member start, no window.
#[test]
fn pack_gz_round_trips_through_gzip() {
    if !have_tool("gzip", "pack --format gz round trips through gzip -d") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut huge = text(14, 100_000, 0, 0, false);
    huge.extend(std::iter::repeat_n(b'x', 2_500_000));
    huge.extend(b"\nafter the huge line\n");
    let cases: Vec<(&str, Vec<u8>, u64, &str)> = vec![
        ("log", text(1, 600_000, 0, 0, false), 20_000, "6"),
        ("ragged", text(2, 300_000, 0, 0, true), 8192, "1"),
        ("empty", Vec::new(), 4096, "9"),
        ("long-lines", text(3, 400_000, 30_000, 7, true), 4096, "6"),
        ("huge-line", huge, 262_144, "0"),
        ("one-line", b"no newline at all".to_vec(), 4096, "6"),
    ];
    for (name, data, frame, level) in cases {
        let file = dir.path().join(format!("{name}.txt"));
        let out = dir.path().join(format!("{name}.txt.gz"));
        std::fs::write(&file, &data).unwrap();
        let f = frame.to_string();
        let o = lidx([
            os("pack"),
            os("-q"),
            os("--format"),
            os("gz"),
            os("--frame"),
            os(&f),
            os("-l"),
            os(level),
            os(&file),
        ]);
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
        let (code, restored) = pipe("gzip", &[OsStr::new("-dc"), out.as_os_str()], b"");
        assert_eq!(code, 0, "{name}: gzip -d");
        assert!(restored == data, "{name}: gzip -d restores the file");
        let (code, _) = pipe("gzip", &[OsStr::new("-t"), out.as_os_str()], b"");
        assert_eq!(code, 0, "{name}: gzip -t");
        let sidecar = dir.path().join(format!("{name}.txt.gz.lidx"));
        let packed = std::fs::read(&sidecar).unwrap();
        let sb = lidx::format::Superblock::decode(&packed[..256]).unwrap();
        // No windows: the blob pages, if any, hold the piece CRCs of the
        // members longer than a piece (spec §11.9).
        let windowless = match sb.piece_len() {
            Some(l) => {
                assert!(data.len() as u64 > l, "{name}: pieces of a short text");
                sb.gzip.piece_page == sb.gzip.ap_first_page + sb.gzip.ap_pages
            }
            None => sb.gzip.blob_pages == 0,
        };
        assert_eq!((sb.source_kind, windowless), (1, true), "{name}");
        let o = lidx([os("index"), os("-q"), os("--force"), os(&out)]);
        assert_eq!(o.code, 0, "{name}: index: {}", o.stderr);
        assert!(
            std::fs::read(&sidecar).unwrap() == packed,
            "{name}: pack's gzip sidecar differs from a build's"
        );
        let index = lidx::Index::open(&out).unwrap();
        check_index(
            &index,
            &Model::new(data.clone()),
            65536,
            Depth::default(),
            3,
            name,
        );
        let o = lidx([os("verify"), os("--full"), os(&out)]);
        assert_eq!(o.code, 0, "{name}: verify: {}", o.stderr);
    }
    // A frame larger than the span is refused for gzip.
    let file = dir.path().join("log.txt");
    let o = crate::run::lidx_with(
        [
            os("pack"),
            os("--format"),
            os("gz"),
            os("--frame"),
            os("2000000"),
            os("-o"),
            os(dir.path().join("big.gz")),
            os(&file),
        ],
        Rules::SILENT_ERROR,
    );
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("exceeds the span"), "{}", o.stderr);
}

/// Every command on a packed archive answers as the model of its text and
/// as `zstd -dc | sed -n` does; `info --json` tells the frames.
#[test]
fn packed_archive_answers_as_zstd_dc_sed() {
    let zstd = have_tool("zstd", "zstd -dc | sed oracles");
    let sed = have_tool("sed", "zstd -dc | sed oracles");
    let dir = tempfile::tempdir().unwrap();
    let data = text(4, 1_500_000, 50_000, 997, true);
    let m = Model::new(data.clone());
    let n = m.line_count();
    let file = dir.path().join("app.log");
    let out = dir.path().join("app.log.zst");
    std::fs::write(&file, &data).unwrap();
    pack(&file, &out, &["--frame", "65536", "--level", "1"]);
    std::fs::remove_file(&file).unwrap();
    let o = lidx([os("count"), os(&out)]);
    assert_eq!(o.stdout, format!("{n}\n").into_bytes(), "count");
    let mut rng = Rng::new(5);
    for _ in 0..8 {
        let l = 1 + rng.below(n);
        let o = lidx([os("lines"), os(&out), os(l.to_string())]);
        assert!(o.stdout == m.render(&(l - 1..l), false), "lines {l}");
        if zstd && sed {
            assert!(
                o.stdout == zstd_sed(&out, &format!("{l}p")),
                "lines {l} vs sed"
            );
        }
    }
    for _ in 0..4 {
        let a = 1 + rng.below(n);
        let b = a + rng.below(5000);
        let o = lidx([os("lines"), os(&out), os(format!("{a}:{b}"))]);
        assert!(
            o.stdout == m.render(&(a - 1..b.min(n)), false),
            "lines {a}:{b}"
        );
        if zstd && sed {
            assert!(
                o.stdout == zstd_sed(&out, &format!("{a},{b}p")),
                "lines {a}:{b} vs zstd -dc | sed"
            );
        }
    }
    // The last line (no final newline: printed with one, as sed does not).
    let o = lidx([os("lines"), os(&out), os("$")]);
    assert_eq!(o.code, 0);
    assert!(o.stdout.starts_with(b"the last line"));
    for _ in 0..6 {
        let off = rng.below(m.len());
        let o = lidx([os("line-at"), os(&out), os(off.to_string())]);
        let want = m.line_at(off).unwrap() + 1;
        assert_eq!(o.stdout, format!("{want}\n").into_bytes(), "line-at {off}");
    }
    for p in ["ERROR", "^$", r"LONG", r"w[37]\] took"] {
        let re = regex::bytes::Regex::new(p).unwrap();
        let a = 1 + rng.below(n / 2);
        let b = a + rng.below(20_000);
        let range = format!("{a}:{b}");
        let o = lidx([
            os("grep"),
            os("-n"),
            os("-j"),
            os("2"),
            os("--lines"),
            os(&range),
            os(p),
            os(&out),
        ]);
        let mut want = Vec::new();
        for l in a - 1..b.min(n) {
            let t = m.bytes(m.span(l));
            let bare = t.strip_suffix(b"\n").unwrap_or(t);
            if re.is_match(bare) {
                want.extend(format!("{}:", l + 1).as_bytes());
                want.extend(bare);
                want.push(b'\n');
            }
        }
        assert_eq!(o.code, if want.is_empty() { 1 } else { 0 }, "grep {p}");
        assert!(o.stdout == want, "grep -n --lines {range} {p}");
    }
    let o = lidx([os("info"), os("--json"), os(&out)]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["zstd"]["frames"], frames(&out).len() as u64);
    assert_eq!(j["lines"], n);
    assert_eq!(j["source_size"], m.len());
    assert_eq!(j["version"], "1.3");
    let o = lidx([os("info"), os(&out)]);
    assert!(
        o.stdout_str().contains("zstd:         seekable"),
        "{}",
        o.stdout_str()
    );
    let o = lidx([os("verify"), os("--full"), os(&out)]);
    assert_eq!(o.code, 0, "verify: {}", o.stderr);
}

/// A minimal independent writer: each piece a zstd frame from the `zstd`
/// crate (no content checksum), then a seek table built here by hand,
/// without checksums (§13.1, Table 28).
fn hand_built(pieces: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut entries = Vec::new();
    for p in pieces {
        let f = zstd::bulk::compress(p, 5).unwrap();
        entries.push((f.len() as u32, p.len() as u32));
        out.extend(f);
    }
    let n = entries.len() as u32;
    out.extend(0x184D_2A5Eu32.to_le_bytes());
    out.extend((8 * n + 9).to_le_bytes());
    for (c, d) in entries {
        out.extend(c.to_le_bytes());
        out.extend(d.to_le_bytes());
    }
    out.extend(n.to_le_bytes());
    out.push(0);
    out.extend(0x8F92_EAB1u32.to_le_bytes());
    out
}

/// Archives of other writers: zeekstd (frames of 3000 bytes of text, so
/// lines straddle frames; with and without checksums) and the hand-built
/// writer above (frames cut anywhere, an empty frame among them). Each is
/// indexed and answers as its text, and through the binary as
/// `zstd -dc | sed -n`.
#[test]
fn archives_of_other_writers_answer_as_their_text() {
    let zstd = have_tool("zstd", "zstd -dc | sed on other writers' archives");
    let sed = have_tool("sed", "zstd -dc | sed on other writers' archives");
    let dir = tempfile::tempdir().unwrap();
    let data = text(6, 400_000, 9_000, 101, true);
    let m = Model::new(data.clone());
    let mut archives = Vec::new();
    for checksum in [true, false] {
        let mut buf = Vec::new();
        let opts = zeekstd::EncodeOptions::new()
            .checksum_flag(checksum)
            .compression_level(3)
            .frame_size_policy(zeekstd::FrameSizePolicy::Uncompressed(3000));
        let mut enc = zeekstd::Encoder::with_opts(&mut buf, opts).unwrap();
        enc.write_all(&data).unwrap();
        enc.finish().unwrap();
        archives.push((format!("zeekstd-{checksum}.zst"), buf));
    }
    let cut = [0, 1, 77_777, 77_777, 200_000, data.len()];
    let pieces: Vec<&[u8]> = cut.windows(2).map(|w| &data[w[0]..w[1]]).collect();
    archives.push(("hand-built.zst".to_string(), hand_built(&pieces)));
    for (name, bytes) in archives {
        let path = dir.path().join(&name);
        std::fs::write(&path, &bytes).unwrap();
        let o = lidx([
            os("index"),
            os("-q"),
            os("--spacing"),
            os("2048"),
            os(&path),
        ]);
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
        let index = lidx::Index::open(&path).unwrap();
        check_index(&index, &m, 2048, Depth::default(), 7, &name);
        if zstd {
            assert!(zstd_dc(&path).1 == data, "{name}: zstd -dc");
        }
        let mut rng = Rng::new(8);
        for _ in 0..4 {
            let a = 1 + rng.below(m.line_count());
            let b = a + rng.below(300);
            let o = lidx([os("lines"), os(&path), os(format!("{a}:{b}"))]);
            assert_eq!(o.code, 0, "{name}");
            let n = m.line_count();
            assert!(o.stdout == m.render(&(a - 1..b.min(n)), false), "{name}");
            if zstd && sed {
                assert!(
                    o.stdout == zstd_sed(&path, &format!("{a},{b}p")),
                    "{name}: sed"
                );
            }
        }
        let o = lidx([os("verify"), os("--full"), os(&path)]);
        assert_eq!(o.code, 0, "{name}: verify: {}", o.stderr);
    }
}

/// A plain `.zst` (one frame, no seek table) and a seekable archive cut
/// short are refused with one line that names the file and `lidx pack`;
/// nothing is printed and no sidecar is written.
#[test]
fn plain_and_truncated_zst_are_refused_naming_pack() {
    let dir = tempfile::tempdir().unwrap();
    let data = text(9, 200_000, 0, 0, false);
    let file = dir.path().join("a.log");
    std::fs::write(&file, &data).unwrap();
    let mut cases = vec![("crate.zst", zstd::bulk::compress(&data, 3).unwrap())];
    if have_tool("zstd", "a plain .zst made by zstd") {
        let o = Command::new("zstd")
            .args(["-q", "-f", "-3"])
            .arg(&file)
            .arg("-o")
            .arg(dir.path().join("cli.zst"))
            .status()
            .unwrap();
        assert!(o.success());
        cases.push((
            "cli.zst",
            std::fs::read(dir.path().join("cli.zst")).unwrap(),
        ));
    }
    let packed = dir.path().join("packed.zst");
    pack(&file, &packed, &["--frame", "8192"]);
    let whole = std::fs::read(&packed).unwrap();
    for cut in [whole.len() - 1, whole.len() - 9, whole.len() / 2, 5] {
        cases.push(("cut.zst", whole[..cut].to_vec()));
    }
    for (name, bytes) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        for cmd in ["lines", "count", "index"] {
            let mut a = vec![os(cmd), os(&path)];
            if cmd == "lines" {
                a.push(os("1"));
            }
            let o = crate::run::lidx_with(&a, Rules::SILENT_ERROR);
            assert_eq!(o.code, 2, "{name} {cmd}: {}", o.stderr);
            assert!(
                o.stderr.contains(&path.display().to_string())
                    && o.stderr.contains("zstd")
                    && o.stderr.contains("`lidx pack`"),
                "{name} {cmd}: {}",
                o.stderr
            );
            assert!(!dir.path().join(format!("{name}.lidx")).exists());
        }
    }
}

/// Bit flips in a packed archive: a fresh build refuses the archive or
/// answers as its text; under an existing sidecar (the modification time
/// restored, so the fingerprint holds where it does not hash), every read
/// is the right text or a one-line error naming the file: never a wrong
/// line. A changed seek table size is refused the same way.
#[test]
fn damaged_frames_are_errors_never_wrong_lines() {
    let zstd = have_tool("zstd", "zstd -dc | sed oracle of damage");
    let sed = have_tool("sed", "zstd -dc | sed oracle of damage");
    let dir = tempfile::tempdir().unwrap();
    let data = text(10, 2_500_000, 0, 0, true);
    let m = Model::new(data.clone());
    let n = m.line_count();
    let file = dir.path().join("d.log");
    std::fs::write(&file, &data).unwrap();
    let good = dir.path().join("good.zst");
    pack(&file, &good, &["--frame", "16384", "--level", "-5"]);
    let bytes = std::fs::read(&good).unwrap();
    let fs = frames(&good);
    let table_at = fs.last().map(|f| f.comp + f.comp_len as u64).unwrap() as usize;
    let mut rng = Rng::new(11);
    let mut errors = 0;
    for k in 0..24 {
        // Away from the head and tail that the fingerprint hashes, into a
        // frame; the last few into the seek table.
        let at = if k < 20 {
            assert!(table_at > 4 * 65_536, "an archive of {table_at} bytes");
            65_536 + rng.below((table_at - 2 * 65_536) as u64) as usize
        } else {
            table_at + 8 + rng.below(16) as usize
        };
        let path = dir.path().join(format!("flip{k}.zst"));
        pack(
            &file,
            &path,
            &["--frame", "16384", "--level", "-5", "--force"],
        );
        let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
        let mut b = std::fs::read(&path).unwrap();
        b[at] ^= 1 << rng.below(8);
        std::fs::write(&path, &b).unwrap();
        set_mtime(&path, mtime);
        let ctx = format!("flip at {at}");
        for _ in 0..3 {
            let a = 1 + rng.below(n);
            let e = a + rng.below(2000);
            let o = lidx([os("lines"), os(&path), os(format!("{a}:{e}"))]);
            let want = m.render(&(a - 1..e.min(n)), false);
            match o.code {
                0 => assert!(o.stdout == want, "{ctx}: lines {a}:{e} wrong"),
                2 => {
                    errors += 1;
                    assert!(want.starts_with(&o.stdout), "{ctx}: a wrong prefix");
                    assert!(
                        o.stderr.contains(&path.display().to_string()),
                        "{ctx}: {}",
                        o.stderr
                    );
                }
                c => panic!("{ctx}: exit {c}"),
            }
        }
        // The whole text: grep -c '' counts every line, or fails.
        let o = lidx([os("grep"), os("-c"), os(""), os(&path)]);
        assert!(
            (o.code == 0 && o.stdout == format!("{n}\n").into_bytes()) || o.code == 2,
            "{ctx}: grep -c: {} {}",
            o.code,
            o.stderr
        );
        // A fresh build: the damage is found, or the text is the same
        // (zstd -dc agrees either way).
        let o = lidx([os("index"), os("-q"), os("--force"), os(&path)]);
        if o.code == 0 {
            let o = lidx([os("lines"), os(&path), os("1:")]);
            assert!(o.stdout == m.render(&(0..n), false), "{ctx}: rebuilt");
            if zstd && sed {
                assert!(zstd_dc(&path).1 == data, "{ctx}: zstd -dc agrees");
            }
        } else {
            assert!(
                o.stderr.contains("damaged zstd seekable archive"),
                "{ctx}: {}",
                o.stderr
            );
        }
    }
    assert!(errors > 10, "flips were found: {errors}");
    // A seek table entry that disagrees with its frame: refused.
    let path = dir.path().join("table.zst");
    let mut b = bytes.clone();
    let entry = table_at + 8;
    let c = u32::from_le_bytes(b[entry..entry + 4].try_into().unwrap());
    b[entry..entry + 4].copy_from_slice(&(c + 1).to_le_bytes());
    std::fs::write(&path, &b).unwrap();
    let o = crate::run::lidx_with([os("count"), os(&path)], Rules::SILENT_ERROR);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("damaged zstd seekable archive"),
        "{}",
        o.stderr
    );
}

/// Another seekable archive appended to an indexed one (`cat b.zst >>
/// a.zst`, spec §13.1 R-121): `zstd -d` reads both, the next query says the
/// index was extended and answers as both texts; a follower reports only
/// the appended lines.
#[test]
fn appended_archives_extend_and_follow() {
    let dir = tempfile::tempdir().unwrap();
    let a = text(12, 300_000, 0, 0, false);
    let b = text(13, 200_000, 0, 0, true);
    let (fa, fb) = (dir.path().join("a.log"), dir.path().join("b.log"));
    std::fs::write(&fa, &a).unwrap();
    std::fs::write(&fb, &b).unwrap();
    let (za, zb) = (dir.path().join("app.zst"), dir.path().join("b.zst"));
    pack(&fa, &za, &["--frame", "32768"]);
    pack(&fb, &zb, &["--frame", "32768"]);
    let na = Model::new(a.clone()).line_count();
    let oo = lidx::OpenOptions::new();
    let mut f = lidx::Follower::new(&za, na, &oo).unwrap();
    assert_eq!(f.poll_index().unwrap().0, lidx::FollowEvent::Idle);
    let mut file = std::fs::OpenOptions::new().append(true).open(&za).unwrap();
    file.write_all(&std::fs::read(&zb).unwrap()).unwrap();
    drop(file);
    let mut both = a.clone();
    both.extend(&b);
    let m = Model::new(both.clone());
    if have_tool("zstd", "zstd -dc of appended archives") {
        assert!(zstd_dc(&za).1 == both, "zstd -dc reads both");
    }
    let mut out = Vec::new();
    let e = f.poll(false, &mut out).unwrap();
    // The last line of b has no newline: not complete, not reported yet.
    let nb_complete = Model::new(b.clone()).line_count() - 1;
    assert_eq!(e, lidx::FollowEvent::Lines(nb_complete));
    assert!(
        out == b[..b.len() - b"the last line, without a newline".len()],
        "follower"
    );
    let o = lidx([os("count"), os(&za)]);
    assert_eq!(o.stdout, format!("{}\n", m.line_count()).into_bytes());
    let index = lidx::Index::open(&za).unwrap();
    check_index(&index, &m, 65536, Depth::default(), 13, "appended");
    let o = lidx([os("verify"), os("--full"), os(&za)]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    // Through the binary from scratch: "extended".
    std::fs::remove_file(dir.path().join("app.zst.lidx")).unwrap();
    pack(&fa, &za, &["--frame", "32768", "--force"]);
    let mut file = std::fs::OpenOptions::new().append(true).open(&za).unwrap();
    file.write_all(&std::fs::read(&zb).unwrap()).unwrap();
    drop(file);
    let o = lidx([os("count"), os(&za)]);
    assert_eq!(o.stdout, format!("{}\n", m.line_count()).into_bytes());
    assert!(
        o.stderr.contains("extended (the file grew)"),
        "{}",
        o.stderr
    );
    // The extension equals a fresh build, byte for byte (the same file,
    // the same modification time).
    let extended = std::fs::read(dir.path().join("app.zst.lidx")).unwrap();
    let o = lidx([os("index"), os("-q"), os("--force"), os(&za)]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        std::fs::read(dir.path().join("app.zst.lidx")).unwrap() == extended,
        "an extension differs from a fresh build"
    );
}

/// Extension after an appended archive equals a fresh build for every
/// place of the old archive's last checkpoint: small spacings and frames,
/// in process.
#[test]
fn extension_equals_a_fresh_build() {
    let dir = tempfile::tempdir().unwrap();
    for (k, (spacing, frame, ragged)) in [(64u64, 300u64, false), (1000, 5000, true), (7, 50, true)]
        .into_iter()
        .enumerate()
    {
        let a = text(20 + k as u64, 40_000, 2_000, 13, ragged);
        let b = text(30 + k as u64, 30_000, 0, 0, true);
        let (fa, fb) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&fa, &a).unwrap();
        std::fs::write(&fb, &b).unwrap();
        let za = dir.path().join(format!("x{k}.zst"));
        let zb = dir.path().join(format!("y{k}.zst"));
        let (s, f) = (spacing.to_string(), frame.to_string());
        pack(&fa, &za, &["--spacing", &s, "--frame", &f]);
        pack(&fb, &zb, &["--spacing", &s, "--frame", &f]);
        let mut file = std::fs::OpenOptions::new().append(true).open(&za).unwrap();
        file.write_all(&std::fs::read(&zb).unwrap()).unwrap();
        drop(file);
        let opened = lidx::OpenOptions::new().open(&za).unwrap();
        assert_eq!(opened.action, lidx::Action::Extended, "case {k}");
        let mut both = a.clone();
        both.extend(&b);
        check_index(
            &opened.index,
            &Model::new(both),
            spacing,
            Depth::default(),
            1,
            "ext",
        );
        let sidecar = dir.path().join(format!("x{k}.zst.lidx"));
        let extended = std::fs::read(&sidecar).unwrap();
        lidx::OpenOptions::new()
            .force(true)
            .spacing(spacing)
            .open(&za)
            .unwrap();
        assert!(std::fs::read(&sidecar).unwrap() == extended, "case {k}");
    }
}

/// `lidx pack`'s own errors are one line: a missing file, an existing
/// output without --force, a bad level or frame size; nothing is left.
#[test]
fn pack_errors_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.log");
    std::fs::write(&file, b"a\nb\n").unwrap();
    let out = dir.path().join("x.log.zst");
    let run = |extra: &[&str]| {
        let mut a = vec![os("pack")];
        a.extend(extra.iter().map(os));
        crate::run::lidx_with(&a, Rules::SILENT_ERROR)
    };
    let missing = dir.path().join("nope.log");
    let o = run(&[missing.to_str().unwrap()]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("nope.log"), "{}", o.stderr);
    for bad in [["--level", "99"], ["--frame", "0"], ["-j", "0"]] {
        let o = run(&[bad[0], bad[1], file.to_str().unwrap()]);
        assert_eq!(o.code, 2, "{bad:?}");
    }
    assert!(!out.exists());
    let o = run(&[file.to_str().unwrap()]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(out.exists() && dir.path().join("x.log.zst.lidx").exists());
    let o = run(&[file.to_str().unwrap()]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("already exists"), "{}", o.stderr);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.contains(".tmp-")), "{names:?}");
}

/// Issue 21, items 12 and 13: a copy of a packed archive (another
/// modification time) is proven by its frames' content checksums, not
/// decoded whole; a damaged copy still answers the lines its intact frames
/// hold (with its sidecar, every frame but the damaged one; without, the
/// complete lines before it) and refuses the others, never a wrong line.
#[test]
fn copies_are_checked_by_frame_checksums_and_damage_keeps_intact_frames() {
    let dir = tempfile::tempdir().unwrap();
    let data = text(21, 1_500_000, 0, 0, false);
    let m = Model::new(data.clone());
    let n = m.line_count();
    let file = dir.path().join("c.log");
    std::fs::write(&file, &data).unwrap();
    let packed = dir.path().join("c.log.zst");
    pack(&file, &packed, &["--frame", "16384"]);
    let copy = dir.path().join("copy.log.zst");
    std::fs::copy(&packed, &copy).unwrap();
    std::fs::copy(
        dir.path().join("c.log.zst.lidx"),
        dir.path().join("copy.log.zst.lidx"),
    )
    .unwrap();
    set_mtime(
        &copy,
        std::time::SystemTime::now() + std::time::Duration::from_secs(60),
    );
    let o = lidx([os("info"), os("--json"), os(&copy)]);
    assert!(
        o.stdout_str().contains("zstd frame checksums"),
        "{}",
        o.stdout_str()
    );
    // Damage inside a frame in the middle (not its last 4 bytes, not the
    // fingerprint's blocks).
    let fs = frames(&packed);
    let k = fs.len() / 2;
    let f = fs[k];
    assert!(
        f.comp > 65_536
            && f.comp + (f.comp_len as u64) < std::fs::metadata(&packed).unwrap().len() - 65_536
    );
    let mut b = std::fs::read(&packed).unwrap();
    b[(f.comp + f.comp_len as u64 / 2) as usize] ^= 0x20;
    std::fs::write(&copy, &b).unwrap();
    set_mtime(
        &copy,
        std::time::SystemTime::now() + std::time::Duration::from_secs(120),
    );
    let line_of = |off: u64| m.line_at(off).unwrap();
    let before = line_of(f.uncomp.saturating_sub(1));
    let inside = line_of(f.uncomp + f.text_len as u64 / 2);
    let after = line_of(fs[k + 1].uncomp + 10).min(n - 1);
    let lines = |l: u64| lidx([os("lines"), os(&copy), os(format!("{}", l + 1))]);
    for (sidecar, l, ok) in [
        (true, before, true),
        (true, inside, false),
        (true, after, true),
        (false, 0, true),
        (false, before - 1, true),
        (false, inside, false),
        (false, after, false),
    ] {
        if !sidecar {
            let _ = std::fs::remove_file(dir.path().join("copy.log.zst.lidx"));
        }
        let o = lines(l);
        let ctx = format!("sidecar {sidecar}, line {}", l + 1);
        if ok {
            assert_eq!(o.code, 0, "{ctx}: {}", o.stderr);
            assert_eq!(o.stdout, m.bytes(m.span(l)), "{ctx}");
        } else {
            assert_eq!(o.code, 2, "{ctx}: {}", o.stdout_str());
            assert!(
                o.stdout.is_empty() && o.stderr.contains("copy.log.zst"),
                "{ctx}: {}",
                o.stderr
            );
        }
    }
    // Nothing was written for the damaged archive.
    assert!(!dir.path().join("copy.log.zst.lidx").exists());
}
