//! The split parse must give exactly what the one-thread parse gives.

use super::*;
use crate::source::SourceFile;
use crate::yaml::{load, Limits};

fn file(source: &str) -> Arc<SourceFile> {
    Arc::new(SourceFile::new("stream.yaml", source))
}

/// Every chunk as small as it may be: a cut at nearly every document start.
fn everywhere() -> Split {
    Split {
        threads: 64,
        min_chunk: 1,
    }
}

fn split_parse(source: &str, split: Split) -> Option<LoadedFile> {
    try_split(
        &file(source),
        &Limits::default(),
        split,
        &|doc, _: &mut ()| doc,
    )
    .map(|(f, _)| f)
}

fn assert_same(source: &str, split: LoadedFile) {
    let whole = load(source, &Limits::default());
    assert_eq!(split.canonical_text(), whole.canonical_text());
}

/// Every fixture YAML file of the repository, one stream.
fn fixture_stream() -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut files: Vec<_> = walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "yaml"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .filter(|text| !text.starts_with('\u{FEFF}') && !text.contains("\n%"))
        .collect();
    files.retain(|text| !text.starts_with('%'));
    assert!(files.len() > 100, "fixtures not found");
    files.iter().map(|text| format!("---\n{text}\n")).collect()
}

#[test]
fn fixtures_as_one_stream_parse_the_same_in_chunks() {
    let stream = fixture_stream();
    for split in [
        everywhere(),
        Split::new(2),
        Split {
            threads: 7,
            min_chunk: 4096,
        },
    ] {
        let split = Split {
            min_chunk: split.min_chunk.min(stream.len() / split.threads),
            ..split
        };
        let parsed = split_parse(&stream, split).expect("every cut is a document start");
        assert!(parsed.errors.len() > 5, "the fixtures hold syntax errors");
        assert!(!parsed.duplicate_keys.is_empty());
        assert_same(&stream, parsed);
    }
}

#[test]
fn cuts_are_line_starts_of_document_markers() {
    let text = "a: 1\n---\nb: 2\n----\nc: 3\n--- x\nd: 4\n---";
    assert_eq!(cuts(text, 64, 1), vec![5, 24, 35]);
    assert_eq!(
        cuts("%YAML 1.2\n---\na: 1\n---\nb: 1\n", 64, 1),
        Vec::<usize>::new()
    );
    assert_eq!(cuts("a: 1\n%x\n---\nb: 1\n", 64, 1), Vec::<usize>::new());
    assert_eq!(cuts("a: 1\n---\nb: 1\n", 1, 1), Vec::<usize>::new());
    assert_eq!(cuts("a: 1\n---\nb: 1\n", 2, 1 << 20), Vec::<usize>::new());
}

/// Streams where a `---` line is not where the one-thread parse starts a document, or
/// where state crosses documents: the split result (if it is used) must still match.
#[test]
fn tricky_streams_parse_the_same() {
    let streams = [
        // Inside a flow collection.
        "a: [1,\n---\n]\n---\nb: 2\n",
        // A top-level block scalar, then documents.
        "--- |\n  text\n---\nmore: 1\n--- >\nfolded\n---\nc: 3\n",
        // An alias to an anchor of the previous document.
        "a: &x 1\n---\nb: *x\n---\nc: 2\n",
        // A syntax error just before a cut, and one just after.
        "a: [\n---\nb: 1\n---\nc: 'open\n---\nd: 2\n",
        // Comments around the cut, on the marker line, and a document end marker.
        "a: 1\n# after a\n...\n# before b\n--- # on the marker\n# Source: x\nb: 2\n---\n",
        // Empty documents, with and without comments.
        "---\n---\n# only a comment\n---\na: 1\n---\n",
        // Duplicate keys in a later chunk (indexes into the kept documents).
        "a: [\n---\nk: 1\nk: 2\n---\nj: 1\nj: 2\n",
        // CRLF line ends and a marker followed by a tab.
        "a: 1\r\n---\r\nb: 2\r\n---\tc\r\n",
        // Quoted scalar running over a marker.
        "a: \"x\n---\ny\"\n---\nb: 1\n",
        // Non-ASCII before and after cuts.
        "é: ü\n---\nñ: 1\n---\n字: 2\n",
    ];
    for stream in streams {
        let Some(parsed) = split_parse(stream, everywhere()) else {
            continue;
        };
        assert_same(stream, parsed);
    }
    // The plain ones do split.
    assert!(split_parse(streams[1], everywhere()).is_some());
    assert!(split_parse(streams[4], everywhere()).is_some());
}

#[test]
fn load_split_falls_back_to_one_thread() {
    let stream = "a: [1,\n---\n]\n---\nb: 2\n";
    let (parsed, states) = load_split(
        &file(stream),
        &Limits::default(),
        everywhere(),
        &|doc, seen: &mut usize| {
            *seen += 1;
            doc
        },
    );
    assert_same(stream, parsed.clone());
    assert_eq!(states.iter().sum::<usize>(), parsed.documents.len());
}

#[test]
fn whole_file_limits_count_over_every_chunk() {
    let stream = "a: 1\n---\nb: 1\n---\nc: 1\n";
    let stream_file = file(stream);
    // 6 nodes in all, 2 per chunk: the one-thread parse stops at the fifth.
    let limits = Limits {
        max_nodes: 4,
        ..Limits::default()
    };
    let split = try_split(&stream_file, &limits, everywhere(), &|doc, _: &mut ()| doc);
    assert!(split.is_none());
    let (parsed, _) = load_split(&stream_file, &limits, everywhere(), &|doc, _: &mut ()| doc);
    assert_eq!(
        parsed.canonical_text(),
        load(stream, &limits).canonical_text()
    );
    assert_eq!(parsed.errors.len(), 1);
}
