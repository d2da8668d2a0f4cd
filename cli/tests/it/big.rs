//! Offsets above 4 GiB, through a sparse in-memory source (4 GiB of filler
//! forming one huge first line, then real short lines across the 2^32
//! boundary), and the cost of a lookup: about one spacing of source read,
//! whatever the line lengths.

use crate::oracle::{Depth, Model, Rng, check_index, line_starts, random_text};
use lidx::io::{MemSource, ReadAt};
use lidx::{BuildOptions, Index, LineBuf};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

const FOUR_GIB: u64 = 1 << 32;

/// The model of `sparse(base, b'x', tail)`: line 0 is the filler up to the
/// tail's first newline; the other lines are the tail's.
fn sparse_model(base: u64, tail: Vec<u8>) -> Model {
    let first_nl = tail.iter().position(|&b| b == b'\n').expect("a newline");
    let mut starts = vec![0u64];
    starts.extend(
        line_starts(&tail[first_nl + 1..])
            .into_iter()
            .map(|s| s + base + first_nl as u64 + 1),
    );
    Model {
        data: tail,
        base,
        starts,
    }
}

/// Filler `x` up to 2^32 - 3000, then 300 KiB of random lines, with line
/// starts at exactly 2^32 - 1, 2^32 and 2^32 + 1 (a newline at each byte
/// before). Built once (the scan of 4 GiB of filler takes a few seconds in
/// a debug build), queried at spacings 64 and page size 512 (a 3-level tree
/// whose internal keys lie above 2^32).
#[test]
fn offsets_above_4_gib() {
    let base = FOUR_GIB - 3000;
    let mut rng = Rng::new(4);
    let mut tail = random_text(&mut rng, 40_000, 12, false);
    tail.truncate(300 << 10);
    for o in [FOUR_GIB - 2, FOUR_GIB - 1, FOUR_GIB] {
        tail[(o - base) as usize] = b'\n';
    }
    let m = sparse_model(base, tail.clone());
    let spacing = 64;
    let opts = BuildOptions {
        spacing,
        page_size: 512,
        ..BuildOptions::default()
    };
    let index =
        Index::build_in_memory(Box::new(MemSource::sparse(base, b'x', tail)), &opts).unwrap();
    assert!(index.info().height >= 3, "{:?}", index.info());
    assert!(m.len() > FOUR_GIB);

    // The lines around the boundary, exactly.
    let l = m.line_at(FOUR_GIB).unwrap();
    assert_eq!(m.starts[l as usize], FOUR_GIB);
    for line in l - 5..l + 5 {
        assert_eq!(index.line_start(line).unwrap(), m.starts[line as usize]);
        assert_eq!(index.line_span(line).unwrap(), m.span(line));
    }
    for o in FOUR_GIB - 200..FOUR_GIB + 200 {
        assert_eq!(
            index.line_at(o).unwrap(),
            m.line_at(o).unwrap(),
            "line_at({o})"
        );
    }
    let mut buf = LineBuf::new();
    assert_eq!(index.read_lines(l - 3..l + 3, &mut buf).unwrap(), 6);
    assert_eq!(buf.first_line(), l - 3);
    assert_eq!(buf.start_offset(), m.starts[l as usize - 3]);
    assert_eq!(buf.line_with_terminator(3), b"\n");
    assert_eq!(buf.bytes(), m.bytes(m.lines_span(&(l - 3..l + 3))));
    let mut out = Vec::new();
    index.write_lines(l - 1..l + 2, true, &mut out).unwrap();
    assert_eq!(out, m.render(&(l - 1..l + 2), true));
    assert!(out.starts_with(format!("{}:\n{}:\n", l, l + 1).as_bytes()));

    // The huge first line: its ends come from checkpoints, not a scan.
    assert_eq!(index.line_span(0).unwrap(), m.span(0));
    assert_eq!(index.line_at(0).unwrap(), 0);
    assert_eq!(index.line_at(4095).unwrap(), 0);
    assert_eq!(index.lines_span(0..2).unwrap(), 0..m.starts[2]);

    // Everything else the checker asks, over the tail.
    let depth = Depth {
        all_lines_up_to: 0,
        all_offsets_up_to: 0,
        samples: 1500,
        ranges: 12,
    };
    check_index(&index, &m, spacing, depth, 11, "sparse 4 GiB");
}

/// A source that counts the bytes it is asked to read.
struct Counting {
    inner: MemSource,
    read: Arc<AtomicU64>,
}

impl ReadAt for Counting {
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn read_at(&self, buf: &mut [u8], offset: u64) -> lidx::Result<usize> {
        let n = self.inner.read_at(buf, offset)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
    fn path(&self) -> &Path {
        self.inner.path()
    }
}

/// The design's promise: "a lookup never scans more than about one spacing
/// of source, whatever the line lengths; a line longer than the spacing
/// simply gets its own checkpoint". A point lookup (line → offset, offset
/// → line) may read whole query buffers, so the bound allowed here is two
/// spacings plus one buffer; the file has a 64 MiB line among short ones.
#[test]
fn lookups_read_about_one_spacing() {
    let spacing = 4096u64;
    let slack = 2 * spacing + lidx::ingest::BUFFER_SIZE as u64;
    let long = 64u64 << 20;
    let mut rng = Rng::new(12);
    let mut tail = b"\n".to_vec();
    tail.extend(random_text(&mut rng, 20_000, 30, true));
    let base = long;
    let m = sparse_model(base, tail.clone());
    let read = Arc::new(AtomicU64::new(0));
    let src = Counting {
        inner: MemSource::sparse(base, b'x', tail),
        read: Arc::clone(&read),
    };
    let opts = BuildOptions {
        spacing,
        ..BuildOptions::default()
    };
    let index = Index::build_in_memory(Box::new(src), &opts).unwrap();
    let mut over = Vec::new();
    let mut cost = |what: String, f: &dyn Fn() -> u64, want: u64| {
        read.store(0, Ordering::Relaxed);
        assert_eq!(f(), want, "{what}");
        let r = read.load(Ordering::Relaxed);
        if r > slack {
            over.push(format!("{what} read {r} bytes"));
        }
    };
    for l in [1u64, 2, 100, 5000, m.line_count() - 1] {
        let want = m.starts[l as usize];
        cost(
            format!("line_start({l})"),
            &|| index.line_start(l).unwrap(),
            want,
        );
        let want = m.span(l).end;
        cost(
            format!("line_end({l})"),
            &|| index.line_end(l).unwrap(),
            want,
        );
    }
    cost(
        "line_end(0)".into(),
        &|| index.line_end(0).unwrap(),
        base + 1,
    );
    for o in [0, 1, 5000, base / 2, base - 1, base, base + 1, m.len() - 1] {
        let want = m.line_at(o).unwrap();
        cost(format!("line_at({o})"), &|| index.line_at(o).unwrap(), want);
    }
    assert!(
        over.is_empty(),
        "lookups reading more than {slack} bytes of source (spacing {spacing}, \
         a {long}-byte line 0): {over:?}"
    );
}
