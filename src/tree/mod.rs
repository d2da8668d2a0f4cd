//! B+tree descent over cached pages: from the root to the checkpoint at or
//! before a target line or byte offset.
//!
//! The search is generic over the [`Column`] (line or offset), so the
//! in-node loop is monomorphised with no dynamic dispatch. Descent is bounded
//! by the stored height and checks every child's level and page number, so a
//! damaged tree (a node pointing to itself, to its parent, out of range)
//! yields [`crate::Error::Corrupt`], never a loop or a panic.

mod flat;

pub(crate) use flat::Flat;

use crate::cache::{Page, PageCache};
use crate::error::{Error, Result};
use crate::format::PageKind;
use crate::format::eytzinger;
use crate::format::node::NodeView;

/// A checkpoint: line `line` (0-based) starts at byte `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Checkpoint {
    /// 0-based line number.
    pub line: u64,
    /// Byte offset of the line's first byte.
    pub offset: u64,
}

/// Which key column a search uses.
pub trait Column {
    /// The stored keys of this column in a node.
    fn keys<'a>(node: &NodeView<'a>) -> &'a [u64];
}

/// Search by line number.
#[derive(Debug)]
pub enum ByLine {}
/// Search by byte offset.
#[derive(Debug)]
pub enum ByOffset {}

impl Column for ByLine {
    #[inline]
    fn keys<'a>(node: &NodeView<'a>) -> &'a [u64] {
        node.lines
    }
}

impl Column for ByOffset {
    #[inline]
    fn keys<'a>(node: &NodeView<'a>) -> &'a [u64] {
        node.offsets
    }
}

/// Where to start a descent.
#[derive(Debug, Clone)]
pub struct Tree {
    /// The root page, pinned (it is touched by every lookup).
    pub root: Page,
    /// Number of levels; 1 = the root is a leaf.
    pub height: u32,
}

enum Step {
    Child(u32),
    Found(Checkpoint),
}

#[inline(always)]
fn step<C: Column>(page: &Page, expect_level: u32, target: u64, cache: &PageCache) -> Result<Step> {
    let view = page.view();
    if view.level as u32 != expect_level {
        return Err(wrong_level(page, expect_level, cache));
    }
    let Some(e) = eytzinger::predecessor(C::keys(&view), target) else {
        return Err(no_key(page, target, cache));
    };
    if view.kind == PageKind::Leaf {
        Ok(Step::Found(Checkpoint {
            line: u64::from_le(view.lines[e]),
            offset: u64::from_le(view.offsets[e]),
        }))
    } else {
        Ok(Step::Child(u32::from_le(view.children[e])))
    }
}

#[cold]
fn wrong_level(page: &Page, expect_level: u32, cache: &PageCache) -> Error {
    Error::corrupt(
        cache.file().path(),
        page.id() as u64,
        format!(
            "node at level {} where level {expect_level} was expected",
            page.view().level
        ),
    )
}

#[cold]
fn no_key(page: &Page, target: u64, cache: &PageCache) -> Error {
    Error::corrupt(
        cache.file().path(),
        page.id() as u64,
        format!("no key <= {target} (the parent's separator promised one)"),
    )
}

impl Tree {
    /// The checkpoint with the largest key `<= target` in column `C`.
    #[inline]
    pub fn find<C: Column>(&self, cache: &PageCache, target: u64) -> Result<Checkpoint> {
        let mut level = self.height - 1;
        let mut next = step::<C>(&self.root, level, target, cache)?;
        loop {
            match next {
                Step::Found(cp) => return Ok(cp),
                Step::Child(id) => {
                    // level > 0 here: only leaves (level 0) return Found.
                    level -= 1;
                    next = cache.with_page(id, |p| step::<C>(p, level, target, cache))??;
                }
            }
        }
    }
}
