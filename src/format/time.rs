//! The time index's header page (kind 5, spec §12): where the time tree
//! lies, how many spans it describes, and how the lines' stamps are read.
//!
//! The time tree itself is made of ordinary node pages (§4) whose two
//! columns hold, for span `k` (the lines from checkpoint `k` to checkpoint
//! `k + 1`), the running maximum of the spans' latest times up to `k` and
//! the running minimum of their earliest times from `k` on, both as
//! [`crate::time::digest`] keys: both columns only grow, so either can be
//! searched.

use super::{PAGE_HEADER_LEN, PageKind, gzip::check_page, gzip::encode_page};

/// Longest time format name stored (a strftime format is part of it).
pub const TIME_FORMAT_MAX: usize = 200;
/// Longest time zone name stored.
pub const TIME_ZONE_MAX: usize = 100;

/// The decoded time header (spec §12, Table 25).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeHeader {
    /// Page number of the time tree's root.
    pub root_page: u32,
    /// Levels of the time tree (1: the root is a leaf).
    pub height: u32,
    /// Leaf pages of the time tree.
    pub leaf_count: u32,
    /// First leaf page; the leaves are `first_leaf..=last_leaf`, in order.
    pub first_leaf: u32,
    /// Last leaf page.
    pub last_leaf: u32,
    /// Entries (spans): the sidecar's checkpoint count.
    pub entries: u64,
    /// syslog stamps: the year of the first stamped line.
    pub syslog_year: i32,
    /// The stamp format's name (`iso8601`, `syslog`, `clf`, `epoch-s`,
    /// `epoch-ms`, `strftime:FORMAT`).
    pub format: String,
    /// The time zone of stamps without one.
    pub tz: String,
    /// The year table: `(span, year)` in increasing span order, one where
    /// the wall-clock year of the stamp in effect at a span's start differs
    /// from the entry before (the year a syslog stamp is read in).
    pub years: Vec<(u64, i32)>,
}

/// Bytes of the header body before the names.
const FIXED: usize = 48;
/// Bytes of a year-table entry.
const YEAR_ENTRY: usize = 12;

/// Year-table entries that fit in a header page with names of these
/// lengths.
pub fn year_capacity(page_size: u32, format_len: usize, tz_len: usize) -> usize {
    (page_size as usize - PAGE_HEADER_LEN - FIXED - format_len - tz_len) / YEAR_ENTRY
}

impl TimeHeader {
    /// Encodes into `page` as page `page_id`, sealed; fails when a name is
    /// too long or the year table does not fit.
    pub fn encode(&self, page: &mut [u8], page_id: u32) -> Result<(), String> {
        let (f, z) = (self.format.as_bytes(), self.tz.as_bytes());
        if f.is_empty() || f.len() > TIME_FORMAT_MAX || z.is_empty() || z.len() > TIME_ZONE_MAX {
            return Err(format!(
                "time format and zone names must be 1 to {TIME_FORMAT_MAX} and 1 to {TIME_ZONE_MAX} bytes"
            ));
        }
        let cap = year_capacity(page.len() as u32, f.len(), z.len());
        if self.years.len() > cap {
            return Err(format!(
                "the year of the stamps changes {} times at span starts; a header page holds {cap}",
                self.years.len()
            ));
        }
        let mut body = Vec::with_capacity(FIXED + f.len() + z.len() + YEAR_ENTRY * cap);
        for v in [
            self.root_page,
            self.height,
            self.leaf_count,
            self.first_leaf,
            self.last_leaf,
        ] {
            body.extend_from_slice(&v.to_le_bytes());
        }
        body.extend_from_slice(&(self.years.len() as u32).to_le_bytes());
        body.extend_from_slice(&self.entries.to_le_bytes());
        body.extend_from_slice(&[0; 8]);
        body.extend_from_slice(&self.syslog_year.to_le_bytes());
        body.push(f.len() as u8);
        body.push(z.len() as u8);
        body.extend_from_slice(&[0, 0]);
        body.extend_from_slice(f);
        body.extend_from_slice(z);
        for &(k, y) in &self.years {
            body.extend_from_slice(&k.to_le_bytes());
            body.extend_from_slice(&y.to_le_bytes());
        }
        encode_page(page, PageKind::TimeHeader, page_id, 1, &body);
        Ok(())
    }

    /// Decodes page `page_id` (its CRC already checked); describes the
    /// damage when a field is impossible.
    pub fn decode(page: &[u8], page_id: u32) -> Result<TimeHeader, String> {
        check_page(page, PageKind::TimeHeader, page_id, 1)?;
        let b = &page[PAGE_HEADER_LEN..];
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        let (fl, zl) = (b[44] as usize, b[45] as usize);
        if fl == 0 || fl > TIME_FORMAT_MAX || zl == 0 || zl > TIME_ZONE_MAX {
            return Err("time format or zone name of impossible length".into());
        }
        let n = u32_at(20) as usize;
        if n > year_capacity(page.len() as u32, fl, zl) {
            return Err(format!("year table of {n} entries does not fit the page"));
        }
        let text = |r: std::ops::Range<usize>| {
            std::str::from_utf8(&b[FIXED + r.start..FIXED + r.end])
                .map(str::to_string)
                .map_err(|_| "time format or zone name is not UTF-8".to_string())
        };
        let t = FIXED + fl + zl;
        let years: Vec<(u64, i32)> = (0..n)
            .map(|i| {
                let o = t + i * YEAR_ENTRY;
                (u64_at(o), u32_at(o + 8) as i32)
            })
            .collect();
        if years.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err("year table out of order".into());
        }
        Ok(TimeHeader {
            root_page: u32_at(0),
            height: u32_at(4),
            leaf_count: u32_at(8),
            first_leaf: u32_at(12),
            last_leaf: u32_at(16),
            entries: u64_at(24),
            syslog_year: u32_at(40) as i32,
            format: text(0..fl)?,
            tz: text(fl..fl + zl)?,
            years,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let h = TimeHeader {
            root_page: 7,
            height: 2,
            leaf_count: 3,
            first_leaf: 8,
            last_leaf: 10,
            entries: 700,
            syslog_year: -1,
            format: "strftime:%d.%m.%Y %H:%M:%S".into(),
            tz: "Europe/Paris".into(),
            years: vec![(3, 2025), (600, 2026)],
        };
        let mut p = vec![0u8; 512];
        h.encode(&mut p, 6).unwrap();
        assert_eq!(TimeHeader::decode(&p, 6), Ok(h));
        assert!(TimeHeader::decode(&p, 5).is_err());
    }
}
