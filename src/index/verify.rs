//! Full verification of a sidecar: every page, the tree's shape, and
//! optionally every checkpoint against a re-scan of the source.

use super::Index;
use crate::error::{Error, Result};
use crate::format::PageKind;
use crate::ingest::fingerprint::Verdict;
use crate::ingest::scan::Scanner;
use crate::tree::Checkpoint;

/// What `verify` checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyReport {
    /// Pages whose CRC was checked (superblock included).
    pub pages: u64,
    /// Checkpoints walked in the leaves.
    pub checkpoints: u64,
    /// The source's verdict at open.
    pub verdict: Verdict,
    /// True when the source was re-scanned and every checkpoint compared.
    pub full: bool,
}

pub(super) fn verify(index: &Index, full: bool) -> Result<VerifyReport> {
    let sb = index.superblock();
    let cache = index.cache();
    let path = cache.file().path().to_path_buf();
    let corrupt = |page: u32, what: String| Error::corrupt(&path, page as u64, what);

    // 1. Every page's CRC and header; the leaf sequence in order. Memory
    //    is bounded: one page at a time, one byte per page for its level.
    let mut count = 0u64;
    let mut first: Option<Checkpoint> = None;
    let mut prev: Option<Checkpoint> = None;
    let mut leaves = 0u32;
    let mut levels = vec![0u8; sb.page_count as usize];
    let mut pages_checked = 0u64;
    let gzip = sb.source_kind == crate::format::SOURCE_KIND_GZIP;
    let tree_end = sb.nodes_end();
    // The line tree's pages; a time index follows them (spec §12).
    let line_end = if sb.has_time_index() {
        sb.time_page
    } else {
        tree_end
    };
    for id in 1..line_end {
        let page = cache.read_uncached(id)?;
        let view = page.view();
        levels[id as usize] = view.level;
        if view.kind == PageKind::Leaf {
            if id < sb.first_leaf || id > sb.last_leaf {
                return Err(corrupt(id, "leaf outside the recorded leaf range".into()));
            }
            leaves += 1;
            for (line, offset, _) in view.sorted_entries() {
                let cp = Checkpoint { line, offset };
                if let Some(p) = prev
                    && (cp.line <= p.line || cp.offset <= p.offset)
                {
                    return Err(corrupt(
                        id,
                        format!("checkpoint {cp:?} does not follow {p:?}"),
                    ));
                }
                first.get_or_insert(cp);
                prev = Some(cp);
                count += 1;
            }
        }
    }
    if leaves != sb.leaf_count || count != sb.checkpoint_count {
        return Err(corrupt(
            0,
            "leaf or checkpoint count disagrees with the pages".into(),
        ));
    }
    if first != Some(Checkpoint { line: 0, offset: 0 }) {
        return Err(corrupt(
            sb.first_leaf,
            "first checkpoint is not line 0 at offset 0".into(),
        ));
    }
    if let Some(last) = prev
        && sb.line_count > 0
        && (last.line >= sb.line_count || last.offset >= sb.text_len())
    {
        return Err(corrupt(
            sb.last_leaf,
            "last checkpoint lies past the end".into(),
        ));
    }

    // 2. The tree: each page reached once, levels decreasing by one,
    //    separators equal to the child's first key, leaves in order.
    let mut seen = vec![false; sb.page_count as usize];
    let mut leaf_order = Vec::new();
    let mut stack = vec![(sb.root_page, sb.height - 1, None::<(u64, u64)>)];
    while let Some((id, level, sep)) = stack.pop() {
        if id == 0 || id >= sb.page_count {
            return Err(corrupt(id, "child page out of range".into()));
        }
        if std::mem::replace(&mut seen[id as usize], true) {
            return Err(corrupt(id, "page reached twice in the tree".into()));
        }
        if levels[id as usize] as u32 != level {
            return Err(corrupt(
                id,
                format!("level {} where {level} was expected", levels[id as usize]),
            ));
        }
        let page = cache.read_uncached(id)?;
        let view = page.view();
        let entries = view.sorted_entries();
        if let Some(sep) = sep
            && (entries[0].0, entries[0].1) != sep
        {
            return Err(corrupt(
                id,
                "first key differs from the parent's separator".into(),
            ));
        }
        if view.kind == PageKind::Leaf {
            leaf_order.push(id);
        } else {
            for w in entries.windows(2) {
                if w[1].0 <= w[0].0 || w[1].1 <= w[0].1 {
                    return Err(corrupt(id, "separators out of order".into()));
                }
            }
            for e in entries.iter().rev() {
                stack.push((e.2, level - 1, Some((e.0, e.1))));
            }
        }
    }
    if leaf_order.len() as u32 != sb.leaf_count || leaf_order.windows(2).any(|w| w[0] >= w[1]) {
        return Err(corrupt(
            sb.root_page,
            "the tree does not reach every leaf in order".into(),
        ));
    }

    // 2a. Head-first: the root is page 1 and the children of
    //     the internal pages, taken in page order and each page's in key
    //     order, are pages 2, 3, ... in turn: breadth-first, the leaves
    //     last and contiguous.
    if sb.head_first() {
        let mut next = 2u64;
        for id in 1..sb.first_leaf {
            if levels[id as usize] == 0 {
                return Err(corrupt(id, "a leaf among the internal pages".into()));
            }
            let page = cache.read_uncached(id)?;
            for (_, _, child) in page.view().sorted_entries() {
                if child as u64 != next {
                    return Err(corrupt(
                        id,
                        format!("child page {child} where the head-first layout puts page {next}"),
                    ));
                }
                next += 1;
            }
        }
        if sb.height > 1 && next != sb.last_leaf as u64 + 1 {
            return Err(corrupt(
                sb.root_page,
                "the internal pages do not end where the leaves begin".into(),
            ));
        }
    }

    // 2b. gzip: every access point decodes (CRC of its pages, its window),
    //     in increasing offset, the first at 0.
    if gzip {
        let aps = super::gzip::SidecarAps::new(index.sidecar_file(), sb);
        use crate::gzip::AccessPoints;
        let mut prev: Option<u64> = None;
        for i in 0..aps.count() {
            let ap = aps.get(i)?;
            let ok = match prev {
                None => ap.uncomp == 0,
                Some(p) => ap.uncomp > p,
            };
            if !ok {
                return Err(corrupt(
                    sb.gzip.ap_first_page,
                    format!("access point {i} out of order"),
                ));
            }
            prev = Some(ap.uncomp);
        }
        aps.check_pieces()?;
        pages_checked += (sb.gzip.ap_pages + sb.gzip.blob_pages) as u64;
    }
    // 2c. zstd: every frame record, in order, tiling the text.
    if sb.is_zstd() {
        super::zstd::SidecarFrames::new(index.sidecar_file(), sb).check_all()?;
        pages_checked += sb.gzip.ap_pages as u64;
    }
    let _ = pages_checked;

    // 3. Optionally: re-scan the source and compare, streaming both sides.
    if full {
        rescan(index, &mut |_, _| true)?;
    }

    // 4. The time index's pages, and with `full` its entries against the
    //    source's times.
    if sb.has_time_index() {
        index.verify_time(full)?;
    }
    Ok(VerifyReport {
        pages: sb.page_count as u64,
        checkpoints: count,
        verdict: index.verdict(),
        full,
    })
}

/// Re-scans the source with the checkpoint rule and compares each checkpoint
/// with the leaves, in order, holding one leaf at a time.
pub(super) fn rescan(index: &Index, progress: &mut dyn FnMut(u64, u64) -> bool) -> Result<()> {
    let sb = index.superblock();
    let cache = index.cache();
    let src = index.unguarded_source();
    let size = sb.text_len();
    let mismatch = |what: String| Error::SourceChanged {
        path: src.path().to_path_buf(),
        what,
    };

    let mut leaf_id = sb.first_leaf;
    let mut pending: std::collections::VecDeque<Checkpoint> = Default::default();
    let mut compared = 0u64;
    let mut next_stored =
        |pending: &mut std::collections::VecDeque<Checkpoint>| -> Result<Option<Checkpoint>> {
            while pending.is_empty() && leaf_id <= sb.last_leaf {
                let page = cache.read_uncached(leaf_id)?;
                let view = page.view();
                if view.kind == PageKind::Leaf {
                    pending.extend(
                        view.sorted_entries()
                            .into_iter()
                            .map(|(line, offset, _)| Checkpoint { line, offset }),
                    );
                }
                leaf_id += 1;
            }
            Ok(pending.pop_front())
        };
    let mut check =
        |cp: Checkpoint, pending: &mut std::collections::VecDeque<Checkpoint>| -> Result<()> {
            let stored = next_stored(pending)?;
            if stored != Some(cp) {
                return Err(mismatch(format!(
                    "checkpoint {compared} is {stored:?} in the sidecar but {cp:?} in the source"
                )));
            }
            compared += 1;
            Ok(())
        };

    let start = Checkpoint { line: 0, offset: 0 };
    check(start, &mut pending)?;
    let mut sc = Scanner::resume(start, sb.spacing, size);
    let mut buf = index.take_buffer();
    let mut at = 0u64;
    let mut last = None;
    let mut result = Ok(());
    while at < size && result.is_ok() {
        let n = buf.len().min((size - at) as usize);
        let got = match src.read_full_at(&mut buf[..n], at) {
            Ok(0) => {
                result = Err(mismatch("source shorter than indexed".into()));
                break;
            }
            Ok(g) => g,
            Err(e) => {
                result = Err(e);
                break;
            }
        };
        result = sc.feed(&buf[..got], at, &mut |cp| check(cp, &mut pending));
        last = Some(buf[got - 1]);
        at += got as u64;
        if !progress(at, size) {
            result = Err(Error::Cancelled {
                path: src.path().to_path_buf(),
            });
            break;
        }
    }
    index.give_buffer(buf);
    result?;
    sc.finish(&mut |cp| check(cp, &mut pending))?;
    if let Some(extra) = next_stored(&mut pending)? {
        return Err(mismatch(format!(
            "the sidecar has checkpoint {extra:?} that the source does not"
        )));
    }
    let lines = sc.newlines() + u64::from(size > 0 && last != Some(b'\n'));
    if lines != sb.line_count {
        return Err(mismatch(format!(
            "re-scan counts {}, the sidecar says {}",
            crate::error::count_of(lines, "line", "lines"),
            sb.line_count
        )));
    }
    Ok(())
}
