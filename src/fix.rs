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

/// Plan the edits of every eligible fix. A fix is applied whole or not at all; one that
/// overlaps an earlier accepted fix waits for the next round (the caller re-lints).
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
        found.sort_by_key(|(_, d)| {
            d.fix
                .as_ref()
                .and_then(|f| f.edits.first())
                .map(|e| e.span.start.offset)
        });
        let mut accepted: Vec<(usize, usize, &str)> = Vec::new();
        let mut fixed = 0;
        for (index, d) in found {
            let Some(fix) = &d.fix else { continue };
            let edits: Vec<(usize, usize, &str)> = fix
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
            // Two edits conflict when their ranges intersect, or both insert at one offset.
            let conflicts = edits.iter().any(|&(start, end, _)| {
                accepted.iter().any(|&(a_start, a_end, _)| {
                    (start < a_end && a_start < end) || start == a_start
                })
            });
            if !valid || conflicts || edits.is_empty() {
                continue;
            }
            accepted.extend(edits);
            out.applied.push(index);
            fixed += 1;
        }
        if fixed == 0 {
            continue;
        }
        accepted.sort_by_key(|&(start, end, _)| std::cmp::Reverse((start, end)));
        let mut new_text = text.clone();
        for (start, end, content) in accepted {
            new_text.replace_range(start..end, content);
        }
        out.files.insert(path, (new_text, fixed));
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
