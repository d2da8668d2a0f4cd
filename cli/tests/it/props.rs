//! Library answers against the naive model: property tests over generated
//! files (in memory and through real files), a table of hand-picked edge
//! cases, and trees of every height.

use crate::oracle::config;
use crate::oracle::{Depth, Model, Rng, check_index, random_text, stored_checkpoints, tree_shape};
use lidx::io::MemSource;
use lidx::{Action, BuildOptions, Index, OpenOptions};
use proptest::collection::vec;
use proptest::prelude::*;

const QUERY_BUFFER: usize = lidx::ingest::BUFFER_SIZE;

fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        6 => Just(b'a'),
        1 => Just(b'\r'),
        1 => Just(0u8),
        1 => Just(0xffu8),
        1 => Just(0xc3u8),
        2 => any::<u8>().prop_map(|b| if b == b'\n' { b'n' } else { b }),
    ]
}

/// One line's content (no `\n`): mostly short, sometimes far longer than
/// the small spacings, sometimes ending in `\r` (CRLF files).
fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        5 => vec(byte(), 0..6),
        3 => vec(byte(), 6..60),
        1 => (60usize..2500, byte()).prop_map(|(n, b)| vec![b; n]),
        1 => vec(byte(), 0..4).prop_map(|mut v| {
            v.push(b'\r');
            v
        }),
    ]
}

fn join(lines: Vec<Vec<u8>>, trailing_newline: bool) -> Vec<u8> {
    let mut out = lines.join(&b'\n');
    if trailing_newline && !lines.is_empty() {
        out.push(b'\n');
    }
    out
}

fn text() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        1 => Just(Vec::new()),
        1 => any::<u8>().prop_map(|b| vec![b]),
        1 => (1usize..300).prop_map(|n| vec![b'\n'; n]),
        1 => vec(prop_oneof![Just(b'\n'), Just(b'\r'), Just(0u8)], 0..100),
        10 => (vec(line(), 0..60), any::<bool>()).prop_map(|(l, t)| join(l, t)),
        // Enough lines for a 3-level tree at page size 512 and spacing 1.
        1 => (vec(vec(byte(), 0..3), 745..1100), any::<bool>()).prop_map(|(l, t)| join(l, t)),
    ]
}

fn spacing() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => Just(1u64),
        2 => 2u64..8,
        2 => 8u64..64,
        1 => 64u64..700,
        1 => Just(1u64 << 40),
        1 => Just(u64::MAX),
    ]
}

fn page_size() -> impl Strategy<Value = u32> {
    prop_oneof![Just(512u32), Just(4096u32)]
}

fn buffer_size() -> impl Strategy<Value = usize> {
    prop_oneof![
        3 => Just(lidx::ingest::BUFFER_SIZE),
        1 => 1usize..8,
        1 => 8usize..300,
    ]
}

fn opts(spacing: u64, page_size: u32, buffer_size: usize) -> BuildOptions {
    BuildOptions {
        spacing,
        page_size,
        buffer_size,
        ..BuildOptions::default()
    }
}

/// Checks the tree's shape and stored checkpoints, then every answer.
fn check_in_memory(data: &[u8], o: &BuildOptions, depth: Depth, seed: u64) {
    let m = Model::new(data.to_vec());
    let ctx = format!(
        "{} bytes, {} lines, spacing {}, page {}, buffer {}",
        data.len(),
        m.line_count(),
        o.spacing,
        o.page_size,
        o.buffer_size
    );
    let cps = m.checkpoints(o.spacing);
    let sidecar = lidx::build_to_vec(&MemSource::new(data.to_vec()), o).unwrap();
    assert_eq!(
        stored_checkpoints(&sidecar),
        cps,
        "{ctx}: stored checkpoints"
    );
    let (height, pages) = tree_shape(cps.len() as u64, o.page_size);
    assert_eq!(
        sidecar.len(),
        pages as usize * o.page_size as usize,
        "{ctx}: size"
    );
    let index = Index::build_in_memory(Box::new(MemSource::new(data.to_vec())), o).unwrap();
    let info = index.info();
    assert_eq!(info.height, height, "{ctx}: height");
    assert_eq!(info.pages, pages, "{ctx}: pages");
    assert_eq!(info.lines, m.line_count(), "{ctx}: info.lines");
    assert_eq!(
        info.checkpoints,
        cps.len() as u64,
        "{ctx}: info.checkpoints"
    );
    check_index(&index, &m, o.spacing, depth, seed, &ctx);
    let report = index.verify(true).unwrap();
    assert_eq!(report.checkpoints, cps.len() as u64, "{ctx}: verify");
}

proptest! {
    #![proptest_config(config(160))]

    #[test]
    fn in_memory_matches_oracle(
        data in text(),
        spacing in spacing(),
        page_size in page_size(),
        buffer_size in buffer_size(),
        seed: u64,
    ) {
        check_in_memory(&data, &opts(spacing, page_size, buffer_size), Depth::default(), seed);
    }
}

proptest! {
    #![proptest_config(config(40))]

    /// Through real files: build with `OpenOptions`, reopen (fresh), and
    /// compare the sidecar file with an in-memory build.
    #[test]
    fn files_match_oracle(
        data in text(),
        spacing in spacing(),
        page_size in page_size(),
        seed: u64,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        std::fs::write(&path, &data).unwrap();
        let m = Model::new(data.clone());
        let ctx = format!("file of {} bytes, spacing {spacing}, page {page_size}", data.len());
        let opened = OpenOptions::new()
            .spacing(spacing)
            .page_size(page_size)
            .cache_bytes(page_size as usize * 2)
            .open(&path)
            .unwrap();
        prop_assert_eq!(opened.action, Action::Built);
        let sidecar_path = dir.path().join("f.txt.lidx");
        prop_assert_eq!(opened.index.sidecar_path(), sidecar_path.as_path());
        check_index(&opened.index, &m, spacing, Depth::default(), seed, &ctx);
        drop(opened);

        let on_disk = std::fs::read(&sidecar_path).unwrap();
        let in_mem = lidx::build_to_vec(&MemSource::new(data.clone()), &opts(spacing, page_size, 4096)).unwrap();
        prop_assert_eq!(on_disk.len(), in_mem.len());
        prop_assert!(on_disk[page_size as usize..] == in_mem[page_size as usize..], "{}: node pages differ", ctx);
        prop_assert_eq!(stored_checkpoints(&on_disk), m.checkpoints(spacing));

        // Reopening finds it fresh, whatever spacing the defaults ask for.
        let again = OpenOptions::new().open(&path).unwrap();
        prop_assert_eq!(again.action, Action::Opened);
        check_index(&again.index, &m, spacing, Depth { samples: 200, ranges: 8, ..Depth::default() }, seed ^ 1, &ctx);
        let strict = Index::open(&path).unwrap();
        prop_assert_eq!(strict.line_count(), m.line_count());
        prop_assert_eq!(std::fs::read(&sidecar_path).unwrap(), on_disk);
    }
}

/// Hand-picked inputs, every one under many spacings, page sizes and scan
/// buffer sizes.
#[test]
fn edge_case_table() {
    let long = |n: usize| vec![b'x'; n];
    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", b"".to_vec()),
        ("one newline", b"\n".to_vec()),
        ("one byte", b"a".to_vec()),
        ("one CR", b"\r".to_vec()),
        ("one NUL", b"\0".to_vec()),
        ("one invalid UTF-8 byte", b"\xff".to_vec()),
        ("only newlines", b"\n\n\n\n\n".to_vec()),
        ("line with newline", b"a\n".to_vec()),
        ("no trailing newline", b"a\nb".to_vec()),
        ("CRLF only", b"\r\n\r\n".to_vec()),
        ("CRLF lines", b"a\r\nbb\r\nccc\r\n".to_vec()),
        ("CR without LF", b"a\rb\rc\n\r".to_vec()),
        ("NUL lines", b"\0\0\n\0\n\n\0".to_vec()),
        (
            "invalid UTF-8",
            b"\xc3\x28\n\xa0\xa1\n\xf0\x28\x8c\x28".to_vec(),
        ),
        ("leading empty lines", b"\n\n\nabc\n".to_vec()),
    ];
    let mut mixed = long(300);
    mixed.push(b'\n');
    cases.push(("long line, newline", mixed.clone()));
    cases.push(("long line, no newline", long(300)));
    let mut v = b"\n".to_vec();
    v.extend(long(300));
    cases.push(("newline then long final line", v));
    let mut v = b"a\nb\n".to_vec();
    v.extend(long(257));
    v.extend(b"\nc\n\nd");
    cases.push(("long line in the middle", v));
    let mut v = Vec::new();
    for i in 0..200 {
        v.extend(long(i % 17));
        v.push(b'\n');
    }
    cases.push(("ramp", v));
    for (name, data) in &cases {
        for spacing in [1, 2, 3, 5, 16, 64, 65536, 1 << 40, u64::MAX] {
            for page_size in [512, 4096] {
                for buffer_size in [1, 2, 7, QUERY_BUFFER] {
                    let o = opts(spacing, page_size, buffer_size);
                    let seed = spacing ^ page_size as u64 ^ buffer_size as u64;
                    std::panic::catch_unwind(|| check_in_memory(data, &o, Depth::default(), seed))
                        .unwrap_or_else(|_| {
                            panic!("case {name:?} spacing {spacing} page {page_size} buffer {buffer_size}")
                        });
                }
            }
        }
    }
}

/// Spacing 1 makes every line a checkpoint, so the line count picks the
/// tree's height: 1, 2 and 3 levels at both page sizes, at the exact
/// capacity boundaries (a 512-byte leaf holds 31 checkpoints, an internal
/// node 24 children; 4096: 255 and 204).
#[test]
fn tree_heights_at_capacity_boundaries() {
    for (page_size, counts) in [
        (512u32, vec![1u64, 31, 32, 744, 745, 2000]),
        (1024, vec![63, 64, 3150, 3151]),
        (4096, vec![1, 255, 256, 52020, 52021, 60000]),
        (65536, vec![4095, 4096]),
    ] {
        for &lines in &counts {
            let mut rng = Rng::new(lines);
            let mut data = Vec::new();
            for _ in 0..lines {
                data.extend(std::iter::repeat_n(b'q', rng.below(4) as usize));
                data.push(b'\n');
            }
            let (height, _) = tree_shape(lines, page_size);
            let want = match lines {
                1 | 31 | 63 | 255 | 4095 => 1,
                32 | 744 | 64 | 3150 | 256 | 52020 | 4096 => 2,
                _ => 3,
            };
            assert_eq!(height, want, "oracle shape for {lines} at {page_size}");
            let depth = Depth {
                all_lines_up_to: 2000,
                all_offsets_up_to: 4000,
                samples: 1500,
                ranges: 20,
            };
            check_in_memory(&data, &opts(1, page_size, QUERY_BUFFER), depth, lines);
        }
    }
}

/// Newlines exactly at, before and after the query buffer's boundaries,
/// with one checkpoint only (spacing larger than the file), so lookups
/// must count across several reads.
#[test]
fn newlines_at_query_buffer_boundaries() {
    let b = QUERY_BUFFER;
    let mut data = vec![b'y'; 3 * b + 10];
    for at in [0, 1, b - 2, b - 1, b, b + 1, 2 * b - 1, 2 * b, 3 * b + 9] {
        data[at] = b'\n';
    }
    let depth = Depth {
        all_lines_up_to: 100,
        all_offsets_up_to: 0,
        samples: 300,
        ranges: 30,
    };
    for spacing in [u64::MAX, 1 << 20, 4096, 1] {
        for buffer_size in [QUERY_BUFFER, 4095] {
            check_in_memory(&data, &opts(spacing, 512, buffer_size), depth, spacing);
        }
    }
    // And a file of many short lines whose lookups span several buffers.
    let mut rng = Rng::new(99);
    let data = random_text(&mut rng, 25_000, 20, false);
    check_in_memory(&data, &opts(1 << 40, 4096, QUERY_BUFFER), depth, 5);
}

/// Parameters no sidecar can have are refused up front, with nothing
/// written.
#[test]
fn invalid_build_options_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("o.txt");
    std::fs::write(&path, b"a\n").unwrap();
    for (spacing, page_size) in [(0u64, 4096u32), (1, 256), (1, 1000), (1, 131072), (1, 0)] {
        let r = OpenOptions::new()
            .spacing(spacing)
            .page_size(page_size)
            .open(&path);
        assert!(
            matches!(r, Err(lidx::Error::InvalidArgument(_))),
            "spacing {spacing}, page {page_size}: {r:?}"
        );
        let o = opts(spacing, page_size, 4096);
        assert!(lidx::build_to_vec(&MemSource::new(b"a\n".to_vec()), &o).is_err());
        assert!(Index::build_in_memory(Box::new(MemSource::new(b"a\n".to_vec())), &o).is_err());
    }
    let o = opts(1, 4096, 0);
    assert!(lidx::build_to_vec(&MemSource::new(b"a\n".to_vec()), &o).is_err());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

/// `read_lines_capped` against the naive split: every line's first `cap`
/// bytes (whole with its `\n` when its content fits), its offset and
/// length in the source, and whether it was cut.
fn check_capped(data: &[u8], spacing: u64, cap: usize, a: u64, b: u64) {
    let index = Index::build_in_memory(
        Box::new(MemSource::new(data.to_vec())),
        &opts(spacing, 512, lidx::ingest::BUFFER_SIZE),
    )
    .unwrap();
    let mut lines: Vec<(u64, &[u8])> = Vec::new();
    let mut at = 0u64;
    for l in data.split_inclusive(|&c| c == b'\n') {
        lines.push((at, l));
        at += l.len() as u64;
    }
    let (a, b) = (a.min(lines.len() as u64), b.min(lines.len() as u64 + 2));
    let ctx = format!(
        "{} bytes, spacing {spacing}, cap {cap}, lines {a}..{b}",
        data.len()
    );
    let mut buf = lidx::LineBuf::new();
    let n = index.read_lines_capped(a..b, cap, &mut buf).unwrap();
    let want = &lines[a as usize..(b as usize).min(lines.len()).max(a as usize)];
    assert_eq!(n, want.len(), "{ctx}: count");
    assert_eq!(buf.len(), want.len(), "{ctx}: len");
    assert_eq!(buf.first_line(), a, "{ctx}: first");
    let cap = cap.max(1);
    for (i, (off, l)) in want.iter().enumerate() {
        let content = l.strip_suffix(b"\n").unwrap_or(l);
        let held: &[u8] = if content.len() <= cap { l } else { &l[..cap] };
        assert_eq!(buf.line_with_terminator(i), held, "{ctx}: line {i}");
        assert_eq!(buf.line_offset(i), *off, "{ctx}: offset {i}");
        assert_eq!(buf.line_len(i), l.len() as u64, "{ctx}: len {i}");
        assert_eq!(buf.is_truncated(i), content.len() > cap, "{ctx}: cut {i}");
    }
    if !want
        .iter()
        .any(|(_, l)| l.strip_suffix(b"\n").unwrap_or(l).len() > cap)
    {
        let mut whole = lidx::LineBuf::new();
        index.read_lines(a..b, &mut whole).unwrap();
        assert_eq!(buf.bytes(), whole.bytes(), "{ctx}: bytes as read_lines");
    }
}

proptest! {
    #![proptest_config(config(200))]

    #[test]
    fn capped_reads_match_the_split(
        data in text(),
        spacing in spacing(),
        cap in prop_oneof![0usize..4, 4usize..100, Just(200_000usize)],
        a in 0u64..80,
        len in 0u64..80,
    ) {
        check_capped(&data, spacing, cap, a, a + len);
    }
}

#[test]
fn capped_reads_of_lines_longer_than_the_block() {
    // Lines longer than the library's 128 KiB read buffer, cut at a cap
    // below it, at it and above it.
    let mut data = Vec::new();
    for (i, n) in [10usize, 300_000, 5, 131_072, 131_073, 0, 1_000_000, 7]
        .iter()
        .enumerate()
    {
        data.extend(std::iter::repeat_n(b'a' + i as u8, *n));
        data.push(b'\n');
    }
    data.extend_from_slice(b"last without newline");
    for cap in [1, 100, 131_071, 131_072, 131_073, 400_000, 2_000_000] {
        for spacing in [64, 65536, 1 << 40] {
            check_capped(&data, spacing, cap, 0, 20);
            check_capped(&data, spacing, cap, 3, 7);
        }
    }
}
