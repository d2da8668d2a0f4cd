//! `Index.grep`: a search in a background thread, its results pulled by a
//! Python iterator.
//!
//! The search is the core's parallel driver (`lidx::search::parallel`,
//! the one `lidx grep` runs): the range splits at checkpoints into 4 MiB
//! chunks that `threads` workers scan, at most `2 × threads` chunks ahead
//! of the one being delivered, each chunk's selected lines recorded as
//! `(line, offset, bytes)` records. The driver runs on its own thread and
//! hands each chunk's records, in file order, to a channel of
//! [`CHANNEL_BATCHES`] places; the iterator takes them with the GIL
//! released. So memory is bounded by `2 × threads + CHANNEL_BATCHES + 1`
//! chunks' selected lines, however many lines match, and the first
//! results come as soon as the first chunk is scanned. When the iterator
//! is dropped or closed, the channel closes and the driver stops at its
//! next chunk.

use crate::errors::{new_error, to_py};
use crate::index::Shared;
use lidx::search::parallel::{self, ChunkOutput, Render};
use lidx::search::{Kind, Line, Matcher, MatcherOptions, ScanOptions, Sink};
use parking_lot::Mutex;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};
use std::ops::Range;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::time::Duration;

/// Bytes of source per chunk (as `lidx grep`).
const CHUNK_BYTES: u64 = 4 << 20;

/// Chunks' records waiting in the channel at most.
const CHANNEL_BATCHES: usize = 2;

/// How often a waiting iterator checks for Ctrl-C.
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

/// A record's header: line number, offset, length (little-endian u64s).
const HEADER: usize = 24;

/// What a search is asked for besides the pattern and the range.
pub struct GrepOptions {
    pub matcher: MatcherOptions,
    pub invert: bool,
    pub max_count: Option<u64>,
    pub threads: usize,
}

/// From a background thread (a search, a merge) to its iterator.
pub(crate) enum Msg {
    /// One batch of records, in order.
    Batch(Vec<u8>),
    /// The work failed.
    Err(lidx::Error),
    /// The work is complete.
    Done,
}

/// The next message of the channel in `slot`, waited for with the GIL
/// released, checking for Ctrl-C every [`SIGNAL_CHECK`] (a signal's
/// exception is raised and the channel kept for the next call). `None`
/// when `slot` is empty or the sending thread is gone (the channel is
/// then dropped).
pub(crate) fn receive<T: Send>(
    py: Python<'_>,
    slot: &mut Option<Receiver<T>>,
) -> PyResult<Option<T>> {
    let Some(mut rx) = slot.take() else {
        return Ok(None);
    };
    loop {
        let (back, got) = py.detach(move || {
            let got = rx.recv_timeout(SIGNAL_CHECK);
            (rx, got)
        });
        rx = back;
        match got {
            Ok(m) => {
                *slot = Some(rx);
                return Ok(Some(m));
            }
            Err(RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    *slot = Some(rx);
                    return Err(e);
                }
            }
            Err(RecvTimeoutError::Disconnected) => return Ok(None),
        }
    }
}

/// `b`'s little-endian u64 at `at`.
pub(crate) fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// Records one chunk's selected lines (there is no context: every line
/// the scan reports is selected).
#[derive(Default)]
struct Records(ChunkOutput);

impl Sink for Records {
    fn line(&mut self, l: &Line<'_>) -> lidx::Result<bool> {
        if l.kind == Kind::Match {
            let out = &mut self.0;
            out.bytes.extend_from_slice(&l.number.to_le_bytes());
            out.bytes.extend_from_slice(&l.offset.to_le_bytes());
            out.bytes
                .extend_from_slice(&(l.bytes.len() as u64).to_le_bytes());
            out.bytes.extend_from_slice(l.bytes);
            out.ends.push(out.bytes.len());
            out.selected += 1;
        }
        Ok(true)
    }
}

impl Render for Records {
    fn finish(self) -> ChunkOutput {
        self.0
    }
}

/// The patterns of `pattern`: a `str`, UTF-8 `bytes`, or a list or tuple
/// of them.
pub fn patterns(py: Python<'_>, pattern: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let one = |p: &Bound<'_, PyAny>| -> PyResult<String> {
        if let Ok(s) = p.cast::<PyString>() {
            return s.to_cow().map(|c| c.into_owned());
        }
        if let Ok(b) = p.cast::<PyBytes>() {
            return String::from_utf8(b.as_bytes().to_vec()).map_err(|_| {
                new_error(
                    py,
                    "InvalidArgumentError",
                    "invalid pattern: a bytes pattern must be UTF-8 (write other bytes as \\xNN escapes with unicode=False)".into(),
                )
            });
        }
        Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "pattern must be str or bytes, or a list of them, not {}",
            p.get_type().name()?
        )))
    };
    if let Ok(l) = pattern.cast::<PyList>() {
        return l.iter().map(|p| one(&p)).collect();
    }
    if let Ok(t) = pattern.cast::<PyTuple>() {
        return t.iter().map(|p| one(&p)).collect();
    }
    Ok(vec![one(pattern)?])
}

/// The keyword arguments of `Index.grep` and `Collection.grep`.
pub struct Flags {
    pub ignore_case: bool,
    pub smart_case: bool,
    pub fixed_strings: bool,
    pub word_regexp: bool,
    pub line_regexp: bool,
    pub invert_match: bool,
    pub max_count: Option<u64>,
    pub crlf: bool,
    pub unicode: bool,
    pub threads: Option<usize>,
}

/// A `grep` call: `pattern` over `lines` (as given: 1-based, both ends
/// included; None: all) of `index`.
pub fn request(
    py: Python<'_>,
    index: Shared,
    pattern: &Bound<'_, PyAny>,
    lines: Option<(i64, Option<i64>)>,
    f: &Flags,
) -> PyResult<Matches> {
    let patterns = patterns(py, pattern)?;
    let range = match lines {
        None => 0..u64::MAX,
        Some((a, b)) => crate::numbering::range(py, &index, a, b)?,
    };
    let opts = GrepOptions {
        matcher: MatcherOptions {
            fixed_strings: f.fixed_strings,
            case_insensitive: f.ignore_case,
            smart_case: f.smart_case,
            word: f.word_regexp,
            line: f.line_regexp,
            crlf: f.crlf,
            no_unicode: !f.unicode,
        },
        invert: f.invert_match,
        max_count: f.max_count,
        threads: f
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1),
    };
    start(py, index, &patterns, range, &opts)
}

/// Compiles the patterns and starts the search of `lines` (0-based,
/// half-open, the end unclamped).
pub fn start(
    py: Python<'_>,
    index: Shared,
    patterns: &[String],
    lines: Range<u64>,
    opts: &GrepOptions,
) -> PyResult<Matches> {
    let matcher = py
        .detach(|| Matcher::new(patterns, &opts.matcher))
        .map_err(|e| to_py(py, e))?;
    let sopts = ScanOptions {
        invert: opts.invert,
        max_count: opts.max_count,
        ..ScanOptions::default()
    };
    let threads = opts.threads;
    let (tx, rx) = sync_channel(CHANNEL_BATCHES);
    std::thread::Builder::new()
        .name("lidx-grep".into())
        .spawn(move || search(&index, &matcher, &sopts, lines, threads, &tx))
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the search thread: {e}")))?;
    Ok(Matches {
        rx: Mutex::new(Some(rx)),
        batch: Vec::new(),
        at: 0,
    })
}

/// The search thread.
fn search(
    index: &lidx::Index,
    matcher: &Matcher,
    sopts: &ScanOptions,
    lines: Range<u64>,
    threads: usize,
    tx: &SyncSender<Msg>,
) {
    let count = index.line_count();
    // A damaged archive: the search covers the readable lines; an answer
    // that needs the rest is an error after them (as `lidx grep`).
    let needs_rest = lines.end > count;
    let result = (|| -> lidx::Result<bool> {
        let chunk = index.chunk_for_lines(lines.start.min(count)..lines.end.min(count))?;
        if chunk.start >= chunk.end {
            return Ok(false);
        }
        let pieces = index.split_chunk(chunk, CHUNK_BYTES)?;
        let totals = parallel::run(
            index.source(),
            &pieces,
            threads,
            matcher,
            sopts,
            Records::default,
            &mut |bytes| {
                if bytes.is_empty() {
                    return Ok(());
                }
                tx.send(Msg::Batch(bytes.to_vec()))
                    .map_err(|_| lidx::Error::Cancelled {
                        path: index.source_path().to_path_buf(),
                    })
            },
        )?;
        Ok(sopts.max_count.is_some_and(|m| totals.selected >= m))
    })();
    let last = match result {
        Ok(stopped) => match index.damaged_error() {
            Some(e) if needs_rest && !stopped => Msg::Err(e),
            _ => Msg::Done,
        },
        Err(e) => Msg::Err(e),
    };
    // The iterator may be gone: then nobody wants the end.
    let _ = tx.send(last);
}

/// The lines a search selects, as ``(line_no, offset, line)``, in file
/// order (from :meth:`Index.grep`). Not for use by several threads at once.
#[pyclass(module = "lidx", name = "Matches")]
pub struct Matches {
    /// `None` once the search is complete, failed or closed.
    rx: Mutex<Option<Receiver<Msg>>>,
    /// The batch being yielded, and where in it.
    batch: Vec<u8>,
    at: usize,
}

#[pymethods]
impl Matches {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(
        &mut self,
        py: Python<'py>,
    ) -> PyResult<Option<(u64, u64, Bound<'py, PyBytes>)>> {
        loop {
            if self.at < self.batch.len() {
                let b = &self.batch;
                let at = self.at;
                let line = u64_at(b, at);
                let offset = u64_at(b, at + 8);
                let len = u64_at(b, at + 16) as usize;
                let bytes = PyBytes::new(py, &b[at + HEADER..at + HEADER + len]);
                self.at = at + HEADER + len;
                return Ok(Some((line + 1, offset, bytes)));
            }
            if self.rx.get_mut().is_none() {
                return Ok(None);
            }
            match receive(py, self.rx.get_mut())? {
                Some(Msg::Batch(b)) => {
                    self.batch = b;
                    self.at = 0;
                }
                Some(Msg::Done) => {
                    self.rx.get_mut().take();
                    return Ok(None);
                }
                Some(Msg::Err(e)) => {
                    self.rx.get_mut().take();
                    return Err(to_py(py, e));
                }
                None => {
                    return Err(PyRuntimeError::new_err(
                        "lidx: the search thread stopped without a result",
                    ));
                }
            }
        }
    }

    /// Stops the search (the rest of the results are dropped).
    fn close(&mut self) {
        self.rx.get_mut().take();
        self.batch = Vec::new();
        self.at = 0;
    }
}
