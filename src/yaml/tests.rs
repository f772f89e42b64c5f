//! Loader tests: exact positions, tree access, recovery and hostile input.

// By-hand measurements print their numbers.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::time::{Duration, Instant};

use super::*;
use crate::source::{Pos, Span};

mod slim;

const HELM_MULTI: &str = include_str!("../../testdata/load/helm-multi.yaml");
const SERVICE_JSON: &str = include_str!("../../testdata/load/service.json");

fn ok(source: &str) -> LoadedFile {
    let file = load(source, &Limits::default());
    assert!(
        file.errors.is_empty(),
        "unexpected errors: {:?}",
        file.errors
    );
    file
}

/// (line, column, offset) of a position.
fn lco(p: Pos) -> (u32, u32, usize) {
    (p.line, p.column, p.offset)
}

fn root(doc: &Document) -> NodeRef<'_> {
    doc.root().expect("document has a root")
}

#[test]
fn helm_stream_positions_in_later_documents() {
    let file = ok(HELM_MULTI);
    assert_eq!(file.documents.len(), 3);
    let idx: Vec<usize> = file.documents.iter().map(|d| d.index).collect();
    assert_eq!(idx, [0, 1, 2]);

    // Document 2 (index 1).
    let d1 = &file.documents[1];
    let (k, v) = root(d1).get_entry("kind").unwrap();
    assert_eq!(lco(k.span().start), (11, 1, 290));
    assert_eq!(lco(k.span().end), (11, 5, 294));
    assert_eq!(lco(v.span().start), (11, 7, 296));
    assert_eq!(lco(v.span().end), (11, 16, 305));
    assert_eq!(v.span().slice(HELM_MULTI), "ConfigMap");
    let (k, v) = root(d1).get("data").unwrap().get_entry("key").unwrap();
    assert_eq!(lco(k.span().start), (13, 3, 314));
    assert_eq!(lco(v.span().start), (13, 8, 319));
    assert_eq!(lco(v.span().end), (13, 13, 324));

    // Document 3 (index 2), a `kind: List`.
    let d2 = &file.documents[2];
    let (k, v) = root(d2).get_entry("kind").unwrap();
    assert_eq!(lco(k.span().start), (17, 1, 380));
    assert_eq!(lco(v.span().start), (17, 7, 386));
    assert_eq!(v.as_str(), Some("List"));
    let items: Vec<_> = root(d2).get("items").unwrap().items().collect();
    assert_eq!(items.len(), 2);
    // A block mapping starts at its first key.
    assert_eq!(lco(items[0].span().start), (19, 5, 402));
    assert_eq!(lco(items[0].span().end), (22, 15, 463));
    let name = items[0].path(&["metadata", "name"]).unwrap();
    assert_eq!(name.as_str(), Some("s1"));
    assert_eq!(lco(name.span().start), (22, 13, 461));
    assert_eq!(
        items[1].get("kind").and_then(|n| n.as_str()),
        Some("ConfigMap")
    );
    // The items sequence starts at its first `-` and ends at the last content char.
    let seq = root(d2).get("items").unwrap();
    assert_eq!(lco(seq.span().start), (19, 3, 400));
    assert_eq!(seq.span().end.offset, HELM_MULTI.trim_end().len());
    // The document mapping ends with its last value, not at the next line.
    assert_eq!(root(d2).span().end.offset, HELM_MULTI.trim_end().len());
}

#[test]
fn helm_source_comments_before_and_after_separator() {
    let file = ok(HELM_MULTI);
    let texts = |d: &Document| -> Vec<String> {
        d.leading_comments
            .iter()
            .map(|c| c.text.to_string())
            .collect()
    };
    // Document 1 also gets the fixture's description line (it is before its root).
    let d0 = texts(&file.documents[0]);
    assert_eq!(d0.len(), 2);
    assert_eq!(d0[1], " Source: chart/templates/service.yaml");
    // Written before `---`.
    assert_eq!(
        texts(&file.documents[1]),
        [" Source: chart/templates/configmap.yaml"]
    );
    // Written after `---`.
    assert_eq!(
        texts(&file.documents[2]),
        [" Source: chart/templates/list.yaml"]
    );
    let c = &file.documents[2].leading_comments[0];
    assert_eq!(lco(c.span.start), (15, 1, 329));
    assert_eq!(
        c.span.slice(HELM_MULTI),
        "# Source: chart/templates/list.yaml"
    );
    assert_eq!(file.comments.len(), 4);
}

#[test]
fn multi_line_json_document() {
    let file = ok(SERVICE_JSON);
    assert_eq!(file.documents.len(), 1);
    let r = root(&file.documents[0]);
    assert_eq!(lco(r.span().start), (1, 1, 0));
    assert_eq!(lco(r.span().end), (5, 2, 106));
    let (k, v) = r.get_entry("apiVersion").unwrap();
    assert_eq!(lco(k.span().start), (2, 3, 4));
    assert_eq!(lco(k.span().end), (2, 15, 16));
    assert_eq!(k.span().slice(SERVICE_JSON), "\"apiVersion\"");
    assert_eq!(lco(v.span().start), (2, 17, 18));
    assert_eq!(v.as_string_value(), Some("v1"));
    let (k, v) = r.get_entry("kind").unwrap();
    assert_eq!(lco(k.span().start), (3, 3, 26));
    assert_eq!(lco(v.span().start), (3, 11, 34));
    assert_eq!(lco(v.span().end), (3, 20, 43));
    let spec = r.get("spec").unwrap();
    assert_eq!(lco(spec.span().start), (4, 11, 55));
    assert_eq!(lco(spec.span().end), (4, 60, 104));
    let ports = spec.get("ports").unwrap();
    assert_eq!(lco(ports.span().start), (4, 45, 89));
    assert_eq!(lco(ports.span().end), (4, 59, 103));
    let port = ports.items().next().unwrap().get("port").unwrap();
    assert_eq!(port.as_i64(), Some(80));
    assert_eq!(lco(port.span().start), (4, 55, 99));
}

#[test]
fn crlf_gives_same_lines_and_columns_as_lf() {
    let lf = "a: 1\nb:\n  - x\n  - \"y\n   z\"\nc: |\n  l1\n  l2\nd: plain\n  multi\n---\ne: [1,\n  2]\n";
    let crlf = lf.replace('\n', "\r\n");
    let (a, b) = (ok(lf), ok(&crlf));
    assert_eq!(a.documents.len(), 2);
    assert_eq!(b.documents.len(), 2);
    for (da, db) in a.documents.iter().zip(&b.documents) {
        assert_eq!(da.nodes.len(), db.nodes.len());
        for (i, (na, nb)) in da.nodes.iter().zip(&db.nodes).enumerate() {
            let strip = |s: Span| ((s.start.line, s.start.column), (s.end.line, s.end.column));
            let (sa, sb) = (da.span_of(na.extent), db.span_of(nb.extent));
            assert_eq!(strip(sa), strip(sb), "{na:?} vs {nb:?}");
            // Values are normalized: line breaks in scalars are `\n` either way.
            let id = NodeId(i as u32);
            if let (Some(sa), Some(sb)) = (da.scalar(id), db.scalar(id)) {
                assert_eq!(sa.value, sb.value);
            }
        }
    }
    let c = root(&b.documents[0]).get("c").unwrap();
    assert_eq!(c.as_str(), Some("l1\nl2\n"));
    assert_eq!(lco(c.span().start), (6, 4, 35));
    // Ends after `l2`, before its CRLF.
    assert_eq!(lco(c.span().end), (8, 5, 48));
    let e = root(&b.documents[1]).get("e").unwrap();
    assert_eq!(lco(e.span().start), (12, 4, 77));
    assert_eq!(lco(e.span().end), (13, 5, 86));
}

#[test]
fn non_ascii_columns_in_chars_offsets_in_bytes() {
    let src = "名前: 値\nkey: \"é\" # コメント\nx: [値, ü]\n";
    let file = ok(src);
    let r = root(&file.documents[0]);
    let (k, v) = r.get_entry("名前").unwrap();
    assert_eq!(lco(k.span().start), (1, 1, 0));
    assert_eq!(lco(k.span().end), (1, 3, 6));
    assert_eq!(lco(v.span().start), (1, 5, 8));
    assert_eq!(lco(v.span().end), (1, 6, 11));
    assert_eq!(v.span().slice(src), "値");
    let v = r.get("key").unwrap();
    assert_eq!(lco(v.span().start), (2, 6, 17));
    assert_eq!(lco(v.span().end), (2, 9, 21));
    let c = &file.comments[0];
    assert_eq!(c.text, " コメント");
    assert_eq!(lco(c.span.start), (2, 10, 22));
    assert_eq!(lco(c.span.end), (2, 16, 36));
    let items: Vec<_> = r.get("x").unwrap().items().collect();
    assert_eq!(lco(items[1].span().start), (3, 8, 46));
    assert_eq!(items[1].span().slice(src), "ü");
}

#[test]
fn quoted_and_plain_resolve_differently() {
    let src = "a: true\nb: \"true\"\nc: 'on'\nd: on\ne: !!str true\nf: !!int \"12\"\ng: 0644\nh: \"0644\"\ni:\nj: ~\nk: !!float 1\nl: !!bool maybe\nm: !custom 5\n";
    let file = ok(src);
    let r = root(&file.documents[0]);
    let res = |k: &str| r.get(k).unwrap().scalar().unwrap().resolved();
    assert_eq!(res("a"), Resolved::Bool(true));
    assert_eq!(res("b"), Resolved::Str);
    assert_eq!(
        r.get("b").unwrap().scalar().unwrap().style,
        Style::DoubleQuoted
    );
    assert_eq!(res("c"), Resolved::Str);
    assert_eq!(res("d"), Resolved::Bool(true));
    assert_eq!(res("e"), Resolved::Str);
    assert_eq!(r.get("e").unwrap().node().tag(), Some("!!str"));
    assert_eq!(res("f"), Resolved::Int(12));
    assert_eq!(res("g"), Resolved::Int(420));
    assert_eq!(res("h"), Resolved::Str);
    assert_eq!(r.get("h").unwrap().as_string_value(), Some("0644"));
    // An omitted value is null with empty text (granit spells it `~`).
    let i = r.get("i").unwrap();
    assert!(i.is_null());
    assert_eq!(i.as_str(), Some(""));
    assert!(i.span().is_empty());
    assert_eq!(lco(i.span().start), (9, 2, 79));
    assert!(r.get("j").unwrap().is_null());
    assert_eq!(res("k"), Resolved::Float(1.0));
    assert_eq!(res("l"), Resolved::Str);
    assert_eq!(res("m"), Resolved::Str);
    assert_eq!(r.get("m").unwrap().node().tag(), Some("!custom"));
}

#[test]
fn block_scalars() {
    let src = "lit: |\n  hello\n  world\nfold: >-\n  a\n  b\nkeep: |+ # c\n  x\n\nempty: |\nseq:\n- &s !!str |2\n   indented\nnext: x\n";
    let file = ok(src);
    let r = root(&file.documents[0]);
    let lit = r.get("lit").unwrap();
    let s = lit.scalar().unwrap();
    assert_eq!(
        (s.value, s.style, s.resolved()),
        ("hello\nworld\n", Style::Literal, Resolved::Str)
    );
    // From the `|` indicator to the last content char.
    assert_eq!(lco(lit.span().start), (1, 6, 5));
    assert_eq!(lco(lit.span().end), (3, 8, 22));
    assert_eq!(lit.span().slice(src), "|\n  hello\n  world");
    let fold = r.get("fold").unwrap();
    assert_eq!(fold.as_str(), Some("a b"));
    assert_eq!(fold.scalar().unwrap().style, Style::Folded);
    assert_eq!(fold.span().slice(src), ">-\n  a\n  b");
    let keep = r.get("keep").unwrap();
    assert_eq!(keep.as_str(), Some("x\n\n"));
    assert_eq!(keep.span().slice(src), "|+ # c\n  x");
    let empty = r.get("empty").unwrap();
    assert_eq!(empty.as_str(), Some(""));
    assert_eq!(empty.span().slice(src), "|");
    let item = r.get("seq").unwrap().items().next().unwrap();
    assert_eq!(item.as_str(), Some(" indented\n"));
    assert_eq!(item.span().slice(src), "|2\n   indented");
    assert_eq!(item.node().anchor(), Some("s"));
    assert_eq!(r.get("next").unwrap().as_str(), Some("x"));
}

#[test]
fn anchors_aliases_and_merge_keys() {
    let src = "base: &base\n  port: 80\n  name: x\nsvc:\n  <<: *base\n  name: y\nmulti:\n  <<: [*base, {extra: 1}]\nlist:\n  - &item {a: 1}\n  - *item\n";
    let file = ok(src);
    let doc = &file.documents[0];
    let r = root(doc);
    let base = r.get("base").unwrap();
    assert_eq!(base.node().anchor(), Some("base"));
    let svc = r.get("svc").unwrap();
    assert_eq!(svc.get("port").and_then(|n| n.as_i64()), Some(80));
    assert_eq!(svc.get("name").and_then(|n| n.as_str()), Some("y"));
    let multi = r.get("multi").unwrap();
    assert_eq!(multi.get("name").and_then(|n| n.as_str()), Some("x"));
    assert_eq!(multi.get("extra").and_then(|n| n.as_i64()), Some(1));
    // The alias is a reference, not a copy of the anchored subtree.
    let (_, merge) = svc.written_entries().next().unwrap();
    assert_eq!(merge.node().kind, NodeKind::Alias(Some(base.id)));
    assert_eq!(merge.span().slice(src), "*base");
    assert_eq!(lco(merge.span().start), (5, 7, 44));
    let items: Vec<_> = r.get("list").unwrap().items().collect();
    assert_eq!(items[1].get("a").and_then(|n| n.as_i64()), Some(1));
    assert!(items[1].is_mapping());
    assert_eq!(items[1].resolved().id, items[0].id);
    assert_eq!(items[0].span().slice(src), "{a: 1}");
}

#[test]
fn duplicate_keys_last_wins() {
    let file = ok("a: 1\nb: 0\na: 2\n");
    let r = root(&file.documents[0]);
    assert_eq!(r.get("a").and_then(|n| n.as_i64()), Some(2));
    assert_eq!(r.entries().count(), 3);
    assert_eq!(lco(r.get_entry("a").unwrap().0.span().start), (3, 1, 10));
}

#[test]
fn empty_documents_count_in_the_index() {
    let file = ok("---\n---\n# only a comment\n---\na: 1\n...\n");
    let idx: Vec<_> = file
        .documents
        .iter()
        .map(|d| (d.index, d.root.is_some()))
        .collect();
    assert_eq!(idx, [(0, false), (1, false), (2, true)]);
    assert_eq!(file.documents[1].leading_comments.len(), 1);
    assert_eq!(lco(file.documents[2].span.start), (4, 1, 25));
    assert!(ok("").documents.is_empty());
}

#[test]
fn broken_middle_document_is_skipped() {
    let src = "a: 1\n---\nb: c: d\n---\ne: f\n";
    let file = load(src, &Limits::default());
    assert_eq!(file.errors.len(), 1, "{:?}", file.errors);
    let e = &file.errors[0];
    assert_eq!(lco(e.span.start), (3, 5, 13));
    assert!(
        e.message.contains("mapping values are not allowed"),
        "{}",
        e.message
    );
    let docs: Vec<_> = file.documents.iter().map(|d| d.index).collect();
    assert_eq!(docs, [0, 2]);
    let (k, _) = root(&file.documents[1]).get_entry("e").unwrap();
    assert_eq!(lco(k.span().start), (5, 1, 21));
}

#[test]
fn broken_flow_and_quoted_documents_recover() {
    let src = "名前: [値, 1\nx: y\n---\nk: \"abc\n---\nok: 1\n";
    let file = load(src, &Limits::default());
    assert_eq!(file.errors.len(), 2, "{:?}", file.errors);
    assert_eq!(file.errors[0].span.start.line, 2);
    // granit points at the unterminated quote's start.
    assert_eq!(lco(file.errors[1].span.start), (4, 4, 28));
    assert_eq!(file.documents.len(), 1);
    assert_eq!(file.documents[0].index, 2);
    assert_eq!(
        root(&file.documents[0]).get("ok").unwrap().as_i64(),
        Some(1)
    );
}

#[test]
fn unknown_alias_is_an_error() {
    let src = "a: 1\n---\nx: *nope\n---\ny: 2\n";
    let file = load(src, &Limits::default());
    assert_eq!(file.errors.len(), 1);
    let e = &file.errors[0];
    assert!(e.message.contains("*nope"), "{}", e.message);
    assert_eq!(e.span.slice(src), "*nope");
    assert_eq!(lco(e.span.start), (3, 4, 12));
    assert_eq!(file.documents.len(), 2);
    // Anchors do not cross documents.
    let file = load("a: &x 1\n---\nb: *x\n", &Limits::default());
    assert_eq!(file.errors.len(), 1);
}

#[test]
fn billion_laughs_is_cheap() {
    let mut src = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for w in names.windows(2) {
        let refs = vec![format!("*{}", w[0]); 9].join(",");
        src.push_str(&format!("{}: &{} [{}]\n", w[1], w[1], refs));
    }
    // Kubernetes (go-yaml) refuses it; lblint says so at the most expanding alias,
    // without expanding anything.
    let file = load(&src, &Limits::default());
    assert!(file.documents.is_empty() && file.errors.is_empty());
    assert_eq!(file.too_complex.len(), 1);
    let bomb = &file.too_complex[0];
    assert!(bomb.rejected_by_kubernetes);
    assert!(
        bomb.message.contains("excessive aliasing"),
        "{}",
        bomb.message
    );
    assert_eq!(bomb.span.slice(&src), "*h");
    assert_eq!((bomb.span.start.line, bomb.span.start.column), (9, 8));
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    for src in [
        "[".repeat(100_000),
        "{a: ".repeat(100_000),
        format!("{}x", "- ".repeat(100_000)),
        format!("k: {}\n---\nok: 1\n", "[".repeat(100_000)),
    ] {
        let t = Instant::now();
        let file = load(&src, &Limits::default());
        assert!(t.elapsed() < Duration::from_secs(5));
        assert!(!file.errors.is_empty());
        assert!(
            file.errors[0].message.contains("nesting too deep"),
            "{:?}",
            file.errors
        );
    }
    // Right at the limit loads; one more is refused at the innermost opener.
    let limits = Limits {
        max_depth: 3,
        ..Limits::default()
    };
    assert!(load("[[[1]]]", &limits).errors.is_empty());
    let file = load("[[[[1]]]]\n---\nok: 1\n", &limits);
    assert_eq!(file.errors.len(), 1);
    assert_eq!(lco(file.errors[0].span.start), (1, 4, 3));
    assert_eq!(file.documents.len(), 1);
    assert_eq!(file.documents[0].index, 1);
}

#[test]
fn max_nodes_stops_the_file() {
    let limits = Limits {
        max_nodes: 10,
        ..Limits::default()
    };
    let file = load(
        "a: [1, 2, 3]\n---\nb: [1, 2, 3, 4, 5, 6, 7, 8, 9]\n---\nc: 1\n",
        &limits,
    );
    assert_eq!(file.documents.len(), 1);
    assert_eq!(file.errors.len(), 1);
    assert!(file.errors[0].message.contains("too many YAML nodes"));
    assert_eq!(file.errors[0].span.start.line, 3);
}

#[test]
fn never_panics_on_truncations_and_oddities() {
    let base = format!("{HELM_MULTI}\n{SERVICE_JSON}\n---\n名前: &a |\n  値\nx: *a\ny: !!int \"é\"\n? [a, b]\n: {{c: d}}\n");
    let mut cut = 0;
    while cut <= base.len() {
        let _ = load(&base[..cut], &Limits::default());
        cut += base[cut..].chars().next().map_or(1, char::len_utf8);
    }
    for src in [
        "\t",
        "\r",
        "\r\r\n",
        ":",
        "- -",
        "? ? ?",
        "&",
        "*",
        "!",
        "!<",
        "%YAML 1.1\n",
        "%FOO\n---",
        "...",
        "--- |",
        "'",
        "\"\\u00",
        "[\u{FEFF}]",
        "a: \u{FEFF}b",
        "{a: [}",
        "]",
        "@",
        "`",
        "a:\n\t- b",
        "--- >\n\u{1F600}",
    ] {
        let _ = load(src, &Limits::default());
    }
}

#[test]
fn helm_empty_template_keeps_its_source_comment() {
    let src = "---\n# Source: chart/templates/empty.yaml\n---\n# Source: chart/templates/svc.yaml\nkind: Service\n";
    let file = ok(src);
    assert_eq!(file.documents.len(), 2);
    assert!(file.documents[0].root.is_none());
    let texts: Vec<Vec<&str>> = file
        .documents
        .iter()
        .map(|d| d.leading_comments.iter().map(|c| c.text.as_str()).collect())
        .collect();
    assert_eq!(
        texts,
        [
            vec![" Source: chart/templates/empty.yaml"],
            vec![" Source: chart/templates/svc.yaml"]
        ]
    );
}

#[test]
fn tags_anchors_on_keys_and_collections_and_root_block_scalar() {
    let src = "? &k !!str key\n: !!map &m {a: 1}\nother: !!seq [x]\n*k : again\n";
    let file = ok(src);
    let r = root(&file.documents[0]);
    let (k, v) = r.entries().next().unwrap();
    assert_eq!(k.node().anchor(), Some("k"));
    assert_eq!(k.node().tag(), Some("!!str"));
    assert_eq!(lco(k.span().start), (1, 12, 11));
    assert_eq!(v.node().tag(), Some("!!map"));
    assert_eq!(v.node().anchor(), Some("m"));
    assert_eq!(v.span().slice(src), "{a: 1}");
    assert!(r.get("other").unwrap().is_sequence());
    // An alias key is found through `get` by its target's text.
    assert_eq!(r.get("key").and_then(|n| n.as_str()), Some("again"));

    let src = "--- |\n  text\n";
    let file = ok(src);
    let r = root(&file.documents[0]);
    assert_eq!(r.as_str(), Some("text\n"));
    assert_eq!(r.span().slice(src), "|\n  text");
}

#[test]
#[ignore]
fn perf_probe() {
    let mut big = String::new();
    for i in 0..50_000 {
        big.push_str(&format!("---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s{i}\n  labels: {{a: \"名前\", b: c}}\nspec:\n  ports:\n  - port: 80\n"));
    }
    let t = Instant::now();
    let n = granit_parser::Parser::new_from_str(&big).count();
    eprintln!("granit alone: {:?} {n}", t.elapsed());
    let t = Instant::now();
    let f = load(&big, &Limits::default());
    eprintln!(
        "multi-doc {} bytes: {:?}, {} docs",
        big.len(),
        t.elapsed(),
        f.documents.len()
    );
    let line = format!(
        "[{}]",
        vec!["{\"名前\": \"値\", \"x\": [1, 2]}"; 100_000].join(",")
    );
    let t = Instant::now();
    let f = load(&line, &Limits::default());
    eprintln!(
        "one line {} bytes: {:?}, {} nodes",
        line.len(),
        t.elapsed(),
        f.documents[0].nodes.len()
    );
}

#[test]
fn long_comment_blocks_are_fine() {
    let block = "# line\n".repeat(500);
    let src = format!(
        "{block}a: 1\n{block}b:\n{block}  - x\n{block}---\n{block}c: [1,\n{block} 2]\n{block}"
    );
    let file = ok(&src);
    assert_eq!(file.documents.len(), 2);
    assert_eq!(file.comments.len(), 3500);
    assert_eq!(file.documents[0].leading_comments.len(), 500);
    assert_eq!(file.documents[1].leading_comments.len(), 1000);
}

/// Every node of a 50 MB stream's kept trees is held at once: keep them small (the peak-RSS
/// target in README, "Performance").
#[test]
fn nodes_stay_small() {
    assert_eq!(std::mem::size_of::<crate::yaml::tree::Node>(), 20);
}
