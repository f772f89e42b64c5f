//! Fuzz the split parse of one stream (src/yaml/split.rs): cut at every candidate document start and
//! parsed on several threads, it must load exactly what the one-thread parse loads, or fall
//! back to it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lblint::source::SourceFile;
use lblint::yaml::{load, load_split, Limits, Split};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let limits = Limits::default();
    let file = std::sync::Arc::new(SourceFile::new("fuzz.yaml", text));
    let split = Split { threads: 8, min_chunk: 1 };
    let (parsed, _) = load_split(&file, &limits, split, &|doc, _: &mut ()| doc);
    assert_eq!(parsed.canonical_text(), load(text, &limits).canonical_text());
});
