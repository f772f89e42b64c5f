//! Loading a YAML stream: the entry points. The limits and the result (documents, syntax
//! errors, repeated keys) are in [`super::types`]. The tree itself is built in [`super::builder`].

use super::builder::Builder;
use super::tree::Document;
use super::types::{Limits, LoadedFile};

/// Parse a YAML stream (BOM already stripped). Never panics. The documents keep a copy of
/// the text (their nodes' positions are offsets into it): for small texts, such as the
/// profile; a loader of files uses [`load_file`].
pub fn load(source: &str, limits: &Limits) -> LoadedFile {
    load_with(source, limits, &mut |doc| doc)
}

/// Like [`load`], handing each document to `finish` as soon as it is complete, so a caller
/// can slim it (or keep what it needs) before the next one is parsed: memory then follows
/// what is kept, not the whole stream.
pub(crate) fn load_with(
    source: &str,
    limits: &Limits,
    finish: &mut dyn FnMut(Document) -> Document,
) -> LoadedFile {
    let file = std::sync::Arc::new(crate::source::SourceFile::new("", source));
    load_file(&file, limits, finish)
}

/// Like `load_with`, for the text of `file`, which the documents share.
pub fn load_file(
    file: &std::sync::Arc<crate::source::SourceFile>,
    limits: &Limits,
    finish: &mut dyn FnMut(Document) -> Document,
) -> LoadedFile {
    let whole = super::builder::Chunk::whole(file.text.len());
    let mut builder = Builder::new(file, limits, finish, whole);
    builder.run();
    if !builder.needs_granit() {
        return builder.finish();
    }
    // Rare (see `builder/hybrid.rs`): `finish` sees some documents a second time.
    builder.abandon();
    let mut builder = Builder::new(file, limits, finish, whole);
    builder.granit_only();
    builder.run();
    builder.finish()
}

/// granit alone, without the fast path: what the fast path is checked against (tests and
/// the `fast` fuzz target).
#[doc(hidden)]
pub fn load_granit_only(
    file: &std::sync::Arc<crate::source::SourceFile>,
    limits: &Limits,
) -> LoadedFile {
    let whole = super::builder::Chunk::whole(file.text.len());
    let mut finish = |doc| doc;
    let mut builder = Builder::new(file, limits, &mut finish, whole);
    builder.granit_only();
    builder.run();
    builder.finish()
}
