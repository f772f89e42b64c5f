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
    assert_eq!(c.fail_on, Some(crate::diagnostic::FailOn::Error));
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
    let c = parse("chartRoots: [deploy/chart, ../charts, /opt/charts]\n").unwrap();
    let roots = ["/repo/deploy/chart", "/charts", "/opt/charts"].map(PathBuf::from);
    assert_eq!(c.chart_roots, roots);
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
    // A list where an entry belongs, under no key that could name it.
    let e = parse("ignore:\n  - - a\n").unwrap_err();
    assert_eq!(
        (e.line, e.column, &*e.message),
        (2, 5, "expected a mapping here")
    );
    assert!(e.help.unwrap().starts_with("the config keys are"));
}

#[test]
fn every_error_in_one_run() {
    // A bad value, an unknown rule, a wrong type, a bad glob in a flow list, an entry
    // without its reason and an unknown key: the entries in error are left out, the rest
    // is read.
    let text = "failOn: warn\nrules:\n  TKE01: off\n  TKE001: note\nexclude: vendor\n\
                include: [\"*.yaml\", \"[x\"]\nignore:\n  - rule: TKE001\n    path: a/**\n\
                chartRoots: [deploy/chart]\nfailon: error\n";
    let e = parse(text).unwrap_err();
    let all: Vec<(usize, usize, &str)> = e
        .each()
        .map(|e| (e.line, e.column, e.message.as_str()))
        .collect();
    assert_eq!(
        all,
        vec![
            (1, 9, "unknown value `warn` for `failOn`"),
            (3, 3, "unknown rule `TKE01`"),
            (5, 10, "`exclude` must be a list of globs"),
            (
                6,
                21,
                "invalid glob `[x`: unclosed character class; missing ']'"
            ),
            (8, 3, "missing field `reason` in an `ignore` entry"),
            (11, 1, "unknown field `failon` at the top level"),
        ]
    );
    assert!(e.each().all(|e| e.help.is_some()));
    let (config, errors) = parse::parse_recovering(text, "lblint.yaml", Path::new("/repo"));
    assert_eq!(errors.len(), 6);
    let levels: Vec<&str> = config.rules.iter().map(|(r, _)| r.id).collect();
    assert_eq!(levels, ["TKE001"]);
    assert_eq!(config.chart_roots, [PathBuf::from("/repo/deploy/chart")]);
    assert!(config.ignore.is_empty() && config.fail_on.is_none());
    // A syntax error anywhere is reported alone, even after a bad value.
    let e = parse("failOn: warn\nexclude: \"x\n").unwrap_err();
    assert_eq!(e.each().count(), 1);
    assert_eq!((e.line, e.column), (2, 10));
    assert!(e.message.starts_with("YAML syntax error"), "{e}");
}

#[test]
fn render_settings_and_their_errors() {
    let c = parse(
        "render:\n  enabled: true\n  timeout: 5\n  failure: warning\n  kustomize: kustomize\n  \
         helm:\n    release: shop\n    values: [values.yaml, ../prod.yaml]\n",
    )
    .unwrap();
    let r = &c.render;
    assert!(r.enabled);
    assert_eq!(r.options.timeout, std::time::Duration::from_secs(5));
    assert_eq!(r.options.failure, Severity::Warning);
    assert_eq!(r.options.kustomize, crate::render::KustomizeTool::Kustomize);
    assert_eq!(r.options.helm_release, "shop");
    let values = ["/repo/values.yaml", "/prod.yaml"].map(PathBuf::from);
    assert_eq!(r.options.helm_values, values);
    let d = parse("render: {}\n").unwrap().render;
    assert!(!d.enabled);
    assert_eq!(d.options, crate::render::RenderOptions::default());
    let e = parse("render:\n  timeot: 5\n").unwrap_err();
    assert_eq!((e.line, e.column), (2, 3));
    assert!(e.help.unwrap().contains("did you mean `timeout`?"));
    let e = parse("render:\n  failure: note\n").unwrap_err();
    assert_eq!(e.message, "unknown value `note` for `render.failure`");
    let e = parse("render:\n  timeout: 0\n").unwrap_err();
    assert_eq!(e.message, "`render.timeout` is 0");
    let e = parse("render:\n  kustomize: helm\n").unwrap_err();
    assert!(e.help.unwrap().contains("`kubectl` or `kustomize`"));
}
