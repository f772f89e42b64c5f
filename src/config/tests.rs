use super::*;

fn parse(text: &str) -> Result<Config, ConfigError> {
    parse_config(text, "lblint.yaml", Path::new("/repo"))
}

#[test]
fn full_config() {
    let c = parse(
        "profile: cluster.yaml\ninclude: ['**/*.yaml']\nexclude: [vendor]\nfailOn: error\n\
         rules:\n  TKE001: note\n  yaml-syntax: off\n  LBL002: \"off\"\n\
         ignore:\n  - rule: tke-l4-loopback\n    path: charts/**\n    object: Service/shop/web\n    reason: vendor\n",
    )
    .unwrap();
    assert_eq!(c.profile, Some(PathBuf::from("/repo/cluster.yaml")));
    assert_eq!(c.include, vec!["**/*.yaml"]);
    assert_eq!(c.exclude, vec!["vendor"]);
    assert_eq!(c.fail_on, Some(FailOnLevel::Error));
    let levels: Vec<(&str, RuleLevel)> = c.rules.iter().map(|(r, l)| (r.id, *l)).collect();
    assert_eq!(
        levels,
        vec![
            ("TKE001", RuleLevel::Severity(Severity::Note)),
            ("LBL001", RuleLevel::Off),
            ("LBL002", RuleLevel::Off),
        ]
    );
    assert_eq!(c.ignore.len(), 1);
    assert_eq!(c.ignore[0].rule.id, "TKE001");
    assert_eq!(c.ignore[0].location.span.start.line, 10);
    assert_eq!(c.ignore[0].location.span.start.column, 5);
    assert!(c.ignore[0].matcher.is_match("charts/x/svc.yaml"));
}

#[test]
fn empty_config_is_all_defaults() {
    let c = parse("# nothing yet\n").unwrap();
    assert!(c.rules.is_empty() && c.profile.is_none());
}

#[test]
fn errors_are_located() {
    let e = parse("failon: error\n").unwrap_err();
    assert_eq!((e.line, e.column), (1, 1));
    assert_eq!(e.message, "unknown field `failon` at the top level");
    assert!(e.help.unwrap().starts_with("did you mean `failOn`?"));
    let e = parse("rules:\n  TKE01: off\n").unwrap_err();
    assert_eq!(
        (e.line, e.column, &*e.message),
        (2, 3, "unknown rule `TKE01`")
    );
    let e = parse("rules:\n  TKE001: warn\n").unwrap_err();
    assert_eq!((e.line, e.column), (2, 11));
    assert!(e.help.unwrap().starts_with("did you mean `warning`?"));
}

#[test]
fn display_paths_above_the_working_directory() {
    assert_eq!(
        display_relative(Path::new("/repo/lblint.yaml"), Path::new("/repo/apps/web")),
        "../../lblint.yaml"
    );
    assert_eq!(
        display_relative(Path::new("/repo/apps/lblint.yaml"), Path::new("/repo")),
        "apps/lblint.yaml"
    );
    assert_eq!(
        display_relative(Path::new("/etc/lblint.yaml"), Path::new("/repo")),
        "/etc/lblint.yaml"
    );
}
