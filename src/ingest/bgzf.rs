//! BGZF sources (bgzip's output) decoded in parallel at ingest.
//!
//! A BGZF archive is a chain of gzip members of at most 64 KiB of text,
//! each saying its own compressed size in a `BC` extra subfield (SAM/BAM
//! specification, §4.1). So the members can be found without decoding,
//! and decoded independently: workers claim runs of members in file order
//! (walking the chain by those sizes), read them in one `pread`, inflate
//! each whole member and check its CRC-32 and length. This thread hands
//! the text on in order as the same events a sequential [`Inflater`]
//! gives: an access point at every member start (with no window: nothing
//! before a member is referred to), then its text. The sidecar is the one
//! a sequential build writes (tested byte for byte); the reader needs
//! nothing new.
//!
//! Anything the walk or a worker does not expect (a member without `BC`,
//! one with more than 64 KiB of text, bad data, a bad CRC, the end of the
//! file inside a member, padding, trailing garbage) ends the parallel part
//! there: from that member on, a sequential [`Inflater`] decodes, exactly
//! as a decode from the start would on reaching it, so damage is found and
//! reported as it always is.

use crate::error::Result;
use crate::gzip::zlib::{RawInflate, Status};
use crate::gzip::{Event, Inflater, header};
use crate::io::{AlignedBuf, ReadAt};
use parking_lot::{Condvar, Mutex};
use std::collections::BTreeMap;
use std::sync::mpsc;

/// The most text a BGZF member holds.
pub(crate) const MAX_MEMBER_TEXT: u64 = 1 << 16;
/// Members per job (about 1 MiB of text).
const JOB_MEMBERS: usize = 16;
/// Jobs each worker may decode ahead of the one being handed on.
const AHEAD: u64 = 2;

/// The compressed size of the BGZF member whose header starts `b` (its
/// `BC` subfield's BSIZE + 1), or `None` when `b` does not start one (or
/// is too short to say).
fn member_size(b: &[u8]) -> Option<u64> {
    const FEXTRA: u8 = 4;
    if b.len() < 12 || b[..2] != header::MAGIC || b[2] != 8 || b[3] & FEXTRA == 0 {
        return None;
    }
    let xlen = u16::from_le_bytes([b[10], b[11]]) as usize;
    let mut extra = b.get(12..12 + xlen)?;
    while extra.len() >= 4 {
        let len = u16::from_le_bytes([extra[2], extra[3]]) as usize;
        let field = extra.get(4..4 + len)?;
        if extra[..2] == *b"BC" && len == 2 {
            return Some(u64::from(u16::from_le_bytes([field[0], field[1]])) + 1);
        }
        extra = &extra[4 + len..];
    }
    None
}

/// Bytes of header read to find a member's size (BGZF's own header is 18).
const HEAD_PROBE: usize = 64;

/// True when `gz` starts with a BGZF member.
pub(crate) fn is_bgzf(gz: &dyn ReadAt) -> Result<bool> {
    let mut b = [0u8; HEAD_PROBE];
    let n = gz.read_full_at(&mut b, 0)?;
    Ok(member_size(&b[..n]).is_some())
}

/// One member decoded by a worker.
struct Member {
    /// File offset of its deflate data (after the header).
    data_start: u64,
    /// End of its text in the job's text.
    text_end: usize,
}

/// What [`Members::step`] moved on to.
enum Step {
    /// A member starts at this compressed bit and text offset.
    Start(u64, u64),
    /// Text: this range of the job's.
    Text(usize, usize),
    /// Nothing to report; step again.
    Again,
    /// The end of the archive.
    End,
    /// The sequential decoder takes over.
    Tail,
}

/// A run of consecutive members, decoded.
#[derive(Default)]
struct Job {
    members: Vec<Member>,
    text: Vec<u8>,
    /// The file offset of a member the parallel part stops before (the
    /// chain or the member was not as expected), when it does in this job.
    stop_at: Option<u64>,
    /// No member follows (the chain ended at the end of the file).
    end: bool,
}

/// The claim on the chain the workers share.
struct Claim {
    /// Where the next unclaimed member starts.
    next: u64,
    /// The next job number.
    job: u64,
    /// Jobs handed on by the reader.
    done: u64,
    /// The chain has been claimed to its end (or to where it stops).
    finished: bool,
    /// The reader is gone: stop.
    quit: bool,
}

/// The shared state: the claim and the wake-up for workers waiting to
/// get ahead.
pub(crate) struct Shared {
    claim: Mutex<Claim>,
    wake: Condvar,
}

/// The parallel decoder: yields [`Inflater`]'s events (see the module
/// doc). Made by [`Members::start`] inside a thread scope that outlives it.
pub(crate) struct Members<'s> {
    gz: &'s dyn ReadAt,
    shared: &'s Shared,
    rx: mpsc::Receiver<(u64, Job)>,
    pending: BTreeMap<u64, Job>,
    /// The job being handed on, its next member, and whether that
    /// member's start has been reported.
    job: Option<Job>,
    member: usize,
    started: bool,
    /// The number of the next job to take.
    next_job: u64,
    /// Offset of the text handed on so far.
    uncomp: u64,
    /// From a stop on, the sequential decoder.
    tail: Option<Inflater<'s>>,
}

impl<'s> Members<'s> {
    /// Spawns `workers` decoding threads in `scope` over the BGZF archive
    /// `gz`, sharing `shared` (from [`Members::shared`]).
    pub(crate) fn start<'scope>(
        scope: &'scope std::thread::Scope<'scope, '_>,
        gz: &'s dyn ReadAt,
        shared: &'s Shared,
        workers: usize,
    ) -> Members<'s>
    where
        's: 'scope,
    {
        let (tx, rx) = mpsc::channel();
        let ahead = AHEAD * workers as u64;
        for _ in 0..workers.max(1) {
            let tx = tx.clone();
            scope.spawn(move || worker(gz, shared, ahead, tx));
        }
        Members {
            gz,
            shared,
            rx,
            pending: BTreeMap::new(),
            job: None,
            member: 0,
            started: false,
            next_job: 0,
            uncomp: 0,
            tail: None,
        }
    }

    /// The state [`Members::start`] shares with its workers.
    pub(crate) fn shared() -> Shared {
        Shared {
            claim: Mutex::new(Claim {
                next: 0,
                job: 0,
                done: 0,
                finished: false,
                quit: false,
            }),
            wake: Condvar::new(),
        }
    }

    /// Takes the next job in order.
    fn take_job(&mut self) -> Job {
        let n = self.next_job;
        self.next_job += 1;
        loop {
            if let Some(j) = self.pending.remove(&n) {
                break j;
            }
            match self.rx.recv() {
                Ok((k, j)) => {
                    self.pending.insert(k, j);
                }
                // Every worker quit without it (a panic; they re-raise
                // when the scope ends): end here.
                Err(_) => {
                    break Job {
                        end: true,
                        ..Job::default()
                    };
                }
            }
        }
    }

    /// The next event, as [`Inflater::next_event`].
    pub(crate) fn next_event(&mut self) -> Result<Option<Event<'_>>> {
        loop {
            match self.step() {
                Step::Tail => break,
                Step::Again => {}
                Step::End => return Ok(None),
                Step::Start(comp_bit, uncomp) => {
                    return Ok(Some(Event::Boundary {
                        comp_bit,
                        uncomp,
                        member_start: true,
                    }));
                }
                Step::Text(from, to) => {
                    let job = self.job.as_ref().expect("a job");
                    return Ok(Some(Event::Data(&job.text[from..to])));
                }
            }
        }
        self.tail.as_mut().expect("a stop").next_event()
    }

    /// Moves on by one event and says what it is.
    fn step(&mut self) -> Step {
        if self.tail.is_some() {
            return Step::Tail;
        }
        let finished = match &self.job {
            None => true,
            Some(j) => self.member == j.members.len(),
        };
        if finished {
            if let Some(j) = self.job.take() {
                self.shared.claim.lock().done += 1;
                self.shared.wake.notify_all();
                if let Some(at) = j.stop_at {
                    self.tail = Some(Inflater::at_member(self.gz, at, self.uncomp));
                    return Step::Tail;
                }
                if j.end {
                    return Step::End;
                }
            }
            self.job = Some(self.take_job());
            self.member = 0;
            self.started = false;
            return Step::Again;
        }
        let job = self.job.as_ref().expect("a job");
        let m = &job.members[self.member];
        if !self.started {
            self.started = true;
            return Step::Start(m.data_start * 8, self.uncomp);
        }
        let from = match self.member {
            0 => 0,
            i => job.members[i - 1].text_end,
        };
        let to = m.text_end;
        self.member += 1;
        self.started = false;
        if to == from {
            return Step::Again;
        }
        self.uncomp += (to - from) as u64;
        Step::Text(from, to)
    }

    /// The window an access point here needs: none at a member start (the
    /// only boundaries reported before a stop).
    pub(crate) fn window(&self) -> Vec<u8> {
        match &self.tail {
            Some(t) => t.window(),
            None => Vec::new(),
        }
    }

    /// As [`Inflater::input_from`]; nothing before a stop (the window of a
    /// member start is empty: nothing to make sparse).
    pub(crate) fn input_from(&mut self, at: u64, want: usize) -> Result<&[u8]> {
        match &mut self.tail {
            Some(t) => t.input_from(at, want),
            None => Ok(&[]),
        }
    }

    /// As [`Inflater::checked_end`]: every member handed on was checked.
    pub(crate) fn checked_end(&self) -> u64 {
        match &self.tail {
            Some(t) => t.checked_end(),
            None => self.uncomp,
        }
    }
}

impl Drop for Members<'_> {
    fn drop(&mut self) {
        self.shared.claim.lock().quit = true;
        self.shared.wake.notify_all();
    }
}

/// A worker: claims runs of members, decodes them, sends them on.
fn worker(gz: &dyn ReadAt, shared: &Shared, ahead: u64, tx: mpsc::Sender<(u64, Job)>) {
    let mut inflater = RawInflate::new();
    let mut buf = AlignedBuf::zeroed(0);
    loop {
        let (n, from, sizes, stop_at) = {
            let mut c = shared.claim.lock();
            loop {
                if c.quit || c.finished {
                    return;
                }
                if c.job < c.done + ahead {
                    break;
                }
                shared.wake.wait(&mut c);
            }
            let from = c.next;
            let (sizes, stop_at) = walk(gz, from);
            let claimed: u64 = sizes.iter().sum();
            c.next = from + claimed;
            if stop_at.is_some() || sizes.is_empty() {
                c.finished = true;
            }
            let n = c.job;
            c.job += 1;
            (n, from, sizes, stop_at)
        };
        let mut job = decode(gz, &mut inflater, &mut buf, from, &sizes);
        if job.stop_at.is_none() {
            job.stop_at = stop_at;
        }
        job.end = job.stop_at.is_none() && sizes.len() < JOB_MEMBERS;
        if tx.send((n, job)).is_err() {
            return;
        }
    }
}

/// The sizes of up to [`JOB_MEMBERS`] BGZF members from `from` on, and
/// where the chain stops being BGZF when it does within them (not at the
/// end of the file).
fn walk(gz: &dyn ReadAt, from: u64) -> (Vec<u64>, Option<u64>) {
    let mut sizes = Vec::new();
    let mut at = from;
    let mut head = [0u8; HEAD_PROBE];
    while sizes.len() < JOB_MEMBERS && at < gz.len() {
        let n = match gz.read_full_at(&mut head, at) {
            Ok(n) => n,
            Err(_) => return (sizes, Some(at)),
        };
        match member_size(&head[..n]) {
            Some(s) if at + s <= gz.len() && s >= 18 + 8 => {
                sizes.push(s);
                at += s;
            }
            _ => return (sizes, Some(at)),
        }
    }
    (sizes, None)
}

/// Decodes the members of `sizes` from file offset `from` on; the job
/// stops before the first that does not decode and check.
fn decode(
    gz: &dyn ReadAt,
    inflater: &mut RawInflate,
    buf: &mut AlignedBuf,
    from: u64,
    sizes: &[u64],
) -> Job {
    let mut job = Job::default();
    let total: u64 = sizes.iter().sum();
    buf.resize(total as usize);
    if !matches!(gz.read_full_at(buf, from), Ok(n) if n as u64 == total) {
        job.stop_at = Some(from);
        return job;
    }
    let mut at = 0usize;
    for &size in sizes {
        let member = &buf[at..at + size as usize];
        let offset = from + at as u64;
        match inflate_member(inflater, member, &mut job.text) {
            Some(h) => job.members.push(Member {
                data_start: offset + h as u64,
                text_end: job.text.len(),
            }),
            None => {
                job.stop_at = Some(offset);
                return job;
            }
        }
        at += size as usize;
    }
    job
}

/// Inflates the whole gzip member `m` onto `text` (with zlib-rs, as the
/// sequential decoder), checking its CRC-32 and length and that its
/// deflate data ends right at the trailer; returns its header's length, or
/// `None` (and `text` as it was) if anything is not as it should be.
fn inflate_member(inflater: &mut RawInflate, m: &[u8], text: &mut Vec<u8>) -> Option<usize> {
    let h = header::parse(m).ok()?;
    let trailer = m.len().checked_sub(8).filter(|&t| t >= h)?;
    let crc = u32::from_le_bytes(m[trailer..trailer + 4].try_into().ok()?);
    let isize = u32::from_le_bytes(m[trailer + 4..].try_into().ok()?) as usize;
    if isize as u64 > MAX_MEMBER_TEXT {
        return None;
    }
    let start = text.len();
    // One byte more than promised, to see a stream that would go on.
    text.resize(start + isize + 1, 0);
    inflater.reset();
    let input = &m[h..trailer];
    let (mut used, mut made) = (0usize, 0usize);
    let ok = loop {
        let step = inflater.inflate_block(&input[used..], &mut text[start + made..]);
        used += step.used;
        made += step.produced;
        match step.status {
            Status::End { unused_bits } => {
                break used - unused_bits as usize / 8 == input.len() && made == isize;
            }
            Status::Boundary { .. } | Status::More if step.used + step.produced > 0 => {}
            _ => break false,
        }
    };
    if !ok || crc32fast::hash(&text[start..start + isize]) != crc {
        text.truncate(start);
        return None;
    }
    text.truncate(start + isize);
    Some(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_size_reads_the_bc_subfield() {
        // bgzip's header: FEXTRA, XLEN 6, BC with BSIZE.
        let mut h = vec![
            0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, b'B', b'C', 2, 0, 0x1b, 0,
        ];
        assert_eq!(member_size(&h), Some(28));
        // Another subfield first.
        h[10] = 11;
        h.splice(12..12, [b'X', b'Y', 1, 0, 9]);
        assert_eq!(member_size(&h), Some(28));
        // No BC, no FEXTRA, not gzip, too short.
        assert_eq!(
            member_size(&[0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 0, 0]),
            None
        );
        assert_eq!(
            member_size(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 6, 0]),
            None
        );
        assert_eq!(member_size(b"plain text here!!!!"), None);
        assert_eq!(member_size(&h[..14]), None);
    }
}
