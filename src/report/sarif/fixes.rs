//! SARIF `fixes` of a result: the fix `--fix` applies first, then the suggestions.

use super::log::{ArtifactChange, FixProperties, Replacement, SarifFix, Text};
use super::regions::region;
use super::uris::ArtifactLocation;
use crate::diagnostic::Diagnostic;

/// Edits apply to the diagnostic's own file (`artifact`, whose text is `text`).
pub(super) fn fixes(
    d: &Diagnostic,
    artifact: &ArtifactLocation,
    text: Option<&str>,
) -> Vec<SarifFix> {
    d.fix()
        .map(|fix| (fix, false))
        .into_iter()
        .chain(d.suggestions().map(|s| (s, true)))
        // A SARIF fix needs a replacement: by-hand suggestions show in human and JSON only.
        .filter(|(fix, _)| fix.has_edits())
        .map(|(fix, suggestion)| SarifFix {
            description: Text {
                text: fix.description().to_string(),
                markdown: None,
            },
            artifact_changes: [ArtifactChange {
                artifact_location: artifact.clone(),
                replacements: fix
                    .edits()
                    .map(|edit| Replacement {
                        deleted_region: region(edit.span.start, edit.span.end, text),
                        inserted_content: Text {
                            text: edit.content.to_string(),
                            markdown: None,
                        },
                    })
                    .collect(),
            }],
            properties: FixProperties {
                applicability: fix.applicability(),
                suggestion,
            },
        })
        .collect()
}
