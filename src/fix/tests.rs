//! Fix planning: conflicts, order, and linear work.

use super::*;
use crate::diagnostic::{Edit, Fix, Severity};
use crate::source::Location;
use crate::source::SourceFile;
use crate::source::{Pos, Span};

fn span(start: usize, end: usize) -> Span {
    let pos = |offset| Pos {
        line: 1,
        column: offset as u32 + 1,
        offset,
    };
    Span {
        start: pos(start),
        end: pos(end),
    }
}

fn diagnostic(edits: Vec<(usize, usize, &str)>, applicability: Applicability) -> Diagnostic {
    Diagnostic::new(
        "T001",
        "t",
        Severity::Error,
        Location {
            file: Arc::from("f.yaml"),
            span: span(0, 0),
        },
        "m",
    )
    .with_fix(Fix {
        description: "f".into(),
        applicability,
        edits: edits
            .into_iter()
            .map(|(s, e, c)| Edit {
                span: span(s, e),
                content: c.to_string(),
            })
            .collect(),
    })
}

fn sources(text: &str) -> SourceMap {
    let mut map = SourceMap::default();
    map.insert(Arc::new(SourceFile::new("f.yaml", text)));
    map
}

#[test]
fn applies_non_overlapping_edits_back_to_front() {
    let map = sources("a: true\nb: 1\n");
    let ds = vec![
        diagnostic(vec![(3, 7, "\"true\"")], Applicability::Safe),
        diagnostic(vec![(11, 12, "\"1\"")], Applicability::Safe),
        // Overlaps the first: waits for the next round.
        diagnostic(vec![(5, 7, "x")], Applicability::Safe),
    ];
    let plan = plan(&ds, &map, false);
    assert_eq!(plan.fixed(), 2);
    assert_eq!(plan.files["f.yaml"].0, "a: \"true\"\nb: \"1\"\n");
}

/// The pairwise planner this module used before sort-and-sweep, as an oracle: which
/// fixes it accepts, and the text it makes.
fn pairwise_plan(ds: &[Diagnostic], text: &str) -> (Vec<usize>, String) {
    let mut found: Vec<(usize, &Diagnostic)> = ds.iter().enumerate().collect();
    found.sort_by_key(|(_, d)| d.fix().unwrap().edits().next().unwrap().span.start.offset);
    let mut accepted: Vec<(usize, usize, &str)> = Vec::new();
    let mut applied = Vec::new();
    for (index, d) in found {
        let edits: Vec<(usize, usize, &str)> = d
            .fix()
            .unwrap()
            .edits()
            .map(|e| (e.span.start.offset, e.span.end.offset, e.content))
            .collect();
        let conflicts = edits.iter().any(|&(start, end, _)| {
            accepted
                .iter()
                .any(|&(a_start, a_end, _)| (start < a_end && a_start < end) || start == a_start)
        });
        if !conflicts {
            accepted.extend(edits);
            applied.push(index);
        }
    }
    accepted.sort_by_key(|&(start, end, _)| std::cmp::Reverse((start, end)));
    let mut new_text = text.to_string();
    for (start, end, content) in accepted {
        new_text.replace_range(start..end, content);
    }
    (applied, new_text)
}

/// Random fixes of one or two edits (inserts, short and long replacements) that pile up
/// on a small text, so most conflict: the same accepted set and text as the oracle.
#[test]
fn sort_and_sweep_accepts_what_the_pairwise_check_accepted() {
    let text: String = (0..400)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let map = sources(&text);
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |bound: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % bound as u64) as usize
    };
    for _ in 0..50 {
        let mut ds = Vec::new();
        for i in 0..120 {
            let start = next(text.len());
            let end = (start + [0, 1, 3, 20][next(4)]).min(text.len());
            let mut edits = vec![(start, end, "X")];
            // A second edit past the first, so a fix never conflicts with itself.
            if next(3) == 0 && end + 2 < text.len() {
                let second = end + 1 + next(text.len() - end - 1);
                edits.push((second, second, "Y"));
            }
            let d = diagnostic(edits, Applicability::Safe);
            ds.push(d.with_message(i.to_string()));
        }
        let (applied, expected) = pairwise_plan(&ds, &text);
        let got = plan(&ds, &map, false);
        assert_eq!(got.applied, applied);
        assert_eq!(got.files["f.yaml"].0, expected);
        assert_eq!(got.fixed(), applied.len());
    }
}

#[test]
fn a_fix_whose_own_edits_overlap_is_not_applied() {
    let map = sources("a: true\n");
    let ds = vec![diagnostic(
        vec![(3, 7, "x"), (5, 6, "y")],
        Applicability::Safe,
    )];
    assert_eq!(plan(&ds, &map, false).fixed(), 0);
    let ds = vec![diagnostic(
        vec![(3, 3, "x"), (3, 7, "y")],
        Applicability::Safe,
    )];
    assert_eq!(plan(&ds, &map, false).fixed(), 0);
}

/// 20,000 quoting fixes in one file (the K8S002 shape): all applied, and the conflict
/// check does a bounded number of lookups per edit, not one per accepted edit.
#[test]
fn twenty_thousand_fixes_take_linear_conflict_checks() {
    let doc = "k: true\n";
    let text = doc.repeat(20_000);
    let map = sources(&text);
    let ds: Vec<Diagnostic> = (0..20_000)
        .rev()
        .map(|i| {
            let at = i * doc.len() + 3;
            diagnostic(vec![(at, at + 4, "\"true\"")], Applicability::Safe)
        })
        .collect();
    let got = plan(&ds, &map, false);
    assert_eq!(got.fixed(), 20_000);
    assert_eq!(got.files["f.yaml"].0, "k: \"true\"\n".repeat(20_000));
    assert!(got.conflict_probes <= 2 * 20_000, "{}", got.conflict_probes);
}

#[test]
fn unsafe_and_rendered_fixes_are_skipped() {
    let map = sources("a: true\n");
    let unsafe_fix = diagnostic(vec![(3, 7, "x")], Applicability::Unsafe);
    assert_eq!(
        plan(std::slice::from_ref(&unsafe_fix), &map, false).fixed(),
        0
    );
    assert_eq!(
        plan(std::slice::from_ref(&unsafe_fix), &map, true).fixed(),
        1
    );
    let rendered =
        diagnostic(vec![(3, 7, "x")], Applicability::Safe).with_origin("chart/templates/x.yaml");
    assert_eq!(plan(&[rendered], &map, true).fixed(), 0);
}

#[test]
fn display_only_fixes_are_never_applied_unsafe_ones_only_when_asked() {
    let map = sources("a: yes\nb: on\nc: 1\n");
    let ds = vec![
        diagnostic(vec![(3, 6, "\"yes\"")], Applicability::Unsafe),
        diagnostic(vec![(10, 12, "\"on\"")], Applicability::DisplayOnly),
        diagnostic(vec![(16, 17, "\"1\"")], Applicability::Safe),
    ];
    let safe = plan(&ds, &map, false);
    assert_eq!(safe.applied, [2]);
    let all = plan(&ds, &map, true);
    assert_eq!(all.applied, [0, 2]);
    assert_eq!(all.files["f.yaml"].0, "a: \"yes\"\nb: on\nc: \"1\"\n");
}
