//! Versions as written in profiles: `1.30.2`, `v1.43.0`, `v2.9.1`, TKE builds `v1.20.6-tke.12`.
//!
//! Ordering: numeric parts first (missing trailing parts count as 0, so `1.30` == `1.30.0`),
//! then the vendor build number. A version *without* a `-tke.N` suffix sorts **before** the
//! same version with one (`v1.20.6` < `v1.20.6-tke.1`): TKE builds are the upstream release
//! plus TKE's patches, so a fix that shipped in `-tke.N` is not in plain upstream.
//!
//! Anything else (pre-releases like `-rc.1`, other vendor suffixes, junk) is not parsed:
//! `parse_version` returns `None`, which callers treat as an unknown version, never a guess.

use std::cmp::Ordering;
use std::fmt;

#[derive(Clone, Debug, Eq)]
pub struct Version {
    /// Numeric components as written (1 to 4 of them).
    pub parts: Vec<u64>,
    /// `N` of a `-tke.N` suffix.
    pub tke_build: Option<u64>,
}

/// Parse a version; `None` when it is not in one of the understood shapes.
pub fn parse_version(s: &str) -> Option<Version> {
    let s = s.trim();
    let s = s.strip_prefix(['v', 'V']).unwrap_or(s);
    let (core, tke_build) = match s.split_once('-') {
        None => (s, None),
        Some((core, suffix)) => {
            let n = suffix.strip_prefix("tke.")?;
            (core, Some(parse_number(n)?))
        }
    };
    let parts = core
        .split('.')
        .map(parse_number)
        .collect::<Option<Vec<u64>>>()?;
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    Some(Version { parts, tke_build })
}

fn parse_number(s: &str) -> Option<u64> {
    // Only plain digits: `u64::from_str` would also take a leading `+`.
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

impl Version {
    fn part(&self, i: usize) -> u64 {
        self.parts.get(i).copied().unwrap_or(0)
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        let n = self.parts.len().max(other.parts.len());
        (0..n)
            .map(|i| self.part(i).cmp(&other.part(i)))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
            // None < Some(_): a plain release sorts before its TKE builds.
            .then(self.tke_build.cmp(&other.tke_build))
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let core: Vec<String> = self.parts.iter().map(u64::to_string).collect();
        write!(f, "v{}", core.join("."))?;
        if let Some(n) = self.tke_build {
            write!(f, "-tke.{n}")?;
        }
        Ok(())
    }
}

/// `Some(a >= b)` when both parse; `None` (unknown) otherwise.
pub fn at_least(version: &str, minimum: &str) -> Option<bool> {
    Some(parse_version(version)? >= parse_version(minimum)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        parse_version(s).unwrap_or_else(|| panic!("{s} should parse"))
    }

    #[test]
    fn parses_the_documented_shapes() {
        assert_eq!(v("1.30.2").parts, [1, 30, 2]);
        assert_eq!(v("v1.43.0").parts, [1, 43, 0]);
        assert_eq!(v("v2.9.1").parts, [2, 9, 1]);
        let tke = v("v1.20.6-tke.12");
        assert_eq!(tke.parts, [1, 20, 6]);
        assert_eq!(tke.tke_build, Some(12));
        assert_eq!(v(" 1.30 ").parts, [1, 30]);
    }

    #[test]
    fn rejects_what_it_does_not_understand() {
        for bad in [
            "",
            "v",
            "1..2",
            "1.2.x",
            "latest",
            "1.30.2-rc.1",
            "v1.30.1-aliyun.1",
            "v1.20.6-tke.",
            "v1.20.6-tke.x",
            "+1.2",
            "1.2.3.4.5",
        ] {
            assert!(parse_version(bad).is_none(), "{bad:?} should not parse");
        }
    }

    #[test]
    fn numeric_not_lexicographic() {
        assert!(v("1.30.2") > v("1.9.9"));
        assert!(v("v2.9.1") < v("v2.10.0"));
        assert!(v("v1.43.0") > v("v1.42.99"));
    }

    #[test]
    fn prefix_and_trailing_zeros_do_not_matter() {
        assert_eq!(v("v1.30.2"), v("1.30.2"));
        assert_eq!(v("1.30"), v("1.30.0"));
        assert_eq!(v("1.30").cmp(&v("1.30.0")), Ordering::Equal);
    }

    #[test]
    fn tke_builds_compare_numerically() {
        assert!(v("v1.20.6-tke.12") > v("v1.20.6-tke.9"));
        assert!(v("v1.20.6-tke.9") < v("v1.20.6-tke.10"));
        assert_eq!(v("v1.20.6-tke.3"), v("1.20.6-tke.3"));
        // Numeric parts dominate the build number.
        assert!(v("v1.20.7-tke.1") > v("v1.20.6-tke.99"));
        assert!(v("v1.20.7") > v("v1.20.6-tke.99"));
    }

    #[test]
    fn plain_release_sorts_before_its_tke_builds() {
        assert!(v("v1.20.6") < v("v1.20.6-tke.1"));
        assert!(v("v1.20.6-tke.0") > v("v1.20.6"));
    }

    #[test]
    fn at_least_is_unknown_for_unparsable() {
        assert_eq!(at_least("v1.30.2-tke.3", "v1.30.2-tke.3"), Some(true));
        assert_eq!(at_least("v2.9.1", "v2.10.0"), Some(false));
        assert_eq!(at_least("garbage", "v2.10.0"), None);
    }

    #[test]
    fn displays_normalized() {
        assert_eq!(v("1.20.6-tke.12").to_string(), "v1.20.6-tke.12");
    }
}
