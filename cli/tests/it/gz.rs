//! gzip sources end to end: archives made by `gzip`, `pigz` and flate2
//! (stored, fast, default and best levels), with incompressible stretches,
//! several members (an empty one among them, boundaries exactly on span
//! boundaries), each indexed with a small span and spacing so that access
//! points and checkpoints abound; every answer is compared with the naive
//! model of the decompressed text ([`check_index`], a naive search), in
//! process and through the real binary (against the model, `zcat | sed`,
//! `zcat | rg`). Damaged archives (truncated, bit-flipped, flipped in place
//! under a fresh sidecar) are errors naming the file, never wrong lines;
//! the complete lines before the damage stay readable (a bad BGZF block,
//! a wrong header CRC, trailing garbage: judged against zcat). Zero
//! padding, GNU gzip's own test cases, other compression formats (refused
//! by name, checked with their own tools) and `--plain` are here too.
//!
//! Tools that are not on PATH are reported as `SKIPPED: ...` on stderr
//! (past the harness's capture) and their cases are left out; under
//! `LIDX_REQUIRE_TOOLS=1` a missing tool fails the test instead
//! ([`crate::run::missing_tool`]).

use crate::oracle::{Depth, Model, Rng, SearchHit, check_index, model_search};
use lidx::format::gzip::{self as fmt, ApRecord};
use lidx::format::{PAGE_HEADER_LEN, PageKind, Superblock};
use lidx::io::MemSource;
use lidx::search::{Kind, Line, Matcher, MatcherOptions, ScanOptions, Sink};
use lidx::{BuildOptions, Index};
use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::run::{Out, Rules};

/// The access-point span of the in-process cases: a 32nd of the default.
/// Access points are placed at block boundaries, so how many there are
/// also depends on the compressor's block sizes (zlib and miniz make blocks
/// of 70 to 300 KiB of this text; stored blocks hold 64 KiB; pigz and a
/// sync flush end a block at every flush).
const SPAN: u64 = 32 * 1024;

/// Checkpoint spacing of the in-process cases.
const SPACING: u64 = 1024;

// ---------------------------------------------------------------------
// Data and archives.

/// Log-like text of about `target` bytes: timestamped lines of mixed
/// lengths, some CRLF, a few empty lines, a few invalid UTF-8 bytes, lines
/// longer than the span at `longs` (offsets), and a final line without a
/// newline.
fn log_text(seed: u64, target: usize, longs: &[usize]) -> Vec<u8> {
    const LEVELS: &[&str] = &["INFO", "DEBUG", "WARN", "ERROR", "TRACE"];
    const WORDS: &[&str] = &[
        "request",
        "served",
        "timeout",
        "cache",
        "miss",
        "user=alice",
        "user=bob",
        "retry",
        "upstream",
        "connection reset",
        "GET /index.html",
        "POST /api/v2/items",
        "took",
    ];
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(target + 300_000);
    let mut li = 0;
    let mut n = 0u64;
    while out.len() < target {
        n += 1;
        if li < longs.len() && out.len() >= longs[li] {
            let len = 70_000 + 40_000 * li;
            out.extend(format!("{n:08} LONG ").as_bytes());
            while out.len() < longs[li] + len {
                out.extend(WORDS[rng.below(WORDS.len() as u64) as usize].as_bytes());
                out.extend(format!(" {} ", rng.below(100_000)).as_bytes());
            }
            li += 1;
            out.extend(b"ERROR end of long line\n");
            continue;
        }
        match rng.below(100) {
            0 => {
                out.push(b'\n');
                continue;
            }
            1 => out.extend(b"\xff\xfe odd bytes \xc3\x28"),
            _ => {}
        }
        out.extend(
            format!(
                "2024-05-{:02}T{:02}:{:02}:{:02}.{:03}Z {} [worker-{}]",
                1 + rng.below(28),
                rng.below(24),
                rng.below(60),
                rng.below(60),
                rng.below(1000),
                LEVELS[rng.below(LEVELS.len() as u64) as usize],
                rng.below(16)
            )
            .as_bytes(),
        );
        if rng.below(3) > 0 {
            out.extend(format!(" req={:012x}", rng.next_u64() >> 16).as_bytes());
        }
        for _ in 0..rng.below(14) {
            out.push(b' ');
            out.extend(WORDS[rng.below(WORDS.len() as u64) as usize].as_bytes());
        }
        if rng.below(4) == 0 {
            out.extend(format!(" timeout={}ms", rng.below(5000)).as_bytes());
        }
        if rng.below(40) == 0 {
            out.push(b'\r');
        }
        out.push(b'\n');
    }
    out.extend(b"final line without newline ERROR 42");
    out
}

/// `n` bytes of noise (deflate keeps them in stored blocks).
fn noise(seed: u64, n: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.next_u64() as u8).collect()
}

fn flate(data: &[u8], level: u32) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// True when `tool --version` runs; otherwise the missing-tool rule of
/// [`crate::run::missing_tool`] (SKIPPED, or a failure in CI).
fn have(tool: &str) -> bool {
    crate::run::have_tool(tool, "the gz comparisons that use it")
}

/// Runs `name args` with `stdin` fed from a thread; returns stdout and the
/// exit status.
fn pipe(name: &str, args: &[&OsStr], stdin: &[u8]) -> (i32, Vec<u8>) {
    let mut child = Command::new(name)
        .args(args)
        .env("LC_ALL", "C")
        .env_remove("RIPGREP_CONFIG_PATH")
        .env_remove("GZIP")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let o = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    (o.status.code().unwrap_or(-1), o.stdout)
}

/// `tool args < data`, or `None` (after a SKIPPED note) when `tool` is
/// missing.
fn compress_with(tool: &str, args: &[&str], data: &[u8]) -> Option<Vec<u8>> {
    if !have(tool) {
        return None;
    }
    let mut a: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    a.push(OsStr::new("-c"));
    let (code, out) = pipe(tool, &a, data);
    assert_eq!(code, 0, "{tool} {args:?} failed");
    Some(out)
}

/// Length of the member header at the start of `archive` (flags as
/// written by gzip, pigz and flate2).
fn header_len(archive: &[u8]) -> usize {
    assert_eq!(&archive[..3], b"\x1f\x8b\x08");
    let flg = archive[3];
    let mut at = 10;
    if flg & 4 != 0 {
        at += 2 + u16::from_le_bytes([archive[10], archive[11]]) as usize;
    }
    for bit in [8, 16] {
        if flg & bit != 0 {
            at += archive[at..].iter().position(|&b| b == 0).unwrap() + 1;
        }
    }
    if flg & 2 != 0 {
        at += 2;
    }
    at
}

// ---------------------------------------------------------------------
// In-process checks against the model.

struct Collect(Vec<SearchHit>);

impl Sink for Collect {
    fn line(&mut self, l: &Line<'_>) -> lidx::Result<bool> {
        self.0.push(SearchHit {
            kind: l.kind,
            number: l.number,
            offset: l.offset,
            bytes: l.bytes.to_vec(),
        });
        Ok(true)
    }
}

const PATTERNS: &[&str] = &[
    "ERROR",
    r"timeout=[0-9]{4}ms$",
    "^$",
    r"\r$",
    r"^[0-9]{8} LONG",
    "worker-1[0-5]] (INFO|WARN) served",
];

/// Random line ranges over `n` lines, plus the whole text and the ends.
fn random_ranges(rng: &mut Rng, n: u64, count: usize) -> Vec<Range<u64>> {
    let mut v = vec![0..n, 0..1, n.saturating_sub(3)..n + 2, n..n + 1];
    for _ in 0..count {
        let a = rng.below(n + 1);
        let len = match rng.below(3) {
            0 => rng.below(5),
            1 => rng.below(300),
            _ => rng.below(5000),
        };
        v.push(a..a + len);
    }
    v
}

/// `Index::search` over random line ranges with every pattern, against
/// [`model_search`]; returns the number of searches made.
fn check_search(index: &Index, m: &Model, rng: &mut Rng, ranges: usize, ctx: &str) -> usize {
    let n = m.line_count();
    let opts = [
        ScanOptions::default(),
        ScanOptions {
            invert: true,
            before: 1,
            after: 2,
            max_count: Some(40),
            ..ScanOptions::default()
        },
    ];
    let mut total = 0;
    for (pi, p) in PATTERNS.iter().enumerate() {
        let matcher = Matcher::new(&[p.to_string()], &MatcherOptions::default()).unwrap();
        let re = regex::bytes::Regex::new(p).unwrap();
        for r in random_ranges(rng, n, ranges) {
            let o = &opts[(pi + r.start as usize) % 2];
            let want = model_search(m, r.clone(), &re, o);
            let mut sink = Collect(Vec::new());
            let selected = index
                .search(r.clone(), &matcher, o, &mut sink)
                .unwrap_or_else(|e| panic!("{ctx}: search({r:?}, {p:?}): {e}"));
            let want_selected = want.iter().filter(|h| h.kind == Kind::Match).count() as u64;
            if sink.0 != want {
                let i = sink.0.iter().zip(&want).take_while(|(a, b)| a == b).count();
                panic!(
                    "{ctx}: search({r:?}, {p:?}, {o:?}): {} lines reported, the model has {}; \
                     first difference #{i}: got {:?}, want {:?}",
                    sink.0.len(),
                    want.len(),
                    sink.0.get(i).map(|h| (h.kind, h.number, h.offset)),
                    want.get(i).map(|h| (h.kind, h.number, h.offset)),
                );
            }
            assert_eq!(selected, want_selected, "{ctx}: search({r:?}, {p:?}) count");
            total += 1;
        }
    }
    total
}

/// Reads of random lengths at random offsets through `index.source()` (the
/// decompressed text), crossing spans, against `text`.
fn check_reads(index: &Index, text: &[u8], rng: &mut Rng, count: usize, ctx: &str) {
    let len = text.len() as u64;
    let mut buf = vec![0u8; 3 * SPAN as usize];
    for i in 0..count {
        let off = match i % 4 {
            0 => rng.below(len + 2),
            // Just before, at and after a span boundary.
            1 => (rng.below(len / SPAN + 1) * SPAN).saturating_sub(rng.below(3)),
            _ => rng.below(len.max(1)),
        };
        let want = 1 + rng.below(buf.len() as u64) as usize;
        let n = index
            .source()
            .read_full_at(&mut buf[..want], off)
            .unwrap_or_else(|e| panic!("{ctx}: read {want} at {off}: {e}"));
        let s = (off as usize).min(text.len());
        let e = (off as usize + want).min(text.len());
        assert!(
            buf[..n] == text[s..e],
            "{ctx}: read {want} at {off}: {n} bytes, differ from the text"
        );
    }
}

/// Builds the sidecar of `archive` in memory with `span` and `spacing`,
/// then asks everything against the model of `text`: [`check_index`]
/// (lines, offsets, ranges, read_lines, write_lines), raw reads, searches;
/// then again a subset through an index whose span cache holds two spans,
/// so almost every query decodes from an access point.
/// `members` lists every member's start as (text offset, byte offset of
/// its deflate data); empty for a single member. Returns the number of
/// access points.
fn check_archive(
    name: &str,
    archive: &[u8],
    text: &[u8],
    span: u64,
    spacing: u64,
    seed: u64,
    members: &[(u64, u64)],
) -> u64 {
    let opts = BuildOptions {
        span,
        spacing,
        ..BuildOptions::default()
    };
    let sidecar = lidx::build_to_vec(&MemSource::new(archive.to_vec()), &opts)
        .unwrap_or_else(|e| panic!("{name}: build: {e}"));
    let open = |cache: usize| {
        Index::from_parts(
            Box::new(MemSource::new(archive.to_vec())),
            Box::new(MemSource::new(sidecar.clone())),
            (0, 0),
            cache,
        )
        .unwrap_or_else(|e| panic!("{name}: open: {e}"))
    };
    let index = open(lidx::DEFAULT_CACHE_BYTES);
    let sb = index.superblock().clone();
    assert_eq!(sb.gzip.text_len, text.len() as u64, "{name}: text_len");
    assert_eq!(sb.gzip.span as u64, span, "{name}: span");
    assert_eq!(sb.fingerprint.size, archive.len() as u64, "{name}: size");
    // At least one access point per block of text, whatever the blocks.
    let min_aps = if text.len() > 1 << 20 { 4 } else { 1 };
    assert!(
        sb.gzip.ap_count >= min_aps,
        "{name}: {} access points for {} bytes of text",
        sb.gzip.ap_count,
        text.len()
    );
    let single = [(0, header_len(archive) as u64)];
    let members = if members.is_empty() {
        &single[..]
    } else {
        members
    };
    check_access_points(name, &sidecar, archive, text, span, members);
    let m = Model::new(text.to_vec());
    let depth = Depth {
        all_lines_up_to: 1000,
        all_offsets_up_to: 4096,
        samples: 300,
        ranges: 50,
    };
    check_index(&index, &m, spacing, depth, seed, name);
    let mut rng = Rng::new(seed ^ 0x5eed);
    check_reads(&index, text, &mut rng, 120, name);
    let searches = check_search(&index, &m, &mut rng, 12, name);
    assert_eq!(searches, PATTERNS.len() * 16, "{name}: searches made");

    // Two spans of cache: queries in random order decode again and again.
    let small = open(1);
    let n = m.line_count();
    let mut buf = lidx::LineBuf::new();
    for r in random_ranges(&mut rng, n, 40) {
        let got = small
            .read_lines(r.clone(), &mut buf)
            .unwrap_or_else(|e| panic!("{name}: small cache: read_lines({r:?}): {e}"));
        assert_eq!(got, m.lines(&r).len(), "{name}: small cache: {r:?}");
        assert!(
            buf.bytes() == m.bytes(m.lines_span(&r)),
            "{name}: small cache: read_lines({r:?}) bytes"
        );
    }
    for _ in 0..40 {
        let o = rng.below(m.len().max(1));
        if o < m.len() {
            assert_eq!(
                small.line_at(o).unwrap(),
                m.line_at(o).unwrap(),
                "{name}: small cache: line_at({o})"
            );
        }
    }
    check_reads(&small, text, &mut rng, 30, &format!("{name} (small cache)"));
    sb.gzip.ap_count as u64
}

/// The access-point records stored in `sidecar`, read straight from its
/// pages.
fn stored_aps(sidecar: &[u8]) -> Vec<ApRecord> {
    let sb = Superblock::decode(&sidecar[..256]).expect("superblock");
    let ps = sb.page_size as usize;
    let per = fmt::records_per_page(sb.page_size);
    let mut out = Vec::new();
    for id in sb.gzip.ap_first_page..sb.gzip.ap_first_page + sb.gzip.ap_pages {
        let page = &sidecar[id as usize * ps..(id as usize + 1) * ps];
        let n = fmt::check_page(page, PageKind::AccessPoints, id, per).expect("AP page");
        for k in 0..n {
            let at = PAGE_HEADER_LEN + k * fmt::AP_RECORD_LEN;
            out.push(ApRecord::decode(&page[at..at + fmt::AP_RECORD_LEN]));
        }
    }
    assert_eq!(out.len(), sb.gzip.ap_count as usize, "AP count");
    out
}

/// The stored access points against what the archive is known to hold:
/// the first at 0; increasing; `span` apart unless at a member start; one
/// at every member start (the first member there when several start at the
/// same offset, as after an empty one), flagged, at the byte where the
/// member's deflate data starts; each window the (up to) 32 KiB of text
/// before it within its member, decompressed from the blob stream, with
/// the bytes its span never copies zeroed (spec R-119): every byte is the
/// text's or zero, and decoding the whole span from the access point with
/// that sparse window, by an independent decoder (`miniz_oxide`, not the
/// zlib-rs that lidx decodes with), gives the text byte for byte.
fn check_access_points(
    name: &str,
    sidecar: &[u8],
    archive: &[u8],
    text: &[u8],
    span: u64,
    members: &[(u64, u64)],
) {
    let sb = Superblock::decode(&sidecar[..256]).expect("superblock");
    let aps = stored_aps(sidecar);
    assert_eq!(aps[0].uncomp, 0, "{name}: first access point");
    let payload = fmt::blob_payload(sb.page_size);
    let first_blob = (sb.gzip.ap_first_page + sb.gzip.ap_pages) as usize;
    let ps = sb.page_size as usize;
    let mut blobs = Vec::new();
    for id in first_blob..first_blob + sb.gzip.blob_pages as usize {
        let page = &sidecar[id * ps..(id + 1) * ps];
        let n = fmt::check_page(page, PageKind::Blob, id as u32, payload).expect("blob page");
        blobs.extend_from_slice(&page[PAGE_HEADER_LEN..PAGE_HEADER_LEN + n]);
    }
    for (i, ap) in aps.iter().enumerate() {
        let ctx = format!("{name}: access point {i} {ap:?}");
        let flagged = ap.flags & fmt::AP_MEMBER_START != 0;
        assert!(ap.uncomp <= text.len() as u64, "{ctx}: past the text");
        if i > 0 {
            let prev = aps[i - 1].uncomp;
            assert!(ap.uncomp > prev, "{ctx}: not after {prev}");
            assert!(
                flagged || ap.uncomp >= prev + span,
                "{ctx}: closer than a span to {prev}"
            );
        }
        let member = members.partition_point(|m| m.0 <= ap.uncomp) - 1;
        let first_here = members.partition_point(|m| m.0 < ap.uncomp);
        if flagged {
            assert_eq!(
                members[first_here].0, ap.uncomp,
                "{ctx}: not a member start"
            );
            assert_eq!(
                ap.comp_bit,
                8 * members[first_here].1,
                "{ctx}: not where the member's deflate data starts"
            );
        }
        let start = if flagged {
            ap.uncomp
        } else {
            members[member].0
        };
        let want = (ap.uncomp - start).min(32 * 1024) as usize;
        assert_eq!(ap.window_len as usize, want, "{ctx}: window length");
        let mut window = Vec::new();
        if ap.blob_len > 0 {
            let blob =
                &blobs[ap.blob_offset as usize..(ap.blob_offset + ap.blob_len as u64) as usize];
            std::io::Read::read_to_end(&mut flate2::read::DeflateDecoder::new(blob), &mut window)
                .unwrap_or_else(|e| panic!("{ctx}: window: {e}"));
        }
        let u = ap.uncomp as usize;
        assert_eq!(window.len(), want, "{ctx}: window length");
        assert!(
            window
                .iter()
                .zip(&text[u - want..u])
                .all(|(&w, &t)| w == t || w == 0),
            "{ctx}: a window byte is neither the text's nor zero"
        );
        // The span, up to the next access point or its member's end.
        let next = aps.get(i + 1).map_or(text.len(), |a| a.uncomp as usize);
        // The member whose deflate data holds the access point (an empty
        // member's span ends where it starts).
        let k = members.partition_point(|m| 8 * m.1 <= ap.comp_bit) - 1;
        let member_end = members.get(k + 1).map_or(text.len(), |m| m.0 as usize);
        let end = next.min(member_end);
        let got = decode_span(archive, ap.comp_bit, &window, end - u);
        assert!(
            got == text[u..end],
            "{ctx}: the span decoded with the sparse window differs from the text"
        );
    }
    for (k, &(u, c)) in members.iter().enumerate() {
        if k > 0 && members[k - 1].0 == u {
            continue;
        }
        let found = aps.iter().find(|a| a.uncomp == u);
        assert!(
            found.is_some_and(|a| a.flags & fmt::AP_MEMBER_START != 0 && a.comp_bit == 8 * c),
            "{name}: member {k} (text offset {u}, deflate at byte {c}): access point {found:?}"
        );
    }
}

/// Decodes `n` bytes of text from the deflate block at bit `comp_bit` of
/// `archive`, with `window` as the history, using `miniz_oxide` (spec
/// R-97: the block's first bits are the top bits of the byte before).
fn decode_span(archive: &[u8], comp_bit: u64, window: &[u8], n: usize) -> Vec<u8> {
    use miniz_oxide::inflate::TINFLStatus;
    use miniz_oxide::inflate::core::inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    use miniz_oxide::inflate::core::{BlockBoundaryState, DecompressorOxide, decompress};
    let k = ((8 - comp_bit % 8) % 8) as u8;
    let at = comp_bit.div_ceil(8) as usize;
    let st = BlockBoundaryState {
        num_bits: k,
        bit_buf: if k > 0 { archive[at - 1] >> (8 - k) } else { 0 },
        ..BlockBoundaryState::default()
    };
    let mut r = DecompressorOxide::from_block_boundary_state(&st);
    let mut out = window.to_vec();
    out.resize(window.len() + n, 0);
    let (status, _, produced) = decompress(
        &mut r,
        &archive[at..],
        &mut out,
        window.len(),
        TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF,
    );
    assert!(
        matches!(status, TINFLStatus::Done | TINFLStatus::HasMoreOutput),
        "decode at bit {comp_bit}: {status:?}"
    );
    out[window.len()..window.len() + produced.min(n)].to_vec()
}

/// Concatenated members: the archive and each member's (text offset, byte
/// offset of its deflate data).
fn members_of(pieces: &[(&[u8], Vec<u8>)]) -> (Vec<u8>, Vec<u8>, Vec<(u64, u64)>) {
    let (mut text, mut archive, mut starts) = (Vec::new(), Vec::new(), Vec::new());
    for (t, gz) in pieces {
        starts.push((text.len() as u64, (archive.len() + header_len(gz)) as u64));
        text.extend_from_slice(t);
        archive.extend_from_slice(gz);
    }
    (text, archive, starts)
}

/// Access points a text of `len` bytes must have at least when no deflate
/// block holds more than `block` bytes of it: one at the first boundary
/// after every `SPAN` bytes.
fn min_aps(len: usize, block: u64) -> u64 {
    (len as u64 / (SPAN + block)).saturating_sub(1)
}

/// The text most cases compress: 2 MiB of log lines with three lines longer
/// than the span.
fn standard_text() -> Vec<u8> {
    log_text(1, 2 << 20, &[300_000, 1_000_000, 1_700_000])
}

#[test]
fn gzip_and_pigz_archives_answer_as_their_text() {
    let text = standard_text();
    let mut cases = 0;
    for (tool, args, block) in [
        ("gzip", &["-1"][..], None),
        ("gzip", &["-6"][..], None),
        ("gzip", &["-9"][..], None),
        // 128 KiB is pigz's default block size; -i makes the blocks
        // independent (full flush, no shared dictionary).
        ("pigz", &["-b", "128"][..], Some(128 * 1024)),
        ("pigz", &["-b", "32", "-i"][..], Some(32 * 1024)),
    ] {
        let Some(archive) = compress_with(tool, args, &text) else {
            continue;
        };
        cases += 1;
        let name = format!("{tool} {args:?}");
        let aps = check_archive(&name, &archive, &text, SPAN, SPACING, cases, &[]);
        if let Some(block) = block {
            assert!(
                aps >= min_aps(text.len(), block),
                "{name}: {aps} access points"
            );
        }
    }
    if cases == 0 {
        crate::run::missing_tool("neither gzip nor pigz found: the command-line archive cases");
    }
}

#[test]
fn flate2_levels_answer_as_their_text() {
    let text = standard_text();
    for level in [0, 1, 6, 9] {
        let archive = flate(&text, level);
        let name = format!("flate2 level {level}");
        let aps = check_archive(
            &name,
            &archive,
            &text,
            SPAN,
            SPACING,
            10 + level as u64,
            &[],
        );
        if level == 0 {
            assert!(
                aps >= min_aps(text.len(), 65535),
                "{name}: {aps} access points"
            );
        }
    }
}

/// A sync flush every few KiB (as streaming loggers do) ends a block there
/// with an empty stored block: byte-aligned boundaries, about one access
/// point per span.
#[test]
fn sync_flushes_make_an_access_point_per_span() {
    let text = log_text(3, 1 << 20, &[500_000]);
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    let mut rng = Rng::new(3);
    let mut at = 0;
    while at < text.len() {
        let n = (1000 + rng.below(12_000) as usize).min(text.len() - at);
        e.write_all(&text[at..at + n]).unwrap();
        e.flush().unwrap();
        at += n;
    }
    let archive = e.finish().unwrap();
    let aps = check_archive("sync flushes", &archive, &text, SPAN, 100, 14, &[]);
    // The long line compresses into one block of its own.
    assert!(aps >= min_aps(text.len(), 120_000), "{aps} access points");
}

#[test]
fn incompressible_stretches_make_stored_blocks() {
    let mut text = log_text(2, 400_000, &[]);
    text.pop();
    text.extend(b"\n");
    text.extend(noise(3, 500_000));
    text.extend(b"\nafter the noise\r\n");
    text.extend(log_text(4, 300_000, &[100_000]));
    text.extend(noise(5, 100_000));
    let archive = flate(&text, 6);
    check_archive("flate2 6, noise", &archive, &text, SPAN, SPACING, 21, &[]);
    if let Some(archive) = compress_with("pigz", &["-b", "128"], &text) {
        check_archive("pigz -b 128, noise", &archive, &text, SPAN, 300, 22, &[]);
    }
}

/// Members: `gzip -6` of a, pigz (or flate2) of b, an empty member, flate2
/// level 1 of c — and an empty member first and last.
#[test]
fn multi_member_archive_with_empty_members() {
    let whole = log_text(6, 1_500_000, &[700_000]);
    let (a, rest) = whole.split_at(400_123);
    let (b, c) = rest.split_at(500_000);
    let (text, mut archive, members) = members_of(&[
        (b"", flate(b"", 6)),
        (
            a,
            compress_with("gzip", &["-6"], a).unwrap_or_else(|| flate(a, 6)),
        ),
        (
            b,
            compress_with("pigz", &[], b).unwrap_or_else(|| flate(b, 9)),
        ),
        (b"", flate(b"", 9)),
        (c, flate(c, 1)),
        (b"", flate(b"", 1)),
    ]);
    assert!(text == whole);
    check_archive("members", &archive, &text, SPAN, SPACING, 31, &members);
    // Trailing zero padding (as tape archives leave) changes nothing.
    archive.extend([0u8; 512]);
    check_archive(
        "members + zero padding",
        &archive,
        &text,
        SPAN,
        333,
        32,
        &members,
    );
}

/// Member boundaries exactly on span boundaries (span 64 KiB): the first
/// member is exactly one span of text (ending inside a line), the second
/// too (stored, ending with a `\n`), then an empty member, then the rest.
#[test]
fn member_boundaries_on_span_boundaries() {
    const S: usize = 64 * 1024;
    let mut whole = log_text(7, 600_000, &[3 * S - 10]);
    assert_ne!(whole[S - 1], b'\n', "the first member ends inside a line");
    whole[2 * S - 1] = b'\n';
    let w = &whole;
    let (text, archive, members) = members_of(&[
        (&w[..S], flate(&w[..S], 6)),
        (&w[S..2 * S], flate(&w[S..2 * S], 0)),
        (b"", flate(b"", 6)),
        (&w[2 * S..3 * S], flate(&w[2 * S..3 * S], 9)),
        (&w[3 * S..], flate(&w[3 * S..], 1)),
    ]);
    assert!(&text == w);
    for (spacing, seed) in [(SPACING, 41), (S as u64, 42), (7, 43)] {
        check_archive(
            &format!("span-aligned members, spacing {spacing}"),
            &archive,
            &text,
            S as u64,
            spacing,
            seed,
            &members,
        );
    }
    // Tiny archives: only an empty member, one line without a newline.
    for (name, t) in [
        ("empty", &b""[..]),
        ("one line", &b"x\r"[..]),
        ("nl", b"\n"),
    ] {
        let mut archive = flate(t, 6);
        archive.extend(flate(b"", 1));
        let index = Index::build_in_memory(
            Box::new(MemSource::new(archive)),
            &BuildOptions {
                span: 1,
                spacing: 1,
                ..BuildOptions::default()
            },
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        check_index(
            &index,
            &Model::new(t.to_vec()),
            1,
            Depth::default(),
            5,
            name,
        );
    }
}

// ---------------------------------------------------------------------
// The real binary.

/// Runs `lidx ARGS` (stdin closed) and checks the CLI's rules
/// ([`crate::run::checked`]).
fn lidx<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Out {
    crate::run::lidx_with(args, Rules::STREAMING)
}

fn os(p: &Path) -> OsString {
    p.as_os_str().to_owned()
}

fn args(v: &[&str], file: &Path) -> Vec<OsString> {
    around(v, file, &[])
}

/// `before FILE after`.
fn around(before: &[&str], file: &Path, after: &[&str]) -> Vec<OsString> {
    let mut a: Vec<OsString> = before.iter().map(OsString::from).collect();
    a.push(os(file));
    a.extend(after.iter().map(OsString::from));
    a
}

/// What `lidx grep -n` prints for lines `first..=last` (1-based) of `m`
/// matching `re`: `N:` and the line, a `\n` added to a final line that has
/// none.
fn model_grep_n(m: &Model, first: u64, last: u64, re: &regex::bytes::Regex) -> Vec<u8> {
    let n = m.line_count();
    let mut out = Vec::new();
    for l in first.max(1) - 1..last.min(n) {
        let t = m.bytes(m.span(l));
        let bare = t.strip_suffix(b"\n").unwrap_or(t);
        if re.is_match(bare) {
            out.extend(format!("{}:", l + 1).as_bytes());
            out.extend(bare);
            out.push(b'\n');
        }
    }
    out
}

#[test]
fn the_binary_answers_as_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let text = log_text(8, 1_200_000, &[200_000]);
    let m = Model::new(text.clone());
    let n = m.line_count();
    let zcat = have("zcat");
    let sed = have("sed");
    let mut archives = vec![("flate2-9.log.gz", flate(&text, 9))];
    if let Some(mut a) = compress_with("pigz", &["-b", "128"], &text[..700_001]) {
        a.extend(flate(&text[700_001..], 1));
        archives.push(("pigz-members.log", a));
    }
    let mut rng = Rng::new(9);
    for (name, archive) in archives {
        let path = dir.path().join(name);
        std::fs::write(&path, &archive).unwrap();
        let o = lidx(args(
            &["index", "-q", "--spacing", "512", "--span", "65536"],
            &path,
        ));
        assert_eq!(o.code, 0, "{name}: index: {}", o.stderr);
        let o = lidx(args(&["count"], &path));
        assert_eq!(o.stdout, format!("{n}\n").into_bytes(), "{name}: count");
        if zcat {
            let (code, out) = pipe("zcat", &[path.as_os_str()], b"");
            assert_eq!(code, 0, "{name}: zcat");
            assert!(out == text, "{name}: zcat disagrees with the text");
        }
        for _ in 0..6 {
            let l = 1 + rng.below(n);
            let o = lidx(around(&["lines"], &path, &[&l.to_string()]));
            assert!(o.stdout == m.bytes(m.span(l - 1)), "{name}: lines {l}");
        }
        for _ in 0..3 {
            let a = 1 + rng.below(n);
            let b = a + rng.below(3000);
            let o = lidx(around(&["lines"], &path, &[&format!("{a}:{b}")]));
            let want = m.render(&(a - 1..b), false);
            assert!(o.stdout == want, "{name}: lines {a}:{b}");
            if zcat && sed {
                let (_, unzipped) = pipe("zcat", &[path.as_os_str()], b"");
                let script = format!("{a},{b}p");
                let (_, sed_out) = pipe("sed", &[OsStr::new("-n"), OsStr::new(&script)], &unzipped);
                assert!(o.stdout == sed_out, "{name}: lines {a}:{b} vs zcat | sed");
            }
        }
        for _ in 0..4 {
            let off = rng.below(m.len());
            let o = lidx(around(&["line-at"], &path, &[&off.to_string()]));
            let want = m.line_at(off).unwrap() + 1;
            assert_eq!(
                o.stdout,
                format!("{want}\n").into_bytes(),
                "{name}: line-at {off}"
            );
        }
        for p in ["ERROR", r"timeout=[0-9]{4}ms$", "^$", r"^[0-9]{8} LONG"] {
            let re = regex::bytes::Regex::new(p).unwrap();
            let a = 1 + rng.below(n);
            let b = a + rng.below(8000);
            let range = format!("{a}:{b}");
            let o = lidx(args(
                &["grep", "-n", "-j", "2", "--lines", &range, p],
                &path,
            ));
            let want = model_grep_n(&m, a, b, &re);
            assert_eq!(
                o.code,
                if want.is_empty() { 1 } else { 0 },
                "{name}: {p} {range}"
            );
            assert!(
                o.stdout == want,
                "{name}: grep -n --lines {range} {p:?}: {} bytes, the model {}",
                o.stdout.len(),
                want.len()
            );
        }
        let o = lidx(args(&["verify", "--full"], &path));
        assert_eq!(o.code, 0, "{name}: verify --full: {}", o.stderr);
    }
}

/// `lidx grep -j 1` and `-j 4` agree on a 12.5 MiB text in two members
/// (several 4 MiB work units, each starting inside some span), and equal
/// `zcat FILE | rg -n --no-heading -a PAT`.
#[test]
fn parallel_grep_on_gzip_equals_single_worker_and_rg() {
    let dir = tempfile::tempdir().unwrap();
    let text = log_text(10, 12 << 20 | 1 << 19, &[2 << 20, 9 << 20]);
    let cut = 7_000_003;
    let mut archive =
        compress_with("gzip", &["-1"], &text[..cut]).unwrap_or_else(|| flate(&text[..cut], 1));
    archive
        .extend(compress_with("pigz", &[], &text[cut..]).unwrap_or_else(|| flate(&text[cut..], 1)));
    let path = dir.path().join("big.log.gz");
    std::fs::write(&path, &archive).unwrap();
    let o = lidx(args(
        &["index", "-q", "--spacing", "4096", "--span", "262144"],
        &path,
    ));
    assert_eq!(o.code, 0, "index: {}", o.stderr);
    let rg = have("rg");
    let unzipped = if have("zcat") {
        let (code, out) = pipe("zcat", &[path.as_os_str()], b"");
        assert_eq!(code, 0, "zcat");
        assert!(out == text, "zcat disagrees with the text");
        out
    } else {
        text.clone()
    };
    let m = Model::new(text.clone());
    let table: &[(&[&str], &str)] = &[
        (&[], r"ERROR end of long line|timeout=49[0-9]{2}ms"),
        (&["-c"], "ERROR"),
        (&["-c", "-v"], "worker"),
        (&["-m", "7"], "^$"),
        (&["-b"], r"\r$"),
    ];
    for &(flags, pat) in table {
        let run = |j: &str, extra: &[&str]| {
            let mut v: Vec<&str> = vec!["grep", "-n", "-j", j];
            v.extend(extra);
            v.extend(flags);
            v.push(pat);
            lidx(args(&v, &path))
        };
        let one = run("1", &[]);
        let four = run("4", &[]);
        assert_eq!(one.code, four.code, "{flags:?} {pat}: exit -j 1 vs -j 4");
        assert!(
            one.stdout == four.stdout,
            "{flags:?} {pat}: -j 1 vs -j 4 output"
        );
        assert_eq!(one.code, 0, "{flags:?} {pat}: {}", one.stderr);
        if flags.is_empty() {
            let re = regex::bytes::Regex::new(pat).unwrap();
            let want = model_grep_n(&m, 1, u64::MAX, &re);
            assert!(one.stdout == want, "{pat}: differs from the model");
            // Restricted to lines crossing work-unit and member boundaries.
            let (a, b) = (
                m.line_at(3 << 20).unwrap(),
                m.line_at(cut as u64 + 5).unwrap() + 3000,
            );
            let range = format!("{a}:{b}");
            let r1 = run("1", &["--lines", &range]);
            let r4 = run("4", &["--lines", &range]);
            let want = model_grep_n(&m, a, b, &re);
            assert!(r1.stdout == want, "{pat} --lines {range}: -j 1 vs model");
            assert!(r4.stdout == want, "{pat} --lines {range}: -j 4 vs model");
        }
        if rg {
            let mut a: Vec<&OsStr> = ["-n", "--no-heading", "--no-filename", "-a"]
                .iter()
                .map(OsStr::new)
                .collect();
            a.extend(flags.iter().map(OsStr::new));
            a.extend([OsStr::new("-e"), OsStr::new(pat), OsStr::new("-")]);
            let (code, want) = pipe("rg", &a, &unzipped);
            assert_eq!(code, one.code, "{flags:?} {pat}: exit vs rg");
            assert!(
                one.stdout == want,
                "{flags:?} {pat}: lidx {} bytes, zcat | rg {} bytes",
                one.stdout.len(),
                want.len()
            );
        }
    }
}

// ---------------------------------------------------------------------
// Damage.

/// A small enough archive whose deflate data spans several blocks.
fn damage_sample() -> (Vec<u8>, Vec<u8>) {
    let mut text = log_text(11, 500_000, &[]);
    text.extend(b"\n");
    text.extend(noise(12, 60_000));
    text.extend(log_text(13, 200_000, &[]));
    let archive = flate(&text, 6);
    (text, archive)
}

/// Everything the answers depend on, for an index that built despite the
/// damage: it must answer as the intact text.
fn assert_answers_as(index: &Index, text: &[u8], ctx: &str) {
    let m = Model::new(text.to_vec());
    let depth = Depth {
        all_lines_up_to: 0,
        all_offsets_up_to: 0,
        samples: 100,
        ranges: 10,
    };
    check_index(index, &m, SPACING, depth, 3, ctx);
    let mut buf = lidx::LineBuf::new();
    index.read_lines(0..u64::MAX, &mut buf).unwrap();
    assert!(buf.bytes() == text, "{ctx}: text differs");
}

fn no_sidecar_left(dir: &Path, ctx: &str) {
    let left: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_none_or(|e| e != "gz"))
        .collect();
    assert!(left.is_empty(), "{ctx}: left behind {left:?}");
}

#[test]
fn truncated_archives_are_errors_naming_the_file() {
    let (text, archive) = damage_sample();
    let h = header_len(&archive);
    let dir = tempfile::tempdir().unwrap();
    let len = archive.len();
    let cuts = [
        h + 3,
        h + 1000,
        len / 3,
        len / 2,
        len - 20,
        len - 8,
        len - 3,
    ];
    for cut in cuts {
        let ctx = format!("cut at {cut} of {len}");
        let bad = archive[..cut].to_vec();
        let opts = BuildOptions {
            span: SPAN,
            spacing: SPACING,
            ..BuildOptions::default()
        };
        match Index::build_in_memory(Box::new(MemSource::new(bad.clone())), &opts) {
            Ok(index) => panic!(
                "{ctx}: built an index of {} lines, {} bytes ({} wanted)",
                index.line_count(),
                index.source_len(),
                text.len()
            ),
            Err(e) => assert!(e.to_string().contains("<memory>"), "{ctx}: {e}"),
        }
        let path = dir.path().join(format!("cut-{cut}.log.gz"));
        std::fs::write(&path, &bad).unwrap();
        // The complete lines before the end stay readable (zcat-like), from
        // an in-memory index; nothing is written; every answer past them is
        // an error naming the file.
        let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
        let readable = match lidx::OpenOptions::new()
            .span(SPAN)
            .spacing(SPACING)
            .open(&path)
        {
            Ok(o) => {
                assert_eq!(o.action, lidx::Action::Damaged, "{ctx}");
                let index = &o.index;
                assert!(
                    index
                        .damage()
                        .is_some_and(|d| d.contains(path.to_str().unwrap())),
                    "{ctx}"
                );
                let n = index.line_count() as usize;
                assert!(n > 0 && n < lines.len(), "{ctx}: {n} lines readable");
                let prefix: usize = lines[..n].iter().map(|l| l.len()).sum();
                assert_eq!(index.source_len(), prefix as u64, "{ctx}");
                for k in [0, n / 2, n - 1] {
                    let span = index.line_span(k as u64).unwrap();
                    assert_eq!(
                        &text[span.start as usize..span.end as usize],
                        lines[k],
                        "{ctx}: line {k}"
                    );
                }
                let past = index.line_span(n as u64).unwrap_err().to_string();
                assert!(past.contains("before the damage"), "{ctx}: {past}");
                n
            }
            Err(e) => {
                assert!(e.to_string().contains(path.to_str().unwrap()), "{ctx}: {e}");
                0
            }
        };
        for v in [
            args(&["count"], &path),
            args(&["grep", "-c", "ERROR"], &path),
        ] {
            let cmd = format!("{v:?}");
            let o = lidx(&v);
            assert_eq!(o.code, 2, "{ctx}: {cmd}: {}", o.stderr);
            assert!(
                o.stderr.contains(path.to_str().unwrap()),
                "{ctx}: {}",
                o.stderr
            );
        }
        let o = lidx(around(&["lines"], &path, &["1"]));
        if readable > 0 {
            assert_eq!(o.code, 0, "{ctx}: {}", o.stderr);
            assert_eq!(o.stdout, lines[0], "{ctx}");
            assert!(
                o.stderr.starts_with("lidx: warning:"),
                "{ctx}: {}",
                o.stderr
            );
        } else {
            assert_eq!(o.code, 2, "{ctx}: {}", o.stderr);
        }
        std::fs::remove_file(&path).unwrap();
        no_sidecar_left(dir.path(), &ctx);
    }
}

#[test]
fn bit_flips_are_errors_never_wrong_lines() {
    let (text, archive) = damage_sample();
    let h = header_len(&archive);
    let deflate = h..archive.len() - 8;
    let dir = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        span: SPAN,
        spacing: SPACING,
        ..BuildOptions::default()
    };
    let (mut errors, mut total) = (0, 0);
    let step = deflate.len() / 24;
    for (k, at) in (deflate.start..deflate.end).step_by(step).enumerate() {
        let mut bad = archive.clone();
        bad[at] ^= 1 << (k % 8);
        total += 1;
        match Index::build_in_memory(Box::new(MemSource::new(bad)), &opts) {
            Err(e) => {
                errors += 1;
                assert!(e.to_string().contains("<memory>"), "flip at {at}: {e}");
            }
            Ok(index) => assert_answers_as(&index, &text, &format!("flip at {at}")),
        }
    }
    assert!(
        errors * 10 >= total * 9,
        "{errors} of {total} flips detected"
    );
    // Several flips at once, through the binary and through OpenOptions.
    let mut bad = archive.clone();
    for k in 1..6 {
        bad[deflate.start + k * deflate.len() / 6] ^= 0x24;
    }
    let path = dir.path().join("flipped.log.gz");
    std::fs::write(&path, &bad).unwrap();
    for v in [
        args(&["count"], &path),
        around(&["lines"], &path, &["1:"]),
        args(&["grep", "-c", "ERROR"], &path),
    ] {
        let cmd = format!("{v:?}");
        let o = lidx(&v);
        assert_eq!(o.code, 2, "{cmd}: {}", o.stderr);
        assert!(o.stderr.contains(path.to_str().unwrap()), "{}", o.stderr);
    }
    no_sidecar_left(dir.path(), "several flips");
    let e = lidx::OpenOptions::new()
        .open(&path)
        .map(|o| o.index.line_count())
        .expect_err("several flips");
    assert!(e.to_string().contains(path.to_str().unwrap()), "{e}");
}

/// The archive is damaged in place after its sidecar was built: same size,
/// same mtime, the damage far enough from both ends that the fingerprint's
/// head and tail blocks do not see it (the sidecar stays "unchanged").
/// Queries that decode the damaged part must fail (exit 2, `Err`) or still
/// give the intact text: the bytes returned are the archive's, not a guess.
///
/// Known to fail (reported): a span decoded from an access point is not
/// checked against anything but its length, so a flip that keeps the
/// block structure (a literal's code turned into another of the same
/// length, a distance's extra bits) yields other bytes of the same length,
/// served as the text; the member's CRC-32 is checked only when a decode
/// runs from the member's start to its end, which queries never do.
#[test]
fn damage_under_a_fresh_sidecar_is_never_wrong_lines() {
    // Text only (no stored blocks): every flip lands in Huffman-coded
    // data. 1.5 MiB compress to well over 2 x 64 KiB.
    let text = log_text(20, 1_500_000, &[]);
    let archive = flate(&text, 6);
    assert!(archive.len() > 300_000, "{}", archive.len());
    let m = Model::new(text.clone());
    let n = m.line_count();
    let re = regex::bytes::Regex::new("ERROR").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inplace.log.gz");
    let margin = 70_000;
    let inner = margin..archive.len() - margin;
    let opts = BuildOptions {
        span: 65536,
        spacing: 1024,
        ..BuildOptions::default()
    };
    let sidecar = lidx::build_to_vec(&MemSource::new(archive.clone()), &opts).unwrap();
    let mut wrong = Vec::new();
    for k in 0..8 {
        let at = inner.start + k * inner.len() / 8 + 17;
        let mut bad = archive.clone();
        bad[at] ^= 1 << (k % 8);
        let flip = format!("flip of bit {} at compressed byte {at}", k % 8);
        let first_difference = |got: &[u8]| {
            let first = got.iter().zip(&text).take_while(|(a, b)| a == b).count();
            format!(
                "{} bytes (text {}), first difference at text offset {first} (line {})",
                got.len(),
                text.len(),
                m.line_at(first as u64).map_or(0, |l| l + 1)
            )
        };

        // In process: the intact archive's sidecar over the damaged bytes.
        let index = Index::from_parts(
            Box::new(MemSource::new(bad.clone())),
            Box::new(MemSource::new(sidecar.clone())),
            (0, 0),
            lidx::DEFAULT_CACHE_BYTES,
        )
        .unwrap();
        assert_eq!(index.verdict(), lidx::Verdict::Unchanged, "{flip}");
        let mut buf = lidx::LineBuf::new();
        match index.read_lines(0..n, &mut buf) {
            Err(e) => assert!(e.to_string().contains("<memory>"), "{flip}: {e}"),
            Ok(_) if buf.bytes() == text => {}
            Ok(_) => wrong.push(format!(
                "{flip}: Index::read_lines(0..{n}) is Ok: {}",
                first_difference(buf.bytes())
            )),
        }

        // The binary: index the intact file, damage it, restore the mtime.
        std::fs::write(&path, &archive).unwrap();
        let o = lidx(args(
            &[
                "index",
                "-q",
                "--force",
                "--spacing",
                "1024",
                "--span",
                "65536",
            ],
            &path,
        ));
        assert_eq!(o.code, 0, "index: {}", o.stderr);
        let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::fs::write(&path, &bad).unwrap();
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        f.set_modified(mtime).unwrap();
        drop(f);
        let o = lidx(around(&["lines", "--no-build"], &path, &["1:"]));
        if o.code == 2 {
            assert!(o.stderr.contains(path.to_str().unwrap()), "{}", o.stderr);
            // Lines before the damage stay readable, and are right.
            assert!(
                text.starts_with(&o.stdout),
                "{flip}: wrong bytes before the error"
            );
        } else if o.stdout != text {
            wrong.push(format!(
                "{flip}: `lidx lines FILE 1:` exit {}, {}",
                o.code,
                first_difference(&o.stdout)
            ));
        }
        let o = lidx(args(&["grep", "--no-build", "-n", "ERROR"], &path));
        let want = model_grep_n(&m, 1, u64::MAX, &re);
        if (o.code == 2 && !want.starts_with(&o.stdout)) || (o.code != 2 && o.stdout != want) {
            wrong.push(format!(
                "{flip}: `lidx grep -n ERROR FILE` exit {}, output differs from the model",
                o.code
            ));
        }
        // Any verdict, by the rules (no panic, one line on error).
        lidx(args(&["verify", "--full"], &path));
    }
    assert!(
        wrong.is_empty(),
        "{} wrong answers from a damaged archive under a fresh sidecar:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// An archive that grew by appended members (`gzip >> app.log.gz`) is
/// extended, not rebuilt, and the result equals a fresh build page for
/// page; appending to an unterminated last line and an empty member work,
/// and so does extending a sidecar written by 1.1 (every other step).
#[test]
fn appended_members_extend_to_a_fresh_build() {
    use lidx::{Action, OpenOptions};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grow.log.gz");
    let gz = |data: &[u8], level: u32| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
        std::io::Write::write_all(&mut e, data).unwrap();
        e.finish().unwrap()
    };
    let mut text = Vec::new();
    let mut archive = Vec::new();
    let parts: Vec<Vec<u8>> = vec![
        (0..20_000u32)
            .flat_map(|i| format!("first {i} {}\n", "a".repeat((i % 61) as usize)).into_bytes())
            .collect(),
        b"half a line".to_vec(),
        b" ended here\nand more\n".to_vec(),
        Vec::new(),
        (0..30_000u32)
            .flat_map(|i| format!("second {i}\r\n").into_bytes())
            .collect(),
    ];
    // Pieces of 4 KiB: the spans of 32 KiB or more have piece CRCs
    // (§11.9), and the extension recomputes the last old span's.
    let open = |p: &std::path::Path, pieces: bool| {
        let mut o = OpenOptions::new();
        o.span(32 * 1024)
            .spacing(700)
            .piece_shift(if pieces { 12 } else { 0 });
        o.open(p).unwrap()
    };
    for (k, part) in parts.iter().enumerate() {
        text.extend_from_slice(part);
        archive.extend(gz(part, [1, 6, 9][k % 3]));
        std::fs::write(&path, &archive).unwrap();
        // A sidecar without piece CRCs (as 1.1 … 1.4 wrote it) is extended
        // without them: into what a fresh build without pieces writes.
        let side = dir.path().join("grow.log.gz.lidx");
        let pieces = !side.exists()
            || lidx::format::Superblock::decode(&std::fs::read(&side).unwrap()[..256])
                .unwrap()
                .piece_len()
                .is_some();
        let opened = open(&path, pieces);
        assert_eq!(
            opened.index.superblock().piece_len(),
            pieces.then_some(4096),
            "after part {k}"
        );
        let want = if k == 0 {
            Action::Built
        } else {
            Action::Extended
        };
        assert_eq!(opened.action, want, "after part {k}");
        let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
        let index = &opened.index;
        assert_eq!(index.line_count(), lines.len() as u64, "part {k}");
        for n in [0, lines.len() / 3, lines.len() / 2, lines.len() - 1] {
            let span = index.line_span(n as u64).unwrap();
            assert_eq!(
                &text[span.start as usize..span.end as usize],
                lines[n],
                "part {k} line {n}"
            );
        }
        index.verify(true).unwrap();
        // Page for page equal to a fresh build of the same archive.
        let fresh = dir.path().join(format!("fresh{k}.gz"));
        std::fs::write(&fresh, &archive).unwrap();
        drop(open(&fresh, pieces));
        let a = std::fs::read(dir.path().join("grow.log.gz.lidx")).unwrap();
        let b = std::fs::read(dir.path().join(format!("fresh{k}.gz.lidx"))).unwrap();
        assert_eq!(a.len(), b.len(), "part {k}: sidecar sizes");
        assert!(
            a[4096..] == b[4096..],
            "part {k}: node, access-point and blob pages differ"
        );
        // Every third extension starts from a sidecar in the layout of 1.1
        // (the root last, internal pages among the leaves, no piece CRCs),
        // whose records' reserved bytes 36..40 are not zero (R-2: they
        // mean nothing before 1.5, and must not become `first_piece`).
        if k % 3 == 1 {
            let mut old = crate::legacy::to_legacy(&a);
            let sb = lidx::format::Superblock::decode(&old[..256]).unwrap();
            let p = sb.page_size as usize;
            for id in sb.gzip.ap_first_page..sb.gzip.ap_first_page + sb.gzip.ap_pages {
                let page = &mut old[id as usize * p..(id as usize + 1) * p];
                let n = u16::from_le_bytes([page[6], page[7]]) as usize;
                for r in 0..n {
                    page[16 + r * fmt::AP_RECORD_LEN + 36] = 0x5a;
                }
                lidx::format::seal_page(page);
            }
            std::fs::write(dir.path().join("grow.log.gz.lidx"), old).unwrap();
        }
    }
}

/// A change to access-point record `r`, given its predecessor's and
/// successor's text offsets and the text length.
type RecordChange = fn(r: &mut ApRecord, prev: u64, next: u64, len: u64);

/// Access-point records crafted to pass the page CRC (what the `sidecar`
/// fuzz target's CRC fix-up mode found: a record whose span claimed 2^55
/// bytes made the reader allocate that much): offsets out of order, a
/// record far past its successor, an absurd blob length. Every query is an
/// error naming the sidecar or the exact text; nothing panics or allocates
/// by the claim; `verify` rejects each.
#[test]
fn crafted_access_point_records_are_errors() {
    let text = log_text(21, 60_000, &[]);
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    for piece in text.chunks(3000) {
        e.write_all(piece).unwrap();
        e.flush().unwrap();
    }
    let archive = e.finish().unwrap();
    let opts = BuildOptions {
        span: 4096,
        spacing: 512,
        page_size: 512,
        ..BuildOptions::default()
    };
    let fresh = lidx::build_to_vec(&MemSource::new(archive.clone()), &opts).unwrap();
    let sb = Superblock::decode(&fresh[..256]).unwrap();
    let aps = stored_aps(&fresh);
    assert!(aps.len() >= 8, "{} access points", aps.len());
    let per = fmt::records_per_page(sb.page_size);
    let ps = sb.page_size as usize;
    let text_len = text.len() as u64;
    let m = Model::new(text.clone());
    let mut checked = 0;
    for i in 1..aps.len() {
        let prev = aps[i - 1].uncomp;
        let next = aps.get(i + 1).map_or(text_len, |r| r.uncomp);
        let variants: [(&str, RecordChange); 5] = [
            ("offset 0", |r, _, _, _| r.uncomp = 0),
            ("before its predecessor", |r, prev, _, _| {
                r.uncomp = prev.saturating_sub(1)
            }),
            ("past its successor", |r, _, next, _| r.uncomp = next + 1),
            ("at the end of the text", |r, _, _, len| r.uncomp = len),
            ("blob length 4 GiB", |r, _, _, _| r.blob_len = u32::MAX),
        ];
        for (what, change) in variants {
            let mut r = aps[i];
            change(&mut r, prev, next, text_len);
            let page = sb.gzip.ap_first_page as usize + i / per;
            let mut bad = fresh.clone();
            let at = page * ps + PAGE_HEADER_LEN + (i % per) * fmt::AP_RECORD_LEN;
            r.encode(&mut bad[at..at + fmt::AP_RECORD_LEN]);
            let crc = lidx::format::crc32(&bad[page * ps + 4..(page + 1) * ps]);
            bad[page * ps..page * ps + 4].copy_from_slice(&crc.to_le_bytes());
            let ctx = format!("record {i}: {what}");
            let index = Index::from_parts(
                Box::new(MemSource::new(archive.clone())),
                Box::new(MemSource::new(bad)),
                (0, 0),
                1 << 20,
            )
            .unwrap();
            assert!(index.verify(true).is_err(), "{ctx}: verify accepted it");
            let mut out = Vec::new();
            match index.write_lines(0..m.line_count(), false, &mut out) {
                Ok(_) => assert!(out == text, "{ctx}: wrong text"),
                Err(e) => assert!(!e.to_string().is_empty(), "{ctx}"),
            }
            for off in (0..text_len).step_by(997) {
                if let Ok(l) = index.line_at(off) {
                    assert_eq!(l, m.line_at(off).unwrap(), "{ctx}: line_at({off})");
                }
            }
            for l in (0..m.line_count()).step_by(37) {
                let mut buf = lidx::LineBuf::new();
                if index.read_lines(l..l + 1, &mut buf).is_ok() {
                    assert_eq!(buf.bytes(), m.bytes(m.span(l)), "{ctx}: line {l}");
                }
            }
            read_everywhere(&index, &text, &ctx);
            checked += 1;
        }
    }
    assert!(checked >= 35, "{checked}");

    // The superblock claims a text of 2^55 bytes (CRC recomputed): the
    // last span would be that long.
    let mut bad = fresh.clone();
    bad[224..232].copy_from_slice(&(1u64 << 55).to_le_bytes());
    let crc = lidx::format::crc32(&bad[..252]);
    bad[252..256].copy_from_slice(&crc.to_le_bytes());
    if let Ok(index) = Index::from_parts(
        Box::new(MemSource::new(archive.clone())),
        Box::new(MemSource::new(bad)),
        (0, 0),
        1 << 20,
    ) {
        assert!(
            index.verify(true).is_err(),
            "text_len 2^55: verify accepted it"
        );
        read_everywhere(&index, &text, "text_len 2^55");
        let mut buf = [0u8; 64];
        assert!(index.source().read_at(&mut buf, text_len + 5).is_err());
    }
}

/// Reads the text of `index` at offsets all over it, straight from its
/// source: each read is an error or the true bytes.
fn read_everywhere(index: &Index, text: &[u8], ctx: &str) {
    let mut buf = [0u8; 64];
    for off in (0..text.len() as u64).step_by(211) {
        if let Ok(n) = index.source().read_at(&mut buf, off) {
            let at = off as usize;
            assert_eq!(&buf[..n], &text[at..at + n], "{ctx}: read at {off}");
        }
    }
}

// ---------------------------------------------------------------------
// Issue 9: trailing bytes, header CRCs, damage like truncation, other
// formats. Oracles: zcat (its output, exit status and warnings), the text
// the archive was made from, and the archive's own structure.

/// Runs `tool args` with stdin closed: exit status, stdout, stderr.
fn tool(name: &str, args: &[&OsStr]) -> (i32, Vec<u8>, String) {
    let o = Command::new(name)
        .args(args)
        .env("LC_ALL", "C")
        .env_remove("GZIP")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    (
        o.status.code().unwrap_or(-1),
        o.stdout,
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The complete lines of `text`: up to and including its last `\n`.
fn complete_lines(text: &[u8]) -> &[u8] {
    &text[..text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)]
}

/// "1 line", "N lines".
fn n_lines(n: u64) -> String {
    if n == 1 {
        "1 line".into()
    } else {
        format!("{n} lines")
    }
}

/// `path`'s sidecar does not exist, nor any temporary file beside it.
fn no_sidecar_for(path: &Path, ctx: &str) {
    let name = path.file_name().unwrap().to_str().unwrap();
    let left: Vec<String> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(name) && n != name)
        .collect();
    assert!(left.is_empty(), "{ctx}: left behind {left:?}");
}

/// What every command answers for an archive whose readable text is
/// `readable` (complete lines only) before damage described by `damage`
/// (the start of the error message after `FILE: `): `lines 1:` prints the
/// readable lines and fails naming the damage and the line count;
/// `count` and answers past them fail the same way; answers within them
/// succeed with the warning; `index` writes nothing and says so; `info`
/// and `verify` say why there is no sidecar. Nothing is left behind.
fn check_damaged(path: &Path, readable: &[u8], damage: &str, ctx: &str) {
    let p = path.to_str().unwrap();
    let m = Model::new(readable.to_vec());
    let n = m.line_count();
    let what = format!("{p}: {damage}");
    let error = if n == 0 {
        format!("lidx: {what}; 0 lines can be read (no complete line before the damage)\n")
    } else {
        format!(
            "lidx: {what}; only the {} before the damage can be read\n",
            n_lines(n)
        )
    };
    let o = lidx(around(&["lines"], path, &["1:"]));
    assert_eq!(o.code, 2, "{ctx}: lines 1:");
    assert!(
        o.stdout == readable,
        "{ctx}: lines 1: prints the readable lines"
    );
    assert!(
        o.stderr.starts_with(&format!("lidx: {what}")),
        "{ctx}: {}",
        o.stderr
    );
    assert!(
        o.stderr.ends_with(&error[error.find("; ").unwrap()..]),
        "{ctx}: {}",
        o.stderr
    );
    let o = lidx(args(&["count"], path));
    assert_eq!((o.code, o.stdout.len()), (2, 0), "{ctx}: count");
    assert!(
        o.stderr.starts_with(&format!("lidx: {what}")),
        "{ctx}: {}",
        o.stderr
    );
    assert!(
        o.stderr.ends_with(&error[error.find("; ").unwrap()..]),
        "{ctx}: {}",
        o.stderr
    );
    let o = lidx(around(&["lines"], path, &[&(n + 1).to_string()]));
    assert_eq!((o.code, o.stdout.len()), (2, 0), "{ctx}: line past them");
    let o = lidx(around(&["line-at"], path, &[&m.len().to_string()]));
    assert_eq!((o.code, o.stdout.len()), (2, 0), "{ctx}: offset past them");
    let o = lidx(args(&["index"], path));
    assert_eq!(o.code, 2, "{ctx}: index");
    if n > 0 {
        let warning = format!(
            "lidx: warning: {what}; the {} before it {} indexed in memory (no sidecar written)\n",
            n_lines(n),
            if n == 1 { "was" } else { "were" }
        );
        let o = lidx(around(&["lines"], path, &[&n.to_string()]));
        assert_eq!(o.code, 0, "{ctx}: last readable line: {}", o.stderr);
        assert!(
            o.stdout == m.bytes(m.span(n - 1)),
            "{ctx}: last readable line"
        );
        assert!(
            o.stderr
                .starts_with(&warning[..warning.find("; ").unwrap()]),
            "{ctx}: {}",
            o.stderr
        );
        assert!(
            o.stderr.ends_with(&warning[warning.find("; ").unwrap()..]),
            "{ctx}: {}",
            o.stderr
        );
        for off in [0, m.len() / 2, m.len() - 1] {
            let o = lidx(around(&["line-at"], path, &[&off.to_string()]));
            let want = m.line_at(off).unwrap() + 1;
            assert_eq!(
                o.stdout,
                format!("{want}\n").into_bytes(),
                "{ctx}: line-at {off}"
            );
        }
        assert_eq!(
            o.stderr.lines().count(),
            1,
            "{ctx}: one warning: {}",
            o.stderr
        );
        let o = lidx(args(&["index"], path));
        assert!(
            o.stderr.ends_with(&format!(
                "; no sidecar is written for a damaged archive: the query commands read the {} before the damage from an in-memory index\n",
                if n == 1 { "1 complete line".to_string() } else { format!("{n} complete lines") }
            )),
            "{ctx}: index: {}",
            o.stderr
        );
    }
    check_damaged_grep(path, &m, ctx);
    let missing = format!(
        "lidx: {p}: no sidecar ({p}.lidx does not exist): `lidx index {p}` writes one unless the archive is damaged or ends early; then none can be written, and the query commands read its complete lines without one\n"
    );
    for cmd in ["info", "verify"] {
        let o = lidx(args(&[cmd], path));
        assert_eq!(
            (o.code, o.stderr.as_str()),
            (2, missing.as_str()),
            "{ctx}: {cmd}"
        );
    }
    let o = lidx(around(&["lines", "--no-build"], path, &["1"]));
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (2, missing.as_str()),
        "{ctx}: --no-build"
    );
    no_sidecar_for(path, ctx);
}

/// `lidx grep` over a damaged archive whose readable lines are `m`: lines
/// printed stand (the readable ones, as `zcat | rg` prints them before its
/// error); an answer that needs the rest — a count, a file name for the
/// absence of a match, JSON statistics — is an error with no such answer
/// printed; an answer complete within the readable lines (`-m N` met,
/// `-q` or `-l` with a match) exits as on an intact file.
fn check_damaged_grep(path: &Path, m: &Model, ctx: &str) {
    let n = m.line_count();
    let all = m.bytes(m.lines_span(&(0..n)));
    let o = lidx(around(&["grep", "-N", ""], path, &[]));
    assert_eq!(o.code, 2, "{ctx}: grep ''");
    assert!(o.stdout == all, "{ctx}: grep '' prints the readable lines");
    for flags in [
        &["-c", ""][..],
        &["--count-matches", ""],
        &["-c", "-v", "^$"],
        &["--files-without-match", "^no such line$"],
        &["-q", "^no such line$"],
    ] {
        let o = lidx(around(&[&["grep"][..], flags].concat(), path, &[]));
        assert_eq!(
            (o.code, o.stdout.len()),
            (2, 0),
            "{ctx}: grep {flags:?} answers nothing: {:?}",
            o.stdout_str()
        );
    }
    let o = lidx(around(&["grep", "--json", ""], path, &[]));
    assert_eq!(o.code, 2, "{ctx}: grep --json");
    assert!(
        !o.stdout_str().contains("\"type\":\"summary\""),
        "{ctx}: no summary of a search that could not finish"
    );
    if n == 0 {
        return;
    }
    let o = lidx(around(&["grep", "-N", "-m", &n.to_string(), ""], path, &[]));
    assert_eq!(o.code, 0, "{ctx}: grep -m {n}: {}", o.stderr);
    assert!(o.stdout == all, "{ctx}: grep -m {n}");
    assert!(
        o.stderr.starts_with("lidx: warning: "),
        "{ctx}: {}",
        o.stderr
    );
    let o = lidx(around(
        &["grep", "-N", "-m", &(n + 1).to_string(), ""],
        path,
        &[],
    ));
    assert_eq!(o.code, 2, "{ctx}: grep -m {} is not met", n + 1);
    for flags in [&["-q", ""][..], &["-l", ""]] {
        let o = lidx(around(&[&["grep"][..], flags].concat(), path, &[]));
        assert_eq!(o.code, 0, "{ctx}: grep {flags:?}: {}", o.stderr);
    }
    let o = lidx(around(
        &["grep", "-c", "--lines", &format!("1:{n}"), ""],
        path,
        &[],
    ));
    assert_eq!(
        (o.code, o.stdout_str()),
        (0, format!("{n}\n")),
        "{ctx}: grep -c over the readable lines"
    );
}

/// GNU gzip's `tests/trailing-nul` (`(echo 0 | gzip; printf '\0')`, which
/// zcat accepts) and any number of zero bytes after the last member: the
/// sidecar is written and every answer is the text's, as zcat prints it.
#[test]
fn trailing_zero_bytes_are_padding() {
    let dir = tempfile::tempdir().unwrap();
    let zcat = have("zcat");
    let text = log_text(31, 300_000, &[]);
    let cases: Vec<(&[u8], Vec<u8>)> = vec![
        (
            b"0\n",
            compress_with("gzip", &[], b"0\n").unwrap_or_else(|| flate(b"0\n", 6)),
        ),
        (
            &text,
            compress_with("gzip", &["-6"], &text).unwrap_or_else(|| flate(&text, 6)),
        ),
    ];
    for (k, (t, archive)) in cases.iter().enumerate() {
        for zeros in [1, 2, 3, 511, 70_000] {
            let ctx = format!("archive {k} + {zeros} zeros");
            let path = dir.path().join(format!("z{k}-{zeros}.gz"));
            let mut bad = archive.clone();
            bad.extend(vec![0u8; zeros]);
            std::fs::write(&path, &bad).unwrap();
            if zcat {
                let (code, out, err) = tool("zcat", &[path.as_os_str()]);
                assert_eq!((code, err.as_str()), (0, ""), "{ctx}: zcat");
                assert!(out == *t, "{ctx}: zcat's text");
            }
            let o = lidx(args(&["index", "-q"], &path));
            assert_eq!((o.code, o.stderr.as_str()), (0, ""), "{ctx}: index");
            assert!(
                dir.path().join(format!("z{k}-{zeros}.gz.lidx")).exists(),
                "{ctx}: sidecar"
            );
            let m = Model::new(t.to_vec());
            let o = lidx(args(&["count"], &path));
            assert_eq!(
                o.stdout,
                format!("{}\n", m.line_count()).into_bytes(),
                "{ctx}"
            );
            let o = lidx(around(&["lines"], &path, &["1:"]));
            assert_eq!(o.code, 0, "{ctx}");
            assert!(o.stdout == *t, "{ctx}: lines 1:");
            let o = lidx(args(&["verify", "--full"], &path));
            assert_eq!(o.code, 0, "{ctx}: verify --full: {}", o.stderr);
        }
    }
}

/// Bytes after the last member that are neither a member nor zero
/// padding: zcat prints the text, warns "trailing garbage ignored" and
/// exits 2; lidx answers within the complete lines of the members (a last
/// line without a newline might continue in what the garbage hides) and
/// fails past them naming the garbage, exit 2. Tails that start with the
/// gzip magic are a member cut short (zcat: "unexpected end of file").
#[test]
fn trailing_garbage_is_damage_after_the_last_member() {
    let dir = tempfile::tempdir().unwrap();
    let zcat = have("zcat");
    let with_final = log_text(32, 120_000, &[]);
    let mut ended = log_text(33, 90_000, &[]);
    ended.extend(b"\n");
    for (t, tname) in [(&with_final, "no final newline"), (&ended, "final newline")] {
        let a =
            compress_with("gzip", &["-9"], &t[..50_000]).unwrap_or_else(|| flate(&t[..50_000], 9));
        let mut archive = a.clone();
        archive.extend(flate(&t[50_000..], 1));
        for (tail, kind) in [
            (&b"garbage\n"[..], "garbage"),
            (b"\0\0x", "garbage"),
            (b"\n", "garbage"),
            (b"\n\n", "garbage"),
            (b"PK\x03\x04\x14\x00\x00\x00", "garbage"),
            (b"\x1f", "cut"),
            (b"\x1f\x8b\x08\x00", "cut"),
        ] {
            let ctx = format!("{tname} + {tail:?}");
            let path = dir.path().join("tail.log.gz");
            let mut bad = archive.clone();
            bad.extend(tail);
            std::fs::write(&path, &bad).unwrap();
            if zcat {
                let (code, out, err) = tool("zcat", &[path.as_os_str()]);
                assert!(out == *t, "{ctx}: zcat prints the text");
                // gzip reads a two-byte magic before it judges: one byte
                // that is not `1f` is "unexpected end of file" to it, and
                // trailing garbage to lidx (it cannot start a member).
                if kind == "garbage" && tail.len() > 1 {
                    assert_eq!(code, 2, "{ctx}: zcat: {err}");
                    assert!(err.contains("trailing garbage ignored"), "{ctx}: {err}");
                } else {
                    assert_eq!(code, 1, "{ctx}: zcat: {err}");
                    assert!(err.contains("unexpected end of file"), "{ctx}: {err}");
                }
            }
            let damage = if kind == "garbage" {
                format!(
                    "trailing garbage after the last gzip member, from compressed byte {}: {} that {} neither a gzip member nor zero padding",
                    archive.len(),
                    if tail.len() == 1 {
                        "1 byte".to_string()
                    } else {
                        format!("{} bytes", tail.len())
                    },
                    if tail.len() == 1 { "is" } else { "are" }
                )
            } else {
                format!(
                    "corrupt gzip data near compressed byte {}: truncated member header (the archive ends early)",
                    archive.len()
                )
            };
            check_damaged(&path, complete_lines(t), &damage, &ctx);
        }
    }
}

/// One member of gzip data for `data` with an FHCRC field (RFC 1952
/// §2.3.1: the low 16 bits of the CRC-32 of the header before it), right
/// or off by one bit. Neither gzip nor flate2 write one.
fn member_with_fhcrc(data: &[u8], right: bool) -> Vec<u8> {
    let plain = flate(data, 6);
    let h = header_len(&plain);
    let mut out = plain[..h].to_vec();
    out[3] |= 2;
    let crc = crc32fast::hash(&out) as u16 ^ u16::from(!right);
    out.extend(crc.to_le_bytes());
    out.extend(&plain[h..]);
    out
}

/// FHCRC is checked as gzip checks it ("header checksum ... != computed"):
/// a right one is indexed, a wrong one is damage at its member, which
/// keeps the complete lines of the members before it.
#[test]
fn header_crc_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let zcat = have("zcat");
    let text = log_text(34, 150_000, &[]);
    let (a, rest) = text.split_at(60_000);
    let (b, c) = rest.split_at(40_000);
    for right in [true, false] {
        let mut archive = flate(a, 6);
        let second = archive.len();
        archive.extend(member_with_fhcrc(b, right));
        archive.extend(flate(c, 6));
        let path = dir.path().join(format!("fhcrc-{right}.gz"));
        std::fs::write(&path, &archive).unwrap();
        if zcat {
            let (code, out, err) = tool("zcat", &[path.as_os_str()]);
            if right {
                assert_eq!((code, err.as_str()), (0, ""), "zcat");
                assert!(out == text, "zcat's text");
            } else {
                assert_eq!(code, 1, "zcat: {err}");
                assert!(err.contains("header checksum"), "{err}");
                assert!(out == a, "zcat stops at the second member");
            }
        }
        if right {
            let o = lidx(args(&["index", "-q"], &path));
            assert_eq!(o.code, 0, "{}", o.stderr);
            let o = lidx(around(&["lines"], &path, &["1:"]));
            assert!(o.stdout == text && o.code == 0, "right FHCRC: {}", o.stderr);
        } else {
            let h = &archive[second..];
            let stored = u16::from_le_bytes([h[10], h[11]]);
            let damage = format!(
                "corrupt gzip data near compressed byte {second}: member header CRC is {:#06x}, its FHCRC field says {stored:#06x}",
                stored ^ 1
            );
            check_damaged(&path, complete_lines(a), &damage, "wrong FHCRC in member 2");
            // In the first member: no line can be read.
            let mut first = member_with_fhcrc(a, false);
            first.extend(flate(b, 6));
            std::fs::write(&path, &first).unwrap();
            let o = lidx(args(&["count"], &path));
            assert_eq!(o.code, 2);
            assert!(
                o.stderr.contains("member header CRC is")
                    && o.stderr
                        .ends_with("0 lines can be read (no complete line before the damage)\n"),
                "{}",
                o.stderr
            );
        }
    }
}

/// The BGZF blocks of `archive` (one gzip member each, RFC 1952 with the
/// `BC` extra subfield holding the block size): (byte offset, text
/// offset) of each, from the file's own structure.
fn bgzf_blocks(archive: &[u8]) -> Vec<(usize, u64)> {
    let mut out = Vec::new();
    let (mut at, mut text) = (0usize, 0u64);
    while at < archive.len() {
        let b = &archive[at..];
        assert_eq!(&b[..4], b"\x1f\x8b\x08\x04", "BGZF member at {at}");
        let xlen = u16::from_le_bytes([b[10], b[11]]) as usize;
        let extra = &b[12..12 + xlen];
        let bc = extra
            .windows(2)
            .position(|w| w == b"BC")
            .expect("BC subfield");
        let bsize = u16::from_le_bytes([extra[bc + 4], extra[bc + 5]]) as usize + 1;
        let isize = u32::from_le_bytes(b[bsize - 4..bsize].try_into().unwrap());
        out.push((at, text));
        at += bsize;
        text += isize as u64;
    }
    out
}

/// Issue 9, item 11: one bad block of a BGZF file (`bgzip`: a member per
/// 64 KiB block) keeps the complete lines of the blocks before it
/// readable, as truncation does, with the same warning and error rules; a
/// bad first block leaves 0 lines. Damage is a wrong CRC-32 in the
/// block's trailer (zcat: "crc error") or a flipped deflate byte.
#[test]
fn one_bad_bgzf_block_keeps_the_lines_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let text = log_text(35, 700_000, &[]);
    let archive = match compress_with("bgzip", &[], &text) {
        Some(a) => a,
        None => return,
    };
    let blocks = bgzf_blocks(&archive);
    assert!(blocks.len() >= 8, "{} blocks", blocks.len());
    let zcat = have("zcat");
    let k = blocks.len() / 2;
    let (at, text_at) = blocks[k];
    let end = blocks[k + 1].0;
    for (how, pos, bit) in [
        ("CRC-32 of block k", end - 8, 0x01u8),
        (
            "a deflate byte of block k",
            at + 18 + (end - at - 26) / 2,
            0x10,
        ),
        ("CRC-32 of block 0", blocks[1].0 - 8, 0x01),
    ] {
        let mut bad = archive.clone();
        bad[pos] ^= bit;
        let path = dir.path().join("bad-block.log.bgz");
        std::fs::write(&path, &bad).unwrap();
        let first = how.ends_with("block 0");
        let before = if first { 0 } else { text_at as usize };
        if zcat {
            let (code, out, err) = tool("zcat", &[path.as_os_str()]);
            assert_eq!(code, 1, "{how}: zcat: {err}");
            assert!(
                out.starts_with(&text[..before]),
                "{how}: zcat agrees before the block"
            );
        }
        let o = lidx(args(&["count"], &path));
        let prefix = format!("lidx: {}: ", path.display());
        let what = o
            .stderr
            .strip_prefix(&prefix)
            .and_then(|r| r.split_once("; "))
            .map(|(w, _)| w.to_string())
            .unwrap_or_else(|| panic!("{how}: {}", o.stderr));
        assert!(
            what.starts_with("corrupt gzip data near compressed byte "),
            "{how}: {what}"
        );
        if how.starts_with("CRC") {
            assert!(what.contains(": member CRC-32 is "), "{how}: {what}");
        }
        check_damaged(&path, complete_lines(&text[..before]), &what, how);
    }
}

/// What `grep -a -c ''` counts in `bytes`.
fn raw_line_count(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
        + u64::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// `path` is indexed with `--plain` and then answers as its raw bytes.
fn check_plain(path: &Path, bytes: &[u8], ctx: &str) {
    let o = lidx(args(&["index", "-q", "--plain"], path));
    assert_eq!((o.code, o.stderr.as_str()), (0, ""), "{ctx}: index --plain");
    let o = lidx(args(&["count"], path));
    assert_eq!(
        o.stdout,
        format!("{}\n", raw_line_count(bytes)).into_bytes(),
        "{ctx}: count of the bytes"
    );
    let o = lidx(around(&["lines"], path, &["1:"]));
    assert!(
        o.code == 0 && o.stdout == bytes,
        "{ctx}: lines 1: are the bytes"
    );
}

/// Issue 9, item 13: data in another compression format is refused by
/// name (exit 2, one line naming the file and the format, no sidecar),
/// by the query commands, `index` and `info`; `index --plain` indexes its
/// bytes as they are. Each file is first checked with its own tool, which
/// must give the text back.
#[test]
fn other_compressed_formats_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let text = log_text(36, 100_000, &[]);
    let hint = "(decompress it first, or index its bytes as they are with `lidx index --plain`)";
    let mut cases: Vec<(&str, Vec<u8>, &str)> = Vec::new();
    for (name, tool_name, args, decompress, format) in [
        (
            "zstd",
            "zstd",
            &["-q"][..],
            &["-dc"][..],
            "zstd data: no seek table at its end: a single zstd stream (or a seekable archive cut short), which cannot be read from the middle",
        ),
        (
            "xz",
            "xz",
            &[][..],
            &["-dc"][..],
            "xz data: not supported yet",
        ),
        (
            "lzma",
            "xz",
            &["--format=lzma"][..],
            &["--format=lzma", "-dc"][..],
            "lzma data: not supported yet",
        ),
        (
            "bzip2",
            "bzip2",
            &[][..],
            &["-dc"][..],
            "bzip2 data: not supported yet",
        ),
        (
            "lz4",
            "lz4",
            &["-q"][..],
            &["-dc"][..],
            "lz4 data: not supported yet",
        ),
        (
            "zlib",
            "pigz",
            &["-z"][..],
            &["-dz"][..],
            "zlib stream: not gzip",
        ),
        (
            "compress",
            "compress",
            &[][..],
            &["-d"][..],
            "compress (.Z) data: not supported yet",
        ),
    ] {
        let Some(data) = compress_with(tool_name, args, &text) else {
            continue;
        };
        let mut a: Vec<&OsStr> = decompress.iter().map(OsStr::new).collect();
        if tool_name == "compress" {
            a.push(OsStr::new("-c"));
        }
        let (code, out) = pipe(tool_name, &a, &data);
        assert!(
            code == 0 && out == text,
            "{name}: {tool_name} {decompress:?} gives the text back"
        );
        cases.push((name, data.clone(), format));
        if name == "zstd" {
            // A skippable frame first, which zstd skips.
            let mut skip = vec![0x5a, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4];
            skip.extend(&data);
            let (code, out) = pipe("zstd", &[OsStr::new("-dc")], &skip);
            assert!(code == 0 && out == text, "zstd skips the skippable frame");
            cases.push(("zstd-skippable", skip, format));
        }
    }
    if have("zip") {
        let t = dir.path().join("text.log");
        std::fs::write(&t, &text).unwrap();
        let z = dir.path().join("made.zip");
        let (code, _, err) = tool("zip", &[OsStr::new("-q"), z.as_os_str(), t.as_os_str()]);
        assert_eq!(code, 0, "zip: {err}");
        cases.push((
            "zip",
            std::fs::read(&z).unwrap(),
            "zip archive: an archive of files, not a text",
        ));
    }
    assert!(!cases.is_empty(), "no compressor found");
    for (name, data, format) in cases {
        let path = dir.path().join(format!("data.{name}"));
        std::fs::write(&path, &data).unwrap();
        let p = path.to_str().unwrap();
        // A zstd stream without a seek table: `lidx pack` makes one (§13).
        let hint = if name.starts_with("zstd") {
            "(`lidx pack` makes a seekable archive of the text, or index its bytes as they are with `lidx index --plain`)"
        } else {
            hint
        };
        let want = format!("lidx: {p}: {format} {hint}\n");
        for cmd in [
            &["count"][..],
            &["lines"],
            &["index"],
            &["info"],
            &["grep", "-c", "x"],
        ] {
            let mut a: Vec<&str> = cmd.to_vec();
            let range = cmd == ["lines"];
            a.push(p);
            if range {
                a.push("1");
            }
            let o = lidx(&a);
            assert_eq!(
                (o.code, o.stderr.as_str()),
                (2, want.as_str()),
                "{name}: {cmd:?}"
            );
            assert!(o.stdout.is_empty(), "{name}: {cmd:?}");
        }
        no_sidecar_for(&path, name);
        check_plain(&path, &data, name);
    }
}

/// Raw deflate has no magic number: indexed as plain bytes with a warning
/// that names it; compressed or random data gets a warning too; text that
/// starts with a valid zlib header (`x^`, `HK`) is text, silently.
#[test]
fn raw_deflate_and_random_data_warn() {
    let dir = tempfile::tempdir().unwrap();
    let text = log_text(37, 100_000, &[]);
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
    e.write_all(&text).unwrap();
    let deflated = e.finish().unwrap();
    let random = noise(38, 80_000);
    let mut x_hat = b"x^ marks the spot\n".to_vec();
    x_hat.extend(&text);
    let mut hk = b"HK 42 departures\n".to_vec();
    hk.extend(&text);
    for (name, bytes, warning) in [
        (
            "raw.deflate",
            &deflated,
            Some(
                "KiB decode as raw deflate data (no gzip or zlib header), which lidx does not read: indexed as plain bytes",
            ),
        ),
        (
            "random.bin",
            &random,
            Some(
                "KiB do not look like text (8.0 bits per byte, not UTF-8: compressed or random data?): indexed as plain bytes",
            ),
        ),
        ("x-hat.txt", &x_hat, None),
        ("hk.txt", &hk, None),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let o = lidx(args(&["count", "-q"], &path));
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
        assert_eq!(
            o.stdout,
            format!("{}\n", raw_line_count(bytes)).into_bytes(),
            "{name}"
        );
        match warning {
            Some(w) => {
                let prefix = format!("lidx: warning: {}: the first ", path.display());
                assert!(
                    o.stderr.starts_with(&prefix) && o.stderr.ends_with(&format!("{w}\n")),
                    "{name}: {}",
                    o.stderr
                );
                assert_eq!(o.stderr.lines().count(), 1, "{name}");
            }
            None => assert_eq!(o.stderr, "", "{name}"),
        }
        // Only the build warns: the sidecar is used silently after.
        let o = lidx(args(&["count", "-q"], &path));
        assert_eq!(o.stderr, "", "{name}: second run");
    }
}

/// R-90 and `--plain`: a text file that starts with the gzip magic cannot
/// be read as gzip ("0 lines", with the hint), and `index --plain` indexes
/// it; a real archive indexed with `--plain` answers as its compressed
/// bytes, is kept as it is by later opens, and `--force` without `--plain`
/// indexes it as gzip again; `--plain` rebuilds a fresh gzip sidecar.
#[test]
fn plain_indexes_files_that_start_with_the_gzip_magic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("magic.txt");
    let bytes = b"\x1f\x8b is not gzip\nbut text\n";
    std::fs::write(&path, bytes).unwrap();
    let p = path.to_str().unwrap();
    let o = lidx(args(&["count"], &path));
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (2, format!("lidx: {p}: corrupt gzip data near compressed byte 0: compression method is not deflate (if it is not a gzip file, `lidx index --plain` indexes its bytes); 0 lines can be read (no complete line before the damage)\n").as_str())
    );
    no_sidecar_for(&path, "magic.txt");
    check_plain(&path, bytes, "magic.txt");
    let o = lidx(args(&["info"], &path));
    assert!(
        o.stdout_str().contains("format:       v1.2\n") && !o.stdout_str().contains("gzip:"),
        "a plain sidecar: {}",
        o.stdout_str()
    );

    let text = log_text(39, 50_000, &[]);
    let archive = flate(&text, 6);
    let path = dir.path().join("real.log.gz");
    std::fs::write(&path, &archive).unwrap();
    let count = |want: u64, ctx: &str| {
        let o = lidx(args(&["count"], &path));
        assert_eq!(
            o.stdout,
            format!("{want}\n").into_bytes(),
            "{ctx}: {}",
            o.stderr
        );
    };
    let text_lines = Model::new(text.clone()).line_count();
    let o = lidx(args(&["index", "-q"], &path));
    assert_eq!(o.code, 0);
    count(text_lines, "as gzip");
    check_plain(&path, &archive, "--plain over a fresh gzip sidecar");
    let o = lidx(args(&["index"], &path));
    assert!(o.stderr.contains(": up to date: "), "{}", o.stderr);
    count(raw_line_count(&archive), "kept as plain");
    let o = lidx(args(&["index", "-q", "--force"], &path));
    assert_eq!(o.code, 0);
    count(text_lines, "--force: gzip again");
}

/// Cases of GNU gzip's own test suite (`tests/` of gzip 1.12), rebuilt
/// here (their data is generated, not copied): `hufts` (an over-subscribed
/// Huffman code: "format violated", nothing printed), `memcpy-abuse`
/// (`printf wxy%032767d 0 | gzip`: overlapping copies across 32 KiB),
/// `helin-segv` (a 7-byte `.Z` file that gzip decodes to two NULs: not
/// gzip, refused by name), `mixed` (a member then plain text: trailing
/// garbage; two members: the text of both). `trailing-nul` is in
/// [`trailing_zero_bytes_are_padding`].
#[test]
fn gnu_gzip_test_suite_cases() {
    let dir = tempfile::tempdir().unwrap();
    let zcat = have("zcat");
    let gzip = |data: &[u8]| compress_with("gzip", &[], data).unwrap_or_else(|| flate(data, 6));
    let put = |path: &Path, bytes: &[u8]| {
        std::fs::write(path, bytes).unwrap();
        path.to_str().unwrap().to_string()
    };

    // hufts: BFINAL 1, BTYPE 2, HLIT 0, HDIST 0, HCLEN 15, and all 19
    // code-length code lengths 1 (over-subscribed), then a zero trailer.
    let mut bits: Vec<u8> = Vec::new();
    let mut put_bits = |v: u32, n: u32| (0..n).for_each(|i| bits.push((v >> i & 1) as u8));
    put_bits(1, 1);
    put_bits(2, 2);
    put_bits(0, 5);
    put_bits(0, 5);
    put_bits(15, 4);
    (0..19).for_each(|_| put_bits(1, 3));
    let mut hufts = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03".to_vec();
    hufts.extend(
        bits.chunks(8)
            .map(|c| c.iter().rev().fold(0u8, |a, &b| a << 1 | b)),
    );
    hufts.extend([0u8; 8]);
    let path = dir.path().join("hufts.gz");
    let p = put(&path, &hufts);
    if zcat {
        let (code, out, err) = tool("zcat", &[path.as_os_str()]);
        assert_eq!((code, out.len()), (1, 0), "hufts: zcat");
        assert!(
            err.contains("invalid compressed data--format violated"),
            "{err}"
        );
    }
    let o = lidx(["count", &p]);
    assert_eq!((o.code, o.stdout.len()), (2, 0), "hufts");
    assert!(
        o.stderr.starts_with(&format!("lidx: {p}: corrupt gzip data near compressed byte "))
            && o.stderr.ends_with(": invalid deflate data (invalid code lengths set); 0 lines can be read (no complete line before the damage)\n"),
        "hufts: {}",
        o.stderr
    );

    // memcpy-abuse.
    let mut wxy = b"wxy".to_vec();
    wxy.extend(std::iter::repeat_n(b'0', 32_767));
    let path = dir.path().join("in.gz");
    let p = put(&path, &gzip(&wxy));
    if zcat {
        let (code, out, _) = tool("zcat", &[path.as_os_str()]);
        assert!(code == 0 && out == wxy, "memcpy-abuse: zcat");
    }
    let o = lidx(["lines", "-q", &p, "1:"]);
    assert!(o.code == 0 && o.stdout == wxy, "memcpy-abuse: {}", o.stderr);
    assert_eq!(lidx(["count", &p]).stdout, b"1\n");

    // helin-segv: compress (.Z) data.
    let path = dir.path().join("helin.gz");
    let p = put(&path, b"\x1f\x9d\x90\0\0\0\xc4");
    if have("gzip") {
        let (code, out, _) = tool("gzip", &[OsStr::new("-dc"), path.as_os_str()]);
        assert_eq!((code, out), (0, b"\0\0".to_vec()), "helin-segv: gzip -dc");
    }
    let o = lidx(["count", &p]);
    assert_eq!(
        (o.code, o.stderr),
        (
            2,
            format!(
                "lidx: {p}: compress (.Z) data: not supported yet (decompress it first, or index its bytes as they are with `lidx index --plain`)\n"
            )
        ),
        "helin-segv"
    );

    // mixed: a member then text; two members.
    let mut mixed = gzip(b"xxx\n");
    let member_end = mixed.len();
    mixed.extend(b"yyy\n");
    let path = dir.path().join("mixed.gz");
    let p = put(&path, &mixed);
    if zcat {
        let (code, out, err) = tool("zcat", &[path.as_os_str()]);
        assert_eq!((code, out), (2, b"xxx\n".to_vec()), "mixed: zcat: {err}");
    }
    let o = lidx(["lines", &p, "1:"]);
    assert_eq!(
        (o.code, o.stdout.as_slice(), o.stderr.as_str()),
        (
            2,
            &b"xxx\n"[..],
            format!("lidx: {p}: trailing garbage after the last gzip member, from compressed byte {member_end}: 4 bytes that are neither a gzip member nor zero padding; only the 1 line before the damage can be read\n").as_str()
        ),
        "mixed"
    );
    let mut two = gzip(b"xxx\n");
    two.extend(gzip(b"yyy\n"));
    let path = dir.path().join("two.gz");
    let p = put(&path, &two);
    let o = lidx(["lines", "-q", &p, "1:"]);
    assert_eq!(
        (o.code, o.stdout.as_slice()),
        (0, &b"xxx\nyyy\n"[..]),
        "two members"
    );
}

/// Item 11 in process: damage in any member (a wrong CRC-32 in its
/// trailer, a flipped byte in its deflate data, a wrong FHCRC) leaves an
/// in-memory index of exactly the complete lines of the members before
/// it: every answer equals the model of that text (its checkpoints
/// included, as a build of that text alone makes them), and it passes a
/// full verification (§11.7: it is a valid sidecar of that text, never
/// written). Trailing garbage keeps every member's complete lines.
#[test]
fn damage_in_any_member_keeps_the_lines_of_the_members_before() {
    let dir = tempfile::tempdir().unwrap();
    let text = log_text(40, 900_000, &[200_000, 610_000]);
    let cuts = [
        0,
        90_001,
        180_000,
        330_333,
        500_000,
        640_000,
        700_000,
        820_017,
        text.len(),
    ];
    let mut pieces = Vec::new();
    for (i, w) in cuts.windows(2).enumerate() {
        let part = &text[w[0]..w[1]];
        let gz = match i % 3 {
            0 => flate(part, 6),
            1 => compress_with("gzip", &["-1"], part).unwrap_or_else(|| flate(part, 1)),
            _ => flate(part, 9),
        };
        pieces.push((part, gz));
    }
    let (whole, archive, members) = members_of(&pieces);
    assert!(whole == text);
    // Byte offset of each member and of the end.
    let mut bounds = vec![0usize];
    for (_, gz) in &pieces {
        bounds.push(bounds.last().unwrap() + gz.len());
    }
    let path = dir.path().join("members.log.gz");
    let open = || {
        lidx::OpenOptions::new()
            .span(SPAN)
            .spacing(SPACING)
            .open(&path)
    };
    let depth = Depth {
        all_lines_up_to: 0,
        all_offsets_up_to: 0,
        samples: 60,
        ranges: 8,
    };
    let mut checked = 0;
    for k in 0..pieces.len() {
        let text_before = members[k].0 as usize;
        let readable = complete_lines(&text[..text_before]);
        let (start, end) = (bounds[k], bounds[k + 1]);
        let deflate = members[k].1 as usize;
        let mut fhcrc = archive[..start].to_vec();
        fhcrc.extend(member_with_fhcrc(pieces[k].0, false));
        fhcrc.extend(&archive[end..]);
        for (how, bad) in [
            ("trailer CRC-32", {
                let mut b = archive.clone();
                b[end - 8] ^= 0x40;
                b
            }),
            ("deflate byte", {
                let mut b = archive.clone();
                b[(deflate + end - 8) / 2] ^= 0x08;
                b
            }),
            ("FHCRC", fhcrc),
        ] {
            let ctx = format!("member {k}: {how}");
            std::fs::write(&path, &bad).unwrap();
            match open() {
                Ok(o) => {
                    assert_eq!(o.action, lidx::Action::Damaged, "{ctx}");
                    let m = Model::new(readable.to_vec());
                    check_index(&o.index, &m, SPACING, depth, k as u64, &ctx);
                    o.index
                        .verify(true)
                        .unwrap_or_else(|e| panic!("{ctx}: verify: {e}"));
                    let past = o.index.line_span(m.line_count()).unwrap_err();
                    assert!(matches!(past, lidx::Error::Damaged { .. }), "{ctx}: {past}");
                    checked += 1;
                }
                Err(e) => {
                    assert!(readable.is_empty(), "{ctx}: {e}");
                    assert!(
                        matches!(e, lidx::Error::Damaged { lines: 0, .. }),
                        "{ctx}: {e}"
                    );
                }
            }
            no_sidecar_for(&path, &ctx);
        }
    }
    assert!(checked >= 3 * (pieces.len() - 1), "{checked}");
    // Trailing garbage: all the members' complete lines.
    let mut bad = archive.clone();
    bad.extend(b"not a member\n");
    std::fs::write(&path, &bad).unwrap();
    let o = open().unwrap();
    assert_eq!(o.action, lidx::Action::Damaged);
    let m = Model::new(complete_lines(&text).to_vec());
    check_index(&o.index, &m, SPACING, depth, 99, "trailing garbage");
    o.index.verify(true).unwrap();
}

/// Spec R-41 step 2a: a file indexed while empty (or a few bytes long),
/// which then fills with a gzip archive (`logrotate` creates `app.log.1.gz`
/// before gzip writes it), is rebuilt as an archive, never extended as
/// plain bytes (its lines would be compressed garbage).
#[test]
fn a_file_indexed_empty_that_fills_with_an_archive_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let text: Vec<u8> = (1..=500)
        .flat_map(|k| format!("entry {k}\n").into_bytes())
        .collect();
    let gz = flate(&text, 6);
    for head in [0usize, 1, 2, 9] {
        let p = dir.path().join(format!("grow{head}.gz"));
        std::fs::write(&p, &gz[..head]).unwrap();
        let o = crate::run::lidx_with(
            [OsStr::new("count"), OsStr::new("-q"), p.as_os_str()],
            Rules::SILENT_ERROR,
        );
        assert!(o.code == 0 || o.code == 2, "{o:?}");
        std::fs::write(&p, &gz).unwrap();
        let o = crate::run::lidx_with(
            [OsStr::new("count"), OsStr::new("-q"), p.as_os_str()],
            Rules::SILENT_ERROR,
        );
        assert_eq!((o.code, o.stdout_str()), (0, "500\n".into()), "head {head}");
    }
}
