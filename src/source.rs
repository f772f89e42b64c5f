//! Source files as read by the walk, shared by every later stage.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

/// One input file's text (BOM stripped, otherwise as on disk).
#[derive(Clone, Debug, Default)]
pub struct SourceFile {
    /// Path as shown to the user: relative to the working directory when possible, `/`-separated.
    pub path: Arc<str>,
    pub text: String,
    /// Byte offset of each line start, built on the first [`SourceFile::pos_at`]; leave it
    /// empty (`Default::default()`, or use [`SourceFile::new`]).
    pub line_starts: OnceLock<Vec<usize>>,
}

/// Texts by displayed path, for reporters that print snippets.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: BTreeMap<Arc<str>, Arc<SourceFile>>,
}

impl SourceMap {
    pub fn insert(&mut self, file: Arc<SourceFile>) {
        self.files.insert(file.path.clone(), file);
    }

    pub fn get(&self, path: &str) -> Option<&Arc<SourceFile>> {
        self.files.get(path)
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

impl SourceFile {
    pub fn new(path: impl Into<Arc<str>>, text: impl Into<String>) -> SourceFile {
        SourceFile {
            path: path.into(),
            text: text.into(),
            line_starts: OnceLock::new(),
        }
    }

    /// Byte offset of each line start (lines end at `\n`), built once per file on first use:
    /// every later position lookup and snippet is a binary search, never a rescan.
    pub fn line_starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| line_starts(&self.text))
    }

    /// Line and column (1-based, column in chars) of a byte offset. Lines end at `\n`.
    /// O(log lines + line length): rules call it once per finding, and a stream can hold
    /// hundreds of thousands of findings.
    pub fn pos_at(&self, offset: usize) -> crate::yaml::Pos {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let starts = self.line_starts();
        let line = starts.partition_point(|&s| s <= offset) - 1;
        let line_start = starts[line];
        crate::yaml::Pos {
            line: u32::try_from(line + 1).unwrap_or(u32::MAX),
            column: u32::try_from(self.text[line_start..offset].chars().count() + 1)
                .unwrap_or(u32::MAX),
            offset,
        }
    }
}

/// Byte offset of each line start in `text`: 0, then one past every `\n`.
pub fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}
