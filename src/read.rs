//! Reading input files without blocking or unbounded memory.
//!
//! A FIFO blocks `open` until a writer comes, and `/dev/zero` never ends: only regular
//! files are read. The type is checked before opening (no open at all for anything else)
//! and again on the open handle, which is opened non-blocking so that a file swapped for a
//! FIFO in between cannot block either. Reads stop one byte past the size limit.

use std::fmt;
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

#[derive(Debug)]
pub enum ReadError {
    /// Not a regular file; the kind, e.g. "a named pipe (FIFO)".
    NotRegular(&'static str),
    TooLarge {
        len: u64,
        limit: u64,
    },
    Io(std::io::Error),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotRegular(kind) => write!(f, "it is {kind}, not a regular file"),
            ReadError::TooLarge { len, limit } => {
                write!(f, "it is {len} bytes, over the limit of {limit} bytes")
            }
            ReadError::Io(e) => write!(f, "cannot read: {e}"),
        }
    }
}

/// What kind of file this is, when it is not a regular file.
pub fn irregular_kind(meta: &Metadata) -> Option<&'static str> {
    let kind = meta.file_type();
    if kind.is_file() {
        return None;
    }
    if kind.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return Some("a named pipe (FIFO)");
        }
        if kind.is_socket() {
            return Some("a socket");
        }
        if kind.is_char_device() {
            return Some("a character device");
        }
        if kind.is_block_device() {
            return Some("a block device");
        }
    }
    Some("not a regular file")
}

/// Read a regular file (following symbolic links) of at most `limit` bytes.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let meta = std::fs::metadata(path).map_err(ReadError::Io)?;
    if let Some(kind) = irregular_kind(&meta) {
        return Err(ReadError::NotRegular(kind));
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge {
            len: meta.len(),
            limit,
        });
    }
    let file = open_nonblocking(path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if let Some(kind) = irregular_kind(&meta) {
        return Err(ReadError::NotRegular(kind));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len().min(limit)).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    match bytes.len() as u64 {
        len if len > limit => Err(ReadError::TooLarge { len, limit }),
        _ => Ok(bytes),
    }
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    // Regular files ignore O_NONBLOCK; it only keeps a FIFO's open from waiting.
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn special_files_are_refused_without_opening_them() {
        assert!(matches!(
            read_regular(Path::new("/dev/zero"), 10),
            Err(ReadError::NotRegular("a character device"))
        ));
        assert!(matches!(
            read_regular(Path::new("/"), 10),
            Err(ReadError::NotRegular("a directory"))
        ));
    }

    #[test]
    fn regular_files_are_read_up_to_the_limit() {
        let path = std::env::temp_dir().join(format!("lblint-read-{}", std::process::id()));
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_regular(&path, 10).unwrap(), b"0123456789");
        assert!(matches!(
            read_regular(&path, 9),
            Err(ReadError::TooLarge { len: 10, limit: 9 })
        ));
        let _ = std::fs::remove_file(&path);
    }
}
