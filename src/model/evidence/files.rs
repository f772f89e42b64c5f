//! Files embedded in ConfigMap and Secret values, read by what they are: the key's file
//! extension first, else the content's first signs. Line formats (YAML, INI, TOML,
//! properties, env files, nginx, HAProxy) are judged by the setting on the address's own
//! line; JSON, XML/HTML and SQL by `markup`; shell scripts by `shell`.

use super::keys::{floor, key_value, line_of, WINDOW};
use super::{markup, shell, Document, Evidence, Judged, Spot};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One line, no format: the setting's name decides.
    Plain,
    Json,
    Yaml,
    /// INI, TOML, Java properties, env files: `key = value` lines.
    Ini,
    Nginx,
    HaProxy,
    Sql,
    Xml,
    Html,
    Shell,
    /// Documentation: README, notes, Markdown.
    Prose,
}

/// A value that is a file rather than one setting: several lines, or a JSON/XML document.
pub fn is_document(text: &str) -> bool {
    let t = text.trim_start();
    text.trim_end().contains('\n') || t.starts_with(['{', '[', '<'])
}

/// The format of the file `key` holding `text`.
pub fn format(key: &str, text: &str) -> Format {
    let lower = key.to_ascii_lowercase();
    let ext = lower.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "json" | "jsonc" => return Format::Json,
        "yaml" | "yml" => return Format::Yaml,
        "toml" | "ini" | "properties" | "env" | "cnf" => return Format::Ini,
        "sql" => return Format::Sql,
        "xml" | "svg" | "xsd" | "xsl" | "plist" => return Format::Xml,
        "html" | "htm" | "xhtml" => return Format::Html,
        "sh" | "bash" | "zsh" | "ash" => return Format::Shell,
        "md" | "markdown" | "rst" | "adoc" => return Format::Prose,
        _ => {}
    }
    let sniffed = sniff(text);
    match sniffed {
        Format::Plain if ext == "txt" || lower.starts_with("readme") => Format::Prose,
        Format::Plain if is_document(text) => Format::Ini,
        _ => sniffed,
    }
}

/// The format the content shows in its first few kilobytes.
fn sniff(text: &str) -> Format {
    let head = &text[..floor(text, WINDOW.min(text.len()))];
    let t = head.trim_start();
    let lower = t.to_ascii_lowercase();
    let first_line = t.lines().next().unwrap_or("").trim();
    if t.starts_with('{') || t.starts_with('[') && !ini_section(first_line) {
        return Format::Json;
    }
    if t.starts_with("#!") {
        return Format::Shell;
    }
    if t.starts_with('<') {
        return if lower.contains("<html") || lower.starts_with("<!doctype html") {
            Format::Html
        } else {
            Format::Xml
        };
    }
    if [
        "proxy_pass",
        "upstream ",
        "server {",
        "location /",
        "server_name",
    ]
    .iter()
    .any(|s| lower.contains(s))
    {
        return Format::Nginx;
    }
    let sections = |s: &str| lower.lines().any(|l| l.trim_start().starts_with(s));
    if (sections("frontend ") || sections("backend ") || sections("listen "))
        && (sections("bind ") || sections("server "))
    {
        return Format::HaProxy;
    }
    let sql = [
        "create ", "insert ", "select ", "update ", "alter ", "drop ", "grant ",
    ];
    let statement = lower
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("--"));
    if statement.is_some_and(|l| sql.iter().any(|k| l.starts_with(k))) && lower.contains(';') {
        return Format::Sql;
    }
    if !is_document(text) {
        return Format::Plain;
    }
    let lines: Vec<&str> = lower
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let assigns = lines
        .iter()
        .filter(|l| l.contains('=') && !l.contains(": "))
        .count();
    let yaml = lines
        .iter()
        .filter(|l| l.ends_with(':') || l.contains(": ") || l.starts_with("- "))
        .count();
    if yaml > assigns {
        Format::Yaml
    } else {
        Format::Ini
    }
}

fn ini_section(line: &str) -> bool {
    line.starts_with('[') && line.ends_with(']') && !line.contains(['"', ',', '{'])
}

/// An address inside an embedded document, judged by the document's format.
pub fn in_document(doc: &Document<'_>, spot: &Spot<'_>) -> Judged {
    match doc.format {
        Format::Json => markup::json(&doc.json, spot),
        Format::Xml | Format::Html => markup::xml(doc.format == Format::Html, spot),
        Format::Sql => markup::sql(spot),
        Format::Shell => shell::script(spot),
        Format::Prose => Judged::new(Evidence::Mention, "documentation text"),
        Format::Plain | Format::Yaml | Format::Ini | Format::Nginx | Format::HaProxy => {
            in_line(doc.format, spot)
        }
    }
}

/// The comment start of a config line (`#`, `;`, `//`, `!` first, or ` #` after a value).
fn comment_at(line: &str, format: Format) -> Option<usize> {
    let trimmed = line.trim_start();
    let lead = line.len() - trimmed.len();
    let ini = format == Format::Ini && (trimmed.starts_with(';') || trimmed.starts_with('!'));
    if trimmed.starts_with('#') || trimmed.starts_with("//") || ini {
        return Some(lead);
    }
    // A trailing comment: ` #` outside quotes.
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match (c, quote) {
            ('"' | '\'', None) => quote = Some(c),
            (q, Some(open)) if q == open => quote = None,
            ('#', None) if i > 0 && line[..i].ends_with([' ', '\t']) => return Some(i),
            _ => {}
        }
    }
    None
}

/// An address on a line of a line-based config file.
fn in_line(format: Format, spot: &Spot<'_>) -> Judged {
    let (line, at) = line_of(spot);
    let comment = comment_at(line, format);
    if comment.is_some_and(|c| c <= at) {
        return Judged::new(Evidence::Mention, "a comment");
    }
    // A trailing comment is no part of the value.
    let line = &line[..comment.unwrap_or(line.len())];
    match format {
        Format::Nginx => nginx(line, at, spot),
        Format::HaProxy => haproxy(line, spot),
        Format::Yaml => yaml_line(line, at, spot),
        _ => ini_line(line, at, spot),
    }
}

/// nginx: the directive of the statement holding the address (statements split at `;`,
/// `{` and `}`).
fn nginx(line: &str, at: usize, spot: &Spot<'_>) -> Judged {
    let start = line[..at].rfind([';', '{', '}']).map_or(0, |i| i + 1);
    let statement = line[start..].trim_start();
    let directive = statement.split_whitespace().next().unwrap_or("");
    let evidence = match directive {
        "proxy_pass" | "grpc_pass" | "fastcgi_pass" | "uwsgi_pass" | "scgi_pass"
        | "memcached_pass" | "server" | "resolver" | "proxy_ssl_name" => Evidence::Call,
        "server_name" | "listen" => Evidence::Identity,
        "return" | "rewrite" | "proxy_redirect" | "add_header" | "sub_filter" | "upstream"
        | "set" | "more_set_headers" | "proxy_set_header" => Evidence::Mention,
        _ => return key_value(directive, statement, spot),
    };
    let why = match evidence {
        Evidence::Call => "sends traffic to it",
        Evidence::Identity => "names the site itself",
        Evidence::Mention => "is text, not a destination",
    };
    Judged::new(evidence, format!("nginx {directive} {why}"))
}

/// HAProxy: `server` lines dial, `bind` is the proxy's own address.
fn haproxy(line: &str, spot: &Spot<'_>) -> Judged {
    let keyword = line.split_whitespace().next().unwrap_or("");
    match keyword {
        "server" | "default-server" | "server-template" | "nameserver" => Judged::new(
            Evidence::Call,
            format!("HAProxy {keyword} sends traffic to it"),
        ),
        "bind" => Judged::new(Evidence::Identity, "HAProxy bind is its own address"),
        "redirect" | "http-request" | "http-response" | "acl" => Judged::new(
            Evidence::Mention,
            format!("HAProxy {keyword} is not a destination"),
        ),
        _ => key_value(keyword, line, spot),
    }
}

/// A `key: value` line of YAML; a list item takes the key of the block it sits in.
fn yaml_line(line: &str, at: usize, spot: &Spot<'_>) -> Judged {
    let body = line.trim_start();
    let item = body.strip_prefix("- ").map(str::trim_start);
    let body = item.unwrap_or(body);
    let offset = line.len() - body.len();
    match body
        .find(": ")
        .or_else(|| body.strip_suffix(':').map(str::len))
    {
        Some(sep) if at < offset + sep => {
            Judged::new(Evidence::Mention, "a key's name, not its value")
        }
        Some(sep) => key_value(
            body[..sep].trim_matches(['"', '\'']),
            &body[sep + 1..],
            spot,
        ),
        None => match parent_key(spot, line.len() - line.trim_start().len()) {
            Some(key) => key_value(&key, body, spot),
            None => key_value("", body, spot),
        },
    }
}

/// The key of the YAML block a line with `indent` sits in: the nearest line above with a
/// smaller indent that ends in `key:` (at most 200 lines up).
fn parent_key(spot: &Spot<'_>, indent: usize) -> Option<String> {
    let low = floor(spot.text, spot.at.saturating_sub(WINDOW * 4));
    let above = &spot.text[low..spot.at];
    let mut lines = above.lines().rev();
    lines.next(); // the address's own line
    for line in lines.take(200) {
        let body = line.trim_start();
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let own = line.len() - body.len();
        if own < indent || own == indent && !body.starts_with("- ") {
            let key = body.trim_start_matches("- ").trim_end().strip_suffix(':')?;
            return Some(key.trim_matches(['"', '\'']).to_string());
        }
    }
    None
}

/// `key = value`, `key=value`, `key: value` or `key value` (INI, TOML, properties, env
/// files); a `[section]` header names no destination.
fn ini_line(line: &str, at: usize, spot: &Spot<'_>) -> Judged {
    let body = line.trim_start();
    if ini_section(body.trim_end()) {
        return Judged::new(Evidence::Mention, "a section header");
    }
    let body = body.strip_prefix("export ").unwrap_or(body);
    let offset = line.len() - body.len();
    let sep = body.find(['=', ':', ' ', '\t']).unwrap_or(body.len());
    if at < offset + sep {
        return Judged::new(Evidence::Mention, "a key's name, not its value");
    }
    key_value(body[..sep].trim(), &body[sep..], spot)
}
