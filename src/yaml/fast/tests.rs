//! The fast path against granit, event by event.

// By-hand measurements print their numbers.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use granit_parser::{Event, Options, Parser};

use super::{Doc, FastParser, Sink};

/// Keeps what it is sent.
#[derive(Default)]
struct Collect<'s>(Vec<(Event<'s>, usize, usize)>);

impl<'s> Sink<'s> for Collect<'s> {
    fn event(&mut self, event: Event<'s>, start: usize, end: usize) -> bool {
        self.0.push((event, start, end));
        true
    }
}

/// Non-comment events and comments (in source order), as comparable text.
type Events = (Vec<String>, Vec<String>);

fn describe(event: &Event<'_>, start: usize, end: usize, into: &mut Events) {
    match event {
        Event::StreamStart | Event::StreamEnd => {}
        Event::Comment(text, _) => into.1.push(format!("{start}..{end} {text:?}")),
        other => into.0.push(format!("{start}..{end} {other:?}")),
    }
}

fn granit_events(text: &str) -> Events {
    let mut options = Options::default();
    options.emit_comments = true;
    options.emit_anchor_events = true;
    options.max_buffered_comment_events = usize::MAX;
    let mut parser = Parser::new_from_str_with_options(text, options);
    let mut out = Events::default();
    while let Some(next) = parser.next_event() {
        let (event, span) = next.expect("test input is valid YAML");
        let offset = |m: &granit_parser::Marker| m.byte_offset().expect("granit gives bytes");
        describe(&event, offset(&span.start), offset(&span.end), &mut out);
    }
    out.1
        .sort_by_key(|c| c.split("..").next().and_then(|n| n.parse::<usize>().ok()));
    out
}

/// The fast path's events for the whole text, or the offset of the first document it
/// leaves to granit.
pub(in crate::yaml) fn fast_events(text: &str) -> Result<Events, usize> {
    let mut out = Events::default();
    let mut at = 0;
    loop {
        let mut sink = Collect::default();
        let doc = FastParser::new(text, text.len(), &mut sink).document(at);
        for (event, start, end) in &sink.0 {
            describe(event, *start, *end, &mut out);
        }
        match doc {
            Doc::End => break,
            Doc::Parsed { next } => at = next,
            Doc::Unsupported => return Err(at),
        }
    }
    out.1
        .sort_by_key(|c| c.split("..").next().and_then(|n| n.parse::<usize>().ok()));
    Ok(out)
}

#[track_caller]
fn same_as_granit(text: &str) {
    let fast = fast_events(text).unwrap_or_else(|at| panic!("left to granit at {at}: {text:?}"));
    assert_eq!(fast, granit_events(text), "{text:?}");
}

#[test]
fn manifests_read_as_granit_reads_them() {
    let texts = [
        "a: 1\n",
        "a: 1",
        "# lead\n\na: 1\n",
        "a:\nb: 1\nc:\n",
        "a:\n  b:\n    c: 1\n  d: 2\n# end\n",
        "a: 1\nb:\n  c: x # hi\n  d: [1, \"q\"]\n# top\ne:\n- x\n- k: v\n  m: |\n    line1\n\n    line2\n\nf: >-\n  fold\n  ed\n",
        "- a\n- - b\n  - c\n-\n- k: v\n  j: 2\n",
        "---\n- a\n- b\n",
        "---\n# c\n---\na: 1\n",
        "--- # x\n\n---\n\n# tail\n",
        "a:\n  - x\n  - y\nb: 'it''s'\nc: \"q\\n\\u00e9\\\"\"\n",
        "key: value   # trailing   \n",
        "a: |\n  x\n  y\nb: |-\n  z\n\nc: |+\n  w\n\n",
        "a: [ ]\nb: { a: 1, b: [x, \"y\"], 'c': {} }\n",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n    a.b/c: \"true\"\nspec:\n  type: LoadBalancer\n  ports:\n  - port: 80\n    targetPort: http\n",
        "a:\n  b: >\n    one\n    two\n\n    three\n  c: 1\n",
        "url: http://x:80/a#b\nneg: -1\nflag: --x=1\nempty: ''\n",
        "a: é日本\n# ü\n",
        "---\na: 1\n---\nb: 2\n",
        "a: multi\n  line\n",
        "a: \"multi\n  line\"\n",
        "a: one\n\n  two\n   three # c\nb:\n  - x\n    y\n  - k: v\n      w\n",
        "d: 'it''s\n  long  \n\n   text'\ne: \"esc \\\n    aped\\n\\\n  \\ x\"\n",
        "- \"a\n  b\"\n- c\n",
        "a: x\n  {k,v} y\n  - z *b &c !d |e >f %g @h `i ?j\n",
    ];
    for text in texts {
        same_as_granit(text);
    }
}

#[test]
fn the_rest_is_left_to_granit() {
    let texts = [
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "a:\tb\n",
        "\"multi\n key\": 1\n",
        "a:\n  b: \"x\n  y\"\n",
        "a: x\n  y: z\n",
        "a: 1\r\nb: 2\r\n",
        "? a\n: b\n",
        "a: [1,\n  2]\n",
        "%YAML 1.2\n---\na: 1\n",
        "a: 1\n...\n",
        "a: |2\n   x\n",
        "a: \u{85}\n",
        "# c\u{7f}\n",
        "a: b: c\n",
        "- a\nb: 1\n",
    ];
    for text in texts {
        assert!(fast_events(text).is_err(), "{text:?}");
    }
    // granit refuses implicit keys over 1024 characters.
    let long = |n: usize| format!("{}: 1\n", "k".repeat(n));
    assert!(fast_events(&long(1025)).is_err());
    same_as_granit(&long(1024));
    let flow = |n: usize| format!("a: {{{}: v}}\n", "k".repeat(n));
    assert!(fast_events(&flow(1025)).is_err());
    same_as_granit(&flow(1024));
}

/// The same load with and without the fast path; with it, the same events as granit when
/// it read every document. Returns the bytes the fast path read.
fn check_file(path: &std::path::Path) -> Result<usize, String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(0);
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let file = std::sync::Arc::new(crate::source::SourceFile::new("t", text));
    let limits = crate::yaml::Limits::default();
    let hybrid = crate::yaml::load_file(&file, &limits, &mut |doc| doc).canonical_text();
    let granit = crate::yaml::load_granit_only(&file, &limits).canonical_text();
    if hybrid != granit {
        return Err(format!("{}: loads differ", path.display()));
    }
    let (mut at, mut fast_bytes) = (0, 0);
    loop {
        match FastParser::new(text, text.len(), &mut Collect::default()).document(at) {
            Doc::Parsed { next } => {
                fast_bytes += next - at;
                at = next;
            }
            Doc::End => break,
            Doc::Unsupported => return Ok(fast_bytes),
        }
    }
    if fast_events(text).ok() != Some(granit_events(text)) {
        return Err(format!("{}: events differ", path.display()));
    }
    Ok(fast_bytes)
}

fn yaml_files(dir: &std::path::Path, into: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            yaml_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            into.push(path);
        }
    }
}

fn check_tree(dirs: &[std::path::PathBuf]) -> (usize, usize, Vec<String>) {
    let mut files = Vec::new();
    for dir in dirs {
        yaml_files(dir, &mut files);
    }
    files.sort();
    let (mut total, mut fast, mut failures) = (0, 0, Vec::new());
    for path in &files {
        total += std::fs::metadata(path).map_or(0, |m| m.len() as usize);
        match check_file(path) {
            Ok(bytes) => fast += bytes,
            Err(e) => failures.push(e),
        }
    }
    (total, fast, failures)
}

#[test]
fn the_repository_s_yaml_loads_the_same_with_the_fast_path() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let (total, fast, failures) = check_tree(&[root.join("testdata"), root.join("examples")]);
    assert!(failures.is_empty(), "{failures:#?}");
    // Most of the fixtures are in the subset; a drop here means the fast path stopped
    // reading what it used to.
    assert!(fast * 2 > total, "fast path read {fast} of {total} bytes");
}

/// By hand, over any directory of real manifests:
/// `LBLINT_FAST_CORPUS=<dir> cargo test --release fast_corpus -- --ignored`.
#[test]
#[ignore]
fn fast_corpus() {
    let dir = std::env::var("LBLINT_FAST_CORPUS").expect("LBLINT_FAST_CORPUS");
    let (total, fast, failures) = check_tree(&[dir.into()]);
    println!("fast path read {fast} of {total} bytes");
    assert!(failures.is_empty(), "{failures:#?}");
}

/// By hand: why documents of a stream go to granit, most common first.
#[test]
#[ignore]
fn fast_reasons() {
    let path = std::env::var("LBLINT_FAST_FILE").expect("LBLINT_FAST_FILE");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut reasons: std::collections::BTreeMap<String, (usize, usize, usize)> = Default::default();
    let (mut at, mut fast, mut slow) = (0, 0, 0);
    while at < text.len() {
        let next =
            super::super::split::next_marker_line(text.as_bytes(), at + 1).unwrap_or(text.len());
        let mut sink = Collect::default();
        match FastParser::new(&text, text.len(), &mut sink).read_document(at) {
            Ok(Some(n)) => {
                fast += n - at;
                at = n;
                continue;
            }
            Ok(None) => break,
            Err(super::Unsupported(loc)) => {
                slow += next - at;
                let entry = reasons
                    .entry(format!("{}:{}", loc.file(), loc.line()))
                    .or_insert((0, 0, at));
                entry.0 += 1;
                entry.1 += next - at;
            }
        }
        at = next;
    }
    let mut sorted: Vec<_> = reasons.into_iter().collect();
    sorted.sort_by_key(|(_, (_, bytes, _))| std::cmp::Reverse(*bytes));
    println!("fast {fast} bytes, granit {slow} bytes");
    for (loc, (docs, bytes, first)) in sorted.iter().take(15) {
        println!(
            "{loc}: {docs} documents, {bytes} bytes; first at {first}: {:?}",
            &text[*first..(*first + 300).min(text.len())]
        );
    }
}

/// Documents the fast path gives up on part way (after sending events and comments) are
/// forgotten and read again by granit, between documents it reads, on one thread or split.
#[test]
fn documents_given_up_part_way_load_as_granit_loads_them() {
    let text = "# head\na: 1\n---\n# one\nb:\n  c: 1 # two\n  d: &x 2\n  e: *x\n---\nf: [1]\n\
                ---\ng:\n  - h # three\n  - i:\tj\n---\nk: |\n  l\n---\n# tail\u{7f}\n";
    let file = std::sync::Arc::new(crate::source::SourceFile::new("t", text));
    let limits = crate::yaml::Limits::default();
    let granit = crate::yaml::load_granit_only(&file, &limits).canonical_text();
    let hybrid = crate::yaml::load_file(&file, &limits, &mut |doc| doc);
    assert_eq!(hybrid.canonical_text(), granit);
    // granit accepts the tab after `i:` and rejects the DEL in the last comment.
    assert_eq!(
        (hybrid.documents.len(), hybrid.errors.len()),
        (5, 1),
        "{granit}"
    );
    let comments: Vec<_> = hybrid.comments.iter().map(|c| c.text.as_str()).collect();
    // granit stops at the tail's DEL, an error in a comment it does not emit.
    assert_eq!(comments, [" head", " one", " two", " three"], "{granit}");
    let split = crate::yaml::Split {
        threads: 4,
        min_chunk: 1,
    };
    let (parsed, _) = crate::yaml::load_split(&file, &limits, split, &|doc, _: &mut ()| doc);
    assert_eq!(parsed.canonical_text(), granit);
}

/// Inputs the `fast` fuzz target found: loaded with the fast path, on one thread and split
/// at every `---` line, they must load as granit alone loads them.
#[test]
fn fuzz_finds_load_as_granit_loads_them() {
    let texts = [
        // A comment with a DEL in it, and nothing else: granit's error, not a comment.
        "# c\u{7f}\0\0\0C\n",
        // A chunk's fast path read past its end into the next chunk's first document.
        "# !SCII A{(ma.\n---   # B - \th-\nere\n!m!m!light fluc",
        // granit starts the implicit first document at the `---` after an empty root `>`:
        // that start is not the next chunk's.
        ">\n--- ,\n...\n]\n\n>\n-\nN ---\n  \t \n",
    ];
    let limits = crate::yaml::Limits::default();
    let split = crate::yaml::Split {
        threads: 4,
        min_chunk: 1,
    };
    for text in texts {
        let file = std::sync::Arc::new(crate::source::SourceFile::new("t", text));
        let granit = crate::yaml::load_granit_only(&file, &limits).canonical_text();
        let hybrid = crate::yaml::load_file(&file, &limits, &mut |doc| doc);
        assert_eq!(hybrid.canonical_text(), granit, "{text:?}");
        let (parsed, _) = crate::yaml::load_split(&file, &limits, split, &|doc, _: &mut ()| doc);
        assert_eq!(parsed.canonical_text(), granit, "{text:?}");
    }
}

/// Over the memory budget only because the fast path built a document granit stops in at
/// once (a DEL in its first comment): granit alone decides, and keeps the file.
#[test]
fn the_budget_is_granit_s_to_judge() {
    let mut text = String::from("# bad \u{7f}\n");
    for i in 0..60_000 {
        text.push_str(&format!("k{i}: v\n"));
    }
    let file = std::sync::Arc::new(crate::source::SourceFile::new("t", text));
    let limits = || crate::yaml::Limits {
        budget: Some(std::sync::Arc::new(crate::yaml::MemoryBudget::new(1 << 20))),
        ..crate::yaml::Limits::default()
    };
    let granit = crate::yaml::load_granit_only(&file, &limits());
    assert_eq!((granit.over_budget, granit.errors.len()), (None, 1));
    let hybrid = crate::yaml::load_file(&file, &limits(), &mut |doc| doc);
    assert_eq!(hybrid.canonical_text(), granit.canonical_text());
}
