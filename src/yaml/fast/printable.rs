//! Characters the fast path leaves to granit: YAML only allows printable characters, and
//! granit decides what the others mean (an error, or a line break in YAML 1.1's sense).

/// Whether `text` holds only characters the fast path reads as granit does: printable
/// ASCII, tab, line feed, and non-ASCII characters other than C1 controls (NEL among them),
/// the line and paragraph separators, byte order marks and U+FFFE/U+FFFF.
pub(super) fn all_printable(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut non_ascii = false;
    // Branch-free within a block, so the compiler tests 16 bytes an instruction (SSE2).
    for block in bytes.chunks(64) {
        let (mut refused, mut high) = (false, false);
        for &b in block {
            refused |= ((b < 0x20) & (b != b'\t') & (b != b'\n')) | (b == 0x7f);
            high |= b >= 0x80;
        }
        if refused {
            return false;
        }
        non_ascii |= high;
    }
    !non_ascii || !has_refused_non_ascii(bytes)
}

/// Whether valid UTF-8 `bytes` hold a C1 control (`C2 80`..`C2 9F`), U+2028 or U+2029
/// (`E2 80 A8`/`A9`), U+FEFF (`EF BB BF`), U+FFFE or U+FFFF (`EF BF BE`/`BF`): only their
/// lead bytes are looked for, not every character decoded (CRD descriptions are long and
/// many hold a non-ASCII character somewhere).
fn has_refused_non_ascii(bytes: &[u8]) -> bool {
    memchr::memchr3_iter(0xc2, 0xe2, 0xef, bytes).any(|at| {
        let next = |n: usize| bytes.get(at + n).copied().unwrap_or(0);
        matches!(
            (next(0), next(1), next(2)),
            (0xc2, 0x80..=0x9f, _)
                | (0xe2, 0x80, 0xa8 | 0xa9)
                | (0xef, 0xbb, 0xbf)
                | (0xef, 0xbf, 0xbe | 0xbf)
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

    /// Every non-ASCII character alone, among ASCII, is refused exactly when granit
    /// refuses it (the lead-byte search must miss none and refuse no other).
    #[test]
    fn every_non_ascii_character() {
        let refused = |c: char| {
            matches!(
                c,
                '\u{80}'
                    ..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
            )
        };
        for c in (0x80..0x11_0000).filter_map(char::from_u32) {
            if u32::from(c) > 0x1_0000 && u32::from(c) % 251 != 0 {
                continue;
            }
            let text = format!("ab{c}cdefgh{c}");
            assert_eq!(all_printable(&text), !refused(c), "{c:?}");
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
