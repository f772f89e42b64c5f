//! `partialFingerprints["lblint/v1"]`: FNV-1a of rule, file, object identity and the
//! primary span's text plus an occurrence counter; no line numbers, so moving an object
//! keeps its alert.

use std::collections::HashMap;

use crate::diagnostic::Diagnostic;

/// Fingerprints of one run's results: findings with the same key are told apart by
/// their order.
#[derive(Default)]
pub(super) struct Fingerprinter {
    occurrences: HashMap<String, usize>,
}

impl Fingerprinter {
    /// The fingerprint of `d`, whose file has the URI `uri` and the text `text`.
    pub(super) fn next(&mut self, d: &Diagnostic, uri: &str, text: Option<&str>) -> String {
        let key = key(d, uri, text);
        let occurrence = self.occurrences.entry(key.clone()).or_insert(0);
        let fingerprint = fingerprint(&key, *occurrence);
        *occurrence += 1;
        fingerprint
    }
}

/// Everything that identifies a finding except where it is: rule, file, object and
/// the primary span's text (CRLF folded so a line-ending change keeps it).
fn key(d: &Diagnostic, uri: &str, text: Option<&str>) -> String {
    let object = d
        .object()
        .as_ref()
        .map(|o| o.to_string())
        .unwrap_or_default();
    let span = text
        .map_or("", |t| d.location().span.slice(t))
        .replace("\r\n", "\n");
    format!("{}\0{uri}\0{object}\0{span}", d.rule())
}

fn fingerprint(key: &str, occurrence: usize) -> String {
    let mut hash = Fnv1a::new();
    hash.write(key.as_bytes());
    hash.write(b"\0");
    hash.write(occurrence.to_string().as_bytes());
    format!("{:016x}", hash.0)
}

/// 64-bit FNV-1a: stable across runs and platforms, unlike std's `DefaultHasher`.
pub(crate) struct Fnv1a(pub u64);

impl Fnv1a {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    pub(crate) fn new() -> Self {
        Fnv1a(Self::OFFSET)
    }

    pub(crate) fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }
}

impl Default for Fnv1a {
    fn default() -> Self {
        Self::new()
    }
}
