//! Variants of one deployment (two overlays of one base, two `helm template` runs of one
//! chart) go to different clusters or namespaces: a pod in one does not call the load
//! balancer of the other, though both copy the same address (testdata/variants/).

#[test]
fn a_charts_two_renders_call_only_their_own_load_balancer() {
    let run = crate::lblint(&["model", "--no-config", "testdata/variants"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let callers: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("Service/") || l.starts_with("  caller "))
        .map(|l| l.split(" -> ").next().unwrap_or(l))
        .collect();
    assert_eq!(
        callers,
        [
            "Service/dev/orders (L4, tke, private)  testdata/variants/dev.yaml:5:1",
            "  caller CronJob/dev/report",
            "Service/prod/orders (L4, tke, private)  testdata/variants/prod.yaml:5:1",
            "  caller CronJob/prod/report",
        ]
    );
    // Without the origins the two files are one cluster's: each CronJob calls both.
    let plain = |env: &str| {
        std::fs::read_to_string(format!("testdata/variants/{env}.yaml"))
            .unwrap()
            .replace("# Source:", "# From:")
    };
    let both = format!("{}\n{}", plain("dev"), plain("prod"));
    let run = crate::lblint_stdin(&["model", "--no-config", "-"], Some(both.as_bytes()));
    assert_eq!(run.stdout.matches("  caller ").count(), 4, "{}", run.stdout);
}
