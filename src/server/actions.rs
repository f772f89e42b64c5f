//! Code actions: each finding's fix as a quick fix (safe; unsafe ones titled "(unsafe)"
//! and only with `unsafeFixes`; display-only fixes and suggestions shown, never applied),
//! "Ignore RULE here", and `source.fixAll.lblint` with the safe fixes `--fix` applies.
//! A finding on rendered output (Helm `# Source:`, kustomize origin) gets no edit, only
//! the note naming the template to edit, as `--fix` says.

use gen_lsp_types as lsp;
use serde_json::{json, Value};

use super::lint::FileResult;
use super::session::Server;
use super::text::{self, Encoding};
use super::{uri, FIX_ALL};
use crate::diagnostic::{Applicability, Diagnostic, FixRef};
use crate::source::{SourceFile, SourceMap};
use crate::suppress::{parse_comment, CommentKind};

/// Findings whose quick fixes one request gets.
const MAX_FINDINGS: usize = 100;

pub(crate) fn code_actions(server: &Server, params: lsp::CodeActionParams) -> Value {
    let Some(path) = uri::to_path(&params.text_document.uri.0) else {
        return json!([]);
    };
    let Some(file) = server.latest.files.get(&path) else {
        return json!([]);
    };
    // Offsets are in the text the last lint read: none for a document edited since.
    let linted = server.latest.versions.get(&path);
    if server
        .docs
        .get(&path)
        .is_some_and(|d| Some(&d.version) != linted)
    {
        return json!([]);
    }
    let Some(source) = &file.source else {
        return json!([]);
    };
    let only: Option<Vec<String>> = params.context.only.as_ref().map(|kinds| {
        kinds
            .iter()
            .filter_map(|k| serde_json::to_value(k).ok()?.as_str().map(String::from))
            .collect()
    });
    let wants = |kind: &str| {
        only.as_ref().is_none_or(|only| {
            only.iter()
                .any(|o| kind == o || kind.starts_with(&format!("{o}.")))
        })
    };
    let cx = Cx {
        uri: server.uri_of(&path),
        source,
        encoding: server.client.encoding,
        unsafe_fixes: server.settings.unsafe_fixes,
        disabled: server.client.disabled_actions,
        json: path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json")),
    };
    let mut actions = Vec::new();
    if wants("quickfix") {
        let converted = file.diagnostics.diagnostics();
        let here = file.findings.iter().zip(converted.iter());
        let here = here.filter(|(_, diagnostic)| overlaps(diagnostic.range, params.range));
        // A selection over a whole generated stream is not a request for every finding's
        // actions at once.
        for (finding, diagnostic) in here.take(MAX_FINDINGS) {
            cx.quick_fixes(finding, diagnostic, &mut actions);
        }
    }
    if wants(FIX_ALL) {
        actions.extend(cx.fix_all(file));
    }
    Value::Array(actions)
}

/// Ranges that touch: a cursor at a finding's edge is on it.
fn overlaps(a: lsp::Range, b: lsp::Range) -> bool {
    let key = |p: lsp::Position| (p.line, p.character);
    key(a.start) <= key(b.end) && key(b.start) <= key(a.end)
}

struct Cx<'a> {
    uri: String,
    source: &'a SourceFile,
    encoding: Encoding,
    unsafe_fixes: bool,
    disabled: bool,
    json: bool,
}

impl Cx<'_> {
    fn edit(&self, edits: Vec<Value>) -> Value {
        json!({"changes": {self.uri.clone(): edits}})
    }

    fn text_edit(&self, start: usize, end: usize, new_text: &str) -> Value {
        let lines = self.source.lines();
        let text = &self.source.text;
        let range = lsp::Range::new(
            text::position(text, lines, start, self.encoding),
            text::position(text, lines, end, self.encoding),
        );
        json!({"range": range, "newText": new_text})
    }

    /// An action shown but not applicable, with why (only to clients that show those).
    fn shown_only(
        &self,
        title: String,
        diagnostic: &lsp::Diagnostic,
        reason: &str,
    ) -> Option<Value> {
        self.disabled.then(|| {
            json!({"title": title, "kind": "quickfix", "diagnostics": [diagnostic],
                   "disabled": {"reason": reason}})
        })
    }

    fn quick_fixes(&self, d: &Diagnostic, diagnostic: &lsp::Diagnostic, out: &mut Vec<Value>) {
        let rule = d.rule();
        // Rendered output is regenerated: a fix or an ignore comment belongs in the template.
        if let Some(origin) = d.edit_elsewhere() {
            let title = format!("{rule}: edit `{origin}` instead (rendered output)");
            let reason = crate::fix::preview::rendered_reason(origin);
            out.extend(self.shown_only(title, diagnostic, &reason));
            return;
        }
        if let Some(fix) = d.fix() {
            out.extend(self.fix_action(rule, fix, diagnostic));
        }
        for suggestion in d.suggestions() {
            let title = format!("{rule}: {}", suggestion.description());
            let reason = "lblint shows this change but never applies it: make it by hand";
            out.extend(self.shown_only(title, diagnostic, reason));
        }
        out.extend(self.ignore_here(d, diagnostic));
    }

    fn fix_action(
        &self,
        rule: &str,
        fix: FixRef<'_>,
        diagnostic: &lsp::Diagnostic,
    ) -> Option<Value> {
        let title = format!("{rule}: {}", fix.description());
        let title = match fix.applicability() {
            Applicability::Safe => title,
            Applicability::Unsafe if self.unsafe_fixes => format!("{title} (unsafe)"),
            Applicability::Unsafe => return None,
            Applicability::DisplayOnly => {
                let reason = "lblint shows this fix but never applies it: make it by hand";
                return self.shown_only(title, diagnostic, reason);
            }
        };
        if !fix.has_edits() {
            return None;
        }
        let edits = fix
            .edits()
            .map(|e| self.text_edit(e.span.start.offset, e.span.end.offset, e.content))
            .collect();
        Some(json!({
            "title": title, "kind": "quickfix", "diagnostics": [diagnostic],
            "isPreferred": fix.applicability() == Applicability::Safe,
            "edit": self.edit(edits),
        }))
    }

    /// "Ignore RULE here": the rule added to the suppression comment on the line above, or
    /// a new `# lblint: ignore[RULE]` line above the finding's, at its indentation and with
    /// its line ending. JSON has no comments: none there.
    fn ignore_here(&self, d: &Diagnostic, diagnostic: &lsp::Diagnostic) -> Option<Value> {
        // An LBL004 note is about a suppression comment, annotation or config entry: a new
        // comment above it suppresses nothing (and is itself unused). It has no fix either:
        // removing the suppression is the author's call.
        if self.json || d.rule() == crate::catalog::lbl::UNUSED_SUPPRESSION.id {
            return None;
        }
        let (start, end, new_text) =
            ignore_edit(&self.source.text, d.location().span.start.offset, d.rule())?;
        Some(json!({
            "title": format!("Ignore {} here", d.rule()),
            "kind": "quickfix",
            "diagnostics": [diagnostic],
            "edit": self.edit(vec![self.text_edit(start, end, &new_text)]),
        }))
    }

    /// Every safe fix of the file, as `--fix` plans one round; none when they would break
    /// its YAML.
    fn fix_all(&self, file: &FileResult) -> Option<Value> {
        let mut sources = SourceMap::default();
        sources.insert(std::sync::Arc::new(SourceFile::new(
            self.source.path.clone(),
            self.source.text.clone(),
        )));
        let plan = crate::fix::plan(&file.findings, &sources, false);
        let (after, _) = plan.files.get(&self.source.path)?;
        let limits = crate::yaml::Limits::default();
        let errors = |text: &str| crate::yaml::load(text, &limits).errors.len();
        if errors(after) > errors(&self.source.text) {
            return None;
        }
        let (start, end, new_text) = text::minimal_edit(&self.source.text, after);
        Some(json!({
            "title": "lblint: fix all safe fixes",
            "kind": FIX_ALL,
            "edit": self.edit(vec![self.text_edit(start, end, &new_text)]),
        }))
    }
}

/// The edit that suppresses `rule` on the line holding `offset`: (start, end, text).
/// Checked by reading the result back the way the suppression layer reads it.
pub(crate) fn ignore_edit(text: &str, offset: usize, rule: &str) -> Option<(usize, usize, String)> {
    let line_start = crate::source::line_start(text, offset);
    let line = &text[line_start..];
    let indent = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
    let above = text[..line_start]
        .strip_suffix('\n')
        .map(|t| t.strip_suffix('\r').unwrap_or(t))
        .map(|t| (crate::source::line_start(t, t.len()), t));
    // A suppression comment on a line of its own above: the rule joins its list.
    if let Some((above_start, t)) = above {
        let above_line = &t[above_start..];
        if let Some(comment) = above_line.trim_start().strip_prefix('#') {
            if let CommentKind::Ignore(existing) = parse_comment(comment) {
                if existing.rules.iter().any(|r| r.eq_ignore_ascii_case(rule)) {
                    return None;
                }
                let close = above_start + above_line.find(']')?;
                return verified(text, (close, close, format!(", {rule}")), rule);
            }
        }
    }
    let newline = line_ending(line)
        .or_else(|| line_ending(text))
        .unwrap_or("\n");
    verified(
        text,
        (
            line_start,
            line_start,
            format!("{indent}# lblint: ignore[{rule}]{newline}"),
        ),
        rule,
    )
}

/// How the first line of `text` ends, if it ends: a new line matches its neighbours.
fn line_ending(text: &str) -> Option<&'static str> {
    let end = text.find('\n')?;
    Some(match text[..end].ends_with('\r') {
        true => "\r\n",
        false => "\n",
    })
}

fn verified(
    text: &str,
    edit: (usize, usize, String),
    rule: &str,
) -> Option<(usize, usize, String)> {
    // Only the YAML document holding the edit is read back: a 50 MB stream is not parsed
    // again for each finding of a request.
    let (from, to) = document_around(text, edit.0);
    let before = &text[from..to];
    let (start, end) = (edit.0 - from, edit.1 - from);
    let mut after = before.to_string();
    after.replace_range(start..end, &edit.2);
    let limits = crate::yaml::Limits::default();
    let loaded = crate::yaml::load(&after, &limits);
    let read_back = loaded.comments.iter().any(|c| {
        c.span.start.offset <= start + edit.2.len()
            && start <= c.span.end.offset
            && matches!(parse_comment(&c.text), CommentKind::Ignore(i) if i.rules.iter().any(|r| r == rule))
    });
    let errors_before = crate::yaml::load(before, &limits).errors.len();
    (read_back && loaded.errors.len() <= errors_before).then_some(edit)
}

/// The byte range of the YAML document around `offset`: from the `---` line at or before
/// it (or the start) to the next `---` line (or the end).
fn document_around(text: &str, offset: usize) -> (usize, usize) {
    let is_marker = |line: &str| {
        line.strip_prefix("---")
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r', '\n']))
    };
    let line_start = crate::source::line_start(text, offset);
    let mut from = 0;
    let mut at = line_start;
    while at > 0 {
        let start = crate::source::line_start(text, at - 1);
        if is_marker(&text[start..]) {
            from = start;
            break;
        }
        at = start;
    }
    let mut to = text.len();
    let mut at = line_start;
    while let Some(next) = text[at..].find('\n').map(|n| at + n + 1) {
        if next < text.len() && is_marker(&text[next..]) {
            to = next;
            break;
        }
        at = next;
    }
    (from, to)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(text: &str, rule: &str) -> Option<String> {
        let offset = text.find("target").unwrap();
        let (start, end, new) = ignore_edit(text, offset, rule)?;
        let mut out = text.to_string();
        out.replace_range(start..end, &new);
        Some(out)
    }

    #[test]
    fn ignore_comments_are_new_lines_or_join_the_list_above() {
        let text = "a:\n  b: 1\n  target: x\n";
        assert_eq!(
            apply(text, "TKE001").unwrap(),
            "a:\n  b: 1\n  # lblint: ignore[TKE001]\n  target: x\n"
        );
        // CRLF text gets a CRLF line, also on a last line without an ending.
        let text = "a:\r\n  b: 1\r\n  target: x\r\n";
        assert_eq!(
            apply(text, "TKE001").unwrap(),
            "a:\r\n  b: 1\r\n  # lblint: ignore[TKE001]\r\n  target: x\r\n"
        );
        assert_eq!(
            apply("a:\r\n  target: x", "TKE001").unwrap(),
            "a:\r\n  # lblint: ignore[TKE001]\r\n  target: x"
        );
        let text = "a:\r\n  # lblint: ignore[K8S001] reason\r\n  target: x\r\n";
        assert_eq!(
            apply(text, "TKE001").unwrap(),
            "a:\r\n  # lblint: ignore[K8S001, TKE001] reason\r\n  target: x\r\n"
        );
        // Already listed: nothing to add.
        assert_eq!(
            apply("# lblint: ignore[TKE001]\ntarget: 1\n", "TKE001"),
            None
        );
        // In a stream, only the finding's document is read back.
        let stream = "a: 1\n---\nb:\n  target: x\n---\nc: [\n";
        assert_eq!(
            document_around(stream, stream.find("target").unwrap()),
            (5, 24)
        );
        assert!(apply(stream, "TKE001")
            .unwrap()
            .contains("b:\n  # lblint: ignore[TKE001]\n  target"));
        // Inside a block scalar a `#` line is data: the check refuses it.
        assert_eq!(apply("k: |\n  text\n  target\n", "TKE001"), None);
    }
}
