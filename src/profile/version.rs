//! Versions as written in profiles and as clusters report them: `1.30.2`, `v1.43.0`, TKE
//! builds `v1.20.6-tke.12`, and other vendors' builds (`v1.24.6+k3s1`, `v1.30.2-eks-a1b2c3d`,
//! `1.30.5-gke.1014001`, `v1.27.3-aliyun.1`, `v1.29.1+rke2r1`).
//!
//! Ordering: numeric parts first (missing trailing parts count as 0, so `1.30` == `1.30.0`),
//! then the suffix. A vendor build sorts **after** the same release without one
//! (`v1.20.6` < `v1.20.6-tke.1`): a vendor build is the upstream release plus the vendor's
//! patches, so a fix that shipped in `-tke.N` is not in plain upstream, and a fix that
//! shipped upstream is in every build of that release. Builds of one vendor compare by their
//! build number. A pre-release (`-alpha.1`, `-beta.0`, `-rc.2`) sorts before its release.
//!
//! A string without at least `major.minor` is not parsed: `parse_version` returns `None`,
//! which callers treat as an unknown version (and the profile check reports), never a guess.

use std::cmp::Ordering;
use std::fmt;

#[derive(Clone, Debug, Eq)]
pub(crate) struct Version {
    /// Numeric components as written (2 to 4 of them).
    pub parts: Vec<u64>,
    suffix: Suffix,
}

/// What follows the numeric parts, in sort order: pre-release, none, vendor build.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Suffix {
    /// `-rc.1`, `-beta.0`, `-alpha.2`: as written after the `-`.
    PreRelease(String),
    None,
    /// `-tke.12`, `+k3s1`, `-eks-a1b2c3d`: the vendor's name (the suffix up to its trailing
    /// digits), then the trailing build number if there is one. `mark` is the `-` or `+`
    /// it was written with, for display only.
    Build {
        vendor: String,
        number: Option<u64>,
        mark: char,
    },
}

/// Parse a version; `None` when it lacks `major.minor` or is not a version at all.
pub(crate) fn parse_version(s: &str) -> Option<Version> {
    let s = s.trim();
    let s = s.strip_prefix(['v', 'V']).unwrap_or(s);
    let (core, suffix) = match s.find(['-', '+']) {
        None => (s, Suffix::None),
        Some(at) => (
            &s[..at],
            parse_suffix(s[at..].chars().next()?, &s[at + 1..])?,
        ),
    };
    let parts = core
        .split('.')
        .map(parse_number)
        .collect::<Option<Vec<u64>>>()?;
    if !(2..=4).contains(&parts.len()) {
        return None;
    }
    Some(Version { parts, suffix })
}

fn parse_suffix(mark: char, text: &str) -> Option<Suffix> {
    let well_formed = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+' | b'_'))
        && text.as_bytes()[0].is_ascii_alphanumeric()
        && !text.ends_with(['.', '-', '+', '_']);
    if !well_formed {
        return None;
    }
    let lower = text.to_ascii_lowercase();
    if mark == '-' && ["alpha", "beta", "rc"].iter().any(|p| lower.starts_with(p)) {
        return Some(Suffix::PreRelease(lower));
    }
    let digits = text.len() - text.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (vendor, number) = text.split_at(text.len() - digits);
    Some(Suffix::Build {
        vendor: vendor.to_ascii_lowercase(),
        number: if digits == 0 {
            None
        } else {
            number.parse().ok()
        },
        mark,
    })
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
            .then_with(|| self.suffix.cmp(&other.suffix))
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
        match &self.suffix {
            Suffix::None => Ok(()),
            Suffix::PreRelease(text) => write!(f, "-{text}"),
            Suffix::Build {
                vendor,
                number,
                mark,
            } => {
                write!(f, "{mark}{vendor}")?;
                number.map_or(Ok(()), |n| write!(f, "{n}"))
            }
        }
    }
}

/// `Some(a >= b)` when both parse; `None` (unknown) otherwise.
pub(crate) fn at_least(version: &str, minimum: &str) -> Option<bool> {
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
        assert!(tke > v("1.20.6"));
        assert_eq!(v(" 1.30 ").parts, [1, 30]);
    }

    /// Versions as `kubectl version` and the nodes report them on each platform.
    #[test]
    fn parses_vendor_builds_and_compares_them_on_the_release() {
        for (reported, release) in [
            ("v1.24.6+k3s1", "1.24.6"),
            ("v1.30.2-eks-a1b2c3d", "1.30.2"),
            ("1.30.5-gke.1014001", "1.30.5"),
            ("v1.28.3-tke.5", "1.28.3"),
            ("v1.27.3-aliyun.1", "1.27.3"),
            ("v1.29.1+rke2r1", "1.29.1"),
            ("V1.31.0-eksbuild.1", "1.31.0"),
        ] {
            let version = v(reported);
            assert_eq!(version.parts, v(release).parts, "{reported}");
            // The vendor's build of a release has every upstream fix of that release ...
            assert!(version >= v(release), "{reported}");
            // ... and none of the next patch release.
            let next = format!("1.{}.{}", version.parts[1], version.parts[2] + 1);
            assert!(version < v(&next), "{reported} < {next}");
            assert_eq!(at_least(reported, "1.30"), Some(version.parts[1] >= 30));
        }
        assert!(v("1.30.5-gke.1014001") > v("1.30.5-gke.999"));
        assert_eq!(v("v1.24.6+k3s1").to_string(), "v1.24.6+k3s1");
    }

    #[test]
    fn pre_releases_sort_before_their_release() {
        assert!(v("1.30.0-rc.1") < v("1.30.0"));
        assert!(v("1.30.0-rc.1") > v("1.29.9"));
        assert!(v("1.30.0-alpha.2") < v("1.30.0-beta.0"));
    }

    #[test]
    fn rejects_what_it_does_not_understand() {
        for bad in [
            "",
            "v",
            "1..2",
            "1.2.x",
            "latest",
            "1",
            "v2",
            "1.30-",
            "v1.20.6-tke.",
            "v1.20.6+",
            "1.30.2 -tke.1",
            "1.30.2-$",
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
