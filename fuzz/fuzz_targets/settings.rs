//! Fuzz the two settings files a user writes: the cluster profile and lblint.yaml. Any text
//! either parses or gives an error that renders (plain and with miette's snippet); a profile
//! that parses is then used to lint the bundled example manifests, so every profile fact a
//! rule reads is fuzzed too.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use lblint::check::check_sources;
use lblint::profile;
use lblint::settings::SettingsError;

const MANIFESTS: [(&str, &str); 2] = [
    ("shop-api.yaml", include_str!("../../examples/manifests/shop-api.yaml")),
    ("reports.yaml", include_str!("../../examples/manifests/reports.yaml")),
];

fn render(err: &SettingsError) {
    let _ = err.to_string();
    let mut rendered = String::new();
    let handler = miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode());
    handler
        .render_report(&mut rendered, &err.diagnostic())
        .expect("rendering to a String cannot fail");
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match profile::parse_profile(&text, "cluster.yaml") {
        Ok(profile) => {
            let files: Vec<(String, Vec<u8>)> = MANIFESTS
                .iter()
                .map(|(name, text)| (name.to_string(), text.as_bytes().to_vec()))
                .collect();
            let outcome = check_sources(&files, &profile);
            assert!(outcome.internal_errors.is_empty(), "{:?}", outcome.internal_errors);
        }
        Err(err) => render(&err),
    }
    if let Err(err) = lblint::config::parse_config(&text, "lblint.yaml", Path::new("/repo")) {
        render(&err);
    }
});
