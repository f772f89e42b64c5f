//! Where a file is, as SARIF wants it: `artifactLocation` URIs, relative to
//! `%SRCROOT%` or absolute `file://`, percent-encoded per RFC 3986.

use std::path::{Component, Path, PathBuf};

use serde::Serialize;

const SRCROOT: &str = "%SRCROOT%";

/// A SARIF `artifactLocation`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ArtifactLocation {
    pub uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri_base_id: Option<&'static str>,
}

/// Where `path` (a displayed path: relative to `cwd` when under it, `/`-separated)
/// lives, as SARIF wants it.
///
/// - Under the working directory: a relative, percent-encoded URI with
///   `uriBaseId: %SRCROOT%` (GitHub resolves it against the checkout root, so run
///   lblint from the repository root).
/// - Elsewhere (an absolute path, or `../` leading out of `cwd`): an absolute
///   `file://` URI and no base id. Without a known `cwd`, a `../` path stays relative.
///
/// Paths are normalised lexically (`.` and `dir/..` removed); symbolic links are not
/// resolved.
pub(crate) fn artifact_location(path: &str, cwd: Option<&Path>) -> ArtifactLocation {
    let relative = |rel: &str| ArtifactLocation {
        uri: encode_path(rel),
        uri_base_id: Some(SRCROOT),
    };
    let file = |abs: &Path| ArtifactLocation {
        uri: file_uri(abs),
        uri_base_id: None,
    };
    let given = Path::new(path);
    let absolute = given.is_absolute() || path.starts_with('/');
    if !absolute {
        let normal = normalize(given);
        if !normal.starts_with("..") {
            return relative(&posix(&normal));
        }
    }
    let Some(cwd) = cwd else {
        return if absolute {
            file(&normalize(given))
        } else {
            relative(&posix(&normalize(given)))
        };
    };
    let cwd = normalize(cwd);
    let full = normalize(&cwd.join(given));
    match full.strip_prefix(&cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => relative(&posix(rel)),
        _ => file(&full),
    }
}

/// Lexical normalisation: drop `.`, fold `dir/..`; leading `..` of a relative path stay.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                let last = out.components().next_back();
                match last {
                    Some(Component::Normal(_)) => {
                        out.pop();
                    }
                    Some(Component::RootDir | Component::Prefix(_)) => {}
                    _ => out.push(".."),
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn posix(path: &Path) -> String {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
            Component::ParentDir => Some("..".to_string()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// `file:///abs/path` (Windows: `file:///C:/abs/path`).
pub(super) fn file_uri(abs: &Path) -> String {
    let text = abs.to_string_lossy().replace('\\', "/");
    let (drive, rest) = match text.as_bytes() {
        [letter, b':', ..] if letter.is_ascii_alphabetic() => text.split_at(2),
        _ => ("", text.as_str()),
    };
    let rest = rest.trim_start_matches('/');
    if drive.is_empty() {
        format!("file:///{}", encode_path(rest))
    } else {
        format!("file:///{drive}/{}", encode_path(rest))
    }
}

/// Percent-encodes a `/`-separated path per RFC 3986: everything but unreserved
/// characters (`A-Z a-z 0-9 - . _ ~`) and `/` becomes `%XX` of its UTF-8 bytes, so
/// spaces, `#`, `?`, `%`, `:` and non-ASCII are all safe.
pub(crate) fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}
