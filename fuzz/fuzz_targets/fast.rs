//! Fuzz the fast path (src/yaml/fast/): whatever the input, loading a stream with the fast path
//! (on one thread, and split on several) must give exactly what granit alone gives.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lblint::source::SourceFile;
use lblint::yaml::{load_file, load_granit_only, load_split, Limits, Split};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let limits = Limits::default();
    let file = std::sync::Arc::new(SourceFile::new("fuzz.yaml", text));
    let granit = load_granit_only(&file, &limits).canonical_text();
    assert_eq!(load_file(&file, &limits, &mut |doc| doc).canonical_text(), granit);
    let split = Split { threads: 4, min_chunk: 1 };
    let (parsed, _) = load_split(&file, &limits, split, &|doc, _: &mut ()| doc);
    assert_eq!(parsed.canonical_text(), granit);
});
