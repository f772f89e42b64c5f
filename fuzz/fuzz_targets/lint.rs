//! Fuzz the whole in-memory flow (load → objects → model → rules) with two profiles:
//! generic (no facts) and TKE with IPVS kube-proxy (the provider rules with the most facts).
//! Input: raw file bytes, so decoding (BOM, UTF-16, NUL, invalid UTF-8) is fuzzed too.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use lblint::profile::{self, Profile};

const TKE_IPVS: &str = include_str!("../../examples/profiles/tke-ipvs.yaml");

fn profiles() -> &'static [Profile; 2] {
    static PROFILES: OnceLock<[Profile; 2]> = OnceLock::new();
    PROFILES.get_or_init(|| {
        let tke = profile::parse_profile(TKE_IPVS, "tke-ipvs.yaml").expect("bundled profile parses");
        [profile::generic(), tke]
    })
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
        let outcome = lblint::check::check_sources(&files, profile);
        // Every diagnostic must point inside a file we gave (or be file-level at 1:1).
        for d in &outcome.diagnostics {
            assert!(d.location.span.start.line >= 1, "{d:?}");
            assert!(d.location.span.start <= d.location.span.end, "{d:?}");
        }
    }
});
