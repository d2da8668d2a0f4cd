//! Reading line ranges: streaming to a writer (the CLI) or filling a reused
//! [`LineBuf`] (viewers).

use super::Index;
use crate::error::{Error, Result};
use std::io::Write;
use std::ops::Range;

/// A reusable buffer of consecutive lines: one allocation for the bytes,
/// one for the line boundaries, reused across calls (no per-line
/// allocation).
///
/// Filled by [`Index::read_lines`] (whole lines) or
/// [`Index::read_lines_capped`] (at most so many bytes of each line: a
/// viewer's screen, whatever the lines' lengths). A line cut short holds
/// its first bytes only, without terminator ([`LineBuf::is_truncated`]);
/// [`LineBuf::line_offset`] and [`LineBuf::line_len`] still give where the
/// whole line lies in the source.
#[derive(Debug, Default, Clone)]
pub struct LineBuf {
    bytes: Vec<u8>,
    /// End (exclusive, within `bytes`) of each line, terminator included.
    ends: Vec<usize>,
    /// When some line is cut short: the source offset just past each line
    /// (empty when every line is whole: then `bytes` is the source's).
    src_ends: Vec<u64>,
    first: u64,
    start_offset: u64,
}

impl LineBuf {
    /// An empty buffer.
    pub fn new() -> LineBuf {
        LineBuf::default()
    }

    /// Number of lines held.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when no lines are held.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// 0-based number of the first line held.
    pub fn first_line(&self) -> u64 {
        self.first
    }

    /// Byte offset of the first line held.
    pub fn start_offset(&self) -> u64 {
        self.start_offset
    }

    /// Line `i` of the buffer (0 = [`LineBuf::first_line`]) with its `\n`
    /// terminator, if it has one.
    pub fn line_with_terminator(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }

    /// Line `i` without its `\n` terminator (`\r` is kept: it is content).
    pub fn line(&self, i: usize) -> &[u8] {
        let l = self.line_with_terminator(i);
        l.strip_suffix(b"\n").unwrap_or(l)
    }

    /// The lines in order, without terminators.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.len()).map(move |i| self.line(i))
    }

    /// All bytes held: exactly the source's when no line is cut short,
    /// else each line's bytes held, one after the other.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Byte offset in the source where line `i` starts.
    pub fn line_offset(&self, i: usize) -> u64 {
        match i {
            0 => self.start_offset,
            _ if self.src_ends.is_empty() => self.start_offset + self.ends[i - 1] as u64,
            _ => self.src_ends[i - 1],
        }
    }

    /// Length in the source of line `i`, its `\n` included: more than
    /// the bytes held when it was cut short.
    pub fn line_len(&self, i: usize) -> u64 {
        let end = if self.src_ends.is_empty() {
            self.start_offset + self.ends[i] as u64
        } else {
            self.src_ends[i]
        };
        end - self.line_offset(i)
    }

    /// True when line `i` holds only its first bytes
    /// ([`Index::read_lines_capped`]).
    pub fn is_truncated(&self, i: usize) -> bool {
        let held = self.ends[i] - if i == 0 { 0 } else { self.ends[i - 1] };
        (held as u64) < self.line_len(i)
    }
}

/// What [`Index::read_lines_into`] found (and read, when it fit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinesRead {
    /// 0-based number of the first line (the range's start, clamped to the
    /// line count).
    pub first_line: u64,
    /// Lines in the range, clamped to the line count.
    pub lines: u64,
    /// Byte offset of the first line (the end of the source for an empty
    /// range past the end).
    pub start_offset: u64,
    /// The lines' length in bytes: what the buffer must hold.
    pub len: u64,
    /// True when they were read (the buffer was long enough); false when
    /// nothing was read.
    pub read: bool,
}

/// Bytes [`Index::read_lines`] reads at a time.
const READ_STEP: usize = 4 << 20;

/// Lines of a range read in batches of whole lines, in order, with memory
/// bounded by the batch size (or the longest line): what a worker reading
/// a partition ([`Index::partitions`]) streams. Made by
/// [`Index::line_batches`]; each [`LineBatches::next`] fills a [`LineBuf`]
/// with the next lines. Holds no borrow of the index: the caller passes
/// it to every call.
#[derive(Debug, Clone)]
pub struct LineBatches {
    /// The next line to hand out, and where it starts.
    line: u64,
    at: u64,
    /// The range's end: a line number and its offset.
    end: u64,
    end_at: u64,
    /// Where the next read starts (past `at` by what `carry` holds).
    read_at: u64,
    /// Bytes read past the last whole line handed out.
    carry: Vec<u8>,
}

impl LineBatches {
    /// Replaces `buf`'s contents with the next whole lines: as many as
    /// hold about `max_bytes` (at least one line, however long). Returns
    /// false, with `buf` empty, when the range is done. The bytes are
    /// checked to hold exactly the lines the index promised
    /// ([`Error::SourceChanged`] otherwise).
    pub fn next(&mut self, index: &Index, max_bytes: usize, buf: &mut LineBuf) -> Result<bool> {
        buf.bytes.clear();
        buf.ends.clear();
        buf.src_ends.clear();
        buf.first = self.line;
        buf.start_offset = self.at;
        if self.line >= self.end {
            if self.at != self.end_at || !self.carry.is_empty() {
                return Err(index.stale_source("the lines end before their promised end"));
            }
            return Ok(false);
        }
        let max = max_bytes.max(1);
        std::mem::swap(&mut buf.bytes, &mut self.carry);
        let mut scanned = 0;
        loop {
            // Whole lines in what is held.
            buf.ends
                .extend(memchr::memchr_iter(b'\n', &buf.bytes[scanned..]).map(|i| scanned + i + 1));
            scanned = buf.bytes.len();
            let lines = buf.ends.len() as u64;
            if self.line + lines > self.end {
                return Err(index.stale_source("more lines than the index promised"));
            }
            let done = self.read_at >= self.end_at;
            if done && buf.ends.last() != Some(&buf.bytes.len()) {
                // A final line without its newline ends the source only.
                if self.end_at != index.source_len() {
                    return Err(index.stale_source("a line without its newline before the end"));
                }
                buf.ends.push(buf.bytes.len());
            }
            let whole = buf.ends.last().copied().unwrap_or(0);
            if done || (whole > 0 && whole >= max) || self.line + lines == self.end {
                break;
            }
            let n = ((self.end_at - self.read_at) as usize)
                .min(READ_STEP)
                .min(max.saturating_sub(buf.bytes.len()).max(64 << 10));
            let old = buf.bytes.len();
            buf.bytes.resize(old + n, 0);
            index
                .source()
                .read_exact_at(&mut buf.bytes[old..], self.read_at)?;
            self.read_at += n as u64;
        }
        // Keep the bytes past the last whole line for the next call.
        let whole = buf.ends.last().copied().unwrap_or(0);
        self.carry.clear();
        self.carry.extend_from_slice(&buf.bytes[whole..]);
        buf.bytes.truncate(whole);
        self.line += buf.ends.len() as u64;
        self.at += whole as u64;
        if buf.ends.is_empty() {
            return Err(index.stale_source("fewer lines than the index promised"));
        }
        Ok(true)
    }
}

impl Index {
    /// Checks that the source's bytes `span`, holding `newlines` newlines
    /// (and ending without one when `unterminated`), are the `count` lines
    /// the index promised: a line without its newline only at the end of
    /// the source. A source edited in place without changing size or
    /// mtime, or a damaged archive, fails here.
    fn check_promised(
        &self,
        span: &Range<u64>,
        newlines: u64,
        unterminated: bool,
        count: u64,
    ) -> Result<()> {
        if newlines + u64::from(unterminated) != count
            || (unterminated && span.end != self.source_len())
        {
            return Err(Error::SourceChanged {
                path: self.source_path().to_path_buf(),
                what: format!(
                    "bytes {}..{} hold {newlines} newlines where the index promised {count} lines",
                    span.start, span.end
                ),
            });
        }
        Ok(())
    }

    /// Lines `lines` (clamped to the line count), to read in batches
    /// ([`LineBatches`]).
    pub fn line_batches(&self, lines: Range<u64>) -> Result<LineBatches> {
        let span = self.lines_span(lines.clone())?;
        let end = lines
            .end
            .min(self.line_count())
            .max(lines.start.min(self.line_count()));
        Ok(LineBatches {
            line: lines.start.min(self.line_count()),
            at: span.start,
            end,
            end_at: span.end,
            read_at: span.start,
            carry: Vec::new(),
        })
    }

    /// Replaces the contents of `buf` with lines `lines` (clamped to the
    /// line count). Returns the number of lines read.
    pub fn read_lines(&self, lines: Range<u64>, buf: &mut LineBuf) -> Result<usize> {
        let span = self.lines_span(lines.clone())?;
        buf.bytes.clear();
        buf.ends.clear();
        buf.src_ends.clear();
        buf.first = lines.start.min(self.line_count());
        buf.start_offset = span.start;
        // Read in steps, so that the buffer grows with bytes really read
        // (a damaged or crafted index cannot make it allocate by a claim).
        // Reserved once up to a bound (the rest grows as it is read).
        buf.bytes
            .reserve_exact(((span.end - span.start) as usize).min(16 * READ_STEP));
        let mut at = span.start;
        while at < span.end {
            let n = ((span.end - at) as usize).min(READ_STEP);
            let old = buf.bytes.len();
            buf.bytes.resize(old + n, 0);
            self.source().read_exact_at(&mut buf.bytes[old..], at)?;
            at += n as u64;
        }
        let len = buf.bytes.len();
        buf.ends
            .extend(memchr::memchr_iter(b'\n', &buf.bytes).map(|i| i + 1));
        if buf.ends.last().copied().unwrap_or(0) < len {
            buf.ends.push(len);
        }
        let want = (lines.end.min(self.line_count()).saturating_sub(buf.first)) as usize;
        if buf.ends.len() != want {
            return Err(Error::SourceChanged {
                path: self.source_path().to_path_buf(),
                what: format!(
                    "expected {want} lines in bytes {}..{}, found {}",
                    span.start,
                    span.end,
                    buf.ends.len()
                ),
            });
        }
        Ok(want)
    }

    /// Reads lines `lines` (clamped to the line count) into the caller's
    /// `buf`, exactly as in the source (terminators included, back to
    /// back), when they fit: a caller with a fixed buffer (the C ABI) learns
    /// the size needed and reads without an allocation. When `buf` is
    /// shorter than the lines' bytes, nothing is read and
    /// [`LinesRead::read`] is false; [`LinesRead::len`] says how long it
    /// must be. The bytes read are checked to hold exactly the lines the
    /// index promised ([`Error::SourceChanged`] otherwise).
    pub fn read_lines_into(&self, lines: Range<u64>, buf: &mut [u8]) -> Result<LinesRead> {
        let span = self.lines_span(lines.clone())?;
        let first = lines.start.min(self.line_count());
        let count = lines.end.min(self.line_count()).saturating_sub(first);
        let len = span.end - span.start;
        let mut got = LinesRead {
            first_line: first,
            lines: count,
            start_offset: span.start,
            len,
            read: false,
        };
        let Some(dst) = usize::try_from(len).ok().and_then(|n| buf.get_mut(..n)) else {
            return Ok(got);
        };
        self.source().read_exact_at(dst, span.start)?;
        let newlines = memchr::memchr_iter(b'\n', dst).count() as u64;
        let unterminated = dst.last().is_some_and(|&b| b != b'\n');
        self.check_promised(&span, newlines, unterminated, count)?;
        got.read = true;
        Ok(got)
    }

    /// Replaces the contents of `buf` with lines `lines` (clamped to the
    /// line count), holding at most `max_line_bytes` (at least 1) of each
    /// line: a longer line keeps its first `max_line_bytes` bytes and no
    /// terminator ([`LineBuf::is_truncated`]), and the rest of it is not
    /// read (its end is a lookup). Memory is bounded by the lines' count
    /// times `max_line_bytes`, whatever their lengths: what a viewer shows
    /// of a screenful of lines, one of which may be gigabytes long.
    /// Returns the number of lines read.
    pub fn read_lines_capped(
        &self,
        lines: Range<u64>,
        max_line_bytes: usize,
        buf: &mut LineBuf,
    ) -> Result<usize> {
        let cap = max_line_bytes.max(1);
        let first = lines.start.min(self.line_count());
        let last = lines.end.min(self.line_count());
        buf.bytes.clear();
        buf.ends.clear();
        buf.src_ends.clear();
        buf.first = first;
        if first >= last {
            buf.start_offset = self.lines_span(first..first)?.start;
            return Ok(0);
        }
        let span = self.lines_span(first..last)?;
        buf.start_offset = span.start;
        let mut line = first;
        let mut at = span.start;
        let mut block = self.take_buffer();
        if block.len() <= cap {
            block.resize(cap + 1);
        }
        let result = (|| {
            while line < last {
                // One block from the start of `line`: the whole lines in it
                // are taken; a line longer than `cap` is cut, and the rest
                // of it skipped. (The block holds more than `cap` bytes, so
                // every block takes at least one line.)
                let want = (block.len() as u64).min(span.end - at) as usize;
                let got = self.source().read_full_at(&mut block[..want], at)?;
                if got < want {
                    return Err(self.stale_source("source shorter than indexed"));
                }
                let chunk = &block[..got];
                let reaches_end = at + got as u64 == span.end;
                let mut s = 0usize;
                let mut jumped = None;
                while line < last && s < chunk.len() {
                    let rest = &chunk[s..];
                    let len = match memchr::memchr(b'\n', &rest[..rest.len().min(cap + 1)]) {
                        Some(k) => k + 1,
                        // The final line, without terminator.
                        None if reaches_end && rest.len() <= cap => rest.len(),
                        // Longer than the cap: cut, and skip to its end.
                        None if rest.len() > cap => {
                            buf.bytes.extend_from_slice(&rest[..cap]);
                            buf.ends.push(buf.bytes.len());
                            let end = self.line_end(line)?;
                            buf.src_ends.push(end);
                            line += 1;
                            jumped = Some(end);
                            break;
                        }
                        // Not whole in this block: read again from it.
                        None => break,
                    };
                    buf.bytes.extend_from_slice(&rest[..len]);
                    buf.ends.push(buf.bytes.len());
                    buf.src_ends.push(at + (s + len) as u64);
                    line += 1;
                    s += len;
                }
                at = jumped.unwrap_or(at + s as u64);
            }
            Ok(())
        })();
        if block.len() > crate::ingest::BUFFER_SIZE {
            block.resize(crate::ingest::BUFFER_SIZE);
        }
        self.give_buffer(block);
        result?;
        if buf.src_ends.last() != Some(&span.end) || buf.ends.len() as u64 != last - first {
            return Err(Error::SourceChanged {
                path: self.source_path().to_path_buf(),
                what: format!(
                    "expected {} lines in bytes {}..{}, found {}",
                    last - first,
                    span.start,
                    span.end,
                    buf.ends.len()
                ),
            });
        }
        if buf.ends.len() == buf.src_ends.len()
            && buf.src_ends.last().copied() == Some(span.start + buf.bytes.len() as u64)
        {
            // Nothing was cut: the bytes are the source's.
            buf.src_ends.clear();
        }
        Ok(last as usize - first as usize)
    }

    /// Streams the bytes of lines `lines` (clamped to the line count) to
    /// `out`, exactly as in the source. With `numbered`, each line is
    /// prefixed by its 1-based number and `:` (like `grep -n`). Memory is one
    /// scan buffer, however long the lines. Returns the lines written.
    pub fn write_lines(
        &self,
        lines: Range<u64>,
        numbered: bool,
        out: &mut dyn Write,
    ) -> Result<u64> {
        let number = numbered.then(|| lines.start.min(self.line_count()) + 1);
        self.write_lines_labelled(lines, b"", number, out)
    }

    /// As [`Index::write_lines`], each line prefixed with `prefix` (a file
    /// name and its separator, as `grep -H` prints them), then, when
    /// `number` is given, with a number and `:` — `number` for the first
    /// line written, one more for each next line (a rotation family's
    /// global numbers, `crate::family`).
    pub fn write_lines_labelled(
        &self,
        lines: Range<u64>,
        prefix: &[u8],
        number: Option<u64>,
        out: &mut dyn Write,
    ) -> Result<u64> {
        let span = self.lines_span(lines.clone())?;
        let first = lines.start.min(self.line_count());
        let count = lines.end.min(self.line_count()).saturating_sub(first);
        if count == 0 {
            return Ok(0);
        }
        let numbered = number.is_some() || !prefix.is_empty();
        let out_err = |e| Error::io("write", std::path::Path::new("<stdout>"), e);
        let mut buf = self.take_buffer();
        let mut at = span.start;
        let mut next_number = number.unwrap_or(0);
        let mut at_line_start = true;
        let mut itoa = [0u8; 24];
        let mut newlines = 0u64;
        let mut last_byte = None;
        let result = (|| {
            while at < span.end {
                let want = buf.len().min((span.end - at) as usize);
                let got = self.source().read_full_at(&mut buf[..want], at)?;
                if got == 0 {
                    return Err(Error::SourceChanged {
                        path: self.source_path().to_path_buf(),
                        what: "source shorter than indexed".into(),
                    });
                }
                let chunk = &buf[..got];
                last_byte = chunk.last().copied();
                if !numbered {
                    newlines += memchr::memchr_iter(b'\n', chunk).count() as u64;
                    out.write_all(chunk).map_err(out_err)?;
                } else {
                    let mut s = 0;
                    while s < chunk.len() {
                        if at_line_start {
                            out.write_all(prefix).map_err(out_err)?;
                            if number.is_some() {
                                out.write_all(format_number(next_number, &mut itoa))
                                    .map_err(out_err)?;
                                out.write_all(b":").map_err(out_err)?;
                                next_number += 1;
                            }
                            at_line_start = false;
                        }
                        match memchr::memchr(b'\n', &chunk[s..]) {
                            Some(k) => {
                                newlines += 1;
                                out.write_all(&chunk[s..s + k + 1]).map_err(out_err)?;
                                s += k + 1;
                                at_line_start = true;
                            }
                            None => {
                                out.write_all(&chunk[s..]).map_err(out_err)?;
                                s = chunk.len();
                            }
                        }
                    }
                }
                at += got as u64;
            }
            // The bytes must hold exactly the lines the index promised (a
            // source edited in place without changing size or mtime, or a
            // damaged archive, is caught here, if only after the output).
            let unterminated = last_byte != Some(b'\n');
            self.check_promised(&span, newlines, unterminated, count)?;
            Ok(())
        })();
        self.give_buffer(buf);
        result.map(|()| count)
    }
}

/// Formats `n` in decimal into `buf`; returns the digits.
fn format_number(mut n: u64, buf: &mut [u8; 24]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[i..]
}

#[cfg(test)]
mod tests {
    use crate::io::MemSource;
    use crate::{BuildOptions, Index, LinesRead};

    #[test]
    fn read_lines_into_fits_or_says_how_much() {
        let text = b"one\ntwo\r\nthree\nlast";
        let opts = BuildOptions {
            spacing: 4,
            ..BuildOptions::default()
        };
        let index = Index::build_in_memory(Box::new(MemSource::new(text.to_vec())), &opts).unwrap();
        let mut buf = [0xAAu8; 32];
        // Too small by one: nothing read, the length needed said.
        let r = index.read_lines_into(1..3, &mut buf[..10]).unwrap();
        assert_eq!(
            r,
            LinesRead {
                first_line: 1,
                lines: 2,
                start_offset: 4,
                len: 11,
                read: false
            }
        );
        assert_eq!(buf, [0xAA; 32]);
        let r = index.read_lines_into(1..3, &mut buf[..11]).unwrap();
        assert!(r.read);
        assert_eq!(&buf[..11], b"two\r\nthree\n");
        // Clamped to the end; the last line has no terminator.
        let r = index.read_lines_into(2..100, &mut buf).unwrap();
        assert_eq!((r.lines, r.len, r.read), (2, 10, true));
        assert_eq!(&buf[..10], b"three\nlast");
        // Past the end: zero lines at the end of the source, read.
        let r = index.read_lines_into(7..9, &mut []).unwrap();
        assert_eq!(
            r,
            LinesRead {
                first_line: 4,
                lines: 0,
                start_offset: 19,
                len: 0,
                read: true
            }
        );
    }
}
