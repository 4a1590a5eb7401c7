//! Sequence alignment shared by the line diff of a PRD edit and the
//! criterion-by-criterion comparison that finds a weakened criterion.

/// Index pairs `(i, j)` of a longest common subsequence of `a` and `b`,
/// where `same(a[i], b[j])` says two items match; on a tie the walk keeps
/// `b`'s item and skips `a`'s first. Quadratic in time and memory: callers
/// bound the lengths.
pub fn lcs_pairs<A, B>(a: &[A], b: &[B], same: impl Fn(&A, &B) -> bool) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    let mut table = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            table[i][j] = if same(&a[i], &b[j]) {
                table[i + 1][j + 1] + 1
            } else {
                table[i + 1][j].max(table[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut pairs) = (0, 0, Vec::new());
    while i < n && j < m {
        if same(&a[i], &b[j]) {
            pairs.push((i, j));
            i += 1;
            j += 1;
        } else if table[i + 1][j] >= table[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_follow_a_longest_common_subsequence() {
        let a = ["a", "b", "c", "d"];
        let b = ["a", "x", "c", "d", "e"];
        assert_eq!(lcs_pairs(&a, &b, |x, y| x == y), [(0, 0), (2, 2), (3, 3)]);
        assert!(lcs_pairs(&a, &["z"], |x, y| x == y).is_empty());
        // The match is the caller's: here, case-blind.
        assert_eq!(
            lcs_pairs(&["A"], &["a"], |x: &&str, y: &&str| x
                .eq_ignore_ascii_case(y)),
            [(0, 0)]
        );
    }
}
