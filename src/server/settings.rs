//! The server's settings: `initializationOptions`, under the client's `lblint` section of
//! `workspace/configuration` (only the keys it sets, not null, override). Unknown keys are
//! ignored and a wrong type is logged, so an editor's settings typo never stops the server.

use serde::{Deserialize, Serialize};

/// Which files get diagnostics: ty's names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum DiagnosticMode {
    /// Only the files open in the editor (the workspace is still read: findings are
    /// cross-file).
    OpenFilesOnly,
    /// Every file of the workspace with findings, open or not.
    #[default]
    Workspace,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct Settings {
    /// The cluster profile, relative to the workspace root; over the config file's.
    pub profile: Option<String>,
    /// Rule ids or names, as `--select`.
    pub select: Vec<String>,
    /// Rule ids or names, as `--ignore`.
    pub ignore: Vec<String>,
    /// As `--namespace`: where objects without `metadata.namespace` land; over the config
    /// file's `namespace:`.
    pub namespace: Option<String>,
    /// Offer unsafe fixes as quick fixes (titled "(unsafe)"); fix-all stays safe-only.
    pub unsafe_fixes: bool,
    pub diagnostic_mode: DiagnosticMode,
}

impl Settings {
    /// These settings with the keys `value` sets (the object itself or its `lblint`
    /// member) in place of theirs; a key absent or null keeps its value here, so an
    /// editor's empty section leaves the initialization options as they were. `None` when
    /// `value` is null; `Err` says why it was not used.
    pub(crate) fn merged(&self, value: &serde_json::Value) -> Result<Option<Settings>, String> {
        let value = value.get("lblint").unwrap_or(value);
        if value.is_null() {
            return Ok(None);
        }
        // serde would read a list as the fields in order.
        let Some(set) = value.as_object() else {
            return Err(format!("lblint settings ignored: not an object: {value}"));
        };
        let mut merged = serde_json::to_value(self).map_err(|e| e.to_string())?;
        if let Some(merged) = merged.as_object_mut() {
            let set = set.iter().filter(|(_, v)| !v.is_null());
            merged.extend(set.map(|(k, v)| (k.clone(), v.clone())));
        }
        Settings::deserialize(&merged)
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
        let none = Settings::default();
        let s = none.merged(&direct).unwrap().unwrap();
        assert_eq!(s.profile.as_deref(), Some("p.yaml"));
        assert!(s.unsafe_fixes);
        assert_eq!(s.diagnostic_mode, DiagnosticMode::OpenFilesOnly);
        let nested = json!({"lblint": {"select": ["TKE001"], "other": 1}});
        let s = none.merged(&nested).unwrap().unwrap();
        assert_eq!(s.select, ["TKE001"]);
        assert_eq!(s.diagnostic_mode, DiagnosticMode::Workspace);
        assert_eq!(none.merged(&json!(null)), Ok(None));
        let err = none.merged(&json!({"select": "TKE001"})).unwrap_err();
        assert!(
            err.starts_with("lblint settings ignored: invalid type"),
            "{err}"
        );
        assert_eq!(
            none.merged(&json!(["TKE001"])),
            Err(r#"lblint settings ignored: not an object: ["TKE001"]"#.to_string())
        );
    }

    #[test]
    fn settings_merge_only_the_keys_set() {
        let base = Settings::default()
            .merged(&json!({"ignore": ["TKE001"], "profile": "p.yaml"}))
            .unwrap()
            .unwrap();
        assert_eq!(base.merged(&json!({})).unwrap().unwrap(), base);
        let nulls = json!({"lblint": {"ignore": null, "profile": null}});
        assert_eq!(base.merged(&nulls).unwrap().unwrap(), base);
        let s = base
            .merged(&json!({"ignore": [], "unsafeFixes": true}))
            .unwrap()
            .unwrap();
        assert_eq!(s.ignore, Vec::<String>::new());
        assert_eq!(s.profile.as_deref(), Some("p.yaml"));
        assert!(s.unsafe_fixes);
    }
}
