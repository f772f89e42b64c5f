//! The server's settings: `initializationOptions`, then the client's `lblint` section of
//! `workspace/configuration`. Unknown keys are ignored and a wrong type is logged, so an
//! editor's settings typo never stops the server.

use serde::Deserialize;

/// Which files get diagnostics: ty's names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DiagnosticMode {
    /// Only the files open in the editor (the workspace is still read: findings are
    /// cross-file).
    OpenFilesOnly,
    /// Every file of the workspace with findings, open or not.
    #[default]
    Workspace,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// The cluster profile, relative to the workspace root; over the config file's.
    pub profile: Option<String>,
    /// Rule ids or names, as `--select`.
    pub select: Vec<String>,
    /// Rule ids or names, as `--ignore`.
    pub ignore: Vec<String>,
    /// Offer unsafe fixes as quick fixes (titled "(unsafe)"); fix-all stays safe-only.
    pub unsafe_fixes: bool,
    pub diagnostic_mode: DiagnosticMode,
}

impl Settings {
    /// Settings from a JSON value: the object itself or its `lblint` member. `Err` says
    /// why they were not used.
    pub fn from_value(value: &serde_json::Value) -> Result<Option<Settings>, String> {
        let value = value.get("lblint").unwrap_or(value);
        if value.is_null() {
            return Ok(None);
        }
        Settings::deserialize(value)
            .map(Some)
            .map_err(|e| format!("lblint settings ignored: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn settings_read_both_shapes_and_refuse_wrong_types() {
        let direct =
            json!({"profile": "p.yaml", "unsafeFixes": true, "diagnosticMode": "openFilesOnly"});
        let s = Settings::from_value(&direct).unwrap().unwrap();
        assert_eq!(s.profile.as_deref(), Some("p.yaml"));
        assert!(s.unsafe_fixes);
        assert_eq!(s.diagnostic_mode, DiagnosticMode::OpenFilesOnly);
        let nested = json!({"lblint": {"select": ["TKE001"], "other": 1}});
        let s = Settings::from_value(&nested).unwrap().unwrap();
        assert_eq!(s.select, ["TKE001"]);
        assert_eq!(s.diagnostic_mode, DiagnosticMode::Workspace);
        assert_eq!(Settings::from_value(&json!(null)), Ok(None));
        let err = Settings::from_value(&json!({"select": "TKE001"})).unwrap_err();
        assert!(
            err.starts_with("lblint settings ignored: invalid type"),
            "{err}"
        );
    }
}
