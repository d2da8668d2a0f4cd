//! Gotos in-process: open a file's index (a fresh open each time: the
//! sidecar's header, the source's fingerprint, the tree's pages) and read
//! one line, as a program that embeds the library (a viewer, a C or
//! Python program) pays per goto, without a process's start.
//!
//! `cargo bench --bench goto -- FILE SIDECAR RUNS LINE...` (1-based
//! lines). Prints the median of each line's runs in seconds, and last the
//! mean of those medians; the line read is checked against the first
//! run's on every run.

use lidx::{LineBuf, OpenOptions};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if args.len() < 4 {
        eprintln!("usage: goto FILE SIDECAR RUNS LINE...");
        std::process::exit(2);
    }
    let (file, sidecar) = (&args[0], &args[1]);
    let runs: usize = args[2].parse().expect("RUNS");
    let mut opts = OpenOptions::new();
    opts.sidecar(sidecar);
    let mut medians = Vec::new();
    for n in &args[3..] {
        let n: u64 = n.parse().expect("LINE");
        let mut buf = LineBuf::new();
        let mut first: Option<Vec<u8>> = None;
        let mut times: Vec<Duration> = (0..runs)
            .map(|_| {
                let t = Instant::now();
                let index = opts.open(file).expect("open").index;
                index.read_lines(n - 1..n, &mut buf).expect("read");
                drop(index);
                let dt = t.elapsed();
                let line = buf.iter().next().expect("the line").to_vec();
                assert_eq!(*first.get_or_insert_with(|| line.clone()), line);
                dt
            })
            .collect();
        times.sort();
        let m = times[runs / 2].as_secs_f64();
        println!("{n}\t{m:.6}");
        medians.push(m);
    }
    println!(
        "mean\t{:.6}",
        medians.iter().sum::<f64>() / medians.len() as f64
    );
}
