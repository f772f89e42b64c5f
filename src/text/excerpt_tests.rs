use miette::{SourceCode, SourceSpan};

use super::*;
use crate::source::LineIndex;

fn line_starts(text: &str) -> LineIndex {
    LineIndex::new(text)
}

/// The excerpt of `text` for `spans`, with each mapped span's text in it.
fn excerpt(text: &str, spans: &[(usize, usize)]) -> (Excerpt, Vec<String>) {
    let (excerpt, mapped) = Excerpt::new(text, &line_starts(text), spans);
    let shown = mapped
        .iter()
        .map(|s| excerpt.text()[s.offset()..s.offset() + s.len()].to_string())
        .collect();
    (excerpt, shown)
}

fn span_of(text: &str, needle: &str) -> (usize, usize) {
    let start = text.find(needle).unwrap_or_else(|| panic!("{needle:?}"));
    (start, start + needle.len())
}

/// (0-based first line, text) of the snippet miette would draw for `span`.
fn snippet(excerpt: &Excerpt, span: SourceSpan) -> (usize, String) {
    let contents = excerpt.read_span(&span, 1, 1).unwrap();
    (
        contents.line(),
        String::from_utf8(contents.data().to_vec()).unwrap(),
    )
}

#[test]
fn short_lines_are_quoted_whole_with_one_line_of_context() {
    let text = "a: 1\nb: 2\nkind: Service\nc: 3\nd: 4\n";
    let (excerpt, shown) = excerpt(text, &[span_of(text, "Service")]);
    assert_eq!(excerpt.text(), "b: 2\nkind: Service\nc: 3\n");
    assert_eq!(shown, ["Service"]);
    let (_, spans) = Excerpt::new(text, &line_starts(text), &[span_of(text, "Service")]);
    assert_eq!(snippet(&excerpt, spans[0]), (1, excerpt.text().to_string()));
}

#[test]
fn distant_labels_get_separate_blocks_with_real_line_numbers() {
    let mut text = String::new();
    for i in 1..=200_000 {
        text.push_str(&format!("k{i}: v\n"));
    }
    let (first, last) = (span_of(&text, "k2: v"), span_of(&text, "k199999: v"));
    let (excerpt, shown) = excerpt(&text, &[last, first]);
    assert_eq!(shown, ["k199999: v", "k2: v"]);
    // Six lines, not the file: miette scans only this.
    assert_eq!(
        excerpt.text(),
        "k1: v\nk2: v\nk3: v\nk199998: v\nk199999: v\nk200000: v\n"
    );
    let (_, spans) = Excerpt::new(&text, &line_starts(&text), &[last, first]);
    assert_eq!(snippet(&excerpt, spans[0]).0, 199_997);
    assert_eq!(
        snippet(&excerpt, spans[1]),
        (0, "k1: v\nk2: v\nk3: v\n".into())
    );
}

#[test]
fn a_label_far_into_a_long_line_is_shown_in_a_window() {
    let text = format!(
        "{{\"pad\": \"{}\", \"scrape\": true}}\n",
        "x".repeat(1 << 20)
    );
    let (excerpt, shown) = excerpt(&text, &[span_of(&text, "true")]);
    assert_eq!(shown, ["true"]);
    let expected = format!("…{}\", \"scrape\": true}}\n", "x".repeat(27));
    assert_eq!(excerpt.text(), expected);
}

#[test]
fn a_label_near_the_start_of_a_long_line_has_no_leading_ellipsis() {
    let text = format!("key: {}\n", "y".repeat(100_000));
    let (excerpt, shown) = excerpt(&text, &[(0, 3)]);
    assert_eq!(shown, ["key"]);
    assert_eq!(excerpt.text(), format!("key: {}…\n", "y".repeat(38)));
}

#[test]
fn a_huge_label_is_cut_after_its_first_characters() {
    let text = format!("v: \"{}\"\n", "z".repeat(100_000));
    let (excerpt, shown) = excerpt(&text, &[(3, text.len() - 1)]);
    // 80 label characters, then 40 more of context before the cut, which the label runs into.
    assert_eq!(shown[0], format!("\"{}…", "z".repeat(119)));
    assert_eq!(excerpt.text(), format!("v: \"{}…\n", "z".repeat(119)));
}

#[test]
fn labels_far_apart_on_one_line_get_one_window_each() {
    let text = format!(
        "{{\"a\": 1, \"pad\": \"{}\", \"b\": 2}}",
        "é".repeat(50_000)
    );
    let (excerpt, shown) = excerpt(&text, &[span_of(&text, "\"b\""), span_of(&text, "\"a\"")]);
    assert_eq!(shown, ["\"b\"", "\"a\""]);
    let expected = format!(
        "{{\"a\": 1, \"pad\": \"{}…{}\", \"b\": 2}}",
        "é".repeat(27),
        "é".repeat(37)
    );
    assert_eq!(excerpt.text(), expected);
    assert!(excerpt.text().chars().count() < 200);
}

#[test]
fn context_lines_that_are_long_show_their_head() {
    let text = format!("{}\nkind: Service\n", "c".repeat(10_000));
    let (excerpt, _) = excerpt(&text, &[span_of(&text, "Service")]);
    assert_eq!(
        excerpt.text(),
        format!("{}…\nkind: Service\n", "c".repeat(80))
    );
}

#[test]
fn controls_are_escaped_and_spans_follow_the_escapes() {
    let text = "name: \"a\u{1b}[2J\u{202e}b\"\r\nnext: x\rlone\n";
    let (excerpt, shown) = excerpt(text, &[span_of(text, "b\""), span_of(text, "x")]);
    assert_eq!(shown, ["b\"", "x"]);
    assert_eq!(
        excerpt.text(),
        "name: \"a\\u{1b}[2J\\u{202e}b\"\nnext: x\nlone\n"
    );
}

#[test]
fn spans_at_line_ends_and_past_the_text_stay_in_range() {
    let text = "kind: Service\nspec:";
    let end = text.len();
    let (excerpt, shown) = excerpt(text, &[(end, end), (999, 1999), (5, 14)]);
    assert_eq!(shown, ["", "", " Service\n"]);
    assert_eq!(excerpt.text(), text);
}

#[test]
fn a_label_over_many_lines_is_drawn_over_its_first_lines() {
    let text: String = (1..=10_000).map(|i| format!("k{i}: v\n")).collect();
    let (excerpt, shown) = excerpt(&text, &[(0, text.len())]);
    let first: String = (1..=8).map(|i| format!("k{i}: v\n")).collect();
    assert_eq!(shown, [first.trim_end()]);
    assert_eq!(excerpt.text(), format!("{first}k9: v\n"));
}
