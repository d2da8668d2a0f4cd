//! The CRCs of a gzip build's spans and of their pieces (spec §11.9).
//!
//! A span longer than one piece (`2^shift` bytes of text) is cut into
//! pieces from its start, and each piece's CRC-32 takes the next slot of
//! the piece array; a reader then checks what it decodes piece by piece
//! and stops at the piece that ends its answer, instead of decoding the
//! whole span. The text is hashed once: a span's CRC is its pieces' CRCs
//! combined.

use super::spill::Spill;
use crate::error::{Error, Result};

/// Streams the text of consecutive spans; keeps each span's CRC and the
/// piece array (in a [`Spill`], 4 bytes per slot).
pub(crate) struct Pieces {
    /// log2 of the piece length; `None`: no pieces, span CRCs only.
    shift: Option<u8>,
    /// The piece array so far, `u32` little-endian per slot.
    pub(crate) out: Spill,
    /// Slots written (`out.len / 4`).
    pub(crate) slots: u64,
    /// A span is open (text fed since its start).
    open: bool,
    /// CRCs of the open span's completed pieces.
    done: Vec<u32>,
    /// The open span's CRC so far (completed pieces combined).
    span: crc32fast::Hasher,
    /// The piece being hashed.
    piece: crc32fast::Hasher,
    /// Bytes in it.
    fill: u64,
}

impl Pieces {
    /// Pieces of `2^shift` bytes (`None`: span CRCs only), after the
    /// `slots` slots already in `out`.
    pub(crate) fn new(shift: Option<u8>, out: Spill, slots: u64) -> Pieces {
        Pieces {
            shift,
            out,
            slots,
            open: false,
            done: Vec::new(),
            span: crc32fast::Hasher::new(),
            piece: crc32fast::Hasher::new(),
            fill: 0,
        }
    }

    /// Ends the open span, if any, and opens the next one. Returns the
    /// CRC of the span ended (`None` when none was open).
    pub(crate) fn next_span(&mut self) -> Result<Option<u32>> {
        let crc = self.close()?;
        self.open = true;
        Ok(crc)
    }

    /// The slot the open span's first piece takes (its record's
    /// `first_piece`).
    pub(crate) fn first_slot(&self) -> Result<u32> {
        u32::try_from(self.slots).map_err(|_| {
            Error::InvalidArgument("more than 2^32 piece CRCs: use a longer --span".into())
        })
    }

    /// Hashes the next bytes of the open span.
    pub(crate) fn feed(&mut self, mut d: &[u8]) {
        let Some(shift) = self.shift else {
            self.span.update(d);
            return;
        };
        let len = 1u64 << shift;
        while !d.is_empty() {
            let take = ((len - self.fill) as usize).min(d.len());
            self.piece.update(&d[..take]);
            self.fill += take as u64;
            d = &d[take..];
            if self.fill == len {
                let h = std::mem::replace(&mut self.piece, crc32fast::Hasher::new());
                let crc = h.finalize();
                self.span
                    .combine(&crc32fast::Hasher::new_with_initial_len(crc, len));
                self.done.push(crc);
                self.fill = 0;
            }
        }
    }

    /// Ends the open span: its pieces take their slots when there are more
    /// than one. Returns its CRC.
    pub(crate) fn close(&mut self) -> Result<Option<u32>> {
        if !std::mem::replace(&mut self.open, false) {
            return Ok(None);
        }
        let mut done = std::mem::take(&mut self.done);
        let piece = std::mem::replace(&mut self.piece, crc32fast::Hasher::new());
        if self.fill > 0 {
            let crc = piece.finalize();
            self.span
                .combine(&crc32fast::Hasher::new_with_initial_len(crc, self.fill));
            done.push(crc);
        }
        self.fill = 0;
        if done.len() > 1 {
            let bytes: Vec<u8> = done.iter().flat_map(|c| c.to_le_bytes()).collect();
            self.out.append(&bytes)?;
            self.slots += done.len() as u64;
        }
        done.clear();
        self.done = done;
        let span = std::mem::replace(&mut self.span, crc32fast::Hasher::new());
        Ok(Some(span.finalize()))
    }

    /// Drops the slots from `slot` on and reopens a span there (a
    /// tolerant build recomputing its last span up to the damage).
    pub(crate) fn reopen_at(&mut self, slot: u64) -> Result<()> {
        self.out.truncate(slot * 4)?;
        self.slots = slot;
        self.done.clear();
        self.span = crc32fast::Hasher::new();
        self.piece = crc32fast::Hasher::new();
        self.fill = 0;
        self.open = true;
        Ok(())
    }
}

/// The CRC of one span's `text` and, when `piece` is given and the text
/// is longer, the CRCs of its pieces: the text hashed once, the
/// span's CRC combined from its pieces'.
pub(crate) fn crcs_of(text: &[u8], piece: Option<usize>) -> (u32, Vec<u32>) {
    match piece {
        Some(l) if text.len() > l => {
            let mut span = crc32fast::Hasher::new();
            let pieces = text
                .chunks(l)
                .map(|t| {
                    let crc = crc32fast::hash(t);
                    span.combine(&crc32fast::Hasher::new_with_initial_len(
                        crc,
                        t.len() as u64,
                    ));
                    crc
                })
                .collect();
            (span.finalize(), pieces)
        }
        _ => (crc32fast::hash(text), Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spans of various lengths against CRCs computed directly.
    #[test]
    fn pieces_and_spans_match_direct_crcs() {
        let text: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let cuts = [0usize, 100, 612, 1124, 1125, 5000, 5512, 10_000];
        let mut p = Pieces::new(Some(9), Spill::new(), 0);
        let mut firsts = Vec::new();
        let mut spans = Vec::new();
        for w in cuts.windows(2) {
            if let Some(c) = p.next_span().unwrap() {
                spans.push(c);
            }
            firsts.push(p.first_slot().unwrap());
            // Fed in uneven bites.
            for chunk in text[w[0]..w[1]].chunks(77) {
                p.feed(chunk);
            }
        }
        spans.push(p.close().unwrap().unwrap());
        let mut want_slots = Vec::new();
        for (k, w) in cuts.windows(2).enumerate() {
            let span = &text[w[0]..w[1]];
            assert_eq!(spans[k], crc32fast::hash(span), "span {k}");
            assert_eq!(
                firsts[k] as usize,
                want_slots.len(),
                "first slot of span {k}"
            );
            if span.len() > 512 {
                want_slots.extend(span.chunks(512).map(crc32fast::hash));
            }
        }
        assert_eq!(p.slots as usize, want_slots.len());
        let mut got = vec![0u8; want_slots.len() * 4];
        p.out.read_at(&mut got, 0).unwrap();
        let got: Vec<u32> = got
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, want_slots);
    }

    /// One span's CRCs at once, against direct hashing.
    #[test]
    fn crcs_of_a_span() {
        let text: Vec<u8> = (0..2000u32).map(|i| (i * 13 % 251) as u8).collect();
        assert_eq!(crcs_of(&text, None), (crc32fast::hash(&text), vec![]));
        assert_eq!(crcs_of(&text, Some(2000)), (crc32fast::hash(&text), vec![]));
        let (crc, pieces) = crcs_of(&text, Some(512));
        assert_eq!(crc, crc32fast::hash(&text));
        assert_eq!(
            pieces,
            text.chunks(512).map(crc32fast::hash).collect::<Vec<_>>()
        );
    }
}
