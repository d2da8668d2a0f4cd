//! One `Index` shared by 8 threads through a page cache far smaller than
//! the sidecar: every answer must match the model, the cache must stay
//! within its byte budget at all times, and the run must end (a watchdog
//! fails the suite after 300 s rather than let a deadlock hang it).

use crate::oracle::{Model, Rng, checkpoints_of, predecessor, random_text};
use lidx::{Index, LineBuf, OpenOptions};
use std::sync::atomic::{AtomicBool, Ordering};

fn assert_send_sync<T: Send + Sync>() {}

/// Bounds a test's run time: if the guard is not dropped within `secs`
/// (a deadlock, a livelock), the whole test process exits with a message
/// instead of hanging the suite.
struct Watchdog(std::sync::mpsc::Sender<()>);

fn watchdog(secs: u64, what: &'static str) -> Watchdog {
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
            rx.recv_timeout(std::time::Duration::from_secs(secs))
        {
            eprintln!("{what}: still running after {secs} s: deadlock?");
            std::process::exit(101);
        }
    });
    Watchdog(tx)
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

#[test]
fn eight_threads_small_cache() {
    let _guard = watchdog(300, "eight_threads_small_cache");
    assert_send_sync::<Index>();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.txt");
    let mut rng = Rng::new(8);
    // ~12000 lines at spacing 1 and page size 512: ~390 leaves, 3 levels.
    let data = random_text(&mut rng, 12_000, 10, false);
    std::fs::write(&path, &data).unwrap();
    let m = Model::new(data);
    let budget = 4096 * 4;
    let opened = OpenOptions::new()
        .spacing(1)
        .page_size(512)
        .cache_bytes(budget)
        .open(&path)
        .unwrap();
    let index = opened.index;
    let info = index.info();
    assert_eq!(info.height, 3, "{info:?}");
    assert!(info.pages > 300, "{info:?}");
    let cps = checkpoints_of(&m.starts, m.len(), 1);
    let stats = index.cache_stats();
    assert!(stats.budget_bytes <= budget, "{stats:?}");
    let over = AtomicBool::new(false);
    let n = m.line_count();
    let len = m.len();
    std::thread::scope(|s| {
        for t in 0..8u64 {
            let (index, m, cps, over) = (&index, &m, &cps, &over);
            s.spawn(move || {
                let mut rng = Rng::new(100 + t);
                let mut buf = LineBuf::new();
                for i in 0..6000 {
                    match rng.below(5) {
                        0 => {
                            let l = rng.below(n);
                            assert_eq!(index.line_span(l).unwrap(), m.span(l), "thread {t}");
                        }
                        1 => {
                            let o = rng.below(len);
                            assert_eq!(index.line_at(o).unwrap(), m.line_at(o).unwrap());
                        }
                        2 => {
                            let a = rng.below(n + 2);
                            let r = a..a + rng.below(30);
                            index.read_lines(r.clone(), &mut buf).unwrap();
                            assert_eq!(buf.bytes(), m.bytes(m.lines_span(&r)), "{r:?}");
                        }
                        3 => {
                            let a = rng.below(n);
                            let r = a..a + rng.below(10);
                            let mut out = Vec::new();
                            index.write_lines(r.clone(), true, &mut out).unwrap();
                            assert_eq!(out, m.render(&r, true), "{r:?}");
                        }
                        _ => {
                            let o = rng.below(len);
                            let got = index.checkpoint_for_offset(o).unwrap();
                            assert_eq!(got, predecessor(cps, o, |c| c.offset));
                            let l = rng.below(n);
                            let got = index.checkpoint_for_line(l).unwrap();
                            assert_eq!(got, predecessor(cps, l, |c| c.line));
                        }
                    }
                    if i % 16 == 0 {
                        let st = index.cache_stats();
                        if st.resident_bytes > st.budget_bytes {
                            over.store(true, Ordering::Relaxed);
                        }
                    }
                }
            });
        }
        // A watcher sampling the counters while the readers run.
        s.spawn(|| {
            for _ in 0..2000 {
                let st = index.cache_stats();
                if st.resident_bytes > budget || st.resident_bytes > st.budget_bytes {
                    over.store(true, Ordering::Relaxed);
                }
                std::thread::yield_now();
            }
        });
    });
    let st = index.cache_stats();
    assert!(!over.load(Ordering::Relaxed), "cache went over budget");
    assert!(st.resident_bytes <= budget, "{st:?}");
    assert!(st.evictions > 0, "the cache never evicted: {st:?}");
    assert!(st.misses > st.evictions, "{st:?}");
    // Still exact after all that churn.
    for l in (0..n).step_by(97) {
        assert_eq!(index.line_span(l).unwrap(), m.span(l));
    }
}

/// The smallest cache there is (one page: a budget of 0 still holds one),
/// fought over by 8 threads on a 3-level tree: answers stay exact.
#[test]
fn one_page_cache_under_contention() {
    let _guard = watchdog(300, "one_page_cache_under_contention");
    let mut rng = Rng::new(80);
    let data = random_text(&mut rng, 3000, 8, true);
    let m = Model::new(data.clone());
    let opts = lidx::BuildOptions {
        spacing: 1,
        page_size: 512,
        ..lidx::BuildOptions::default()
    };
    let sidecar = lidx::build_to_vec(&lidx::io::MemSource::new(data.clone()), &opts).unwrap();
    let index = Index::from_parts(
        Box::new(lidx::io::MemSource::new(data)),
        Box::new(lidx::io::MemSource::new(sidecar)),
        (0, 0),
        0,
    )
    .unwrap();
    assert_eq!(index.info().height, 3);
    assert_eq!(index.cache_stats().budget_bytes, 512);
    let n = m.line_count();
    std::thread::scope(|s| {
        for t in 0..8u64 {
            let (index, m) = (&index, &m);
            s.spawn(move || {
                let mut rng = Rng::new(t);
                for _ in 0..3000 {
                    let l = rng.below(n);
                    assert_eq!(index.line_span(l).unwrap(), m.span(l));
                    let o = rng.below(m.len());
                    assert_eq!(index.line_at(o).unwrap(), m.line_at(o).unwrap());
                    let st = index.cache_stats();
                    assert!(st.resident_bytes <= 512, "{st:?}");
                }
            });
        }
    });
    assert!(
        index.cache_stats().evictions > 1000,
        "{:?}",
        index.cache_stats()
    );
}

/// The same for a gzip source: 8 threads reading lines all over an archive
/// of many small spans, through a span cache of a few spans, so decoded
/// spans are evicted and decoded again all the time. (This test found that
/// a line lookup read a whole 128 KiB buffer past its checkpoint, which
/// with 1 KiB spans decoded about a hundred spans per lookup.)
#[test]
fn eight_threads_on_a_gzip_source() {
    use std::io::Write;
    let _guard = watchdog(300, "eight_threads_on_a_gzip_source");
    let mut rng = Rng::new(88);
    let data = random_text(&mut rng, 20_000, 30, true);
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    for piece in data.chunks(1500) {
        e.write_all(piece).unwrap();
        e.flush().unwrap();
    }
    let archive = e.finish().unwrap();
    let m = Model::new(data);
    let opts = lidx::BuildOptions {
        spacing: 256,
        page_size: 512,
        span: 1024,
        ..lidx::BuildOptions::default()
    };
    let sidecar = lidx::build_to_vec(&lidx::io::MemSource::new(archive.clone()), &opts).unwrap();
    let index = Index::from_parts(
        Box::new(lidx::io::MemSource::new(archive)),
        Box::new(lidx::io::MemSource::new(sidecar)),
        (0, 0),
        16 * 1024,
    )
    .unwrap();
    assert!(
        index.info().gzip.is_some_and(|g| g.1 > 100),
        "{:?}",
        index.info()
    );
    let (n, len) = (m.line_count(), m.len());
    std::thread::scope(|s| {
        for t in 0..8u64 {
            let (index, m) = (&index, &m);
            s.spawn(move || {
                let mut rng = Rng::new(200 + t);
                let mut buf = LineBuf::new();
                for _ in 0..300 {
                    let a = rng.below(n);
                    let r = a..a + rng.below(20);
                    index.read_lines(r.clone(), &mut buf).unwrap();
                    assert_eq!(buf.bytes(), m.bytes(m.lines_span(&r)), "{r:?}");
                    let o = rng.below(len);
                    assert_eq!(index.line_at(o).unwrap(), m.line_at(o).unwrap());
                }
            });
        }
    });
}

/// A tree that fits the budget is pinned: 8 threads' answers match the
/// model, each page is read once (misses never exceed the node pages,
/// nothing is evicted), the cache stays within its budget, and a second
/// pass reads nothing. A damaged page is never pinned: every lookup that
/// needs it fails, and the others still answer.
#[test]
fn eight_threads_pinned_tree() {
    let _guard = watchdog(300, "eight_threads_pinned_tree");
    let mut rng = Rng::new(88);
    let data = random_text(&mut rng, 12_000, 10, false);
    let m = Model::new(data.clone());
    let opts = lidx::BuildOptions {
        spacing: 1,
        page_size: 512,
        ..lidx::BuildOptions::default()
    };
    let sidecar = lidx::build_to_vec(&lidx::io::MemSource::new(data.clone()), &opts).unwrap();
    let pages = (sidecar.len() / 512) as u64;
    let budget = sidecar.len() + 512;
    let open = |sidecar: Vec<u8>| {
        Index::from_parts(
            Box::new(lidx::io::MemSource::new(data.clone())),
            Box::new(lidx::io::MemSource::new(sidecar)),
            (0, 0),
            budget,
        )
        .unwrap()
    };
    let index = open(sidecar.clone());
    let n = m.line_count();
    let pass = |index: &Index| {
        std::thread::scope(|s| {
            for t in 0..8u64 {
                let m = &m;
                s.spawn(move || {
                    let mut rng = Rng::new(100 + t);
                    for _ in 0..3000 {
                        let l = rng.below(n);
                        assert_eq!(index.line_span(l).unwrap(), m.span(l));
                        let o = rng.below(m.len());
                        assert_eq!(index.line_at(o).unwrap(), m.line_at(o).unwrap());
                    }
                });
            }
        })
    };
    pass(&index);
    let st = index.cache_stats();
    assert!(st.misses < pages, "{st:?}: {pages} pages");
    assert_eq!(st.evictions, 0, "{st:?}");
    assert!(
        st.resident_bytes <= st.budget_bytes && st.budget_bytes <= budget,
        "{st:?}"
    );
    pass(&index);
    assert_eq!(
        index.cache_stats().misses,
        st.misses,
        "the second pass read pages"
    );
    // A flipped byte in the last leaf: lines there fail, every time.
    let mut bad = sidecar.clone();
    let at = bad.len() - 512 + 100;
    bad[at] ^= 1;
    let index = open(bad);
    for _ in 0..3 {
        assert!(index.line_span(n - 1).is_err());
    }
    assert_eq!(index.line_span(0).unwrap(), m.span(0));
}

/// `lidx index -j N` writes the same sidecar for every N (the parallel
/// scan of issue 14 against the sequential one), on text with lines longer
/// than the spacing and without a final newline, fresh and extended; and
/// the line count is `grep -c ''`'s.
#[test]
fn parallel_ingest_writes_the_sequential_sidecar() {
    use crate::run::{Rules, lidx_with};
    let _w = watchdog(300, "parallel_ingest_writes_the_sequential_sidecar");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.log");
    let mut rng = Rng::new(0x5eed14);
    let mut text = Vec::new();
    while text.len() < 3 << 20 {
        text.extend(random_text(&mut rng, 2000, 300, true));
        // A line longer than every spacing below, now and then.
        if rng.below(3) == 0 {
            text.extend(std::iter::repeat_n(
                b'L',
                70_000 + rng.below(50_000) as usize,
            ));
            text.push(b'\n');
        }
    }
    text.extend_from_slice(b"the last line has no newline");
    std::fs::write(&path, &text).unwrap();
    let build = |j: &str, spacing: &str, out: &std::path::Path, force: bool| -> Vec<u8> {
        let mut args = vec!["index", "-q", "-j", j, "--spacing", spacing, "--index"];
        args.push(out.to_str().unwrap());
        args.push(path.to_str().unwrap());
        if force {
            args.push("--force");
        }
        let o = lidx_with(&args, Rules::SILENT_ERROR);
        assert_eq!(o.code, 0, "lidx {args:?}: {}", o.stderr);
        std::fs::read(out).unwrap()
    };
    for spacing in ["16384", "65536", "100000"] {
        let one = build("1", spacing, &dir.path().join("one.lidx"), true);
        for j in ["2", "3", "8"] {
            let many = build(j, spacing, &dir.path().join(format!("j{j}.lidx")), true);
            assert!(one == many, "spacing {spacing}: -j {j} differs from -j 1");
        }
    }
    let count = lidx_with(["count", path.to_str().unwrap()], Rules::SILENT_ERROR);
    let lines = text.split(|&b| b == b'\n').count();
    assert_eq!(count.stdout_str().trim(), lines.to_string());
    // Grown: the extension (scanned in parallel from its last checkpoint)
    // equals a fresh sequential build.
    let ext = dir.path().join("ext.lidx");
    build("2", "16384", &ext, true);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut f, &random_text(&mut rng, 20_000, 200, false)).unwrap();
    drop(f);
    let extended = build("2", "16384", &ext, false);
    let fresh = build("1", "16384", &dir.path().join("fresh.lidx"), true);
    crate::extend::assert_same_sidecar(&extended, &fresh, "extended with -j 2");
}

/// `lidx index --time -j N` writes the same sidecar for every N: the
/// workers read the stamps out of order, the time pass gets them in order
/// (lines that would be read as syslog stamps, whose year follows the line
/// before, are read in order). Logs in several formats, with unstamped
/// lines, lines longer than a stamp's head (512 bytes) and than the
/// spacing, format changes, out-of-order times; fresh and extended.
#[test]
fn parallel_time_ingest_writes_the_sequential_sidecar() {
    use crate::run::{Rules, lidx_with};
    let _w = watchdog(300, "parallel_time_ingest_writes_the_sequential_sidecar");
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(0x7113);
    const MON: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    // One log line of style `style` at second `t` of 2026 (from March).
    let line = |rng: &mut Rng, style: u64, t: u64| -> String {
        let (d, s) = (t / 86_400, t % 86_400);
        let (mo, day) = (2 + (d / 28) % 9, 1 + d % 28);
        let (h, mi, se) = (s / 3600, s / 60 % 60, s % 60);
        let ms = rng.below(1000);
        let body = "x".repeat(rng.below(120) as usize);
        match style {
            0 => format!(
                "2026-{:02}-{day:02}T{h:02}:{mi:02}:{se:02}.{ms:03}+01:00 info {body}\n",
                mo + 1
            ),
            1 => format!(
                "2026-{:02}-{day:02} {h:02}:{mi:02}:{se:02},{ms:03} WARN {body}\n",
                mo + 1
            ),
            2 => format!(
                "{} {day:2} {h:02}:{mi:02}:{se:02} host app[1]: {body}\n",
                MON[mo as usize]
            ),
            3 => format!(
                "10.0.0.1 - - [{day:02}/{}/2026:{h:02}:{mi:02}:{se:02} +0000] \"GET /{body} HTTP/1.1\" 200 5\n",
                MON[mo as usize]
            ),
            4 => format!("\tat com.example.Thing.method(Thing.java:{ms})\n"),
            5 => format!(
                "2026-{:02}-{day:02}T{h:02}:{mi:02}:{se:02}Z {}\n",
                mo + 1,
                "L".repeat(600 + rng.below(30_000) as usize)
            ),
            _ => format!("{}{ms:03} epoch line {body}\n", 1_772_000_000 + t),
        }
    };
    let make = |rng: &mut Rng, styles: &[u64], size: usize| -> Vec<u8> {
        let mut text = String::new();
        let mut t = 5_000_000u64;
        while text.len() < size {
            // Mostly forward, sometimes back a little.
            t = (t + rng.below(5)).saturating_sub(if rng.below(20) == 0 { 7 } else { 0 });
            let style = styles[rng.below(styles.len() as u64) as usize];
            text.push_str(&line(rng, style, t));
        }
        text.into_bytes()
    };
    let index =
        |path: &std::path::Path, out: &std::path::Path, extra: &[&str], j: &str, force: bool| {
            let mut args = vec!["index", "-q", "-j", j, "--index", out.to_str().unwrap()];
            args.extend_from_slice(extra);
            if force {
                args.push("--force");
            }
            args.push(path.to_str().unwrap());
            let o = lidx_with(&args, Rules::SILENT_ERROR);
            assert_eq!(o.code, 0, "lidx {args:?}: {}", o.stderr);
            std::fs::read(out).unwrap()
        };
    let cases: [(&str, &[u64], &[&str]); 5] = [
        (
            "iso, detected, with syslog, clf and unstamped lines",
            &[0, 0, 0, 1, 2, 3, 4, 4, 5],
            &["--time", "--tz", "Europe/Paris"],
        ),
        (
            "iso with comma fractions, zoneless",
            &[1, 1, 4],
            &["--time", "--tz", "Europe/Paris"],
        ),
        (
            "clf given",
            &[3, 3, 4],
            &["--time-format", "clf", "--tz", "UTC"],
        ),
        ("epoch-ms given", &[6, 4], &["--time-format", "epoch-ms"]),
        (
            "syslog (read in order)",
            &[2, 2, 4],
            &["--time", "--tz", "UTC"],
        ),
    ];
    for (name, styles, extra) in cases {
        let path = dir.path().join("t.log");
        let text = make(&mut rng, styles, 1_500_000);
        std::fs::write(&path, &text).unwrap();
        for spacing in ["16384", "65536"] {
            let mut a = extra.to_vec();
            a.extend_from_slice(&["--spacing", spacing]);
            let one = index(&path, &dir.path().join("one.lidx"), &a, "1", true);
            for j in ["2", "3"] {
                let many = index(&path, &dir.path().join("many.lidx"), &a, j, true);
                assert!(
                    one == many,
                    "{name}, spacing {spacing}: -j {j} differs from -j 1"
                );
            }
        }
        // Grown: extended with -j 2, equal to a fresh -j 1 build.
        let ext = dir.path().join("ext.lidx");
        index(&path, &ext, extra, "2", true);
        let more = make(&mut rng, styles, 700_000);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        std::io::Write::write_all(&mut f, &more).unwrap();
        drop(f);
        let extended = index(&path, &ext, extra, "2", false);
        let fresh = index(&path, &dir.path().join("fresh.lidx"), extra, "1", true);
        crate::extend::assert_same_sidecar(
            &extended,
            &fresh,
            &format!("{name}: extended with -j 2"),
        );
    }
}
