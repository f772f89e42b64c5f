//! `--statistics`: how many findings each rule has, instead of the findings (ruff's
//! `--statistics`). Text: `count  RULE  [*] name` lines, most findings first; `[*]` when
//! this run's `--fix` fixes some of them, `[-]` when only `--unsafe-fixes` would, `[ ]`
//! otherwise. JSON: an array of the same, with the counts of fixable findings.

use std::collections::BTreeMap;
use std::io;

use crate::diagnostic::{Applicability, Diagnostic, Summary};

use super::{Format, ReportOptions};

#[derive(Default)]
struct Row {
    name: &'static str,
    count: usize,
    /// Findings `--fix` fixes, and those `--fix --unsafe-fixes` fixes.
    safe: usize,
    with_unsafe: usize,
}

/// Writes the statistics of `diagnostics` in `format` (human, compact or json).
pub(crate) fn write(
    format: Format,
    diagnostics: &[Diagnostic],
    summary: &Summary,
    options: &ReportOptions,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
    for d in diagnostics {
        let row = rows.entry(d.rule()).or_default();
        row.name = d.name();
        row.count += 1;
        match d.fix().as_ref().filter(|_| d.edit_elsewhere().is_none()) {
            Some(fix) if fix.applicability() == Applicability::Safe => {
                row.safe += 1;
                row.with_unsafe += 1;
            }
            Some(fix) if fix.applicability() == Applicability::Unsafe => row.with_unsafe += 1,
            _ => {}
        }
    }
    let mut rows: Vec<(&str, Row)> = rows.into_iter().collect();
    // Stable: rules with as many findings stay in id order.
    rows.sort_by_key(|(_, row)| std::cmp::Reverse(row.count));
    if format == Format::Json {
        let list: Vec<serde_json::Value> = rows
            .iter()
            .map(|(rule, row)| {
                serde_json::json!({
                    "rule": rule,
                    "name": row.name,
                    "count": row.count,
                    "fixable": row.safe,
                    "fixable_with_unsafe_fixes": row.with_unsafe,
                })
            })
            .collect();
        serde_json::to_writer_pretty(&mut *out, &list)?;
        return writeln!(out);
    }
    let count_width = rows.iter().map(|(_, r)| r.count.to_string().len()).max();
    let rule_width = rows.iter().map(|(rule, _)| rule.len()).max().unwrap_or(0);
    for (rule, row) in &rows {
        let fixes = if options.unsafe_fixes {
            row.with_unsafe
        } else {
            row.safe
        };
        let marker = match (fixes, row.with_unsafe) {
            (0, 0) => "[ ]",
            (0, _) => "[-]",
            _ => "[*]",
        };
        writeln!(
            out,
            "{:>cw$}  {rule:<rule_width$}  {marker} {}",
            row.count,
            row.name,
            cw = count_width.unwrap_or(1),
        )?;
    }
    if format == Format::Human && !options.quiet {
        writeln!(out, "{}", super::human::summary_line(summary))?;
    }
    Ok(())
}
