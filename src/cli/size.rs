//! `--max-file-size` values: plain bytes or a number with a unit. SI units are powers of
//! 1000 and IEC units powers of 1024, as their standards (and `ls --si`, `du -h`) define
//! them; a bare `K`/`M`/`G` is refused because it means either.

/// Units, lower-cased, and their factors.
const UNITS: [(&str, u64); 9] = [
    ("b", 1),
    ("kb", 1000),
    ("mb", 1000 * 1000),
    ("gb", 1000 * 1000 * 1000),
    ("tb", 1000 * 1000 * 1000 * 1000),
    ("kib", 1 << 10),
    ("mib", 1 << 20),
    ("gib", 1 << 30),
    ("tib", 1 << 40),
];

/// The largest file lblint reads: positions are kept as 32-bit offsets (a line index of a
/// million lines is then 4 MB, not 8), and a file this size would need 64 GiB of trees.
pub(crate) const MAX_FILE_SIZE_LIMIT: u64 = u32::MAX as u64;

/// `1048576`, `512KiB`, `1MB`, `64 MiB` (units in any case) to bytes.
pub(crate) fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    let expected = "expected bytes, or a whole number with a unit: B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024)";
    if number.is_empty() {
        return Err(format!("`{text}` is not a size; {expected}"));
    }
    let unit = unit.trim().to_ascii_lowercase();
    let factor = match unit.as_str() {
        "" => 1,
        unit => UNITS
            .iter()
            .find(|(name, _)| *name == unit)
            .map(|(_, factor)| *factor)
            .ok_or_else(|| format!("`{text}` has an unknown unit; {expected}"))?,
    };
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(factor))
        .filter(|&n| n <= MAX_FILE_SIZE_LIMIT)
        .ok_or_else(|| {
            format!("`{text}` is too large: lblint reads files up to 4 GiB ({MAX_FILE_SIZE_LIMIT} bytes)")
        })
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn bytes_si_and_iec_units() {
        assert_eq!(parse_size("100"), Ok(100));
        assert_eq!(parse_size("1MB"), Ok(1_000_000));
        assert_eq!(parse_size("1mb"), Ok(1_000_000));
        assert_eq!(parse_size("512KiB"), Ok(524_288));
        assert_eq!(parse_size("64 MiB"), Ok(crate::walk::DEFAULT_MAX_FILE_SIZE));
        assert_eq!(parse_size("2GB"), Ok(2_000_000_000));
        assert_eq!(parse_size("7B"), Ok(7));
        assert_eq!(parse_size("4294967295"), Ok(u64::from(u32::MAX)));
        assert!(parse_size("4GiB").unwrap_err().contains("up to 4 GiB"));
    }

    #[test]
    fn ambiguous_fractional_negative_and_huge_values_are_refused() {
        for bad in ["1M", "1.5MB", "-1", "MB", "", "1 MB x", "99999999999TiB"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert!(parse_size("1M").unwrap_err().contains("unknown unit"));
        assert!(parse_size("99999999999TiB")
            .unwrap_err()
            .contains("too large"));
    }
}
