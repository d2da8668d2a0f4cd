//! gzip sources: member parsing and resumable decoding.
//!
//! [`inflate::Inflater`] decodes a gzip file (any number of members, as
//! `cat a.gz b.gz`, pigz and bgzip produce) and reports deflate block
//! boundaries where decoding can later resume from a compressed bit offset
//! and a 32 KiB window ([`inflate::AccessPoint`]). The sidecar format for
//! gzip sources builds on this (issue 4). [`text::GzText`] presents the
//! uncompressed text as a [`crate::io::ReadAt`], so line lookups and range
//! scans work on it unchanged.

pub mod header;
pub mod inflate;
pub(crate) mod marker;
pub mod sparse;
pub mod text;
pub(crate) mod zlib;

pub use inflate::{AccessPoint, Event, Inflater};
pub use text::{AccessPoints, GzText, access_points};

/// `tool ARGS` with `input` on its stdin: its stdout, or `None` (with a
/// `SKIPPED` line) when the tool is not installed. For the unit tests that
/// decode real gzip and pigz output.
#[cfg(test)]
pub(crate) fn compress_with(tool: &str, args: &[&str], input: &[u8]) -> Option<Vec<u8>> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let Ok(mut child) = Command::new(tool)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    else {
        eprintln!("SKIPPED: {tool} not found");
        return None;
    };
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "{tool} failed");
    Some(out.stdout)
}

/// The access-point rule (spec R-92): a block boundary at uncompressed
/// offset `uncomp` becomes an access point when there is none yet, when it
/// lies at least `span` bytes after the previous one (`last`), or when it
/// starts a member after the previous one.
pub fn access_point_due(last: Option<u64>, uncomp: u64, member_start: bool, span: u64) -> bool {
    match last {
        None => true,
        Some(l) => uncomp >= l + span || (member_start && l < uncomp),
    }
}
