//! `--fix`: apply the text edits diagnostics carry, without overlaps, and never to
//! rendered output (a Helm or kustomize origin has no source to write back to).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::diagnostic::{Applicability, Diagnostic};
use crate::source::SourceMap;

/// New file texts, each with how many diagnostics its edits fix.
#[derive(Debug, Default)]
pub struct FixPlan {
    pub files: BTreeMap<Arc<str>, (String, usize)>,
    /// Indices (into the planned diagnostics) of the fixes the plan applies.
    pub applied: Vec<usize>,
    /// Lookups into the accepted edits while checking for conflicts: linear in the number
    /// of edits (tests bound it; a pairwise check was quadratic).
    pub conflict_probes: usize,
}

impl FixPlan {
    pub fn fixed(&self) -> usize {
        self.files.values().map(|(_, n)| n).sum()
    }
}

/// Whether a diagnostic's fix may be applied in this run.
fn eligible(d: &Diagnostic, unsafe_fixes: bool) -> bool {
    match &d.fix {
        None => false,
        Some(_) if d.origin.is_some() => false,
        Some(fix) => fix.applicability == Applicability::Safe || unsafe_fixes,
    }
}

/// One edit as byte offsets: replace `start..end` with the text.
type RawEdit<'a> = (usize, usize, &'a str);

/// Two edits conflict when their ranges intersect, or both start at one offset (two
/// inserts there, or an insert and a replacement, have no defined order).
fn conflict(a: RawEdit<'_>, b: RawEdit<'_>) -> bool {
    (a.0 < b.1 && b.0 < a.1) || a.0 == b.0
}

/// The accepted edits of one file, by start offset. They never conflict, so sorted by
/// start they are disjoint and their ends ascend too: an edit can only conflict with the
/// accepted edit starting at its own start or the last one starting before its end.
#[derive(Default)]
struct Accepted<'a> {
    by_start: BTreeMap<usize, (usize, &'a str)>,
    probes: usize,
}

impl<'a> Accepted<'a> {
    fn conflicts(&mut self, (start, end, content): RawEdit<'_>) -> bool {
        self.probes += 2;
        self.by_start.contains_key(&start)
            || self
                .by_start
                .range(..end)
                .next_back()
                .is_some_and(|(&a_start, &(a_end, _))| {
                    conflict((start, end, content), (a_start, a_end, ""))
                })
    }

    /// The file's text with every accepted edit applied, built front to back in one pass.
    fn apply(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut cursor = 0;
        for (&start, &(end, content)) in &self.by_start {
            out.push_str(&text[cursor..start]);
            out.push_str(content);
            cursor = end;
        }
        out.push_str(&text[cursor..]);
        out
    }
}

/// A fix's edits sorted by offset, or `None` when one is out of range or splits a
/// character, or two of its own edits conflict (applying them would garble the text).
fn fix_edits<'a>(d: &'a Diagnostic, text: &str) -> Option<Vec<RawEdit<'a>>> {
    let mut edits: Vec<RawEdit<'a>> = d
        .fix
        .as_ref()?
        .edits
        .iter()
        .map(|e| (e.span.start.offset, e.span.end.offset, e.content.as_str()))
        .collect();
    let valid = edits.iter().all(|&(start, end, _)| {
        start <= end
            && end <= text.len()
            && text.is_char_boundary(start)
            && text.is_char_boundary(end)
    });
    edits.sort_unstable_by_key(|&(start, end, _)| (start, end));
    let self_conflict = edits.windows(2).any(|w| conflict(w[0], w[1]));
    (valid && !self_conflict && !edits.is_empty()).then_some(edits)
}

/// Plan the edits of every eligible fix. A fix is applied whole or not at all; one that
/// conflicts with an earlier accepted fix waits for the next round (the caller re-lints).
/// Fixes are taken in order of their first edit, then in diagnostic order. O(n log n).
pub fn plan(diagnostics: &[Diagnostic], sources: &SourceMap, unsafe_fixes: bool) -> FixPlan {
    let mut by_file: BTreeMap<Arc<str>, Vec<(usize, &Diagnostic)>> = BTreeMap::new();
    for (i, d) in diagnostics
        .iter()
        .enumerate()
        .filter(|(_, d)| eligible(d, unsafe_fixes))
    {
        by_file
            .entry(d.location.file.clone())
            .or_default()
            .push((i, d));
    }
    let mut out = FixPlan::default();
    for (path, mut found) in by_file {
        let Some(source) = sources.get(&path) else {
            continue;
        };
        let text = &source.text;
        // Stable: fixes starting at one offset keep diagnostic order.
        found.sort_by_key(|(_, d)| {
            d.fix
                .as_ref()
                .and_then(|f| f.edits.first())
                .map(|e| e.span.start.offset)
        });
        let mut accepted = Accepted::default();
        let mut fixed = 0;
        for (index, d) in found {
            let Some(edits) = fix_edits(d, text) else {
                continue;
            };
            if edits.iter().any(|&edit| accepted.conflicts(edit)) {
                continue;
            }
            for (start, end, content) in edits {
                accepted.by_start.insert(start, (end, content));
            }
            out.applied.push(index);
            fixed += 1;
        }
        out.conflict_probes += accepted.probes;
        if fixed == 0 {
            continue;
        }
        out.files.insert(path, (accepted.apply(text), fixed));
    }
    out
}

/// Rounds of fix-then-relint before giving up (a fix may enable another).
const MAX_FIX_ROUNDS: usize = 10;

/// Apply fixes until none is left, re-linting after each round. A round that would make a
/// file unparsable is not written. Returns the number of problems fixed.
pub fn apply(
    options: &crate::check::CheckOptions,
    profile: &crate::profile::Profile,
    unsafe_fixes: bool,
) -> Result<usize, String> {
    let mut total = 0;
    // A fix whose finding is still there after it was applied did not work: never reapply it.
    let mut applied: std::collections::HashSet<(&'static str, String, String)> = Default::default();
    for _ in 0..MAX_FIX_ROUNDS {
        let mut outcome = crate::check::check(options, profile).map_err(|e| e.to_string())?;
        let key = |d: &crate::diagnostic::Diagnostic| {
            (d.rule, d.location.file.to_string(), d.message.clone())
        };
        outcome
            .diagnostics
            .retain(|d| d.fix.is_none() || !applied.contains(&key(d)));
        let plan = plan(&outcome.diagnostics, &outcome.sources, unsafe_fixes);
        applied.extend(plan.applied.iter().map(|&i| key(&outcome.diagnostics[i])));
        let mut written = 0;
        for (path, (text, fixed)) in &plan.files {
            let Some(before) = outcome.sources.get(path) else {
                continue;
            };
            let limits = crate::yaml::Limits::default();
            let errors_before = crate::yaml::load(&before.text, &limits).errors.len();
            if crate::yaml::load(text, &limits).errors.len() > errors_before {
                eprintln!("lblint: not fixing {path}: the edits would break its YAML");
                continue;
            }
            let on_disk = std::path::Path::new(&**path);
            if !on_disk.is_file() {
                continue;
            }
            std::fs::write(on_disk, text).map_err(|e| format!("cannot write {path}: {e}"))?;
            written += 1;
            total += fixed;
        }
        if written == 0 {
            break;
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Edit, Fix, Location, Severity};
    use crate::source::SourceFile;
    use crate::yaml::{Pos, Span};

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
        let mut d = Diagnostic::new(
            "T001",
            "t",
            Severity::Error,
            Location {
                file: Arc::from("f.yaml"),
                span: span(0, 0),
            },
            "m",
        );
        d.fix = Some(Fix {
            description: "f".into(),
            applicability,
            edits: edits
                .into_iter()
                .map(|(s, e, c)| Edit {
                    span: span(s, e),
                    content: c.to_string(),
                })
                .collect(),
        });
        d
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
        found.sort_by_key(|(_, d)| d.fix.as_ref().unwrap().edits[0].span.start.offset);
        let mut accepted: Vec<(usize, usize, &str)> = Vec::new();
        let mut applied = Vec::new();
        for (index, d) in found {
            let edits: Vec<(usize, usize, &str)> = d
                .fix
                .as_ref()
                .unwrap()
                .edits
                .iter()
                .map(|e| (e.span.start.offset, e.span.end.offset, e.content.as_str()))
                .collect();
            let conflicts = edits.iter().any(|&(start, end, _)| {
                accepted.iter().any(|&(a_start, a_end, _)| {
                    (start < a_end && a_start < end) || start == a_start
                })
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
                let mut d = diagnostic(edits, Applicability::Safe);
                d.message = i.to_string();
                ds.push(d);
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
        let mut rendered = diagnostic(vec![(3, 7, "x")], Applicability::Safe);
        rendered.origin = Some("chart/templates/x.yaml".into());
        assert_eq!(plan(&[rendered], &map, true).fixed(), 0);
    }
}
