//! lidx integration tests: one binary, one module per concern.
//!
//! - [`oracle`]: the naive model (split the file on `\n`) and the checker
//!   that asks an `Index` everything and compares.
//! - [`props`]: property tests and edge-case tables against the model.
//! - [`extend`]: incremental extension equals a fresh build, byte for byte,
//!   from sidecars of 1.2 and of the 1.0/1.1 layout ([`legacy`]).
//! - [`big`]: offsets above 4 GiB; lookup cost bounded by the spacing.
//! - [`threads`]: one `Index` shared by 8 threads under a tiny cache.
//! - [`sidecar`]: damaged sidecars are errors, never wrong answers.
//! - [`flips`]: the binary against every one-byte change and every
//!   page-boundary cut of a small plain and gzip sidecar.
//! - [`cli`]: the real binary against `sed`, `grep` and the model.
//! - [`args`]: the command line's grammar: options in every position for
//!   every subcommand, `--`, ranges counted from the end (`$`, `$-K`)
//!   against `tail`, `head` and `sed`.
//! - [`grep`]: `lidx grep` against ripgrep, and `Index::search` against a
//!   per-line model.
//! - [`rgsuite`]: ripgrep's own test suites (and edge cases) as a table,
//!   `lidx grep` run four ways (whole file, a checkpoint per line with 4
//!   workers, gzip, `--lines` ranges) against ripgrep 15.2.0's stored output.
//! - [`rgmulti`]: ripgrep's own tests that search several files or a
//!   directory (globs, ignore files, hidden files, `-l`, `-c`, headings,
//!   `-0`, JSON over files, ...), each a layout run by the live ripgrep
//!   15.2.0 and by `lidx grep` (twice: building sidecars, then with them).
//! - [`speculative`]: ordinary gzip archives decoded on several cores
//!   at ingest: the same sidecar as `-j 1` for gzip, pigz, members,
//!   stored blocks, damage and stored deflate data (false starts).
//! - [`gz`]: gzip sources (gzip, pigz, flate2, members, damage) against the
//!   decompressed text, `zcat | sed` and `zcat | rg`.
//! - [`remote`]: URLs served by nginx, moto (S3) and a fault proxy, against
//!   the model; request counts from the access log.
//! - [`time`]: the time index against a generator that knows each
//!   stamp's instant, `awk` windows and lnav's time filter.
//! - [`timelogs`]: the time index on excerpts of real logs (loghub, lnav's
//!   test logs) against each line's stamp as an independent oracle read it.
//! - [`zstd`]: zstd seekable sources (`lidx pack`, zeekstd, a hand-built
//!   archive) against `zstd -dc | sed`, damage, plain `.zst` refused,
//!   appended archives.
//! - [`family`]: rotation families (`-R`) under the real `logrotate`
//!   and a writer process, each scheme, followed by `lines -f -R`; global
//!   numbers against the writer's own sequence; bad families refused.
//! - [`merge`]: several logs merged by time (`lines --merge`,
//!   `--since/--until` and `grep` over several files) against a Python
//!   k-way merge of the stamps.
//! - [`crash`]: `lidx index` killed at random moments leaves the old or a
//!   complete sidecar.
//!
//! Run with `cargo test -p lidx-cli --test it` (about two minutes in a debug build on
//! 2 cores; the crash test, the 4 GiB sparse-source scan and `rgsuite`, which
//! starts some ten thousand processes, are the longest).

mod args;
mod bgzf;
mod big;
mod cli;
mod crash;
mod docs;
mod extend;
mod family;
mod flips;
mod grep;
mod gz;
#[path = "../../../tests/support/legacy.rs"]
mod legacy;
mod merge;
mod oracle;
mod props;
#[cfg(feature = "remote")]
mod remote;
mod rgmulti;
mod rgsuite;
mod run;
mod ship;
mod sidecar;
mod speculative;
mod threads;
mod time;
mod timelogs;
mod view;
mod view_habits;
mod view_long_lines;
mod view_pipe;
mod view_signals;
mod zstd;
