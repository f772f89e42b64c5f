//! Source files as read by the walk, shared by every later stage.

use std::collections::BTreeMap;
use std::sync::Arc;

/// One input file's text (BOM stripped, otherwise as on disk).
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Path as shown to the user: relative to the working directory when possible, `/`-separated.
    pub path: Arc<str>,
    pub text: String,
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
    /// Line and column (1-based, column in chars) of a byte offset.
    pub fn pos_at(&self, offset: usize) -> crate::yaml::Pos {
        let offset = offset.min(self.text.len());
        let before = &self.text[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        crate::yaml::Pos {
            line: before.matches('\n').count() as u32 + 1,
            column: before[line_start..].chars().count() as u32 + 1,
            offset,
        }
    }
}
