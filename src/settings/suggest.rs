//! "Did you mean" suggestions, shared by the settings files, rule ids and config keys.

/// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions, each
/// substring edited once), over chars.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

/// The closest candidate to `input`, if it is close enough to be a plausible typo.
///
/// Comparison ignores ASCII case (so `IPVS` suggests `ipvs`); ties go to the earlier
/// candidate, so callers list the most common spelling first.
pub(crate) fn did_you_mean<'c, S: AsRef<str>>(input: &str, candidates: &'c [S]) -> Option<&'c str> {
    let needle = input.to_ascii_lowercase();
    // Short words get one edit; longer ones up to a third of their length, capped at 3,
    // so `mod` → `mode` is offered but unrelated short words are not.
    let limit = (needle.chars().count().div_ceil(3)).clamp(1, 3);
    candidates
        .iter()
        .map(|c| c.as_ref())
        .filter(|c| *c != input)
        .map(|c| (edit_distance(&needle, &c.to_ascii_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// `` did you mean `b`? expected one of `a`, `b` or `c` ``: the help for a name that is none
/// of `expected`.
pub(crate) fn one_of_help(suggestion: Option<&str>, expected: &[&str]) -> String {
    let one_of = format!("expected one of {}", list(expected));
    match suggestion {
        Some(s) => format!("did you mean `{s}`? {one_of}"),
        None => one_of,
    }
}

/// `` `a`, `b` or `c` `` for help texts.
pub(crate) fn list<S: AsRef<str>>(items: &[S]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("`{}`", s.as_ref())).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("mod", "mode"), 1);
        assert_eq!(edit_distance("ipvss", "ipvs"), 1);
        assert_eq!(
            edit_distance("ipsv", "ipvs"),
            1,
            "transposition counts once"
        );
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(
            edit_distance("ümlaut", "umlaut"),
            1,
            "counts chars, not bytes"
        );
    }

    #[test]
    fn suggestions() {
        let modes = ["iptables", "ipvs", "nftables", "ebpf"];
        assert_eq!(did_you_mean("ipvss", &modes), Some("ipvs"));
        assert_eq!(did_you_mean("IPVS", &modes), Some("ipvs"));
        assert_eq!(did_you_mean("iptable", &modes), Some("iptables"));
        assert_eq!(did_you_mean("userspace", &modes), None);
        assert_eq!(did_you_mean("mod", &["mode", "version"]), Some("mode"));
        assert_eq!(did_you_mean("x", &["mode"]), None);
        let none: [&str; 0] = [];
        assert_eq!(did_you_mean("mode", &none), None);
    }

    #[test]
    fn lists() {
        assert_eq!(list(&["a"]), "`a`");
        assert_eq!(list(&["a", "b", "c"]), "`a`, `b` or `c`");
        let none: [&str; 0] = [];
        assert_eq!(list(&none), "");
    }
}
