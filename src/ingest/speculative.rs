//! An ordinary gzip stream decoded on several cores at ingest.
//!
//! The compressed file is cut into chunks ([`chunk_len`]). Workers take
//! chunks ahead of the reader and decode each from the first bit in it
//! where a deflate block decodes, without the window before it
//! ([`crate::gzip::marker`]), up to the first block boundary at or after
//! the chunk's end. The reader (this thread) decodes the chunks between
//! them exactly, with zlib-rs, as the sequential build does
//! ([`Inflater`]). When its decode reaches a block boundary where a
//! worker's chunk starts, the window there is known: it posts it, a
//! worker replaces the chunk's markers by their bytes while the reader
//! hands on the text it decoded, and the reader then hands on the
//! chunk's text and decodes on from its end (or goes on with the next
//! worker chunk, if that starts there).
//!
//! So a chunk is used only when the exact decode of the stream before it
//! arrives at its first bit on a block boundary: a bit pattern the finder
//! took for a block start (a false positive) is never reached, and costs
//! only a worker's time. Every chunk stops before a member's final
//! block, so trailers, member headers, padding and garbage are all read
//! by the sequential decoder, which checks each member's CRC-32 and
//! length over all of its text (the chunks' included). The events are
//! those of a sequential [`Inflater`], and the sidecar is the same for
//! every number of workers (tested byte for byte).
//!
//! One chunk in every [`period`] is the reader's: it decodes at zlib-rs's
//! speed while the workers decode theirs more slowly and resolve them,
//! and it hands on all the text, so that neither waits long for the
//! other.

use crate::error::{Error, Result};
use crate::gzip::marker::{self, MARK, WINDOW};
use crate::gzip::{AccessPoint, Event, Inflater};
use crate::io::ReadAt;
use parking_lot::{Condvar, Mutex};
use std::collections::{BTreeMap, VecDeque};

/// Compressed bytes per chunk, at most: finding a chunk's first block
/// costs about a block's worth of bit-by-bit tries (tens of KiB in
/// gzip -6 output), small against 2 MiB.
const MAX_CHUNK: u64 = 2 << 20;
/// Compressed bytes per chunk, at least.
const MIN_CHUNK: u64 = 64 << 10;
/// The smallest archive decoded in chunks.
pub(crate) const MIN_LEN: u64 = 4 * MIN_CHUNK;
/// Compressed bytes a worker reads past its chunk's end, for the block
/// that crosses it (a block longer than this ends the chunk early: the
/// reader decodes on from the last boundary before it).
const MARGIN: u64 = 1 << 20;
/// The most text a chunk holds, per compressed byte: a chunk compressed
/// more than 8:1 ends early in the same way.
const MAX_RATIO: u64 = 8;
/// Text handed on per event.
const STEP: usize = 256 * 1024;

/// The chunk length for an archive of `len` bytes: a sixteenth of it,
/// within [`MIN_CHUNK`]..=[`MAX_CHUNK`] (the sidecar does not depend on
/// it).
fn chunk_len(len: u64) -> u64 {
    (len / 16).clamp(MIN_CHUNK, MAX_CHUNK)
}

/// Every `period(workers)`-th chunk is the reader's.
fn period(workers: usize) -> u64 {
    workers as u64 + 1
}

/// True when chunk `j` is decoded by a worker.
fn speculated(j: u64, period: u64) -> bool {
    j % period != 0
}

/// A chunk a worker decoded: bits are file offsets.
struct Chunk {
    start: u64,
    end: u64,
    /// The block starts after the first: (bit, text before it).
    blocks: Vec<(u64, usize)>,
    /// [`marker::output`]'s buffer, `len` symbols after its prefix.
    symbols: Vec<u16>,
    len: usize,
}

/// A chunk's text, markers resolved.
struct Resolved {
    start: u64,
    end: u64,
    blocks: Vec<(u64, usize)>,
    /// The window the markers were resolved with.
    window: Vec<u8>,
    text: Vec<u8>,
    crc: crc32fast::Hasher,
    /// False when a marker refers before the window (then `text` means
    /// nothing).
    ok: bool,
}

/// Where a chunk is.
enum Slot {
    /// The worker found no block.
    Empty,
    /// Decoded; its window is not known yet.
    Decoded(Chunk),
    /// Its window is known: to be resolved (by a worker, or the reader).
    Posted(Chunk, Vec<u8>),
    /// Being resolved, starting at this bit.
    Resolving(u64),
    Resolved(Resolved),
}

impl Slot {
    /// The bit the chunk starts at.
    fn start(&self) -> Option<u64> {
        match self {
            Slot::Empty => None,
            Slot::Decoded(c) | Slot::Posted(c, _) => Some(c.start),
            Slot::Resolving(s) => Some(*s),
            Slot::Resolved(r) => Some(r.start),
        }
    }
}

struct State {
    /// The next chunk to claim.
    next: u64,
    /// The reader needs no chunk before this one.
    done: u64,
    slots: BTreeMap<u64, Slot>,
    /// Buffers to decode and resolve into again.
    symbols: Vec<Vec<u16>>,
    texts: Vec<Vec<u8>>,
    quit: bool,
}

/// What the reader shares with its workers.
pub(crate) struct Shared {
    state: Mutex<State>,
    /// Wakes workers (the reader moved on, a window was posted) and the
    /// reader (a chunk is in).
    wake: Condvar,
    /// Compressed bytes per chunk.
    chunk: u64,
    /// Chunks decoded from a bit the exact decode passed (not a block
    /// start, or a block the finder took the wrong one of).
    false_starts: std::sync::atomic::AtomicU64,
    dbg: [std::sync::atomic::AtomicU64; 6],
}

impl Shared {
    /// The state shared over archive `gz`.
    pub(crate) fn new(gz: &dyn ReadAt) -> Shared {
        Shared {
            chunk: chunk_len(gz.len()),
            false_starts: Default::default(),
            dbg: Default::default(),
            state: Mutex::new(State {
                next: 1,
                done: 0,
                slots: BTreeMap::new(),
                symbols: Vec::new(),
                texts: Vec::new(),
                quit: false,
            }),
            wake: Condvar::new(),
        }
    }

    fn index(&self, bit: u64) -> u64 {
        bit / (self.chunk * 8)
    }
}

/// An event waiting to be handed on; text ranges are in the reader's
/// current text.
enum Item {
    Data(usize, usize),
    Boundary {
        comp_bit: u64,
        uncomp: u64,
        member_start: bool,
        /// Where it is in the text, and its window's length.
        at: usize,
        window: usize,
    },
    Fail(Error),
    End,
}

/// What the reader does next.
enum Phase<'s> {
    /// Decode with the exact decoder.
    Exact(Inflater<'s>),
    /// Hand on worker chunk `j`, whose start (text offset `uncomp`) was
    /// reached with the member's text so far hashing to `crc`, `member`
    /// bytes long.
    Chunk {
        j: u64,
        uncomp: u64,
        crc: crc32fast::Hasher,
        member: u64,
    },
    Done,
}

/// The parallel decoder: yields [`Inflater`]'s events (see the module
/// doc). Made by [`Speculative::start`] inside a thread scope that
/// outlives it.
pub(crate) struct Speculative<'s> {
    gz: &'s dyn ReadAt,
    shared: &'s Shared,
    period: u64,
    phase: Phase<'s>,
    queue: VecDeque<Item>,
    /// The text the queue refers to, and the window before it.
    text: Vec<u8>,
    prefix: Vec<u8>,
    /// The last boundary handed on: where, and its window's length.
    last: (usize, usize),
    input: Vec<u8>,
    /// Chunks handed on.
    used: u64,
}

impl<'s> Speculative<'s> {
    /// Spawns `workers` decoding threads in `scope` over `gz`, sharing
    /// `shared` (from [`Shared::new`]).
    pub(crate) fn start<'scope>(
        scope: &'scope std::thread::Scope<'scope, '_>,
        gz: &'s dyn ReadAt,
        shared: &'s Shared,
        workers: usize,
    ) -> Speculative<'s>
    where
        's: 'scope,
    {
        let workers = workers.max(1);
        let period = period(workers);
        for _ in 0..workers {
            scope.spawn(move || worker(gz, shared, period, workers as u64));
        }
        Speculative {
            gz,
            shared,
            period,
            phase: Phase::Exact(Inflater::new(gz)),
            queue: VecDeque::new(),
            text: Vec::new(),
            prefix: Vec::new(),
            last: (0, 0),
            input: Vec::new(),
            used: 0,
        }
    }

    /// The next event, as [`Inflater::next_event`].
    pub(crate) fn next_event(&mut self) -> Result<Option<Event<'_>>> {
        loop {
            match self.queue.pop_front() {
                Some(Item::Data(from, to)) => return Ok(Some(Event::Data(&self.text[from..to]))),
                Some(Item::Boundary {
                    comp_bit,
                    uncomp,
                    member_start,
                    at,
                    window,
                }) => {
                    self.last = (at, window);
                    return Ok(Some(Event::Boundary {
                        comp_bit,
                        uncomp,
                        member_start,
                    }));
                }
                Some(Item::Fail(e)) => {
                    self.phase = Phase::Done;
                    self.queue.clear();
                    return Err(e);
                }
                Some(Item::End) => {
                    self.phase = Phase::Done;
                    return Ok(None);
                }
                None => {}
            }
            match std::mem::replace(&mut self.phase, Phase::Done) {
                Phase::Exact(inf) => self.exact(inf),
                Phase::Chunk {
                    j,
                    uncomp,
                    crc,
                    member,
                } => self.chunk(j, uncomp, crc, member)?,
                Phase::Done => return Ok(None),
            }
        }
    }

    /// Decodes with `inf` up to the start of a worker's chunk (posting
    /// its window), the end, an error, or a bounded amount of text.
    fn exact(&mut self, mut inf: Inflater<'s>) {
        self.prefix = inf.window();
        self.text.clear();
        let cap = (4 * MAX_RATIO * self.shared.chunk) as usize;
        while self.text.len() < cap {
            let at = self.text.len();
            match inf.next_event() {
                Ok(Some(Event::Data(d))) => {
                    self.text.extend_from_slice(d);
                    self.queue.push_back(Item::Data(at, at + d.len()));
                }
                Ok(Some(Event::Boundary {
                    comp_bit,
                    uncomp,
                    member_start,
                })) => {
                    let (crc, member) = inf.member_state();
                    self.queue.push_back(Item::Boundary {
                        comp_bit,
                        uncomp,
                        member_start,
                        at,
                        window: member.min(WINDOW as u64) as usize,
                    });
                    if member_start {
                        continue;
                    }
                    let Some(crc) = crc else { continue };
                    if let Some(j) = self.chunk_at(comp_bit) {
                        post(self.shared, j, inf.window(), member);
                        self.phase = Phase::Chunk {
                            j,
                            uncomp,
                            crc,
                            member,
                        };
                        return;
                    }
                }
                Ok(None) => {
                    self.queue.push_back(Item::End);
                    return;
                }
                Err(e) => {
                    self.queue.push_back(Item::Fail(e));
                    return;
                }
            }
        }
        self.phase = Phase::Exact(inf);
    }

    /// Hands on worker chunk `j` (resolving it here if no worker has
    /// begun to), then goes on after it.
    fn chunk(
        &mut self,
        j: u64,
        uncomp: u64,
        mut crc: crc32fast::Hasher,
        member: u64,
    ) -> Result<()> {
        let r = take_resolved(self.shared, j);
        let old = std::mem::replace(&mut self.text, r.text);
        self.shared.state.lock().texts.push(old);
        if !r.ok {
            // Decode it exactly instead (its start was reported).
            let ap = AccessPoint {
                comp_bit: r.start,
                uncomp,
                window: r.window,
                member_start: false,
                span_crc: None,
            };
            self.text.clear();
            self.phase = Phase::Exact(Inflater::resume_member(self.gz, &ap, crc, member)?);
            return Ok(());
        }
        self.used += 1;
        self.prefix = r.window;
        crc.combine(&r.crc);
        let len = self.text.len();
        let wlen = |at: usize| (member + at as u64).min(WINDOW as u64) as usize;
        let mut from = 0;
        for &(bit, at) in r.blocks.iter().chain(std::iter::once(&(r.end, len))) {
            while from < at {
                let to = at.min(from + STEP);
                self.queue.push_back(Item::Data(from, to));
                from = to;
            }
            self.queue.push_back(Item::Boundary {
                comp_bit: bit,
                uncomp: uncomp + at as u64,
                member_start: false,
                at,
                window: wlen(at),
            });
        }
        let member = member + len as u64;
        if self.shared.index(r.end) > j
            && let Some(next) = self.chunk_at(r.end)
        {
            // The next chunk starts where this one ends: its window is
            // this one's end.
            post(self.shared, next, self.window_at(len, wlen(len)), member);
            self.phase = Phase::Chunk {
                j: next,
                uncomp: uncomp + len as u64,
                crc,
                member,
            };
            return Ok(());
        }
        let ap = AccessPoint {
            comp_bit: r.end,
            uncomp: uncomp + len as u64,
            window: self.window_at(len, wlen(len)),
            member_start: false,
            span_crc: None,
        };
        self.phase = Phase::Exact(Inflater::resume_member(self.gz, &ap, crc, member)?);
        Ok(())
    }

    /// The worker's chunk that starts at block boundary `bit`, if there
    /// is one (waiting for it to be decoded). Chunks before it are
    /// dropped.
    fn chunk_at(&self, bit: u64) -> Option<u64> {
        let shared = self.shared;
        let j = shared.index(bit);
        if j == 0 || !speculated(j, self.period) {
            return None;
        }
        let mut s = shared.state.lock();
        if j < s.done {
            return None;
        }
        if s.done < j {
            // Everything before chunk j is past.
            s.done = j;
            let keep = s.slots.split_off(&j);
            for slot in std::mem::replace(&mut s.slots, keep).into_values() {
                recycle(&mut s, slot);
            }
            shared.wake.notify_all();
        }
        loop {
            match s.slots.get(&j).map(Slot::start) {
                Some(Some(start)) if start == bit => {
                    s.done = j + 1;
                    shared.wake.notify_all();
                    return Some(j);
                }
                // Not there yet: the decode has not reached it.
                Some(Some(start)) if start > bit => return None,
                Some(found) => {
                    // No block found, or one before this boundary that
                    // the exact decode passed: a false positive.
                    if found.is_some() {
                        shared
                            .false_starts
                            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    let slot = s.slots.remove(&j).expect("the slot");
                    recycle(&mut s, slot);
                    s.done = j + 1;
                    shared.wake.notify_all();
                    return None;
                }
                None if s.quit => return None,
                None => { let t = std::time::Instant::now(); shared.wake.wait(&mut s); shared.dbg[0].fetch_add(t.elapsed().as_micros() as u64, std::sync::atomic::Ordering::Relaxed); }
            }
        }
    }

    /// The `w` bytes before offset `at` of the current text.
    fn window_at(&self, at: usize, w: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(w);
        if at < w {
            v.extend_from_slice(&self.prefix[self.prefix.len() - (w - at)..]);
            v.extend_from_slice(&self.text[..at]);
        } else {
            v.extend_from_slice(&self.text[at - w..at]);
        }
        v
    }

    /// The window an access point at the last boundary reported needs.
    pub(crate) fn window(&self) -> Vec<u8> {
        self.window_at(self.last.0, self.last.1)
    }

    /// As [`Inflater::input_from`].
    pub(crate) fn input_from(&mut self, at: u64, want: usize) -> Result<&[u8]> {
        self.input.resize(want, 0);
        let n = self.gz.read_full_at(&mut self.input, at)?;
        Ok(&self.input[..n])
    }

    /// As [`Inflater::checked_end`] (a strict build does not ask).
    pub(crate) fn checked_end(&self) -> u64 {
        0
    }
}

impl Drop for Speculative<'_> {
    fn drop(&mut self) {
        if std::env::var_os("LIDX_SPEC_DEBUG").is_some() { eprintln!("wait decode {} us, wait resolve {} us, reader resolves {}, worker idle {} us, worker resolves {}, used {}", self.shared.dbg[0].load(std::sync::atomic::Ordering::Relaxed), self.shared.dbg[1].load(std::sync::atomic::Ordering::Relaxed), self.shared.dbg[2].load(std::sync::atomic::Ordering::Relaxed), self.shared.dbg[3].load(std::sync::atomic::Ordering::Relaxed), self.shared.dbg[4].load(std::sync::atomic::Ordering::Relaxed), self.used); }
        self.phase = Phase::Done;
        self.shared.state.lock().quit = true;
        self.shared.wake.notify_all();
    }
}

/// Gives chunk `j` its window (the `member` bytes of the member's text
/// before it, the last 32 KiB), and each decoded chunk that follows it
/// directly the window at its start, so that workers can resolve them.
fn post(shared: &Shared, mut j: u64, mut window: Vec<u8>, mut member: u64) {
    let mut s = shared.state.lock();
    loop {
        let c = match s.slots.remove(&j) {
            Some(Slot::Decoded(c)) => c,
            // Posted already, with the chunk before it.
            Some(other) => {
                s.slots.insert(j, other);
                break;
            }
            None => unreachable!("a chunk is posted after it was decoded"),
        };
        let next = match s.slots.get(&(j + 1)) {
            Some(Slot::Decoded(n)) if n.start == c.end => tail(&c, &window, member),
            _ => None,
        };
        member += c.len as u64;
        s.slots.insert(j, Slot::Posted(c, window));
        match next {
            Some(w) => {
                window = w;
                j += 1;
            }
            None => break,
        }
    }
    shared.wake.notify_all();
}

/// The window at the end of chunk `c`, resolved with `window` at its
/// start, `member` bytes into its member; `None` if a marker does not
/// resolve.
fn tail(c: &Chunk, window: &[u8], member: u64) -> Option<Vec<u8>> {
    let w = (member + c.len as u64).min(WINDOW as u64) as usize;
    let syms = &c.symbols[WINDOW + c.len - w.min(c.len)..WINDOW + c.len];
    let mut t = Vec::new();
    if !marker::resolve(syms, window, &mut t) {
        return None;
    }
    if w > c.len {
        let mut v = window[window.len() - (w - c.len)..].to_vec();
        v.extend_from_slice(&t);
        return Some(v);
    }
    Some(t)
}

/// Chunk `j` resolved: resolves it here if no worker has begun to, else
/// waits for the worker.
fn take_resolved(shared: &Shared, j: u64) -> Resolved {
    let mut s = shared.state.lock();
    loop {
        match s.slots.remove(&j) {
            Some(Slot::Resolved(r)) => return r,
            Some(Slot::Posted(c, window)) => {
                s.slots.insert(j, Slot::Resolving(c.start));
                let text = s.texts.pop().unwrap_or_default();
                drop(s);
                shared.dbg[2].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let (r, symbols) = resolve(c, window, text);
                s = shared.state.lock();
                s.symbols.push(symbols);
                s.slots.remove(&j);
                return r;
            }
            Some(other) => {
                s.slots.insert(j, other);
                assert!(!s.quit, "a worker panicked");
                let t = std::time::Instant::now(); shared.wake.wait(&mut s); shared.dbg[1].fetch_add(t.elapsed().as_micros() as u64, std::sync::atomic::Ordering::Relaxed);
            }
            None => unreachable!("a posted chunk stays until taken"),
        }
    }
}

/// Resolves `c` with `window` into `text`; gives back its symbol buffer.
fn resolve(c: Chunk, window: Vec<u8>, mut text: Vec<u8>) -> (Resolved, Vec<u16>) {
    let ok = marker::resolve(&c.symbols[WINDOW..WINDOW + c.len], &window, &mut text);
    let mut crc = crc32fast::Hasher::new();
    if ok {
        crc.update(&text);
    }
    let r = Resolved {
        start: c.start,
        end: c.end,
        blocks: c.blocks,
        window,
        text,
        crc,
        ok,
    };
    (r, c.symbols)
}

/// Puts a slot's buffers back in the pools.
fn recycle(s: &mut State, slot: Slot) {
    match slot {
        Slot::Decoded(c) | Slot::Posted(c, _) => s.symbols.push(c.symbols),
        Slot::Resolved(r) => s.texts.push(r.text),
        Slot::Empty | Slot::Resolving(_) => {}
    }
}

/// A worker: resolves posted chunks first; otherwise claims the chunks
/// the reader does not decode itself, a few ahead of it, and decodes
/// each from its first block.
fn worker(gz: &dyn ReadAt, shared: &Shared, period: u64, workers: u64) {
    let _guard = QuitOnPanic(shared);
    let mut dec = marker::Decoder::default();
    let mut input = Vec::new();
    let ahead = 2 * period + workers;
    let chunk = shared.chunk;
    loop {
        let (j, out) = {
            let mut s = shared.state.lock();
            loop {
                if s.quit {
                    return;
                }
                let posted = s
                    .slots
                    .iter()
                    .find_map(|(&k, v)| matches!(v, Slot::Posted(..)).then_some(k));
                if let Some(k) = posted {
                    let Some(Slot::Posted(c, window)) = s.slots.remove(&k) else {
                        unreachable!()
                    };
                    s.slots.insert(k, Slot::Resolving(c.start));
                    let text = s.texts.pop().unwrap_or_default();
                    drop(s);
                    shared.dbg[4].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let (r, symbols) = resolve(c, window, text);
                    s = shared.state.lock();
                    s.symbols.push(symbols);
                    if s.slots.contains_key(&k) {
                        s.slots.insert(k, Slot::Resolved(r));
                    } else {
                        s.texts.push(r.text);
                    }
                    shared.wake.notify_all();
                    continue;
                }
                if s.next < s.done {
                    s.next = s.done;
                }
                while !speculated(s.next, period) {
                    s.next += 1;
                }
                if s.next * chunk < gz.len() && s.next < s.done + ahead {
                    break;
                }
                let t = std::time::Instant::now(); shared.wake.wait(&mut s); shared.dbg[3].fetch_add(t.elapsed().as_micros() as u64, std::sync::atomic::Ordering::Relaxed);
            }
            let j = s.next;
            s.next += 1;
            (j, s.symbols.pop())
        };
        let mut out = out.unwrap_or_else(|| marker::output((MAX_RATIO * chunk) as usize));
        let from = j * chunk;
        let to = ((j + 1) * chunk + MARGIN).min(gz.len());
        input.resize((to - from) as usize, 0);
        let found = match gz.read_exact_at(&mut input, from) {
            Ok(()) => {
                let bits = (chunk * 8) as usize;
                dec.find_and_decode(&input, 0, bits, bits, &mut out)
            }
            Err(_) => None,
        };
        let mut s = shared.state.lock();
        let slot = match found {
            Some(d) => Slot::Decoded(Chunk {
                start: from * 8 + d.start as u64,
                end: from * 8 + d.end as u64,
                blocks: d
                    .blocks
                    .iter()
                    .map(|&(b, at)| (from * 8 + b as u64, at))
                    .collect(),
                symbols: out,
                len: d.len,
            }),
            None => {
                s.symbols.push(out);
                Slot::Empty
            }
        };
        if j < s.done {
            recycle(&mut s, slot);
        } else {
            s.slots.insert(j, slot);
        }
        shared.wake.notify_all();
    }
}

/// Ends the reader's waits when a worker panics (the scope re-raises
/// the panic).
struct QuitOnPanic<'a>(&'a Shared);

impl Drop for QuitOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.state.lock().quit = true;
            self.0.wake.notify_all();
        }
    }
}

/// Marker symbols fit in 16 bits.
const _: () = assert!(MARK as usize + WINDOW <= u16::MAX as usize + 1);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::MemSource;

    /// Log-like text, about 4:1 under gzip -6.
    fn log(n: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let words = ["GET", "POST", "PUT", "alice", "bob", "carol", "/api/v1/items", "/login"];
        let mut t = Vec::with_capacity(n + 200);
        while t.len() < n {
            let r = next();
            t.extend_from_slice(
                format!(
                    "2026-12-07T{:02}:{:02}:{:02}.{:03} {} user={} path={} ms={} id={:x}\n",
                    r % 24,
                    r / 24 % 60,
                    r / 1440 % 60,
                    r / 86400 % 1000,
                    words[(r >> 40) as usize % 3],
                    words[3 + (r >> 44) as usize % 3],
                    words[6 + (r >> 48) as usize % 2],
                    r >> 54,
                    next() >> 20,
                )
                .as_bytes(),
            );
        }
        t
    }

    /// Every event of `gz`: text, boundaries and windows at them, and the
    /// end (or the error).
    fn events(mut next: impl FnMut() -> Result<Option<(Event<'static>, Vec<u8>)>>) -> (Vec<u8>, Vec<(u64, u64, bool, Vec<u8>)>, String) {
        let mut text = Vec::new();
        let mut bounds = Vec::new();
        loop {
            match next() {
                Ok(Some((Event::Data(d), _))) => text.extend_from_slice(d),
                Ok(Some((Event::Boundary { comp_bit, uncomp, member_start }, w))) => {
                    bounds.push((comp_bit, uncomp, member_start, w))
                }
                Ok(None) => return (text, bounds, "end".into()),
                Err(e) => return (text, bounds, e.to_string()),
            }
        }
    }

    /// The sequential decoder's events and the parallel one's with
    /// `workers` workers are the same; returns the chunks used.
    fn same_events(gz: &[u8], workers: usize) -> u64 {
        let src = MemSource::new(gz.to_vec());
        let mut inf = Inflater::new(&src);
        let want = events(|| {
            Ok(match inf.next_event()? {
                None => None,
                Some(Event::Data(d)) => Some((Event::Data(Box::leak(d.to_vec().into_boxed_slice())), Vec::new())),
                Some(b) => {
                    let b = match b { Event::Boundary { comp_bit, uncomp, member_start } => Event::Boundary { comp_bit, uncomp, member_start }, Event::Data(_) => unreachable!() };
                    Some((b, inf.window()))
                }
            })
        });
        let shared = Shared::new(&src);
        std::thread::scope(|s| {
            let mut sp = Speculative::start(s, &src, &shared, workers);
            let got = events(|| {
                Ok(match sp.next_event()? {
                    None => None,
                    Some(Event::Data(d)) => Some((Event::Data(Box::leak(d.to_vec().into_boxed_slice())), Vec::new())),
                    Some(b) => {
                        let b = match b { Event::Boundary { comp_bit, uncomp, member_start } => Event::Boundary { comp_bit, uncomp, member_start }, Event::Data(_) => unreachable!() };
                        Some((b, sp.window()))
                    }
                })
            });
            assert!(got.0 == want.0, "text differs");
            assert_eq!(got.1.len(), want.1.len(), "boundaries");
            for (g, w) in got.1.iter().zip(&want.1) {
                assert!(g == w, "boundary {:?} vs {:?}", (g.0, g.1, g.2), (w.0, w.1, w.2));
            }
            assert_eq!(got.2, want.2);
            sp.used
        })
    }

    #[test]
    fn chunks_give_the_sequential_events() {
        let t = log(3 << 20, 5);
        for level in [1, 6, 9] {
            let gz = crate::gzip::inflate::tests::gz(&t, level);
            for w in [1, 2, 3] {
                assert!(same_events(&gz, w) > 0, "level {level}, {w} workers: no chunk used");
            }
        }
        if let Some(gz) = crate::gzip::compress_with("pigz", &["-6c"], &t) {
            assert!(same_events(&gz, 1) > 0, "pigz");
        }
    }

    /// A gzip member of stored blocks holding `data` as it is.
    fn stored_member(data: &[u8]) -> Vec<u8> {
        let mut m = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
        for b in data.chunks(60_000) {
            m.push(0);
            m.extend_from_slice(&(b.len() as u16).to_le_bytes());
            m.extend_from_slice(&(!(b.len() as u16)).to_le_bytes());
            m.extend_from_slice(b);
        }
        m.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
        m.extend_from_slice(&crc32fast::hash(data).to_le_bytes());
        m.extend_from_slice(&(data.len() as u32).to_le_bytes());
        m
    }

    #[test]
    fn members_damage_and_fake_blocks() {
        let a = log(2 << 20, 11);
        let b = log(1 << 20, 12);
        let ga = crate::gzip::inflate::tests::gz(&a, 6);
        let gb = crate::gzip::inflate::tests::gz(&b, 6);
        // Several members.
        assert!(same_events(&[&ga[..], &gb[..], &ga[..]].concat(), 1) > 0);
        // Damage in the middle of a chunk, a cut, trailing garbage, zero
        // padding: the same text before the same error.
        for at in [ga.len() / 2, ga.len() / 3 + 7, ga.len() - 5] {
            let mut bad = ga.clone();
            bad[at] ^= 0x55;
            same_events(&bad, 1);
        }
        same_events(&ga[..ga.len() * 2 / 3], 1);
        same_events(&[&ga[..], b"garbage!"].concat(), 1);
        same_events(&[&ga[..], &[0u8; 100][..]].concat(), 2);
        // Deflate data stored as it is: the finder sees real-looking
        // blocks at every turn, none on the stream's own boundaries.
        let fake = crate::gzip::inflate::tests::gz(&log(4 << 20, 13), 6);
        let stored = stored_member(&fake);
        let src = MemSource::new(stored.clone());
        let shared = Shared::new(&src);
        std::thread::scope(|s| {
            let mut sp = Speculative::start(s, &src, &shared, 1);
            while sp.next_event().unwrap().is_some() {}
            assert_eq!(sp.used, 0);
        });
        assert!(shared.false_starts.into_inner() > 3, "no false start");
        same_events(&stored, 1);
        // ... and after a compressed member, in one archive.
        assert!(same_events(&[&ga[..], &stored_member(&fake)[..], &gb[..]].concat(), 2) > 0);
    }
}
