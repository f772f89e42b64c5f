//! Values parsed as Go's `strconv` parses them (the cloud controllers are Go programs), with
//! Go's own error texts, so a value a controller rejects is reported in its words.

/// Go's `strconv.Quote` for the texts annotations hold: `"` and `\` escaped, control
/// characters as `\n`, `\t`, `\xNN`.
pub(crate) fn go_quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `strconv.ParseBool`: `1`, `t`, `T`, `TRUE`, `true`, `True` are true; `0`, `f`, `F`,
/// `FALSE`, `false`, `False` false; anything else (`yes`, ` true`, `tRUE`) an error.
pub(crate) fn parse_go_bool(text: &str) -> Option<bool> {
    match text {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}
/// `strconv.ParseBool`, with its error text (`strconv.ParseBool: parsing "yes": invalid
/// syntax`).
pub(crate) fn go_parse_bool(text: &str) -> Result<bool, String> {
    parse_go_bool(text).ok_or_else(|| syntax_error("ParseBool", text))
}

/// `strconv.Atoi`: an optional sign and decimal digits, nothing else (no spaces).
pub(crate) fn go_atoi(text: &str) -> Result<i64, String> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(syntax_error("Atoi", text));
    }
    text.parse::<i64>().map_err(|_| {
        format!(
            "strconv.Atoi: parsing {}: value out of range",
            go_quote(text)
        )
    })
}

/// `strconv.ParseInt(text, 0, 64)`: the base from the prefix (`0x`, `0o`, `0b`, a leading
/// `0` for octal), `_` between digits allowed.
pub(crate) fn go_parse_int_base0(text: &str) -> Result<i64, String> {
    let error = || syntax_error("ParseInt", text);
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits) = if let Some(rest) = lower.strip_prefix("0x") {
        (16, rest)
    } else if let Some(rest) = lower.strip_prefix("0o") {
        (8, rest)
    } else if let Some(rest) = lower.strip_prefix("0b") {
        (2, rest)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    // Underscores only between digits (Go's underscoreOK, simplified to that rule).
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return Err(error());
    }
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    let value = u64::from_str_radix(&clean, radix).map_err(|_| error())?;
    let value = i64::try_from(value).map_err(|_| {
        format!(
            "strconv.ParseInt: parsing {}: value out of range",
            go_quote(text)
        )
    })?;
    Ok(if negative { -value } else { value })
}

fn syntax_error(function: &str, text: &str) -> String {
    format!(
        "strconv.{function}: parsing {}: invalid syntax",
        go_quote(text)
    )
}

/// Long flags of a Go command line (`--name=value` or `--name value`, as spf13/pflag reads
/// them) from `command`/`args` items, in order, names lower-cased; a repeated flag appears
/// each time (pflag keeps the last).
pub(crate) fn pflags(items: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        // One string may hold a whole shell command line (split once: a script of
        // thousands of words is read in one pass).
        let words: Vec<&str> = item.split_whitespace().collect();
        for (j, word) in words.iter().enumerate() {
            let Some(flag) = word.strip_prefix("--") else {
                continue;
            };
            match flag.split_once('=') {
                Some((k, v)) => out.push((k.to_ascii_lowercase(), v.trim_matches('"').to_string())),
                None => {
                    let next = words
                        .get(j + 1)
                        .copied()
                        .or_else(|| items.get(i + 1).copied())
                        .filter(|n| !n.starts_with('-'));
                    if let Some(value) = next {
                        out.push((flag.to_ascii_lowercase(), value.to_string()));
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_read_as_go_prints_them() {
        assert_eq!(
            go_parse_bool("yes").unwrap_err(),
            "strconv.ParseBool: parsing \"yes\": invalid syntax"
        );
        assert_eq!(go_parse_bool("True"), Ok(true));
        assert_eq!(
            go_atoi(" 8443").unwrap_err(),
            "strconv.Atoi: parsing \" 8443\": invalid syntax"
        );
        assert_eq!(go_atoi("+443"), Ok(443));
        assert_eq!(go_quote("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
    }

    #[test]
    fn parse_int_base_zero_takes_go_prefixes() {
        assert_eq!(go_parse_int_base0("0x1BB"), Ok(443));
        assert_eq!(go_parse_int_base0("0o17"), Ok(15));
        assert_eq!(go_parse_int_base0("017"), Ok(15));
        assert_eq!(go_parse_int_base0("0b11"), Ok(3));
        assert_eq!(go_parse_int_base0("8_080"), Ok(8080));
        assert_eq!(go_parse_int_base0("0"), Ok(0));
        for bad in ["", "08", "1_", "abc", "0x", "1__0", " 1"] {
            assert_eq!(
                go_parse_int_base0(bad).unwrap_err(),
                format!(
                    "strconv.ParseInt: parsing {}: invalid syntax",
                    go_quote(bad)
                ),
                "{bad:?}"
            );
        }
    }
}
