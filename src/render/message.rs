//! A render tool's stderr as the one-line reason of an `LBL008` finding. One line, because
//! the compact and GitHub formats print a message's first line only, and kustomize's
//! errors span lines (they quote the transformer's configuration). kubectl 1.30 and later
//! may log through klog (`E1206 04:26:18.949756   16775 run.go:72] "command failed"
//! err="..."`, or `err=<` and tab-indented lines up to ` >` when the value has newlines):
//! the header is dropped and the values are unquoted, so every build reads alike.

use std::sync::LazyLock;

use regex::Regex;

/// klog's header: severity, date, time, thread id, `file:line]`.
static KLOG: LazyLock<Regex> = LazyLock::new(|| {
    #[allow(clippy::expect_used)] // A constant pattern, checked by the tests below.
    Regex::new(r"^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ [^\]\s]+\] ").expect("valid pattern")
});

/// The most of stderr read: its last bytes, where the error is.
const MAX_BYTES: usize = 2000;

/// The tool's own error text on one line: every line kept (trimmed, joined by spaces),
/// klog's headers dropped, kustomize's `# Warning:` lines moved after the error.
pub(super) fn tool_message(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let text = text.trim();
    let start = text.len().saturating_sub(MAX_BYTES);
    let start = (start..=text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    // A cut mid-line starts at the next whole line, when there is one.
    let cut = match start {
        0 => text,
        _ => match text[start..].split_once('\n') {
            Some((_, rest)) if !rest.trim().is_empty() => rest,
            _ => &text[start..],
        },
    };
    let (mut errors, mut warnings) = (Vec::new(), Vec::new());
    let mut lines = cut.lines().peekable();
    while let Some(line) = lines.next() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with("# Warning:") {
            warnings.push(line.to_string());
        } else if let Some(found) = KLOG.find(line) {
            errors.push(klog_text(&line[found.end()..], &mut lines));
        } else {
            errors.push(line.to_string());
        }
    }
    let all: Vec<String> = errors.into_iter().chain(warnings).collect();
    match all.join(" ") {
        joined if joined.is_empty() => "(no message on stderr)".into(),
        joined => joined,
    }
}

/// The text of a klog entry after its header: `"msg" key=value ...` as `msg: value`
/// (`key=value` for keys other than `err`); a line that is not structured, as it is. A
/// multi-line value (`key=<`) takes the following tab-indented lines, up to ` >`.
fn klog_text<'a>(rest: &str, more: &mut impl Iterator<Item = &'a str>) -> String {
    let Some((message, mut rest)) = quoted(rest) else {
        return rest.trim().to_string();
    };
    let mut parts = vec![message];
    while let Some((key, after)) = rest.trim_start().split_once('=') {
        let (value, after) = if after.starts_with('"') {
            quoted(after).unwrap_or_else(|| (after.to_string(), ""))
        } else if after.trim_end() == "<" {
            let block: Vec<&str> = more
                .take_while(|l| l.trim() != ">")
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            (block.join(" "), "")
        } else {
            let end = after.find(' ').unwrap_or(after.len());
            (after[..end].to_string(), &after[end..])
        };
        parts.push(match key {
            "err" => value,
            _ => format!("{key}={value}"),
        });
        rest = after;
    }
    parts.join(": ")
}

/// A Go-quoted string (`strconv.Quote`) at the start of `text`: its value, with escaped
/// line breaks as spaces, and the text after it; `None` when `text` does not start with one.
fn quoted(text: &str) -> Option<(String, &str)> {
    let mut chars = text.strip_prefix('"')?.char_indices();
    let mut out = String::new();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &text[i + 2..])),
            '\\' => match chars.next()?.1 {
                'n' | 'r' | 't' => out.push(' '),
                'x' | 'u' | 'U' => out.push('\u{FFFD}'),
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// klog's one-line and block values, kustomize's multi-line errors and warnings, an
    /// empty stderr, and a long one cut to its last whole lines.
    #[test]
    fn every_line_is_kept_on_one_without_klog_headers() {
        let long = format!("{}\nerror: the end\n", "x".repeat(3000));
        let cases = [
            (
                "E1206 04:26:18.949756   16775 run.go:72] \"command failed\" err=\"accumulating resources: 'a \\\"b\\\"': no such file\"\n",
                "command failed: accumulating resources: 'a \"b\"': no such file",
            ),
            (
                "# Warning: 'patchesStrategicMerge' is deprecated.\nE1206 04:31:36.474555   24829 run.go:72] \"command failed\" err=<\n\ttrouble configuring with config: `\n\tpaths:\n\t- p.yaml\n\t`: lstat /x/p.yaml: no such file\n >\n",
                "command failed: trouble configuring with config: ` paths: - p.yaml `: lstat /x/p.yaml: no such file # Warning: 'patchesStrategicMerge' is deprecated.",
            ),
            (
                "error: trouble configuring with config: `\npath: p.yaml\n`: no such file\n",
                "error: trouble configuring with config: ` path: p.yaml `: no such file",
            ),
            ("  \n", "(no message on stderr)"),
            (long.as_str(), "error: the end"),
        ];
        for (stderr, message) in cases {
            assert_eq!(tool_message(stderr.as_bytes()), message, "{stderr}");
        }
    }
}
