//! Eytzinger (BFS) order for the keys inside a node, and its branch-free
//! predecessor search.
//!
//! A sorted array `s[0..n]` is stored as the breadth-first layout of the
//! implicit binary search tree whose in-order walk is `s`: logical node `k`
//! (1-based) has children `2k` and `2k+1`; the stored array is 0-based, so
//! logical node `k` lives at index `k-1`. The search walks
//! `k = 2k + (key[k] <= t)` to the bottom and recovers the last node where it
//! turned right, which is the largest key `<= t`. Spec: `format-spec`, §4.3.

/// Fills `order` so that `order[e]` is the sorted rank stored at Eytzinger
/// index `e`, for `n = order.len()` elements.
pub fn permutation(order: &mut [usize]) {
    fn walk(order: &mut [usize], k: usize, rank: &mut usize) {
        if k > order.len() {
            return;
        }
        walk(order, 2 * k, rank);
        order[k - 1] = *rank;
        *rank += 1;
        walk(order, 2 * k + 1, rank);
    }
    let mut rank = 0;
    walk(order, 1, &mut rank);
}

/// Rearranges sorted `src` into Eytzinger order in `dst` (same length).
pub fn layout<T: Copy>(src: &[T], dst: &mut [T]) {
    assert_eq!(src.len(), dst.len());
    fn walk<T: Copy>(src: &[T], dst: &mut [T], k: usize, rank: &mut usize) {
        if k > dst.len() {
            return;
        }
        walk(src, dst, 2 * k, rank);
        dst[k - 1] = src[*rank];
        *rank += 1;
        walk(src, dst, 2 * k + 1, rank);
    }
    let mut rank = 0;
    walk(src, dst, 1, &mut rank);
}

/// Index (into the stored array) of the largest key `<= target`, or `None`
/// when every key is greater. Keys are little-endian `u64` words as stored.
#[inline]
pub fn predecessor(keys: &[u64], target: u64) -> Option<usize> {
    let n = keys.len();
    if n == 0 {
        return None;
    }
    // A fixed number of steps for a given `n`, so the loop's exit is
    // predicted: one per complete level, then, if the last level is only
    // partly filled, one more in which a missing node is a left turn
    // (which the stripping below removes).
    let complete = usize::BITS - 1 - (n + 1).leading_zeros();
    let mut k = 1usize;
    for _ in 0..complete {
        k = 2 * k + (u64::from_le(keys[k - 1]) <= target) as usize;
    }
    if (n + 1) & n != 0 {
        let inside = k <= n;
        let key = u64::from_le(keys[if inside { k - 1 } else { 0 }]);
        k = 2 * k + (inside & (key <= target)) as usize;
    }
    // Strip the trailing left turns and the final right turn.
    let j = k >> (k.trailing_zeros() + 1);
    j.checked_sub(1)
}

/// Index of the in-order successor of stored index `e` (the next larger
/// key), or `None` if `e` holds the largest key.
pub fn successor(n: usize, e: usize) -> Option<usize> {
    let mut k = e + 1;
    if 2 * k < n {
        // Leftmost node of the right subtree.
        k = 2 * k + 1;
        while 2 * k <= n {
            k *= 2;
        }
        Some(k - 1)
    } else {
        // Climb while we are a right child; the parent of the first left
        // child on the way up is the successor.
        while k & 1 == 1 {
            k >>= 1;
        }
        k >>= 1;
        k.checked_sub(1)
    }
}

/// Nodes in the subtree of logical node `k` (1-based) of an implicit
/// tree of `n` nodes, counted level by level.
fn subtree_size(n: usize, k: usize) -> usize {
    let (mut lo, mut hi, mut s) = (k, k, 0);
    while lo <= n {
        s += hi.min(n) - lo + 1;
        lo *= 2;
        hi = 2 * hi + 1;
    }
    s
}

/// Sorted rank of the key at stored index `e`, for `n` keys: the inverse
/// of [`permutation`], in O(log² n) without a table.
pub fn rank(n: usize, e: usize) -> usize {
    let size = |k| subtree_size(n, k);
    let mut k = e + 1;
    let mut r = size(2 * k);
    while k > 1 {
        if k & 1 == 1 {
            // A right child: its parent and the parent's left subtree
            // come first.
            r += size(k - 1) + 1;
        }
        k /= 2;
    }
    r
}

/// The stored index of the key of sorted rank `r` among `n` (`r < n`):
/// the inverse of [`rank`].
pub fn stored_index(n: usize, r: usize) -> usize {
    // Walk down the implicit tree comparing ranks: O(log n).
    let size = |k| subtree_size(n, k);
    let mut k = 1;
    let mut r = r;
    loop {
        let left = size(2 * k);
        match r.cmp(&left) {
            std::cmp::Ordering::Less => k *= 2,
            std::cmp::Ordering::Equal => return k - 1,
            std::cmp::Ordering::Greater => {
                r -= left + 1;
                k = 2 * k + 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(sorted: &[u64]) -> Vec<u64> {
        let mut out = vec![0; sorted.len()];
        layout(sorted, &mut out);
        out.iter().map(|v| v.to_le()).collect()
    }

    #[test]
    fn rank_inverts_the_permutation() {
        for n in 1..300usize {
            let mut p = vec![0; n];
            permutation(&mut p);
            for (e, &r) in p.iter().enumerate() {
                assert_eq!(rank(n, e), r, "n={n} e={e}");
                assert_eq!(stored_index(n, r), e, "n={n} r={r}");
            }
        }
    }

    #[test]
    fn seven_keys_worked_example() {
        // The example of format-spec §4.3.
        let s = [10, 20, 30, 40, 50, 60, 70];
        let e: Vec<u64> = stored(&s).into_iter().map(u64::from_le).collect();
        assert_eq!(e, [40, 20, 60, 10, 30, 50, 70]);
        let mut p = [0; 7];
        permutation(&mut p);
        assert_eq!(p, [3, 1, 5, 0, 2, 4, 6]);
    }

    #[test]
    fn predecessor_matches_partition_point() {
        for n in 0..260usize {
            let sorted: Vec<u64> = (0..n as u64).map(|i| 3 * i + 5).collect();
            let e = stored(&sorted);
            for t in 0..(3 * n as u64 + 10) {
                let want = sorted.partition_point(|&k| k <= t).checked_sub(1);
                let got = predecessor(&e, t).map(|i| u64::from_le(e[i]));
                assert_eq!(got, want.map(|r| sorted[r]), "n={n} t={t}");
            }
        }
    }

    #[test]
    fn successor_walks_in_order() {
        for n in 1..70usize {
            let sorted: Vec<u64> = (0..n as u64).collect();
            let e = stored(&sorted);
            let mut at = predecessor(&e, 0).unwrap();
            for want in 1..n as u64 {
                at = successor(n, at).unwrap();
                assert_eq!(u64::from_le(e[at]), want);
            }
            assert_eq!(successor(n, at), None);
        }
    }
}
