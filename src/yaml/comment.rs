//! Comments, with their text read from the file they are written in.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::source::SourceFile;
use crate::source::Span;

/// A `# ...` comment; `text` excludes the `#`.
#[derive(Clone, Debug, PartialEq)]
pub struct Comment {
    pub span: Span,
    pub text: CommentText,
}

/// A comment's text, read from its file: granit's comment events and the fast path's are
/// the bytes from after the `#` to the line's end, as written, so a file's comments cost no
/// copies (a stream of 917,446 documents with a comment each held them twice, in the file's
/// list and as each document's leading comments: about 300 bytes a document). A text that
/// is not written so is kept whole.
#[derive(Clone)]
pub struct CommentText(At);

#[derive(Clone)]
enum At {
    /// `start..end` of the file.
    File(Arc<SourceFile>, u32, u32),
    Own(Box<str>),
}

impl CommentText {
    /// `text`, which starts at `start` of `file` when it is written there.
    pub(crate) fn new(file: &Arc<SourceFile>, start: usize, text: &str) -> CommentText {
        let end = start.saturating_add(text.len());
        let written = file.text.get(start..end) == Some(text);
        match (u32::try_from(start), u32::try_from(end)) {
            (Ok(start), Ok(end)) if written => CommentText(At::File(file.clone(), start, end)),
            _ => CommentText(At::Own(text.into())),
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        match &self.0 {
            At::File(file, start, end) => file
                .text
                .get(*start as usize..*end as usize)
                .unwrap_or_default(),
            At::Own(text) => text,
        }
    }
}

impl Deref for CommentText {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for CommentText {
    fn eq(&self, other: &CommentText) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<&str> for CommentText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Debug for CommentText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}
