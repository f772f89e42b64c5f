//! `--fix`: apply the text edits diagnostics carry, without overlaps, and never to
//! rendered output whose template is the file to edit (committed Helm output whose chart
//! is not in the repository is fixed in place: `Diagnostic::edit_elsewhere`). Planning
//! works on texts; `mod@write` puts a new text on disk or leaves the file as it was.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use crate::check::CheckOutcome;
use crate::diagnostic::{Applicability, Diagnostic, FixRef};
use crate::source::{SourceFile, SourceMap};

pub(crate) mod preview;
pub(crate) mod write;

/// New file texts, each with how many diagnostics its edits fix.
#[derive(Debug, Default)]
pub(crate) struct FixPlan {
    pub files: BTreeMap<Arc<str>, (String, usize)>,
    /// Indices (into the planned diagnostics) of the fixes the plan applies.
    pub applied: Vec<usize>,
    /// Lookups into the accepted edits while checking for conflicts: linear in the number
    /// of edits (tests bound it; a pairwise check was quadratic).
    pub conflict_probes: usize,
}

impl FixPlan {
    #[cfg(test)]
    pub(crate) fn fixed(&self) -> usize {
        self.files.values().map(|(_, n)| n).sum()
    }
}

/// Whether a diagnostic's fix may be applied in this run.
fn eligible(d: &Diagnostic, unsafe_fixes: bool) -> bool {
    match d.fix() {
        None => false,
        Some(_) if d.edit_elsewhere().is_some() => false,
        Some(fix) => match fix.applicability() {
            Applicability::Safe => true,
            Applicability::Unsafe => unsafe_fixes,
            Applicability::DisplayOnly => false,
        },
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
fn fix_edits<'a>(fix: FixRef<'a>, text: &str) -> Option<Vec<RawEdit<'a>>> {
    let mut edits: Vec<RawEdit<'a>> = fix
        .edits()
        .map(|e| (e.span.start.offset, e.span.end.offset, e.content))
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
pub(crate) fn plan(diagnostics: &[Diagnostic], sources: &SourceMap, unsafe_fixes: bool) -> FixPlan {
    let mut by_file: BTreeMap<Arc<str>, Vec<(usize, &Diagnostic)>> = BTreeMap::new();
    for (i, d) in diagnostics
        .iter()
        .enumerate()
        .filter(|(_, d)| eligible(d, unsafe_fixes))
    {
        by_file
            .entry(d.location().file.clone())
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
            d.fix()
                .and_then(|f| f.edits().next())
                .map(|e| e.span.start.offset)
        });
        let mut accepted = Accepted::default();
        let mut fixed = 0;
        for (index, d) in found {
            let Some(edits) = d.fix().and_then(|fix| fix_edits(fix, text)) else {
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

/// What `--fix` did (or, with `--diff`, would do): problems fixed in the files written,
/// and the files it could not write (each left as it was) with why.
#[derive(Debug, Default)]
pub(crate) struct Applied {
    pub fixed: usize,
    pub failures: Vec<(Arc<str>, String)>,
    /// Problems fixed in each file, by rule (id, name): `--show-fixes` lists them.
    pub by_file: BTreeMap<Arc<str>, BTreeMap<(&'static str, &'static str), usize>>,
    /// Findings whose fix this run would apply but for the file being rendered output.
    pub rendered: Vec<Diagnostic>,
    /// Findings in rendered output whose template is not in the repository: their fixes
    /// go into the rendered file, which says so.
    pub committed: Vec<Diagnostic>,
    /// `--diff`: each changed file (displayed path), its text before and after.
    pub changes: Vec<(Arc<str>, String, String)>,
    /// The fixes of the first lint, before any was applied.
    pub available: preview::FixCounts,
    /// The files of the first lint (`--verbose`).
    pub linted: Vec<Arc<str>>,
    /// Files left unfixed because their edits would break their YAML.
    pub breaking: Vec<Arc<str>>,
}

/// One round's plan: the files to rewrite, and the files whose rewrite is dropped because
/// it would make them unparsable.
#[derive(Debug, Default)]
pub(crate) struct Round {
    pub files: Vec<FileFix>,
    pub breaking: Vec<Arc<str>>,
}

/// One file's rewrite, planned on the text lint read from it.
#[derive(Debug)]
pub(crate) struct FileFix {
    pub display: Arc<str>,
    /// The file itself (the display name is text for people, not a path to open).
    pub path: PathBuf,
    pub before: Arc<SourceFile>,
    pub after: String,
    pub fixed: usize,
    /// The rule (id, name) of each fix applied.
    pub rules: Vec<(&'static str, &'static str)>,
}

/// A fix, by what it fixed: one whose finding is still there after it was applied did not
/// work, and is never applied again.
type FixKey = (&'static str, String, String);

fn key(d: &Diagnostic) -> FixKey {
    (
        d.rule(),
        d.location().file.to_string(),
        d.message().to_string(),
    )
}

/// The findings whose fix this run would apply (safe, or unsafe with `--unsafe-fixes`) but
/// does not, because the object is rendered output: the template is the file to edit.
pub(crate) fn rendered_refusals(
    diagnostics: &[Diagnostic],
    unsafe_fixes: bool,
) -> impl Iterator<Item = &Diagnostic> {
    diagnostics.iter().filter(move |d| {
        d.edit_elsewhere().is_some()
            && d.fix().is_some_and(|fix| match fix.applicability() {
                Applicability::Safe => true,
                Applicability::Unsafe => unsafe_fixes,
                Applicability::DisplayOnly => false,
            })
    })
}

/// Plan one round on a lint outcome: the files to rewrite. Fixes already `tried` and files
/// that `failed` to be written are left out; a rewrite that would make a file unparsable
/// is dropped, and the file named in [`Round::breaking`].
pub(crate) fn plan_round(
    mut outcome: CheckOutcome,
    unsafe_fixes: bool,
    tried: &mut HashSet<FixKey>,
    failed: &HashSet<Arc<str>>,
) -> Round {
    outcome.diagnostics.retain(|d| {
        d.fix().is_none() || !(tried.contains(&key(d)) || failed.contains(&d.location().file))
    });
    let plan = plan(&outcome.diagnostics, &outcome.sources, unsafe_fixes);
    tried.extend(plan.applied.iter().map(|&i| key(&outcome.diagnostics[i])));
    let mut rules: HashMap<&str, Vec<(&'static str, &'static str)>> = HashMap::new();
    for &i in &plan.applied {
        let d = &outcome.diagnostics[i];
        rules
            .entry(&d.location().file)
            .or_default()
            .push((d.rule(), d.name()));
    }
    let limits = crate::yaml::Limits::default();
    let mut round = Round::default();
    for (display, (after, fixed)) in plan.files {
        let (Some(before), Some(path)) = (
            outcome.sources.get(&display),
            outcome.files_on_disk.get(&display),
        ) else {
            continue;
        };
        let errors_before = crate::yaml::load_file(before, &limits, &mut |doc| doc)
            .errors
            .len();
        if crate::yaml::load(&after, &limits).errors.len() > errors_before {
            round.breaking.push(display);
            continue;
        }
        round.files.push(FileFix {
            path: path.clone(),
            before: before.clone(),
            rules: rules.remove(&*display).unwrap_or_default(),
            display,
            after,
            fixed,
        });
    }
    round
}

/// Apply fixes until none is left, re-linting after each round. Each file is replaced
/// whole and atomically, or left as it was (see [`write::write_back`]); a file that could
/// not be written is not tried again, and the other files are still fixed.
///
/// With `dry_run` (`--diff`) nothing is written: each round lints the texts the earlier
/// rounds made, from memory, and [`Applied::changes`] holds the result.
pub(crate) fn apply(
    options: &crate::check::CheckOptions,
    profile: &crate::profile::Profile,
    unsafe_fixes: bool,
    dry_run: bool,
) -> Result<Applied, String> {
    let roots = write::Roots::of(&options.inputs.paths);
    let mut options = options.clone();
    let mut done = Applied::default();
    let mut tried = HashSet::new();
    let mut failed = HashSet::new();
    // --diff: the new text and the first text (and name) of each file, by canonical path.
    let mut overlay: HashMap<PathBuf, String> = HashMap::new();
    let mut first: HashMap<PathBuf, (Arc<str>, String)> = HashMap::new();
    for round in 0..MAX_FIX_ROUNDS {
        let outcome = crate::check::check(&options, profile).map_err(|e| e.to_string())?;
        if round == 0 {
            done.rendered = rendered_refusals(&outcome.diagnostics, unsafe_fixes)
                .cloned()
                .collect();
            let committed = outcome.diagnostics.iter();
            let committed = committed.filter(|d| d.template_absent() && eligible(d, unsafe_fixes));
            done.committed = committed.cloned().collect();
            done.available = preview::FixCounts::of(&outcome.diagnostics);
            done.linted = outcome.linted.clone();
        }
        let mut written = 0;
        // With --follow-links one file can be linted under two names: write it once a
        // round (the next round lints the result under both).
        let mut written_to = HashSet::new();
        let round_plan = plan_round(outcome, unsafe_fixes, &mut tried, &failed);
        done.breaking.extend(round_plan.breaking);
        for file in round_plan.files {
            let real = std::fs::canonicalize(&file.path).ok();
            if let Some(real) = &real {
                if !written_to.insert(real.clone()) {
                    continue;
                }
            }
            let result = match (dry_run, real) {
                (false, _) => write::write_back(&file.path, &file.before.text, &file.after, &roots),
                (true, Some(real)) => {
                    first
                        .entry(real.clone())
                        .or_insert_with(|| (file.display.clone(), file.before.text.to_string()));
                    overlay.insert(real, file.after.clone());
                    Ok(())
                }
                (true, None) => Err("it cannot be found any more".to_string()),
            };
            match result {
                Ok(()) => {
                    written += 1;
                    done.fixed += file.fixed;
                    let counts = done.by_file.entry(file.display.clone()).or_default();
                    for rule in file.rules {
                        *counts.entry(rule).or_default() += 1;
                    }
                }
                Err(reason) => {
                    failed.insert(file.display.clone());
                    done.failures.push((file.display, reason));
                }
            }
        }
        if written == 0 {
            break;
        }
        if dry_run {
            options.inputs.overlay = Some(Arc::new(overlay.clone()));
        }
    }
    done.changes = first
        .into_iter()
        .filter_map(|(real, (display, before))| {
            let after = overlay.remove(&real)?;
            (after != before).then_some((display, before, after))
        })
        .collect();
    done.changes.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(done)
}

#[cfg(test)]
mod tests;
