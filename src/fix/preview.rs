//! Fixes shown before they are applied: `--diff` (unified diffs of what `--fix` would
//! write), `--show-fixes` (each finding's fix with its safety and the lines it changes) and
//! the counts of fixes available with and without `--unsafe-fixes`.

use std::fmt::Write as _;

use similar::{ChangeTag, TextDiff};

use super::{fix_edits, RawEdit};
use crate::diagnostic::{Applicability, Diagnostic, FixRef};
use crate::source::SourceFile;
use crate::text::escape::{escape, Keep};

/// Lines of context around each hunk of `--diff`, as `diff -u` and git show.
const CONTEXT: usize = 3;

/// One unified diff per changed file (`--- a/path`, `+++ b/path`, hunks), in the order
/// given. File contents are printed as they are, so that `git apply` takes the output;
/// only the names, which a person types rarely and a manifest never, are escaped.
pub(crate) fn unified_diff(changes: &[(std::sync::Arc<str>, String, String)]) -> String {
    let mut out = String::new();
    for (path, before, after) in changes {
        let path = escape(path, Keep::Nothing);
        let diff = TextDiff::from_lines(before.as_str(), after.as_str());
        let _ = write!(
            out,
            "{}",
            diff.unified_diff()
                .context_radius(CONTEXT)
                .header(&format!("a/{path}"), &format!("b/{path}"))
        );
    }
    out
}

/// Why a fix is not applied to rendered output, and what to edit instead.
pub(crate) fn rendered_reason(origin: &str) -> String {
    format!("the object is rendered from `{origin}`; edit that file instead")
}

/// `RULE at FILE:LINE:COL`, as the stderr notices name a finding.
fn finding_at(d: &Diagnostic) -> String {
    let start = d.location().span.start;
    let file = &d.location().file;
    format!("{} at {file}:{}:{}", d.rule(), start.line, start.column)
}

/// The stderr line for a fix `--fix` or `--diff` leaves out because its file is rendered.
pub(crate) fn rendered_notice(d: &Diagnostic) -> String {
    let reason = rendered_reason(d.origin().unwrap_or_default());
    format!("lblint: not fixing {}: {reason}", finding_at(d))
}

/// The stderr line for a fix `--fix` or `--diff` puts into rendered output, because the
/// template it was rendered from is not in the repository.
pub(crate) fn committed_notice(d: &Diagnostic) -> String {
    let origin = d.origin().unwrap_or_default();
    format!(
        "lblint: fixing {} in the rendered file: its template `{origin}` is not in the repository, so this file, the one committed, is the one to change",
        finding_at(d)
    )
}

/// How many findings `--fix` can fix, with and without `--unsafe-fixes`, and what it never
/// applies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct FixCounts {
    pub safe: usize,
    pub unsafe_only: usize,
    /// Suggestions and display-only fixes.
    pub shown_only: usize,
    /// Safe or unsafe fixes on rendered output (the template is the file to edit).
    pub rendered: usize,
}

impl FixCounts {
    pub(crate) fn of(diagnostics: &[Diagnostic]) -> FixCounts {
        let mut counts = FixCounts::default();
        for d in diagnostics {
            counts.shown_only += d.suggestions().len();
            let Some(fix) = d.fix() else { continue };
            match (fix.applicability(), d.edit_elsewhere().is_some()) {
                (Applicability::DisplayOnly, _) => counts.shown_only += 1,
                (_, true) => counts.rendered += 1,
                (Applicability::Safe, false) => counts.safe += 1,
                (Applicability::Unsafe, false) => counts.unsafe_only += 1,
            }
        }
        counts
    }

    /// `Fixes available: 1 with --fix, 3 with --fix --unsafe-fixes.`, then what is only
    /// shown and what is rendered, when there is any.
    pub(crate) fn summary_line(&self) -> String {
        let mut line = format!(
            "Fixes available: {} with --fix, {} with --fix --unsafe-fixes.",
            self.safe,
            self.safe + self.unsafe_only
        );
        match self.shown_only {
            0 => {}
            1 => line.push_str(" 1 suggestion is shown only, never applied."),
            n => {
                let _ = write!(line, " {n} suggestions are shown only, never applied.");
            }
        }
        match self.rendered {
            0 => {}
            1 => line.push_str(" 1 fix is in rendered output: edit its template instead."),
            n => {
                let _ = write!(
                    line,
                    " {n} fixes are in rendered output: edit their templates instead."
                );
            }
        }
        line
    }
}

/// `fix (unsafe, applied only with --unsafe-fixes): description`: the fix of a finding and
/// what this run's `--fix` does with it.
pub(crate) fn fix_heading(d: &Diagnostic, fix: FixRef<'_>, unsafe_fixes: bool) -> String {
    let kind = match fix.applicability() {
        Applicability::Safe => "safe",
        Applicability::Unsafe => "unsafe",
        Applicability::DisplayOnly => "display-only",
    };
    let what = match (fix.applicability(), d.edit_elsewhere()) {
        (Applicability::DisplayOnly, _) => "never applied".to_string(),
        (_, Some(origin)) => format!("not applied: {}", rendered_reason(origin)),
        (Applicability::Safe, None) => "applied by --fix".to_string(),
        (Applicability::Unsafe, None) if unsafe_fixes => {
            "applied by --fix --unsafe-fixes".to_string()
        }
        (Applicability::Unsafe, None) => "applied only with --unsafe-fixes".to_string(),
    };
    format!("fix ({kind}, {what}): {}", fix.description())
}

/// `suggestion (display-only, never applied): description`.
pub(crate) fn suggestion_heading(suggestion: FixRef<'_>) -> String {
    format!(
        "suggestion (display-only, never applied): {}",
        suggestion.description()
    )
}

/// The lines a fix changes, as `old new |±text` rows (old and new line numbers, a blank
/// for a line that is only on one side), escaped for the terminal. Edits on nearby lines
/// share one block; a fix with no edits, or edits that do not fit the text, shows none.
pub(crate) fn edit_lines(fix: FixRef<'_>, file: &SourceFile) -> Vec<String> {
    let text = file.text.as_str();
    let Some(edits) = fix_edits(fix, text) else {
        return Vec::new();
    };
    let index = file.lines();
    let start_of = |line: usize| index.start(line).unwrap_or(text.len());
    // Whole lines around each run of edits: (first line, end offset, edits).
    let mut blocks: Vec<(usize, usize, Vec<RawEdit<'_>>)> = Vec::new();
    for edit in edits {
        let first = index.line_of(edit.0);
        let last = index.line_of(edit.1.saturating_sub(1).max(edit.0));
        let end = start_of(last + 1);
        match blocks.last_mut() {
            Some((_, block_end, block)) if start_of(first) <= *block_end => {
                *block_end = (*block_end).max(end);
                block.push(edit);
            }
            _ => blocks.push((first, end, vec![edit])),
        }
    }
    let mut rows = Vec::new();
    let mut shift: isize = 0;
    let width = (index.line_of(text.len()) + 2).to_string().len();
    for (first, end, block) in blocks {
        let start = start_of(first);
        let old = &text[start..end];
        let mut new = String::with_capacity(old.len());
        let mut cursor = start;
        for (from, to, content) in block {
            new.push_str(&text[cursor..from]);
            new.push_str(content);
            cursor = to;
        }
        new.push_str(&text[cursor..end]);
        let diff = TextDiff::from_lines(old, new.as_str());
        for change in diff.iter_all_changes() {
            let number = |i: Option<usize>, by: isize| {
                i.map(|i| ((first + i + 1) as isize + by).to_string())
                    .unwrap_or_default()
            };
            let sign = match change.tag() {
                ChangeTag::Equal => ' ',
                ChangeTag::Delete => '-',
                ChangeTag::Insert => '+',
            };
            let line = change.value().trim_end_matches(['\n', '\r']);
            rows.push(format!(
                "{:>width$} {:>width$} |{sign}{}",
                number(change.old_index(), 0),
                number(change.new_index(), shift),
                escape(line, Keep::Nothing),
            ));
        }
        shift += new.lines().count() as isize - old.lines().count() as isize;
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Edit, Fix, Severity};
    use crate::source::Location;
    use crate::source::{Pos, Span};

    fn at(file: &SourceFile, start: usize, end: usize) -> Span {
        Span {
            start: file.pos_at(start),
            end: file.pos_at(end),
        }
    }

    /// The lines `fix` changes, as a finding holding it shows them.
    fn lines(fix: Fix, file: &SourceFile) -> Vec<String> {
        let location = Location {
            file: "a.yaml".into(),
            span: Span::default(),
        };
        let d = Diagnostic::new("X", "x", Severity::Note, location, "m").with_fix(fix);
        edit_lines(d.fix().unwrap(), file)
    }

    fn fix(file: &SourceFile, edits: &[(usize, usize, &str)]) -> Fix {
        Fix {
            description: "d".into(),
            applicability: Applicability::Unsafe,
            edits: edits
                .iter()
                .map(|&(s, e, c)| Edit {
                    span: at(file, s, e),
                    content: c.into(),
                })
                .collect(),
        }
    }

    #[test]
    fn an_insert_shows_the_new_line_with_its_number_in_the_new_text() {
        let file = SourceFile::new("a.yaml", "a: 1\nb: 2\nc: 3\n");
        // Insert a line before `c: 3`.
        let rows = lines(fix(&file, &[(10, 10, "x: 9\n")]), &file);
        assert_eq!(rows, vec!["  3 |+x: 9", "3 4 | c: 3"]);
    }

    #[test]
    fn a_replacement_shows_old_and_new_and_later_blocks_are_renumbered() {
        let file = SourceFile::new("a.yaml", "a: yes\nb: 2\nc: 3\nd: 4\ne: 5\n");
        let rows = lines(
            fix(&file, &[(3, 6, "\"yes\"\n  z: 1"), (25, 26, "\"5\"")]),
            &file,
        );
        assert_eq!(
            rows,
            vec![
                "1   |-a: yes",
                "  1 |+a: \"yes\"",
                "  2 |+  z: 1",
                "5   |-e: 5",
                "  6 |+e: \"5\"",
            ]
        );
    }

    #[test]
    fn a_fix_without_edits_shows_nothing_and_controls_are_escaped() {
        let file = SourceFile::new("a.yaml", "a: 1\n");
        assert!(lines(Fix::manual("by hand"), &file).is_empty());
        let rows = lines(fix(&file, &[(3, 4, "\u{1b}[2J")]), &file);
        assert_eq!(rows[1], "  1 |+a: \\u{1b}[2J");
    }

    #[test]
    fn counts_and_summary() {
        let file = SourceFile::new("a.yaml", "a: 1\n");
        let location = Location {
            file: "a.yaml".into(),
            span: Span {
                start: Pos::default(),
                end: Pos::default(),
            },
        };
        let base = Diagnostic::new("X", "x", Severity::Note, location, "m");
        let safe = base.clone().with_fix(Fix {
            applicability: Applicability::Safe,
            ..fix(&file, &[(3, 4, "2")])
        });
        let unsafe_ = base.clone().with_fix(fix(&file, &[(3, 4, "2")]));
        let rendered = unsafe_
            .clone()
            .with_suggestion(Fix::manual("by hand"))
            .with_origin("chart/templates/a.yaml");
        let counts = FixCounts::of(&[safe, unsafe_, rendered, base]);
        assert_eq!(
            counts.summary_line(),
            "Fixes available: 1 with --fix, 2 with --fix --unsafe-fixes. 1 suggestion is \
             shown only, never applied. 1 fix is in rendered output: edit its template instead."
        );
    }
}
