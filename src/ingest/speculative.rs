//! An ordinary gzip stream decoded on several cores at ingest.
//!
//! The compressed file is cut into chunks of [`CHUNK`] bytes. Workers
//! take chunks ahead of the reader and decode each from the first bit
//! in it where a deflate block decodes, without the window before it
//! ([`crate::gzip::marker`]), up to the first block boundary at or after
//! the chunk's end. The reader (this thread) decodes the rest exactly,
//! with zlib-rs, as the sequential build does ([`Inflater`]): when its
//! decode reaches a block boundary where a worker's chunk starts, it
//! knows the window, resolves the chunk's markers and hands the chunk's
//! text on; at the chunk's end it goes on with the next chunk that
//! starts there, or decodes again from there itself.
//!
//! So a chunk is used only when the exact decode of the stream before it
//! arrives at its first bit on a block boundary: a bit pattern the finder
//! took for a block start (a false positive) is never reached, and costs
//! only the worker's time. Every chunk stops before a member's final
//! block, so trailers, member headers, padding and garbage are all read
//! by the sequential decoder, which checks each member's CRC-32 and
//! length over all of its text (the chunks' included). The events are
//! those of a sequential [`Inflater`], and the sidecar is the same for
//! every number of workers (tested byte for byte).
//!
//! Not every chunk is given to a worker: the reader decodes one in every
//! [`period`] itself, at zlib-rs's speed, while the workers decode the
//! others more slowly, so that no core waits for another.

use crate::error::Result;
use crate::gzip::marker::{self, MARK, WINDOW};
use crate::gzip::{AccessPoint, Event, Inflater};
use crate::io::ReadAt;
use parking_lot::{Condvar, Mutex};
use std::collections::BTreeMap;

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

/// The chunk length for an archive of `len` bytes: a sixteenth of it,
/// within [`MIN_CHUNK`]..=[`MAX_CHUNK`] (the sidecar does not depend on
/// it).
fn chunk_len(len: u64) -> u64 {
    (len / 16).clamp(MIN_CHUNK, MAX_CHUNK)
}
/// Text handed on per event.
const STEP: usize = 256 * 1024;

/// Every `period(workers)`-th chunk is the reader's.
fn period(workers: usize) -> u64 {
    workers as u64 + 2
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

struct State {
    /// The next chunk to claim.
    next: u64,
    /// The reader needs no chunk before this one.
    done: u64,
    /// Decoded chunks (`None`: no block found).
    results: BTreeMap<u64, Option<Chunk>>,
    /// Buffers to decode into again.
    pool: Vec<Vec<u16>>,
    quit: bool,
}

/// What the reader shares with its workers.
pub(crate) struct Shared {
    state: Mutex<State>,
    /// Wakes workers (the reader moved on) and the reader (a chunk is in).
    wake: Condvar,
    /// Compressed bytes per chunk.
    chunk: u64,
    /// Chunks decoded from a bit the exact decode passed (not a block
    /// start, or a block the finder took the wrong one of).
    false_starts: std::sync::atomic::AtomicU64,
}

impl Shared {
    /// The state shared over archive `gz`.
    pub(crate) fn new(gz: &dyn ReadAt) -> Shared {
        Shared {
            chunk: chunk_len(gz.len()),
            false_starts: Default::default(),
            state: Mutex::new(State {
                next: 1,
                done: 0,
                results: BTreeMap::new(),
                pool: Vec::new(),
                quit: false,
            }),
            wake: Condvar::new(),
        }
    }
}

/// What [`Speculative::chunk_step`] moved on to.
enum Next {
    /// This range of the chunk's text.
    Data(usize, usize),
    /// A block boundary: its bit and text offset.
    Boundary(u64, u64),
    /// The chunk has ended; the next one or the sequential decoder takes
    /// over.
    Ended,
}

/// The chunk being handed on.
struct Current {
    index: u64,
    end: u64,
    blocks: Vec<(u64, usize)>,
    next_block: usize,
    /// Text handed on so far.
    pos: usize,
    /// The boundary at `end` has been reported.
    end_reported: bool,
    /// The member's text before the chunk.
    member_before: u64,
}

/// The parallel decoder: yields [`Inflater`]'s events (see the module
/// doc). Made by [`Speculative::start`] inside a thread scope that
/// outlives it.
pub(crate) struct Speculative<'s> {
    gz: &'s dyn ReadAt,
    shared: &'s Shared,
    period: u64,
    /// The exact decoder, between chunks.
    seq: Option<Inflater<'s>>,
    /// A chunk to switch to at the next event (its start was just
    /// reported).
    switch: Option<Chunk>,
    cur: Option<Current>,
    /// The current chunk's text, and the window before it.
    text: Vec<u8>,
    window: Vec<u8>,
    /// The text offset handed on.
    uncomp: u64,
    /// The CRC-32 of the member's text handed on.
    crc: crc32fast::Hasher,
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
        let period = period(workers);
        for _ in 0..workers.max(1) {
            scope.spawn(move || worker(gz, shared, period, workers.max(1) as u64));
        }
        Speculative {
            gz,
            shared,
            period,
            seq: Some(Inflater::new(gz)),
            switch: None,
            cur: None,
            text: Vec::new(),
            window: Vec::new(),
            uncomp: 0,
            crc: crc32fast::Hasher::new(),
            input: Vec::new(),
            used: 0,
        }
    }

    /// The next event, as [`Inflater::next_event`].
    pub(crate) fn next_event(&mut self) -> Result<Option<Event<'_>>> {
        loop {
            if let Some(c) = self.switch.take() {
                self.enter_from_seq(c);
            }
            if self.cur.is_some() {
                match self.chunk_step()? {
                    Next::Data(from, to) => return Ok(Some(Event::Data(&self.text[from..to]))),
                    Next::Boundary(comp_bit, uncomp) => {
                        return Ok(Some(Event::Boundary {
                            comp_bit,
                            uncomp,
                            member_start: false,
                        }));
                    }
                    Next::Ended => continue,
                }
            }
            let seq = self.seq.as_mut().expect("the sequential decoder");
            let ev = seq.next_event()?;
            let Some(Event::Boundary {
                comp_bit,
                uncomp,
                member_start,
            }) = ev
            else {
                return Ok(ev);
            };
            if !member_start {
                self.switch = chunk_at(self.shared, self.period, comp_bit);
            }
            return Ok(Some(Event::Boundary {
                comp_bit,
                uncomp,
                member_start,
            }));
        }
    }

    /// The sequential decoder reported the start of chunk `c`: resolve it
    /// with the window and hand it on, or go on decoding (a member whose
    /// start this decoder did not see, a window too short for the
    /// chunk's markers).
    fn enter_from_seq(&mut self, c: Chunk) {
        let seq = self.seq.as_ref().expect("the sequential decoder");
        let (Some(crc), member_out) = seq.member_state() else {
            recycle(self.shared, c);
            return;
        };
        let window = seq.window();
        let uncomp = seq.position();
        if self.enter(c, window, crc, member_out, uncomp) {
            self.seq = None;
        }
    }

    /// Makes `c` current, after `window`; false (and `c` dropped) when
    /// its markers do not resolve.
    fn enter(
        &mut self,
        c: Chunk,
        window: Vec<u8>,
        mut crc: crc32fast::Hasher,
        member_before: u64,
        uncomp: u64,
    ) -> bool {
        let ok = marker::resolve(&c.symbols[WINDOW..WINDOW + c.len], &window, &mut self.text);
        let Chunk {
            start,
            end,
            blocks,
            symbols,
            ..
        } = c;
        recycle_buffer(self.shared, symbols);
        if !ok {
            return false;
        }
        crc.update(&self.text);
        self.used += 1;
        self.crc = crc;
        self.window = window;
        self.uncomp = uncomp;
        let index = start / (self.shared.chunk * 8);
        self.cur = Some(Current {
            index,
            end,
            blocks,
            next_block: 0,
            pos: 0,
            end_reported: false,
            member_before,
        });
        true
    }

    /// Moves on by one event in the current chunk.
    fn chunk_step(&mut self) -> Result<Next> {
        let c = self.cur.as_mut().expect("a chunk");
        if let Some(&(bit, at)) = c.blocks.get(c.next_block)
            && at == c.pos
        {
            c.next_block += 1;
            return Ok(Next::Boundary(bit, self.uncomp));
        }
        if c.pos < self.text.len() {
            let until = c.blocks.get(c.next_block).map_or(self.text.len(), |b| b.1);
            let from = c.pos;
            let to = until.min(from + STEP);
            c.pos = to;
            self.uncomp += (to - from) as u64;
            return Ok(Next::Data(from, to));
        }
        if !c.end_reported {
            c.end_reported = true;
            return Ok(Next::Boundary(c.end, self.uncomp));
        }
        // The chunk has ended, at a block start.
        let c = self.cur.take().expect("a chunk");
        let member_out = c.member_before + self.text.len() as u64;
        let window = self.window_at(member_out, self.text.len());
        let crc = self.crc.clone();
        if let Some(next) = chunk_at(self.shared, self.period, c.end).filter(|n| n.index(self.shared.chunk) > c.index) {
            if self.enter(next, window.clone(), crc.clone(), member_out, self.uncomp) {
                return Ok(Next::Ended);
            }
        }
        let ap = AccessPoint {
            comp_bit: c.end,
            uncomp: self.uncomp,
            window,
            member_start: false,
            span_crc: None,
        };
        self.seq = Some(Inflater::resume_member(self.gz, &ap, crc, member_out)?);
        Ok(Next::Ended)
    }

    /// The window before text offset `pos` of the current chunk, whose
    /// member has `member_out` bytes of text up to there.
    fn window_at(&self, member_out: u64, pos: usize) -> Vec<u8> {
        let w = member_out.min(WINDOW as u64) as usize;
        let mut v = Vec::with_capacity(w);
        if pos < w {
            let before = w - pos;
            v.extend_from_slice(&self.window[self.window.len() - before..]);
            v.extend_from_slice(&self.text[..pos]);
        } else {
            v.extend_from_slice(&self.text[pos - w..pos]);
        }
        v
    }

    /// The window an access point at the last boundary reported needs.
    pub(crate) fn window(&self) -> Vec<u8> {
        match (&self.seq, &self.cur) {
            (Some(s), _) => s.window(),
            (None, Some(c)) => self.window_at(c.member_before + c.pos as u64, c.pos),
            (None, None) => Vec::new(),
        }
    }

    /// As [`Inflater::input_from`].
    pub(crate) fn input_from(&mut self, at: u64, want: usize) -> Result<&[u8]> {
        if let Some(s) = self.seq.as_mut() {
            return s.input_from(at, want);
        }
        self.input.resize(want, 0);
        let n = self.gz.read_full_at(&mut self.input, at)?;
        Ok(&self.input[..n])
    }

    /// As [`Inflater::checked_end`] (a strict build does not ask).
    pub(crate) fn checked_end(&self) -> u64 {
        self.seq.as_ref().map_or(0, |s| s.checked_end())
    }
}

impl Chunk {
    fn index(&self, chunk: u64) -> u64 {
        self.start / (chunk * 8)
    }
}

impl Drop for Speculative<'_> {
    fn drop(&mut self) {
        self.shared.state.lock().quit = true;
        self.shared.wake.notify_all();
    }
}

/// True when chunk `j` is decoded by a worker.
fn speculated(j: u64, period: u64) -> bool {
    j % period != 0
}

/// The worker's chunk that starts at block boundary `bit`, if there is
/// one (waiting for it to be decoded). Chunks before it are dropped.
fn chunk_at(shared: &Shared, period: u64, bit: u64) -> Option<Chunk> {
    let j = bit / (shared.chunk * 8);
    if j == 0 || !speculated(j, period) {
        return None;
    }
    let mut s = shared.state.lock();
    if j < s.done {
        return None;
    }
    // Everything before chunk j is past.
    if s.done < j {
        s.done = j;
        let keep = s.results.split_off(&j);
        let old = std::mem::replace(&mut s.results, keep);
        for c in old.into_values().flatten() {
            s.pool.push(c.symbols);
        }
        shared.wake.notify_all();
    }
    loop {
        match s.results.get(&j) {
            Some(Some(c)) if c.start == bit => {
                s.done = j + 1;
                shared.wake.notify_all();
                return s.results.remove(&j).flatten();
            }
            // Not there yet: the decode has not reached it.
            Some(Some(c)) if c.start > bit => return None,
            Some(_) => {
                // No block found, or one before this boundary that the
                // exact decode passed: a false positive.
                if let Some(c) = s.results.remove(&j).flatten() {
                    s.pool.push(c.symbols);
                    shared
                        .false_starts
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                s.done = j + 1;
                shared.wake.notify_all();
                return None;
            }
            None if s.quit => return None,
            None => shared.wake.wait(&mut s),
        }
    }
}

fn recycle(shared: &Shared, c: Chunk) {
    recycle_buffer(shared, c.symbols);
}

fn recycle_buffer(shared: &Shared, b: Vec<u16>) {
    shared.state.lock().pool.push(b);
}

/// A worker: claims the chunks the reader does not decode itself, a few
/// ahead of it, and decodes each from its first block.
fn worker(gz: &dyn ReadAt, shared: &Shared, period: u64, workers: u64) {
    let _guard = QuitOnPanic(shared);
    let mut dec = marker::Decoder::default();
    let mut input = Vec::new();
    let ahead = period + workers;
    let chunk = shared.chunk;
    loop {
        let (j, mut out) = {
            let mut s = shared.state.lock();
            loop {
                if s.quit || s.next * chunk >= gz.len() {
                    return;
                }
                if s.next < s.done {
                    s.next = s.done;
                }
                while !speculated(s.next, period) {
                    s.next += 1;
                }
                if s.next < s.done + ahead {
                    break;
                }
                shared.wake.wait(&mut s);
            }
            let j = s.next;
            s.next += 1;
            let out = s.pool.pop();
            (j, out)
        };
        if j * chunk >= gz.len() {
            continue;
        }
        let out = out.get_or_insert_with(|| marker::output((MAX_RATIO * chunk) as usize));
        let from = j * chunk;
        let to = ((j + 1) * chunk + MARGIN).min(gz.len());
        input.resize((to - from) as usize, 0);
        let chunk = match gz.read_exact_at(&mut input, from) {
            Ok(()) => {
                let bits = (chunk * 8) as usize;
                dec.find_and_decode(&input, 0, bits, bits, out)
            }
            Err(_) => None,
        };
        let chunk = chunk.map(|d| Chunk {
            start: from * 8 + d.start as u64,
            end: from * 8 + d.end as u64,
            blocks: d
                .blocks
                .iter()
                .map(|&(b, at)| (from * 8 + b as u64, at))
                .collect(),
            symbols: std::mem::take(out),
            len: d.len,
        });
        let mut s = shared.state.lock();
        if chunk.is_none() {
            s.pool.push(std::mem::take(out));
        }
        if j < s.done {
            if let Some(c) = chunk {
                s.pool.push(c.symbols);
            }
        } else {
            s.results.insert(j, chunk);
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

/// Marker symbols are below this (a check of [`MARK`]'s range).
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
