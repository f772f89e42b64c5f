//! `file://` URIs to paths and back. The server keys documents by path; a client's own
//! spelling of an open document's URI is kept and used when publishing for it (VS Code
//! escapes `:` where others do not).

use std::path::{Path, PathBuf};

/// The local path a `file://` URI names; `None` for another scheme or a remote host.
pub(crate) fn to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri
        .get(..7)
        .filter(|s| s.eq_ignore_ascii_case("file://"))
        .map(|_| &uri[7..])?;
    let slash = rest.find('/')?;
    let host = &rest[..slash];
    if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
        return None;
    }
    let path = rest[slash..].split(['?', '#']).next().unwrap_or_default();
    let bytes = decode(path)?;
    from_bytes(bytes)
}

#[cfg(unix)]
fn from_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

#[cfg(not(unix))]
fn from_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
    let text = String::from_utf8(bytes).ok()?;
    // `/C:/dir` is the drive path `C:/dir`.
    let bytes = text.as_bytes();
    let drive = bytes.len() >= 3 && bytes[0] == b'/' && bytes[2] == b':';
    Some(PathBuf::from(if drive { &text[1..] } else { &text }))
}

fn decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

/// The `file://` URI of an absolute path, every byte but unreserved ones and `/`
/// percent-encoded.
pub fn from_path(path: &Path) -> String {
    let mut out = String::from("file://");
    let bytes = path_bytes(path);
    if bytes.first() != Some(&b'/') {
        out.push('/');
    }
    for &b in &bytes {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(char::from(b))
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(unix)]
fn path_bytes(path: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn path_bytes(path: &Path) -> Vec<u8> {
    path.to_string_lossy().replace('\\', "/").into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_round_trip() {
        let path = Path::new("/tmp/a b/注释#1.yaml");
        let uri = from_path(path);
        assert_eq!(uri, "file:///tmp/a%20b/%E6%B3%A8%E9%87%8A%231.yaml");
        assert_eq!(to_path(&uri).as_deref(), Some(path));
        assert_eq!(
            to_path("file://localhost/x/y.yaml").as_deref(),
            Some(Path::new("/x/y.yaml"))
        );
        assert_eq!(to_path("untitled:Untitled-1"), None);
        assert_eq!(to_path("file://server/share/x"), None);
        assert_eq!(to_path("file:///bad%zz"), None);
    }
}
