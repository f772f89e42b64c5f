//! Kubernetes' scalar resolution: go-yaml v2 (YAML 1.1) rules for plain scalars.
//!
//! This mirrors `resolve()` in gopkg.in/yaml.v2 `resolve.go` (what sigs.k8s.io/yaml uses),
//! including its reliance on Go's `strconv.ParseInt(s, 0, 64)` and `time.Parse`, so the
//! same text means the same thing to lblint as to the API server.

/// A scalar's value as Kubernetes (go-yaml v2, YAML 1.1) reads it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Resolved {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// Unquoted date or date-time (go-yaml v2 `!!timestamp`).
    Timestamp,
    Str,
}

/// Resolve an untagged plain scalar as go-yaml v2 does.
///
/// Deliberate choices where v2 has no exact `Resolved` counterpart:
/// - Integers that fit `u64` but not `i64` (v2 yields a `uint64`) become `Float(v as f64)`:
///   they are numbers, never strings, to Kubernetes.
/// - Only the timestamp layouts v2 accepts are `Timestamp`; notably
///   `2001-12-14 21:59:43.10 -5` (a YAML 1.1 example) is *not*, because Go's `time.Parse`
///   rejects it, so v2 reads it as a string.
pub(crate) fn resolve_plain(text: &str) -> Resolved {
    // v2 dispatches on the first byte; other first bytes are always strings.
    let hint = match text.as_bytes().first() {
        None => return Resolved::Null,
        Some(b'+' | b'-') => Hint::Sign,
        Some(b'0'..=b'9') => Hint::Digit,
        Some(b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~') => {
            Hint::Map
        }
        Some(b'.') => Hint::Dot,
        Some(_) => return Resolved::Str,
    };
    if let Some(r) = lookup_map(text) {
        return r;
    }
    match hint {
        Hint::Map => Resolved::Str,
        Hint::Dot => match go_parse_float(text) {
            Some(f) => Resolved::Float(f),
            None => Resolved::Str,
        },
        Hint::Sign | Hint::Digit => resolve_number(text),
    }
}

enum Hint {
    Sign,
    Digit,
    Map,
    Dot,
}

/// v2's `resolveMap`: exact spellings only (`nO`, `tRUE` are strings).
fn lookup_map(text: &str) -> Option<Resolved> {
    Some(match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Resolved::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Resolved::Bool(false)
        }
        "~" | "null" | "Null" | "NULL" => Resolved::Null,
        ".nan" | ".NaN" | ".NAN" => Resolved::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Resolved::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Resolved::Float(f64::NEG_INFINITY),
        _ => return None,
    })
}

/// The `'D'`/`'S'` branch of v2's `resolve`: timestamp, then int, uint, then float.
fn resolve_number(text: &str) -> Resolved {
    if is_go_yaml_timestamp(text) {
        return Resolved::Timestamp;
    }
    let plain: String = text.chars().filter(|&c| c != '_').collect();
    if let Some(i) = go_parse_int(&plain) {
        return Resolved::Int(i);
    }
    if let Some(u) = go_parse_uint(&plain) {
        // Fits only u64: see the doc comment on `resolve_plain`.
        return Resolved::Float(u as f64);
    }
    if is_yaml_style_float(&plain) {
        if let Some(f) = go_parse_float(&plain) {
            return Resolved::Float(f);
        }
    }
    Resolved::Str
}

/// Go `strconv.ParseUint(s, 0, 64)`: base prefixes `0x`, `0o`, `0b`, leading `0` = octal.
fn go_parse_uint(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.is_empty() {
        return None;
    }
    let (base, digits) = if b[0] == b'0' {
        match b.get(1).map(u8::to_ascii_lowercase) {
            Some(b'b') if b.len() >= 3 => (2, &b[2..]),
            Some(b'o') if b.len() >= 3 => (8, &b[2..]),
            Some(b'x') if b.len() >= 3 => (16, &b[2..]),
            _ => (8, &b[1..]),
        }
    } else {
        (10, b)
    };
    let mut n: u64 = 0;
    for &c in digits {
        let d = (c as char).to_digit(base)?;
        n = n.checked_mul(u64::from(base))?.checked_add(u64::from(d))?;
    }
    Some(n)
}

/// Go `strconv.ParseInt(s, 0, 64)`: optional sign, then [`go_parse_uint`], range-checked.
fn go_parse_int(s: &str) -> Option<i64> {
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let u = go_parse_uint(rest)?;
    if neg {
        if u <= i64::MAX as u64 {
            Some(-(u as i64))
        } else if u == i64::MAX as u64 + 1 {
            Some(i64::MIN)
        } else {
            None
        }
    } else {
        i64::try_from(u).ok()
    }
}

/// v2's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Go `strconv.ParseFloat(s, 64)` restricted to the decimal syntax v2 can reach here
/// (the regexp above, or text starting with `.`); out-of-range values fail as in Go.
fn go_parse_float(s: &str) -> Option<f64> {
    if !is_yaml_style_float(s) {
        return None;
    }
    let f: f64 = s.parse().ok()?;
    f.is_finite().then_some(f)
}

/// v2's `parseTimestamp`: a `YYYY-` quick check, then Go `time.Parse` with the layouts
/// `2006-1-2T15:4:5.999999999Z07:00`, the same with `t`, `2006-1-2 15:4:5.999999999`,
/// and `2006-1-2`.
fn is_go_yaml_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let mut cur = Cursor { b, i: 5 };
    let year: u32 = b[..4].iter().fold(0, |n, &d| n * 10 + u32::from(d - b'0'));
    let Some(month) = cur.num12() else {
        return false;
    };
    if !cur.eat(b'-') {
        return false;
    }
    let Some(day) = cur.num12() else {
        return false;
    };
    if !(1..=12).contains(&month) || day < 1 || day > days_in(month, year) {
        return false;
    }
    if cur.done() {
        return true;
    }
    let sep = b[cur.i];
    if !matches!(sep, b'T' | b't' | b' ') {
        return false;
    }
    cur.i += 1;
    let time_ok = (|| {
        let h = cur.num12()?;
        cur.eat(b':').then_some(())?;
        let m = cur.num12()?;
        cur.eat(b':').then_some(())?;
        let sec = cur.num12()?;
        (h < 24 && m < 60 && sec < 60).then_some(())
    })()
    .is_some();
    if !time_ok {
        return false;
    }
    // `.999999999`: optional fraction, Go also accepts a comma.
    if matches!(cur.peek(), Some(b'.' | b',')) && cur.peek_at(1).is_some_and(|c| c.is_ascii_digit())
    {
        cur.i += 1;
        while cur.peek().is_some_and(|c| c.is_ascii_digit()) {
            cur.i += 1;
        }
    }
    if sep == b' ' {
        // That layout has no zone.
        return cur.done();
    }
    // `Z07:00`: `Z` or `±hh:mm`.
    match cur.peek() {
        Some(b'Z') => cur.i += 1,
        Some(b'+' | b'-') => {
            let z = &b[cur.i..];
            let two = |d: &[u8]| u32::from(d[0] - b'0') * 10 + u32::from(d[1] - b'0');
            let ok = z.len() >= 6
                && z[1].is_ascii_digit()
                && z[2].is_ascii_digit()
                && z[3] == b':'
                && z[4].is_ascii_digit()
                && z[5].is_ascii_digit()
                // Go rejects zone hours > 24 and minutes > 59.
                && two(&z[1..3]) <= 24
                && two(&z[4..6]) <= 59;
            if !ok {
                return false;
            }
            cur.i += 6;
        }
        _ => return false,
    }
    cur.done()
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn peek_at(&self, n: usize) -> Option<u8> {
        self.b.get(self.i + n).copied()
    }
    fn done(&self) -> bool {
        self.i >= self.b.len()
    }
    fn eat(&mut self, c: u8) -> bool {
        let hit = self.peek() == Some(c);
        if hit {
            self.i += 1;
        }
        hit
    }
    /// Go's non-fixed `getnum`: one or two digits.
    fn num12(&mut self) -> Option<u32> {
        let d0 = self.peek().filter(u8::is_ascii_digit)?;
        self.i += 1;
        let mut n = u32::from(d0 - b'0');
        if let Some(d1) = self.peek().filter(u8::is_ascii_digit) {
            self.i += 1;
            n = n * 10 + u32::from(d1 - b'0');
        }
        Some(n)
    }
}

fn days_in(month: u32, year: u32) -> u32 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Resolved::*;

    #[test]
    fn go_yaml_v2_table() {
        let table: &[(&str, Resolved)] = &[
            // null
            ("", Null),
            ("~", Null),
            ("null", Null),
            ("Null", Null),
            ("NULL", Null),
            ("nULL", Str),
            // bool
            ("y", Bool(true)),
            ("Y", Bool(true)),
            ("yes", Bool(true)),
            ("Yes", Bool(true)),
            ("YES", Bool(true)),
            ("true", Bool(true)),
            ("True", Bool(true)),
            ("TRUE", Bool(true)),
            ("on", Bool(true)),
            ("On", Bool(true)),
            ("ON", Bool(true)),
            ("n", Bool(false)),
            ("N", Bool(false)),
            ("no", Bool(false)),
            ("No", Bool(false)),
            ("NO", Bool(false)),
            ("false", Bool(false)),
            ("False", Bool(false)),
            ("FALSE", Bool(false)),
            ("off", Bool(false)),
            ("Off", Bool(false)),
            ("OFF", Bool(false)),
            ("nO", Str),
            ("tRUE", Str),
            ("yES", Str),
            // floats from the map
            (".inf", Float(f64::INFINITY)),
            (".Inf", Float(f64::INFINITY)),
            (".INF", Float(f64::INFINITY)),
            ("+.inf", Float(f64::INFINITY)),
            ("+.Inf", Float(f64::INFINITY)),
            ("+.INF", Float(f64::INFINITY)),
            ("-.inf", Float(f64::NEG_INFINITY)),
            ("-.Inf", Float(f64::NEG_INFINITY)),
            ("-.INF", Float(f64::NEG_INFINITY)),
            (".iNf", Str),
            // ints
            ("0", Int(0)),
            ("-0", Int(0)),
            ("+12", Int(12)),
            ("-12", Int(-12)),
            ("0644", Int(420)),
            ("010", Int(8)),
            ("0x1F", Int(31)),
            ("0X1f", Int(31)),
            ("-0x1F", Int(-31)),
            ("0o17", Int(15)),
            ("0b101", Int(5)),
            ("-0b101", Int(-5)),
            ("1_000", Int(1000)),
            ("0x_1F", Int(31)),
            ("9223372036854775807", Int(i64::MAX)),
            ("-9223372036854775808", Int(i64::MIN)),
            // only fits u64: documented as Float
            ("18446744073709551615", Float(18446744073709551615.0)),
            // overflows both: the float regexp still matches
            ("99999999999999999999", Float(1e20)),
            ("0x", Str),
            ("0b", Str),
            ("0xG", Str),
            // floats
            ("08", Float(8.0)),
            ("09", Float(9.0)),
            ("1.10", Float(1.1)),
            ("1e3", Float(1000.0)),
            ("0.5e-3", Float(0.0005)),
            ("1.", Float(1.0)),
            (".5", Float(0.5)),
            ("+.5", Float(0.5)),
            ("-1.5E+2", Float(-150.0)),
            ("1_000.5", Float(1000.5)),
            ("1e999", Str),
            (".", Str),
            ("._5", Str),
            ("1e", Str),
            // timestamps
            ("2001-12-14", Timestamp),
            ("2002-12-14", Timestamp),
            ("2001-1-2", Timestamp),
            ("2001-12-14t21:59:43.10-05:00", Timestamp),
            ("2001-12-14T21:59:43.10Z", Timestamp),
            ("2001-12-14T21:59:43Z", Timestamp),
            ("2001-12-14 21:59:43.10", Timestamp),
            ("2001-12-14 21:59:43", Timestamp),
            ("2000-02-29", Timestamp),
            // Go's time.Parse rejects these, so v2 keeps them strings.
            ("2001-12-14 21:59:43.10 -5", Str),
            ("2001-02-29", Str),
            ("2001-13-01", Str),
            ("2001-12-14T21:59:43", Str),
            ("2001-12-14T25:59:43Z", Str),
            ("20011-12-14", Str),
            // strings
            ("1:20", Str),
            ("<<", Str),
            ("abc", Str),
            ("1.2.3", Str),
            ("+", Str),
            ("-", Str),
            ("_1", Str),
            ("10Gi", Str),
            ("v1", Str),
        ];
        for (text, want) in table {
            let got = resolve_plain(text);
            assert_eq!(&got, want, "resolve_plain({text:?})");
        }
        assert!(matches!(resolve_plain(".nan"), Float(f) if f.is_nan()));
        assert!(matches!(resolve_plain(".NaN"), Float(f) if f.is_nan()));
        assert!(matches!(resolve_plain(".NAN"), Float(f) if f.is_nan()));
    }

    #[test]
    fn no_panic_on_odd_text() {
        for text in [
            "0\u{e9}",
            "-\u{1F600}",
            "2001-\u{e9}",
            "2001-12-14T",
            "2001-12-14T1:2:3+",
            "\u{0}",
        ] {
            let _ = resolve_plain(text);
        }
    }
}
