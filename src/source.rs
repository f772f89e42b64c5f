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
