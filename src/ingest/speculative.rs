//! An ordinary gzip stream decoded on several cores at ingest.
//!
//! The compressed file is cut into chunks ([`chunk_len`]). Workers take
//! chunks ahead of the reader and decode each from the first bit in it
//! where a deflate block decodes, without the window before it
//! ([`crate::gzip::marker`]), up to the first block boundary at or after
//! the chunk's end. The reader (this thread) decodes the chunks between
//! them exactly, with zlib-rs, as the sequential build does
//! ([`Inflater`]). When its decode reaches a block boundary where a
//! worker's chunk starts, the window there is known: it posts it, and
//! the chunk's markers are replaced by their bytes, a piece at a time,
//! by whichever thread is free (workers look between deflate blocks),
//! while the reader hands on the text it decoded and then the chunk's,
//! piece by piece. After the chunk, the reader goes on with the next
//! worker chunk if that starts there, or decodes on from its end.
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
//! speed while the workers decode theirs more slowly, and it hands on all
//! the text, so that neither waits long for the other.

use crate::error::{Error, Result};
use crate::gzip::marker::{self, MARK, WINDOW};
use crate::gzip::{AccessPoint, Event, Inflater};
use crate::io::ReadAt;
use parking_lot::{Condvar, Mutex};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Compressed bytes per chunk, at most: finding a chunk's first block
/// costs about a block's worth of bit-by-bit tries (tens of KiB in
/// gzip -6 output), small against 2 MiB.
const MAX_CHUNK: u64 = 2 << 20;
/// Compressed bytes per chunk, at least.
#[cfg(not(fuzzing))]
const MIN_CHUNK: u64 = 64 << 10;
/// Under the fuzzer, tiny chunks, so that its small archives are decoded
/// in chunks too (`fuzz/fuzz_targets/ingest.rs` builds with up to four
/// threads and compares every answer with its oracle).
#[cfg(fuzzing)]
const MIN_CHUNK: u64 = 64;
/// The smallest archive decoded in chunks.
pub(crate) const MIN_LEN: u64 = 4 * MIN_CHUNK;
/// Compressed bytes a worker reads past its chunk's end, for the block
/// that crosses it (a block longer than this ends the chunk early: the
/// reader decodes on from the last boundary before it).
const MARGIN: u64 = 1 << 20;
/// The most text a chunk holds, per compressed byte: a chunk compressed
/// more than 8:1 ends early in the same way.
const MAX_RATIO: u64 = 8;
/// The most chunks decoded ahead of the reader, whatever the number of
/// workers (each holds up to [`MAX_RATIO`] times [`MAX_CHUNK`] symbols,
/// 32 MiB, and then their text): enough to keep more workers busy than
/// the reader can hand text on from (`benches/gz_parallel.py`), and
/// memory bounded whatever the machine.
const MAX_AHEAD: u64 = 12;
/// The most events the reader's exact decode queues before handing
/// them on (an archive of empty blocks makes events without text).
const MAX_QUEUE: usize = 1 << 16;
/// Symbols resolved as one piece of work.
const PIECE: usize = 1 << 20;
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
    !j.is_multiple_of(period)
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

/// A piece of a posted chunk.
enum Piece {
    Open,
    Claimed,
    /// Its text and that text's CRC-32.
    Done(Vec<u8>, crc32fast::Hasher),
    /// Handed on.
    Taken,
}

/// A chunk whose window is known, resolved piece by piece.
struct Posted {
    start: u64,
    end: u64,
    blocks: Vec<(u64, usize)>,
    len: usize,
    symbols: Arc<Vec<u16>>,
    window: Arc<Vec<u8>>,
    pieces: Vec<Piece>,
}

impl Posted {
    fn new(c: Chunk, window: Vec<u8>) -> Posted {
        Posted {
            start: c.start,
            end: c.end,
            blocks: c.blocks,
            len: c.len,
            pieces: (0..c.len.div_ceil(PIECE).max(1))
                .map(|_| Piece::Open)
                .collect(),
            symbols: Arc::new(c.symbols),
            window: Arc::new(window),
        }
    }

    /// The symbols of piece `i`.
    fn range(&self, i: usize) -> std::ops::Range<usize> {
        WINDOW + i * PIECE..WINDOW + ((i + 1) * PIECE).min(self.len)
    }
}

/// Where a chunk is.
enum Slot {
    /// The worker found no block.
    Empty,
    /// Decoded; its window is not known yet.
    Decoded(Chunk),
    /// Its window is known.
    Posted(Posted),
}

impl Slot {
    /// The bit the chunk starts at.
    fn start(&self) -> Option<u64> {
        match self {
            Slot::Empty => None,
            Slot::Decoded(c) => Some(c.start),
            Slot::Posted(p) => Some(p.start),
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

impl State {
    /// Claims the first open piece of a posted chunk: (chunk, piece).
    fn claim(&mut self) -> Option<(u64, usize)> {
        for (&j, slot) in self.slots.iter_mut() {
            if let Slot::Posted(p) = slot
                && let Some(i) = p.pieces.iter().position(|x| matches!(x, Piece::Open))
            {
                p.pieces[i] = Piece::Claimed;
                return Some((j, i));
            }
        }
        None
    }

    /// Puts a slot's buffers back in the pools.
    fn recycle(&mut self, slot: Slot) {
        match slot {
            Slot::Decoded(c) => self.symbols.push(c.symbols),
            Slot::Posted(p) => {
                if let Ok(b) = Arc::try_unwrap(p.symbols) {
                    self.symbols.push(b);
                }
                for x in p.pieces {
                    if let Piece::Done(t, _) = x {
                        self.texts.push(t);
                    }
                }
            }
            Slot::Empty => {}
        }
    }
}

/// Where the time goes, for `benches/` (`LIDX_SPECULATIVE_STATS=1`
/// prints it when the decode ends): nanoseconds and bytes of text.
#[derive(Default)]
struct Costs {
    /// The reader's exact decodes.
    exact_ns: AtomicU64,
    exact_bytes: AtomicU64,
    /// The workers' marker decodes (finding the first block included,
    /// resolving done between blocks not).
    marker_ns: AtomicU64,
    marker_bytes: AtomicU64,
    /// Resolving pieces, by any thread, and by the reader.
    resolve_ns: AtomicU64,
    resolve_bytes: AtomicU64,
    reader_resolve_ns: AtomicU64,
    /// The reader waiting for a worker.
    wait_ns: AtomicU64,
}

impl Costs {
    fn add(counter: &AtomicU64, since: Option<std::time::Instant>) {
        if let Some(t) = since {
            counter.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
        }
    }
}

/// What the reader shares with its workers.
pub(crate) struct Shared {
    state: Mutex<State>,
    /// Wakes workers (the reader moved on, a window was posted) and the
    /// reader (a chunk is in, a piece is done).
    wake: Condvar,
    /// A posted chunk may have open pieces (workers look between blocks).
    open: AtomicBool,
    /// Compressed bytes per chunk.
    chunk: u64,
    /// Chunks decoded from a bit the exact decode passed (not a block
    /// start, or a block the finder took the wrong one of).
    false_starts: AtomicU64,
    /// Measured when asked for.
    costs: Option<Costs>,
}

impl Shared {
    /// The state shared over archive `gz`.
    pub(crate) fn new(gz: &dyn ReadAt) -> Shared {
        Shared {
            state: Mutex::new(State {
                next: 1,
                done: 0,
                slots: BTreeMap::new(),
                symbols: Vec::new(),
                texts: Vec::new(),
                quit: false,
            }),
            wake: Condvar::new(),
            open: AtomicBool::new(false),
            chunk: chunk_len(gz.len()),
            false_starts: AtomicU64::new(0),
            costs: std::env::var_os("LIDX_SPECULATIVE_STATS").map(|_| Costs::default()),
        }
    }

    fn index(&self, bit: u64) -> u64 {
        bit / (self.chunk * 8)
    }

    /// Now, when costs are measured.
    fn clock(&self) -> Option<std::time::Instant> {
        self.costs.as_ref().map(|_| std::time::Instant::now())
    }

    /// Adds the time since `t` (and `bytes`) to the counters `pick`s.
    fn count(
        &self,
        t: Option<std::time::Instant>,
        bytes: usize,
        pick: impl Fn(&Costs) -> (&AtomicU64, Option<&AtomicU64>),
    ) {
        if let Some(c) = &self.costs {
            let (ns, b) = pick(c);
            Costs::add(ns, t);
            if let Some(b) = b {
                b.fetch_add(bytes as u64, Ordering::Relaxed);
            }
        }
    }

    /// Resolves piece `i` of chunk `j` (claimed by the caller), with the
    /// state unlocked meanwhile.
    fn resolve_piece(
        &self,
        s: &mut parking_lot::MutexGuard<'_, State>,
        j: u64,
        i: usize,
        reader: bool,
    ) {
        let Some(Slot::Posted(p)) = s.slots.get(&j) else {
            unreachable!("a claimed piece's chunk stays until it is handed on");
        };
        let (symbols, window, range) = (p.symbols.clone(), p.window.clone(), p.range(i));
        let mut text = s.texts.pop().unwrap_or_default();
        let (text, crc) = parking_lot::MutexGuard::unlocked(s, || {
            let t = self.clock();
            // The window was checked to cover every marker when posted.
            let n = range.len();
            let ok = marker::resolve(&symbols[range], &window, &mut text);
            if reader {
                self.count(t, 0, |c| (&c.reader_resolve_ns, None));
            }
            self.count(t, n, |c| (&c.resolve_ns, Some(&c.resolve_bytes)));
            debug_assert!(ok);
            let mut crc = crc32fast::Hasher::new();
            crc.update(&text);
            (text, crc)
        });
        match s.slots.get_mut(&j) {
            Some(Slot::Posted(p)) => p.pieces[i] = Piece::Done(text, crc),
            _ => s.texts.push(text),
        }
        self.wake.notify_all();
    }

    /// Resolves open pieces while there are any.
    fn help(&self, s: &mut parking_lot::MutexGuard<'_, State>) {
        while let Some((j, i)) = s.claim() {
            self.resolve_piece(s, j, i, false);
        }
        self.open.store(false, Ordering::Relaxed);
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
    Exact(Box<Inflater<'s>>),
    /// Hand on piece `piece` of worker chunk `j`, whose start (text offset
    /// `uncomp`) was reached `member` bytes into its member; the member's
    /// text before the piece hashes to `crc`.
    Chunk {
        j: u64,
        piece: usize,
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
    /// When costs are measured: the start, and the bytes handed on.
    stats: Option<Stats>,
}

struct Stats {
    begin: std::time::Instant,
    bytes: u64,
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
            phase: Phase::Exact(Box::new(Inflater::new(gz))),
            queue: VecDeque::new(),
            text: Vec::new(),
            prefix: Vec::new(),
            last: (0, 0),
            input: Vec::new(),
            used: 0,
            stats: shared.costs.as_ref().map(|_| Stats {
                begin: std::time::Instant::now(),
                bytes: 0,
            }),
        }
    }

    /// Prints the costs measured (see [`Costs`]).
    fn report(&self) {
        let (Some(st), Some(c)) = (&self.stats, &self.shared.costs) else {
            return;
        };
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed) as f64;
        let per = |ns: &AtomicU64, b: &AtomicU64| get(ns) / get(b).max(1.0);
        // The reader is busy but when it waits: what it does besides
        // decoding and resolving is handing the text on.
        let wall = st.begin.elapsed().as_nanos() as f64;
        let hand_on = wall - get(&c.exact_ns) - get(&c.reader_resolve_ns) - get(&c.wait_ns);
        eprintln!(
            "lidx: speculative: chunk {} B, chunks used {}, false starts {}, text {} B, wall {} ns, \
             hand-on {:.3} ns/B, exact {:.3} ns/B over {} B, marker {:.3} ns/B over {} B, \
             resolve {:.3} ns/B, reader waited {} ns",
            self.shared.chunk,
            self.used,
            self.shared.false_starts.load(Ordering::Relaxed),
            st.bytes,
            wall,
            hand_on / (st.bytes.max(1) as f64),
            per(&c.exact_ns, &c.exact_bytes),
            get(&c.exact_bytes),
            per(&c.marker_ns, &c.marker_bytes),
            get(&c.marker_bytes),
            per(&c.resolve_ns, &c.resolve_bytes),
            get(&c.wait_ns),
        );
    }

    /// The next event, as [`Inflater::next_event`].
    pub(crate) fn next_event(&mut self) -> Result<Option<Event<'_>>> {
        loop {
            match self.queue.pop_front() {
                Some(Item::Data(from, to)) => {
                    if let Some(st) = self.stats.as_mut() {
                        st.bytes += (to - from) as u64;
                    }
                    return Ok(Some(Event::Data(&self.text[from..to])));
                }
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
                    piece,
                    uncomp,
                    crc,
                    member,
                } => self.piece(j, piece, uncomp, crc, member)?,
                Phase::Done => return Ok(None),
            }
        }
    }

    /// Decodes with `inf` up to the start of a worker's chunk (posting
    /// its window), the end, an error, or a bounded amount of text.
    fn exact(&mut self, inf: Box<Inflater<'s>>) {
        let t = self.shared.clock();
        let waited = self
            .shared
            .costs
            .as_ref()
            .map(|c| c.wait_ns.load(Ordering::Relaxed));
        self.exact_inner(inf);
        let bytes = self.text.len();
        if let (Some(c), Some(t), Some(w)) = (&self.shared.costs, t, waited) {
            // Less the waits for a chunk at its start.
            let waited = c.wait_ns.load(Ordering::Relaxed) - w;
            c.exact_ns.fetch_add(
                (t.elapsed().as_nanos() as u64).saturating_sub(waited),
                Ordering::Relaxed,
            );
            c.exact_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
        }
    }

    fn exact_inner(&mut self, mut inf: Box<Inflater<'s>>) {
        self.prefix = inf.window();
        {
            // The longest buffer of the pool: this text is a chunk's or
            // more, pieces are shorter.
            let mut s = self.shared.state.lock();
            if let Some(k) = (0..s.texts.len()).max_by_key(|&k| s.texts[k].capacity())
                && s.texts[k].capacity() > self.text.capacity()
            {
                std::mem::swap(&mut self.text, &mut s.texts[k]);
            }
        }
        self.text.clear();
        let cap = (4 * MAX_RATIO * self.shared.chunk) as usize;
        // Boundaries without text (empty blocks) count too.
        while self.text.len() < cap && self.queue.len() < MAX_QUEUE {
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
                    if let Some(j) = self.chunk_at(comp_bit)
                        && post(self.shared, j, inf.window(), member)
                    {
                        self.phase = Phase::Chunk {
                            j,
                            piece: 0,
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

    /// Hands on piece `i` of worker chunk `j` (resolving pieces here
    /// while none is done and some are open), then goes on after it.
    fn piece(
        &mut self,
        j: u64,
        i: usize,
        uncomp: u64,
        mut crc: crc32fast::Hasher,
        member: u64,
    ) -> Result<()> {
        let shared = self.shared;
        let mut s = shared.state.lock();
        let (text, piece_crc) = loop {
            let Some(Slot::Posted(p)) = s.slots.get_mut(&j) else {
                unreachable!("a posted chunk stays until handed on");
            };
            if let Piece::Done(..) = p.pieces[i] {
                let Piece::Done(t, h) = std::mem::replace(&mut p.pieces[i], Piece::Taken) else {
                    unreachable!()
                };
                break (t, h);
            }
            match s.claim() {
                Some((k, x)) => shared.resolve_piece(&mut s, k, x, true),
                None => {
                    assert!(!s.quit, "a worker panicked");
                    let t = shared.clock();
                    shared.wake.wait(&mut s);
                    shared.count(t, 0, |c| (&c.wait_ns, None));
                }
            }
        };
        let Some(Slot::Posted(p)) = s.slots.get(&j) else {
            unreachable!()
        };
        let lo = i * PIECE;
        let hi = lo + text.len();
        let last = i + 1 == p.pieces.len();
        let (end, len) = (p.end, p.len);
        let mut bounds: Vec<(u64, usize)> = p
            .blocks
            .iter()
            .copied()
            .filter(|&(_, at)| at >= lo && (at < hi || last))
            .collect();
        if last {
            bounds.push((end, hi));
        }
        let wlen = |at: usize| (member + at as u64).min(WINDOW as u64) as usize;
        // The window before this piece.
        let prefix = if i == 0 {
            p.window.as_ref().clone()
        } else {
            self.window_at(self.text.len(), wlen(lo))
        };
        let old = std::mem::replace(&mut self.text, text);
        s.texts.push(old);
        self.prefix = prefix;
        crc.combine(&piece_crc);
        let mut from = lo;
        for (bit, at) in bounds {
            while from < at {
                let to = at.min(from + STEP);
                self.queue.push_back(Item::Data(from - lo, to - lo));
                from = to;
            }
            self.queue.push_back(Item::Boundary {
                comp_bit: bit,
                uncomp: uncomp + at as u64,
                member_start: false,
                at: at - lo,
                window: wlen(at),
            });
        }
        while from < hi {
            let to = hi.min(from + STEP);
            self.queue.push_back(Item::Data(from - lo, to - lo));
            from = to;
        }
        if !last {
            self.phase = Phase::Chunk {
                j,
                piece: i + 1,
                uncomp,
                crc,
                member,
            };
            return Ok(());
        }
        // The chunk has ended at a block start.
        let slot = s.slots.remove(&j).expect("the chunk");
        s.recycle(slot);
        drop(s);
        self.used += 1;
        let member = member + len as u64;
        let uncomp = uncomp + len as u64;
        let window = self.window_at(self.text.len(), wlen(len));
        if shared.index(end) > j
            && let Some(next) = self.chunk_at(end)
            && post(shared, next, window.clone(), member)
        {
            // The next chunk starts where this one ends.
            self.phase = Phase::Chunk {
                j: next,
                piece: 0,
                uncomp,
                crc,
                member,
            };
            return Ok(());
        }
        let ap = AccessPoint {
            comp_bit: end,
            uncomp,
            window,
            member_start: false,
            span_crc: None,
        };
        self.phase = Phase::Exact(Box::new(Inflater::resume_member(
            self.gz, &ap, crc, member,
        )?));
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
                s.recycle(slot);
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
                        shared.false_starts.fetch_add(1, Ordering::Relaxed);
                    }
                    let slot = s.slots.remove(&j).expect("the slot");
                    s.recycle(slot);
                    s.done = j + 1;
                    shared.wake.notify_all();
                    return None;
                }
                None if s.quit => return None,
                None => {
                    let t = shared.clock();
                    shared.wake.wait(&mut s);
                    shared.count(t, 0, |c| (&c.wait_ns, None));
                }
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
        if self.stats.is_some() {
            self.report();
        }
        self.shared.state.lock().quit = true;
        self.shared.wake.notify_all();
    }
}

/// Gives chunk `j` its window (the last 32 KiB of the `member` bytes of
/// the member's text before it), and each decoded chunk that follows it
/// directly the window at its start, so that its pieces can be resolved.
/// False when a marker of chunk `j` refers before the window (the member
/// started less than 32 KiB before): then the chunk is dropped.
fn post(shared: &Shared, mut j: u64, mut window: Vec<u8>, mut member: u64) -> bool {
    let mut s = shared.state.lock();
    let mut first = true;
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
        if window.len() < WINDOW
            && !marker::within(&c.symbols[WINDOW..WINDOW + c.len], window.len())
        {
            s.recycle(Slot::Decoded(c));
            if first {
                return false;
            }
            // The reader asks for this chunk after the one before: it
            // finds none, and decodes on itself.
            s.slots.insert(j, Slot::Empty);
            break;
        }
        let next = match s.slots.get(&(j + 1)) {
            Some(Slot::Decoded(n)) if n.start == c.end => tail(&c, &window, member),
            _ => None,
        };
        member += c.len as u64;
        s.slots.insert(j, Slot::Posted(Posted::new(c, window)));
        first = false;
        match next {
            Some(w) => {
                window = w;
                j += 1;
            }
            None => break,
        }
    }
    shared.open.store(true, Ordering::Relaxed);
    shared.wake.notify_all();
    true
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

/// A worker: resolves pieces of posted chunks first (also between the
/// blocks it decodes); otherwise claims the chunks the reader does not
/// decode itself, a few ahead of it, and decodes each from its first
/// block.
fn worker(gz: &dyn ReadAt, shared: &Shared, period: u64, workers: u64) {
    let _guard = QuitOnPanic(shared);
    let mut dec = marker::Decoder::default();
    let mut input = Vec::new();
    let ahead = (2 * period + workers).min(MAX_AHEAD);
    let chunk = shared.chunk;
    let helped = std::cell::Cell::new(0u64);
    let mut between = || {
        if shared.open.load(Ordering::Relaxed) {
            let t = shared.clock();
            shared.help(&mut shared.state.lock());
            if let Some(t) = t {
                helped.set(helped.get() + t.elapsed().as_nanos() as u64);
            }
        }
    };
    loop {
        let (j, out) = {
            let mut s = shared.state.lock();
            loop {
                if s.quit {
                    return;
                }
                shared.help(&mut s);
                if s.next < s.done {
                    s.next = s.done;
                }
                while !speculated(s.next, period) {
                    s.next += 1;
                }
                if s.next * chunk < gz.len() && s.next < s.done + ahead {
                    break;
                }
                shared.wake.wait(&mut s);
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
                let t = shared.clock();
                let before = helped.get();
                let d = dec.find_and_decode(&input, 0, bits, bits, &mut out, &mut between);
                if let (Some(c), Some(t)) = (&shared.costs, t) {
                    let ns = (t.elapsed().as_nanos() as u64).saturating_sub(helped.get() - before);
                    c.marker_ns.fetch_add(ns, Ordering::Relaxed);
                    let n = d.as_ref().map_or(0, |d| d.len);
                    c.marker_bytes.fetch_add(n as u64, Ordering::Relaxed);
                }
                d
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
            s.recycle(slot);
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
    use super::super::gzip::Decoder;
    use super::*;
    use crate::gzip::inflate::tests::text;
    use crate::io::MemSource;

    /// Everything a decoder reports: its text, its boundaries with the
    /// windows there, and how it ended.
    #[derive(Debug, PartialEq, Default)]
    struct Trace {
        text: Vec<u8>,
        bounds: Vec<(u64, u64, bool, Vec<u8>)>,
        end: String,
    }

    fn trace(d: &mut impl Decoder) -> Trace {
        let mut t = Trace::default();
        loop {
            let b = match d.next_event() {
                Ok(Some(Event::Data(x))) => {
                    t.text.extend_from_slice(x);
                    continue;
                }
                Ok(Some(Event::Boundary {
                    comp_bit,
                    uncomp,
                    member_start,
                })) => (comp_bit, uncomp, member_start),
                Ok(None) => {
                    t.end = "end".into();
                    return t;
                }
                Err(e) => {
                    t.end = e.to_string();
                    return t;
                }
            };
            t.bounds.push((b.0, b.1, b.2, d.window()));
        }
    }

    /// The sequential decoder's events and the parallel one's with
    /// `workers` workers are the same; returns the chunks used.
    fn same_events(gz: &[u8], workers: usize) -> u64 {
        let src = MemSource::new(gz.to_vec());
        let want = trace(&mut Inflater::new(&src));
        let shared = Shared::new(&src);
        std::thread::scope(|s| {
            let mut sp = Speculative::start(s, &src, &shared, workers);
            let got = trace(&mut sp);
            assert!(got.text == want.text, "text differs");
            assert_eq!(got.bounds.len(), want.bounds.len(), "boundaries");
            for (g, w) in got.bounds.iter().zip(&want.bounds) {
                assert!(
                    g == w,
                    "boundary {:?} vs {:?}",
                    (g.0, g.1, g.2),
                    (w.0, w.1, w.2)
                );
            }
            assert_eq!(got.end, want.end);
            sp.used
        })
    }

    #[test]
    fn chunks_give_the_sequential_events() {
        let t = text(3 << 20, 5);
        for level in [1, 6, 9] {
            let gz = crate::gzip::inflate::tests::gz(&t, level);
            for w in [1, 2, 3] {
                assert!(
                    same_events(&gz, w) > 0,
                    "level {level}, {w} workers: no chunk used"
                );
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
        let a = text(2 << 20, 11);
        let b = text(1 << 20, 12);
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
        let fake = crate::gzip::inflate::tests::gz(&text(4 << 20, 13), 6);
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

    #[test]
    fn many_flips_give_the_same_error() {
        let t = text(1 << 20, 21);
        let gz = crate::gzip::inflate::tests::gz(&t, 6);
        let mut x = 99u64;
        for _ in 0..16 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mut bad = gz.clone();
            let at = 10 + (x >> 20) as usize % (gz.len() - 18);
            bad[at] ^= 1 << (x % 8);
            same_events(&bad, 1);
        }
    }

    #[test]
    fn empty_blocks_are_events_without_text() {
        // 200,000 empty stored blocks between two stretches of text.
        let a = text(300_000, 22);
        let mut m = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
        let mut data = Vec::new();
        for (k, b) in a.chunks(50_000).enumerate() {
            data.extend_from_slice(b);
            m.push(0);
            m.extend_from_slice(&(b.len() as u16).to_le_bytes());
            m.extend_from_slice(&(!(b.len() as u16)).to_le_bytes());
            m.extend_from_slice(b);
            if k == 2 {
                for _ in 0..200_000 {
                    m.extend_from_slice(&[0, 0, 0, 0xff, 0xff]);
                }
            }
        }
        m.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
        m.extend_from_slice(&crc32fast::hash(&data).to_le_bytes());
        m.extend_from_slice(&(data.len() as u32).to_le_bytes());
        same_events(&m, 1);
    }

    #[test]
    fn a_chained_chunk_that_reaches_before_its_member_is_left_empty() {
        // Chunk 1 starts 100 bytes into a member and resolves; chunk 2
        // follows it directly but copies from before the member's start.
        let src = MemSource::new(vec![0; 1 << 20]);
        let shared = Shared::new(&src);
        let chunk = |start: u64, end: u64, syms: &[u16]| {
            let mut symbols = marker::output(syms.len());
            symbols[WINDOW..WINDOW + syms.len()].copy_from_slice(syms);
            Chunk {
                start,
                end,
                blocks: Vec::new(),
                symbols,
                len: syms.len(),
            }
        };
        {
            let mut s = shared.state.lock();
            let near = MARK + WINDOW as u16 - 1;
            s.slots
                .insert(1, Slot::Decoded(chunk(1000, 2000, &[b'a' as u16, near])));
            s.slots
                .insert(2, Slot::Decoded(chunk(2000, 3000, &[MARK, b'b' as u16])));
        }
        assert!(post(&shared, 1, vec![b'x'; 100], 100));
        let s = shared.state.lock();
        assert!(matches!(s.slots.get(&1), Some(Slot::Posted(_))));
        assert!(
            matches!(s.slots.get(&2), Some(Slot::Empty)),
            "chunk 2 is gone"
        );
    }
}
