//! Put a fixed text on disk without ever losing the file: a temporary file beside it,
//! synced, then renamed over it, only while the file still holds the text the fix was
//! planned on. Any failure leaves the original byte for byte as it was.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::walk::display_path;

/// The folders `--fix` may write in: those of the paths named on the command line, after
/// symbolic links. A file reached through a link that leaves them is not written.
#[derive(Clone, Debug, Default)]
pub(crate) struct Roots(Vec<PathBuf>);

impl Roots {
    /// A named folder is a root; a named file's root is the folder it is in.
    pub(crate) fn of(paths: &[PathBuf]) -> Roots {
        let default = [PathBuf::from(".")];
        let paths = if paths.is_empty() {
            &default[..]
        } else {
            paths
        };
        Roots(
            paths
                .iter()
                .filter(|p| p.as_os_str() != "-")
                .filter_map(|p| {
                    if fs::metadata(p).is_ok_and(|m| m.is_dir()) {
                        return fs::canonicalize(p).ok();
                    }
                    let folder = p.parent().filter(|f| !f.as_os_str().is_empty());
                    fs::canonicalize(folder.unwrap_or(Path::new("."))).ok()
                })
                .collect(),
        )
    }

    fn contain(&self, real: &Path) -> bool {
        self.0.iter().any(|root| real.starts_with(root))
    }
}

/// How the file's bytes encode its text (`check` decodes all four, BOM stripped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Encoding {
    Utf8,
    Utf8Bom,
    Utf16Le,
    Utf16Be,
}

impl Encoding {
    fn of(bytes: &[u8]) -> Encoding {
        match bytes {
            [0xFF, 0xFE, ..] => Encoding::Utf16Le,
            [0xFE, 0xFF, ..] => Encoding::Utf16Be,
            [0xEF, 0xBB, 0xBF, ..] => Encoding::Utf8Bom,
            _ => Encoding::Utf8,
        }
    }

    fn encode(self, text: &str) -> Vec<u8> {
        let utf16 = |unit: fn(u16) -> [u8; 2]| -> Vec<u8> {
            std::iter::once(0xFEFF)
                .chain(text.encode_utf16())
                .flat_map(unit)
                .collect()
        };
        match self {
            Encoding::Utf8 => text.as_bytes().to_vec(),
            Encoding::Utf8Bom => [&[0xEF, 0xBB, 0xBF][..], text.as_bytes()].concat(),
            Encoding::Utf16Le => utf16(u16::to_le_bytes),
            Encoding::Utf16Be => utf16(u16::to_be_bytes),
        }
    }
}

/// Replace the file at `path` (its own path, not a display name) holding `before` with
/// `after`, in the same encoding, BOM, permissions and (where allowed) owner. Refused when
/// it resolves outside `roots`, is not a regular file, or no longer holds exactly
/// `before`; the reason is returned and the file is untouched.
pub(crate) fn write_back(
    path: &Path,
    before: &str,
    after: &str,
    roots: &Roots,
) -> Result<(), String> {
    let real = fs::canonicalize(path).map_err(|e| format!("cannot resolve its path: {e}"))?;
    if !roots.contain(&real) {
        return Err(format!(
            "it resolves to {}, outside the paths being linted",
            display_path(&real, None)
        ));
    }
    let meta = fs::metadata(&real).map_err(|e| format!("cannot read it: {e}"))?;
    if !meta.is_file() {
        return Err("it is no longer a regular file".into());
    }
    // The longest encoding of `before` is UTF-16 (two bytes per UTF-8 byte), then BOMs.
    let cap = before.len().saturating_mul(2).saturating_add(16);
    let read = read_at_most(&real, cap)?;
    let encoding = Encoding::of(&read);
    if read != encoding.encode(before) {
        return Err(if crate::load::decode(read).as_deref() == Ok(before) {
            "its encoding would not be written back byte for byte".into()
        } else {
            changed()
        });
    }
    let folder = real.parent().unwrap_or(Path::new("/"));
    let mut temp = tempfile::Builder::new()
        .prefix(".lblint-fix-")
        .tempfile_in(folder)
        .map_err(|e| format!("cannot create a temporary file in its folder: {e}"))?;
    temp.write_all(&encoding.encode(after))
        .map_err(|e| format!("cannot write the fixed text: {e}"))?;
    // Owner first: changing it clears set-user-ID and set-group-ID bits.
    keep_owner(temp.as_file(), &meta);
    temp.as_file()
        .set_permissions(meta.permissions())
        .and_then(|()| temp.as_file().sync_all())
        .map_err(|e| format!("cannot write the fixed text: {e}"))?;
    // Last look before the rename: an editor may have saved it while lint ran.
    if read_at_most(&real, cap)? != encoding.encode(before) {
        return Err(changed());
    }
    temp.persist(&real)
        .map_err(|e| format!("cannot replace it: {}", e.error))?;
    // The rename survives a crash only once the folder is synced; it is done either way.
    if let Ok(dir) = fs::File::open(folder) {
        let _ = dir.sync_all();
    }
    Ok(())
}

fn changed() -> String {
    "it changed on disk since it was linted; run lblint again".into()
}

/// The file's bytes; more than `cap` of them means it changed (it no longer encodes the
/// text it was linted with).
fn read_at_most(path: &Path, cap: usize) -> Result<Vec<u8>, String> {
    let file = fs::File::open(path).map_err(|e| format!("cannot read it: {e}"))?;
    let mut bytes = Vec::new();
    file.take(cap as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() > cap {
        return Err(changed());
    }
    Ok(bytes)
}

/// The new file is created by this process: give it the original's owner and group when
/// allowed (as root, or a group the user is in). Otherwise it keeps ours, as any editor's
/// save-by-rename does.
#[cfg(unix)]
fn keep_owner(file: &fs::File, original: &fs::Metadata) {
    use std::os::unix::fs::MetadataExt;
    let Ok(now) = file.metadata() else { return };
    if (now.uid(), now.gid()) != (original.uid(), original.gid()) {
        let _ = std::os::unix::fs::fchown(file, Some(original.uid()), Some(original.gid()));
    }
}

#[cfg(not(unix))]
fn keep_owner(_: &fs::File, _: &fs::Metadata) {}

#[cfg(test)]
#[path = "write_tests.rs"]
mod tests;
