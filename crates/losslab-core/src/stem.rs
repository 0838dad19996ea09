//! File names made from flow names: the pcaps (losslab-sim) and the
//! pictures (losslab-viz, `losslab plot` of a sweep) name their files
//! after flows, and must agree on the name and never give two flows the
//! same file. It lives here, the one crate both depend on, although the
//! engine itself never names a file.

use std::collections::HashSet;

/// A stem longer than this is cut: a file name has at most 255 bytes on
/// the common file systems (ext4, APFS, NTFS), and the stem still gets a
/// prefix (`cwnd-`, `sweep-`), a clash suffix and an extension
/// (`.receiver.pcap`).
pub const MAX_STEM: usize = 100;

/// `name` as a file name: ASCII letters, digits and `_-.` are kept, every
/// other character becomes `_`; an empty name or one that starts with a
/// dot (hidden, or `..`) gets `flow` in front; cut at [`MAX_STEM`]. Two
/// names can give the same result: use [`file_stems`] for a set of flows.
pub fn file_safe(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        s.insert_str(0, "flow");
    }
    // Only ASCII is left, so every byte index is a character boundary.
    s.truncate(MAX_STEM);
    s
}

/// One file stem per name, all different, also when compared without
/// regard to case (macOS and Windows file systems fold case by default,
/// so `A` and `a` would be one file there), and the same for the same
/// list of names.
///
/// A name that is already file-safe keeps itself, so that the flow named
/// `a_` is in `a_.sender.pcap` even when an earlier flow `a/` would also
/// become `a_`. The others keep their [`file_safe`] form when no other
/// flow has it, else get `-<index>` added (index in `names`), and
/// `-<index>-2`, `-<index>-3`, ... while that too is taken: a suffix
/// can itself equal another flow's name (`a_-2`), which is why every
/// candidate is checked against all stems given so far.
pub fn file_stems<S: AsRef<str>>(names: &[S]) -> Vec<String> {
    let bases: Vec<String> = names.iter().map(|n| file_safe(n.as_ref())).collect();
    let mut taken: HashSet<String> = HashSet::with_capacity(names.len());
    let mut stems: Vec<Option<String>> = vec![None; names.len()];
    // First the names that need no change, then the others, in order.
    for exact in [true, false] {
        for (i, base) in bases.iter().enumerate() {
            if (base == names[i].as_ref()) == exact && taken.insert(base.to_ascii_lowercase()) {
                stems[i] = Some(base.clone());
            }
        }
    }
    for (i, base) in bases.iter().enumerate() {
        if stems[i].is_some() {
            continue;
        }
        let mut k = 1u64;
        let stem = loop {
            let s = if k == 1 {
                format!("{base}-{i}")
            } else {
                format!("{base}-{i}-{k}")
            };
            // The set is finite, so some k is free.
            if taken.insert(s.to_ascii_lowercase()) {
                break s;
            }
            k += 1;
        };
        stems[i] = Some(stem);
    }
    stems.into_iter().map(Option::unwrap_or_default).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn clashing_names_get_distinct_stems() {
        // The parser accepts all three; `a/` and `a_` both become `a_`,
        // and `a_` plus its index (2) would be `a_-2`, flow 0's name.
        assert_eq!(file_stems(&["a_-2", "a_", "a/"]), ["a_-2", "a_", "a_-2-2"]);
        // The file-safe name keeps itself, whichever comes first.
        assert_eq!(file_stems(&["a/", "a_"]), ["a_-0", "a_"]);
        assert_eq!(
            file_stems(&["a b", "a/b", "a_b"]),
            ["a_b-0", "a_b-1", "a_b"]
        );
        // Case-folding file systems.
        assert_eq!(file_stems(&["A", "a"]), ["A", "a-1"]);
        assert_eq!(file_stems(&["x.1", "x.2"]), ["x.1", "x.2"]);
        assert_eq!(file_stems(&["", ".", ".."]), ["flow", "flow.", "flow.."]);
        assert_eq!(file_stems(&["débit"]), ["d_bit"]);
        let long = "x".repeat(300);
        let s = file_stems(&[long.clone(), long.clone() + "y"]);
        assert_eq!(s[0].len(), MAX_STEM);
        assert_eq!(s[1], format!("{}-1", "x".repeat(MAX_STEM)));
        assert!(file_stems::<&str>(&[]).is_empty());
    }

    proptest! {
        #[test]
        fn stems_are_safe_distinct_and_stable(
            names in proptest::collection::vec("[a_/A.é-]{0,4}[-0-9]{0,2}", 0..12)
        ) {
            let stems = file_stems(&names);
            prop_assert_eq!(&stems, &file_stems(&names));
            prop_assert_eq!(stems.len(), names.len());
            let folded: HashSet<String> = stems.iter().map(|s| s.to_ascii_lowercase()).collect();
            prop_assert_eq!(folded.len(), stems.len(), "{:?} -> {:?}", names, stems);
            for s in &stems {
                prop_assert!(!s.is_empty() && !s.starts_with('.'));
                prop_assert!(s.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c)));
            }
        }
    }
}
