//! Fuzz the whole in-memory flow with two profiles, generic (no facts) and TKE with IPVS
//! kube-proxy (the provider rules with the most facts): load → objects → model → rules, then
//! every reporter, then fix planning and applying (safe, then unsafe) and a relint of the
//! fixed text. Input: raw file bytes, so decoding (BOM, UTF-16, NUL, invalid UTF-8) is
//! fuzzed too.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use lblint::check::{check_sources, CheckOutcome};
use lblint::profile::{self, Profile};
use lblint::report::{write_report, Format, ReportOptions};

const TKE_IPVS: &str = include_str!("../../examples/profiles/tke-ipvs.yaml");

fn profiles() -> &'static [Profile; 2] {
    static PROFILES: OnceLock<[Profile; 2]> = OnceLock::new();
    PROFILES.get_or_init(|| {
        let tke = profile::parse_profile(TKE_IPVS, "tke-ipvs.yaml").expect("bundled profile parses");
        [profile::generic(), tke]
    })
}

/// Every format renders; JSON and SARIF are valid JSON. Human output twice: plain and wide,
/// coloured and narrow (snippet windows and wrapping differ); human and compact also with
/// --show-fixes (the fix previews slice the text by the edits' offsets).
fn report_every_format(outcome: &CheckOutcome) {
    let narrow = ReportOptions { color: true, width: 24, ..ReportOptions::default() };
    let plain = ReportOptions::default();
    let fixes = ReportOptions { show_fixes: true, ..ReportOptions::default() };
    for (format, options) in Format::all()
        .iter()
        .map(|&f| (f, &plain))
        .chain([(Format::Human, &narrow), (Format::Human, &fixes), (Format::Compact, &fixes)])
    {
        let mut out = Vec::new();
        write_report(format, &outcome.diagnostics, &outcome.summary, &outcome.sources, options, &mut out)
            .expect("writing to memory cannot fail");
        let text = String::from_utf8(out).expect("reports are UTF-8");
        if matches!(format, Format::Json | Format::Sarif) {
            serde_json::from_str::<serde_json::Value>(&text).expect("JSON reports parse");
        }
    }
}

/// Plan the fixes on the linted text, apply them in memory and lint the result again.
fn fix_and_relint(outcome: &CheckOutcome, profile: &Profile) {
    for unsafe_fixes in [false, true] {
        let plan = lblint::fix::plan(&outcome.diagnostics, &outcome.sources, unsafe_fixes);
        assert!(plan.applied.len() <= outcome.diagnostics.len());
        let fixed: Vec<(String, Vec<u8>)> = plan
            .files
            .into_iter()
            .map(|(path, (after, _))| (path.to_string(), after.into_bytes()))
            .collect();
        if !fixed.is_empty() {
            let again = check_sources(&fixed, profile);
            assert!(again.internal_errors.is_empty(), "{:?}", again.internal_errors);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    // Input starting with 0x01 and holding a 0xFF byte is two files split there (cross-file
    // references: a caller in one file, the Service in another); otherwise it is one file.
    let files: Vec<(String, Vec<u8>)> = match data.iter().position(|&b| b == 0xFF) {
        Some(i) if data.first() == Some(&b'\x01') => vec![
            ("a.yaml".to_string(), data[1..i].to_vec()),
            ("b.yaml".to_string(), data[i + 1..].to_vec()),
        ],
        _ => vec![("fuzz.yaml".to_string(), data.to_vec())],
    };
    for profile in profiles() {
        let outcome = check_sources(&files, profile);
        assert!(outcome.internal_errors.is_empty(), "{:?}", outcome.internal_errors);
        // Every diagnostic must point inside a file we gave (or be file-level at 1:1).
        for d in &outcome.diagnostics {
            assert!(d.location.span.start.line >= 1, "{d:?}");
            assert!(d.location.span.start <= d.location.span.end, "{d:?}");
        }
        report_every_format(&outcome);
        fix_and_relint(&outcome, profile);
    }
});
