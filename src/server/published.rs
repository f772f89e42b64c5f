//! A file's diagnostics as the client gets them, held as their JSON: one buffer per file.
//! An `lsp::Diagnostic` per finding (a dozen small strings each, most of them with unused
//! capacity) held the largest part of the server's memory with many findings.

use gen_lsp_types as lsp;
use serde_json::Value;

/// The diagnostics' JSON objects, comma-separated, in the order pushed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Published {
    json: Vec<u8>,
    count: usize,
}

impl Published {
    pub(crate) fn push(&mut self, diagnostic: &lsp::Diagnostic) {
        let mark = self.json.len();
        if self.count > 0 {
            self.json.push(b',');
        }
        // Writing plain data to a Vec cannot fail; if it did, the diagnostic is left out
        // whole rather than half-written.
        if serde_json::to_writer(&mut self.json, diagnostic).is_ok() {
            self.count += 1;
        } else {
            self.json.truncate(mark);
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Drop the buffer's spare capacity once the lint has pushed everything.
    pub(crate) fn shrink(&mut self) {
        self.json.shrink_to_fit();
    }

    fn array(&self) -> Vec<u8> {
        [&b"["[..], &self.json, &b"]"[..]].concat()
    }

    /// The JSON array, for a notification or a report.
    pub(crate) fn to_value(&self) -> Value {
        serde_json::from_slice(&self.array()).unwrap_or(Value::Array(Vec::new()))
    }

    /// The diagnostics again, for code actions on this file.
    pub(crate) fn diagnostics(&self) -> Vec<lsp::Diagnostic> {
        serde_json::from_slice(&self.array()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pushed_diagnostics_read_back_the_same() {
        let diagnostic = |message: &str| lsp::Diagnostic {
            range: lsp::Range::new(lsp::Position::new(1, 2), lsp::Position::new(1, 9)),
            severity: Some(lsp::DiagnosticSeverity::Warning),
            code: Some(lsp::Code::String("TKE001".into())),
            code_description: None,
            source: Some("lblint".into()),
            message: lsp::Message::String(message.into()),
            tags: None,
            related_information: None,
            data: None,
        };
        let mut published = Published::default();
        assert!(published.is_empty());
        assert_eq!(published.to_value(), serde_json::json!([]));
        published.push(&diagnostic("a \"quoted\" one"));
        published.push(&diagnostic("b"));
        published.shrink();
        let back = published.diagnostics();
        assert_eq!(back, vec![diagnostic("a \"quoted\" one"), diagnostic("b")]);
        assert_eq!(published.to_value()[1]["message"], "b");
    }
}
