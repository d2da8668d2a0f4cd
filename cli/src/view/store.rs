//! The lines the viewer holds, and the thread that reads them.
//!
//! Lines are held in blocks of [`BLOCK`] consecutive lines, each line at
//! most [`LINE_CAP`] bytes (`Index::read_lines_capped`: a longer line keeps
//! its first bytes, and the screen says how many more there are). The UI
//! thread never reads: it asks the reader thread for a block and draws it
//! when it arrives. Blocks are evicted least recently used first once they
//! hold more than [`BUDGET`] bytes, so memory is bounded by the budget plus
//! the blocks on screen, whatever the file's size and its lines' lengths.
//! The reader also maps byte offsets to lines (a percentage, a scrollbar
//! click).

use super::Msg;
use lidx::{Index, LineBuf};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};

/// Lines per block.
pub const BLOCK: u64 = 64;
/// Bytes held of one line.
pub const LINE_CAP: usize = 256 << 10;
/// Bytes of blocks kept beyond those in use.
const BUDGET: usize = 16 << 20;

/// One block of lines as read.
#[derive(Debug, Default)]
pub struct Held {
    bytes: Vec<u8>,
    /// End of each line's held bytes in `bytes`, without its `\n`.
    ends: Vec<(usize, usize)>,
    /// Bytes of each line not held (`u64::MAX`: unknown, the file is still
    /// being indexed).
    more: Vec<u64>,
    /// Source offset of each line.
    offsets: Vec<u64>,
}

impl Held {
    fn from_linebuf(b: &LineBuf) -> Held {
        let mut h = Held::default();
        for i in 0..b.len() {
            let l = without_cr(b.line(i), b.line_with_terminator(i).ends_with(b"\r\n"));
            let start = h.bytes.len();
            h.bytes.extend_from_slice(l);
            h.ends.push((start, h.bytes.len()));
            let held = b.line_with_terminator(i).len() as u64;
            h.more.push(if b.is_truncated(i) {
                b.line_len(i) - held
            } else {
                0
            });
            h.offsets.push(b.line_offset(i));
        }
        h
    }

    /// Lines of the first bytes of a file (read while it is indexed):
    /// the whole lines, and the last one cut at the end of `head` unless
    /// `eof`. Split into blocks.
    pub fn from_head(head: &[u8], eof: bool) -> Vec<Held> {
        let mut out = Vec::new();
        let mut h = Held::default();
        let mut at = 0usize;
        while at < head.len() {
            let (end, next, more) = match memchr::memchr(b'\n', &head[at..]) {
                Some(k) => (at + k, at + k + 1, 0),
                None => (head.len(), head.len(), if eof { 0 } else { u64::MAX }),
            };
            let line = &head[at..end.min(at + LINE_CAP)];
            let line = without_cr(line, next > end && line.len() == end - at);
            let start = h.bytes.len();
            h.bytes.extend_from_slice(line);
            h.ends.push((start, h.bytes.len()));
            h.more.push(more);
            h.offsets.push(at as u64);
            at = next;
            if h.ends.len() as u64 == BLOCK {
                out.push(std::mem::take(&mut h));
            }
        }
        if !h.ends.is_empty() {
            out.push(h);
        }
        out
    }

    /// Lines held.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Line `i`'s bytes held (without `\n`).
    pub fn line(&self, i: usize) -> &[u8] {
        let (a, b) = self.ends[i];
        &self.bytes[a..b]
    }

    /// Bytes of line `i` not held.
    pub fn more(&self, i: usize) -> u64 {
        self.more[i]
    }

    /// Source offset of line `i`.
    pub fn offset(&self, i: usize) -> u64 {
        self.offsets[i]
    }

    fn size(&self) -> usize {
        self.bytes.capacity() + self.ends.capacity() * 32 + 64
    }
}

/// `line` without the `\r` of a CRLF ending (`crlf`: the line ends in
/// `\r\n`), as less shows it; a `\r` elsewhere stays (shown `^M`).
fn without_cr(line: &[u8], crlf: bool) -> &[u8] {
    match line.strip_suffix(b"\r") {
        Some(l) if crlf => l,
        _ => line,
    }
}

/// What the reader thread is asked.
enum Job {
    /// Read block `n`.
    Block { n: u64, prefetch: bool },
    /// The line holding byte `offset` (clamped to the last line).
    Locate { offset: u64, token: u64 },
    /// The first line at or after time `at` (`:@T`), through the time
    /// index.
    LocateTime { at: String, token: u64 },
    /// The same over several logs shown as one, through each one's.
    LocateJoinedTime {
        joined: Arc<lidx::join::Joined>,
        at: String,
        token: u64,
    },
}

struct Request {
    epoch: u64,
    index: Arc<Index>,
    job: Job,
}

/// The held blocks and the channel to the reader thread.
pub struct Store {
    epoch: u64,
    blocks: HashMap<u64, (Arc<Held>, u64)>,
    inflight: HashSet<u64>,
    bytes: usize,
    clock: u64,
    tx: Sender<Request>,
}

impl Store {
    /// A store whose reader thread replies on `reply`.
    pub fn new(reply: Sender<Msg>) -> Store {
        let (tx, rx) = channel();
        std::thread::Builder::new()
            .name("lidx-view-reader".into())
            .spawn(move || reader(rx, reply))
            .expect("spawn the reader thread");
        Store {
            epoch: 0,
            blocks: HashMap::new(),
            inflight: HashSet::new(),
            bytes: 0,
            clock: 0,
            tx,
        }
    }

    /// The current epoch: replies to requests of an earlier one are stale.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Forgets everything (the source changed).
    pub fn clear(&mut self) {
        self.epoch += 1;
        self.blocks.clear();
        self.inflight.clear();
        self.bytes = 0;
    }

    /// The source grew: the blocks whose lines were all complete (among
    /// the first `complete` lines) stay, the others are read again.
    pub fn grown(&mut self, complete: u64) {
        self.epoch += 1;
        let keep = complete / BLOCK;
        self.blocks.retain(|&n, _| n < keep);
        self.inflight.clear();
        self.bytes = self.blocks.values().map(|(h, _)| h.size()).sum();
    }

    /// A new frame: blocks used from now on are kept over older ones.
    pub fn tick(&mut self) {
        self.clock += 1;
    }

    /// Block `n`, if held.
    pub fn get(&mut self, n: u64) -> Option<Arc<Held>> {
        let clock = self.clock;
        self.blocks.get_mut(&n).map(|(h, used)| {
            *used = clock;
            Arc::clone(h)
        })
    }

    /// True when block `n` is held.
    pub fn has(&self, n: u64) -> bool {
        self.blocks.contains_key(&n)
    }

    /// Asks for block `n` unless it is held or asked for.
    pub fn request(&mut self, index: &Arc<Index>, n: u64, prefetch: bool) {
        if self.blocks.contains_key(&n) || !self.inflight.insert(n) {
            return;
        }
        let _ = self.tx.send(Request {
            epoch: self.epoch,
            index: Arc::clone(index),
            job: Job::Block { n, prefetch },
        });
    }

    /// Asks for the line holding `offset`; the reply carries `token`.
    pub fn locate(&mut self, index: &Arc<Index>, offset: u64, token: u64) {
        let _ = self.tx.send(Request {
            epoch: self.epoch,
            index: Arc::clone(index),
            job: Job::Locate { offset, token },
        });
    }

    /// Looks up the first line at or after time `at` (a time expression,
    /// `lidx lines --since`'s grammar) off the UI thread: a `Located`
    /// message answers.
    pub fn locate_time(&mut self, index: &Arc<Index>, at: String, token: u64) {
        let _ = self.tx.send(Request {
            epoch: self.epoch,
            index: Arc::clone(index),
            job: Job::LocateTime { at, token },
        });
    }

    /// [`Self::locate_time`] over several logs shown as one.
    pub fn locate_joined_time(&mut self, joined: &Arc<lidx::join::Joined>, at: String, token: u64) {
        let _ = self.tx.send(Request {
            epoch: self.epoch,
            index: Arc::clone(joined.index()),
            job: Job::LocateJoinedTime {
                joined: Arc::clone(joined),
                at,
                token,
            },
        });
    }

    /// Takes a block (from the reader, or the head of the file).
    pub fn insert(&mut self, epoch: u64, n: u64, held: Held) {
        if epoch != self.epoch {
            return;
        }
        self.inflight.remove(&n);
        self.bytes += held.size();
        if let Some((old, _)) = self.blocks.insert(n, (Arc::new(held), self.clock)) {
            self.bytes -= old.size();
        }
        self.evict();
    }

    /// A read failed: it may be asked again.
    pub fn failed(&mut self, epoch: u64, n: u64) {
        if epoch == self.epoch {
            self.inflight.remove(&n);
        }
    }

    fn evict(&mut self) {
        while self.bytes > BUDGET {
            let Some((&n, _)) = self
                .blocks
                .iter()
                .filter(|(_, (_, used))| *used + 1 < self.clock)
                .min_by_key(|(_, (_, used))| *used)
            else {
                return;
            };
            if let Some((h, _)) = self.blocks.remove(&n) {
                self.bytes -= h.size();
            }
        }
    }

    /// Bytes held (for the figures).
    pub fn held_bytes(&self) -> usize {
        self.bytes
    }
}

/// The reader thread: blocks asked for display first, prefetches after.
fn reader(rx: Receiver<Request>, reply: Sender<Msg>) {
    let mut urgent = VecDeque::new();
    let mut later = VecDeque::new();
    let mut buf = LineBuf::new();
    loop {
        loop {
            match rx.try_recv() {
                Ok(r) => match r.job {
                    Job::Block { prefetch: true, .. } => later.push_back(r),
                    _ => urgent.push_back(r),
                },
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return,
            }
        }
        let Some(r) = urgent.pop_front().or_else(|| later.pop_front()) else {
            match rx.recv() {
                Ok(r) => {
                    urgent.push_back(r);
                    continue;
                }
                Err(_) => return,
            }
        };
        let msg = match r.job {
            Job::Block { n, .. } => {
                let lines = n * BLOCK..(n + 1) * BLOCK;
                match r.index.read_lines_capped(lines, LINE_CAP, &mut buf) {
                    Ok(_) => Msg::Block {
                        epoch: r.epoch,
                        n,
                        held: Ok(Held::from_linebuf(&buf)),
                    },
                    Err(e) => Msg::Block {
                        epoch: r.epoch,
                        n,
                        held: Err(e.to_string()),
                    },
                }
            }
            Job::Locate { offset, token } => {
                let i = &r.index;
                let line = if i.line_count() == 0 {
                    Ok(0)
                } else if offset >= i.source_len() {
                    Ok(i.line_count() - 1)
                } else {
                    i.line_at(offset).map_err(|e| e.to_string())
                };
                Msg::Located {
                    epoch: r.epoch,
                    token,
                    line,
                }
            }
            Job::LocateTime { at, token } => {
                let i = &r.index;
                let line = crate::time::instant(i, &at)
                    .and_then(|t| i.line_at_time(t))
                    .map_err(|e| e.to_string())
                    .and_then(|l| {
                        if l < i.line_count() {
                            Ok(l)
                        } else {
                            Err(format!("no line at or after {}", at.trim()))
                        }
                    });
                Msg::Located {
                    epoch: r.epoch,
                    token,
                    line,
                }
            }
            Job::LocateJoinedTime { joined, at, token } => {
                let zone = joined.logs().iter().find_map(|l| l.timed_index());
                let line = match zone {
                    None => Err("no time index".to_string()),
                    Some(i) => crate::time::instant(i, &at)
                        .and_then(|t| joined.line_at_time(t))
                        .map_err(|e| e.to_string())
                        .and_then(|l| {
                            l.ok_or_else(|| format!("no line at or after {}", at.trim()))
                        }),
                };
                Msg::Located {
                    epoch: r.epoch,
                    token,
                    line,
                }
            }
        };
        if reply.send(msg).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_is_split_into_lines_and_blocks() {
        let blocks = Held::from_head(b"a\r\nb\n\nc", false);
        assert_eq!(blocks.len(), 1);
        let h = &blocks[0];
        assert_eq!(h.len(), 4);
        // The \r of CRLF is not shown.
        assert_eq!((h.line(0), h.more(0), h.offset(0)), (&b"a"[..], 0, 0));
        assert_eq!((h.line(2), h.offset(2)), (&b""[..], 5));
        // The head ends inside line 4: how much more is unknown.
        assert_eq!(
            (h.line(3), h.more(3), h.offset(3)),
            (&b"c"[..], u64::MAX, 6)
        );
        // A \r elsewhere stays, at the end of a last line without \n too.
        let h = &Held::from_head(b"b\rc\r\nd\r", true)[0];
        assert_eq!((h.line(0), h.line(1)), (&b"b\rc"[..], &b"d\r"[..]));
        // At the end of the file, a last line without `\n` is whole.
        assert_eq!(Held::from_head(b"a\nc", true)[0].more(1), 0);
        let many: Vec<u8> = (0..2 * BLOCK + 1).flat_map(|_| *b"x\n").collect();
        let sizes: Vec<usize> = Held::from_head(&many, true).iter().map(Held::len).collect();
        assert_eq!(sizes, [BLOCK as usize, BLOCK as usize, 1]);
        // A line longer than LINE_CAP keeps its first LINE_CAP bytes.
        let long = vec![b'y'; LINE_CAP + 10];
        assert_eq!(Held::from_head(&long, true)[0].line(0).len(), LINE_CAP);
    }

    #[test]
    fn the_store_keeps_to_its_budget() {
        let (tx, _rx) = channel();
        let mut s = Store::new(tx);
        let line = vec![b'x'; LINE_CAP];
        let one = Held::from_head(&line, true).pop().unwrap().size();
        for n in 0..200 {
            s.tick();
            s.insert(0, n, Held::from_head(&line, true).pop().unwrap());
            // The budget, plus the blocks of this frame and the last one.
            assert!(s.held_bytes() <= BUDGET + 2 * one, "{}", s.held_bytes());
        }
        assert!(s.get(199).is_some() && s.get(0).is_none());
        // A reply of an older epoch is dropped.
        s.clear();
        s.insert(0, 5, Held::default());
        assert!(!s.has(5));
    }
}
