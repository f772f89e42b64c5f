//! Characters the fast path leaves to granit: YAML only allows printable characters, and
//! granit decides what the others mean (an error, or a line break in YAML 1.1's sense).

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// The high bit of each byte of `x` that is zero, and no other bit.
fn zero_bytes(x: u64) -> u64 {
    !(((x & LOW7) + LOW7) | x | LOW7)
}

/// Whether `text` holds only characters the fast path reads as granit does: printable
/// ASCII, tab, line feed, and non-ASCII characters other than C1 controls (NEL among them),
/// the line and paragraph separators, byte order marks and U+FFFE/U+FFFF.
pub(super) fn all_printable(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut non_ascii = 0;
    // Eight bytes at a time, each test exact per byte (no carry crosses a byte).
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let x = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        non_ascii |= x & HIGH;
        // ASCII bytes below 0x20: adding 0x60 to their low seven bits leaves bit 7 clear.
        let below_space = !(((x & LOW7) + ONES * 0x60) | x) & HIGH;
        let allowed = zero_bytes(x ^ (ONES * u64::from(b'\n'))) | zero_bytes(x ^ (ONES * 0x09));
        let del = zero_bytes(x ^ (ONES * 0x7f));
        if (below_space & !allowed) | del != 0 {
            return false;
        }
    }
    for &b in words.remainder() {
        match b {
            b'\n' | b'\t' | 0x20..=0x7e => {}
            0x80.. => non_ascii = HIGH,
            _ => return false,
        }
    }
    non_ascii == 0
        || !text.chars().any(|c| {
            matches!(
                c,
                '\u{80}'
                    ..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
            )
        })
}

#[cfg(test)]
mod tests {
    use super::all_printable;

    #[test]
    fn every_ascii_byte_at_every_place_in_a_word() {
        for byte in 0u8..0x80 {
            for place in 0..16 {
                let mut text = vec![b'a'; 16];
                text[place] = byte;
                let text = String::from_utf8(text).unwrap();
                let expected = matches!(byte, b'\n' | b'\t' | 0x20..=0x7e);
                assert_eq!(all_printable(&text), expected, "{byte:#x} at {place}");
            }
        }
    }

    #[test]
    fn printable_matches_a_char_by_char_check() {
        let allowed = |c: char| {
            matches!(c, '\n' | '\t' | ' '..='~')
                || (c > '\u{9f}'
                    && !matches!(
                        c,
                        '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                    ))
        };
        let pieces = [
            "a",
            "key: value\n",
            "\t",
            "\r",
            "\u{7f}",
            "\u{0}",
            "\u{1f}",
            "é",
            "\u{85}",
            "\u{a0}",
            "\u{2028}",
            "\u{feff}",
            "\u{fffe}",
            "日本",
            "~",
            " ",
            "\u{9f}",
            "\u{10ffff}",
        ];
        let mut seed = 7u64;
        for _ in 0..3000 {
            let mut text = String::new();
            for _ in 0..(seed % 23) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
            }
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            assert_eq!(all_printable(&text), text.chars().all(allowed), "{text:?}");
        }
    }
}
