//! A serde-saphyr error → our message and help. The errors every settings file words alike
//! (duplicate keys, a second document, the budget, syntax, unknown fields, values our own
//! deserializers refused) are worded here, from what each [`Kind`] of file says about
//! itself; the rest (missing fields, wrong shapes) each file's schema words.

use serde_saphyr::{Error as YamlError, MessageFormatter};

use super::error::Place;
use super::syntax::place_of;

/// One kind of settings file: its miette code, and its words where the kit words an error.
pub(crate) struct Kind {
    /// `lblint::profile`, `lblint::config`.
    pub code: &'static str,
    /// `profile`, `config file`: "… exceeds the parser's safety limits".
    pub name: &'static str,
    /// What a second `---` document gets.
    pub one_document: (&'static str, &'static str),
    /// Help for a file over the parser's budget.
    pub budget_help: Option<&'static str>,
    /// Help for a YAML syntax error.
    pub syntax_help: &'static str,
    /// Where the fields serde expected live, put after "unknown field `x`": " in `spec`",
    /// " at the top level", or nothing.
    pub section: fn(&[&str]) -> String,
    /// Help for a field name that is none of `expected`.
    pub choose: fn(&str, &[&str]) -> String,
}

/// Message and help.
pub(crate) type Said = (String, Option<String>);

/// What the kit makes of an error.
pub(crate) enum Described<'e> {
    /// Our message and help.
    Said(String, Option<String>),
    /// serde-saphyr's own message stands.
    Unsaid,
    /// Not one the kit words: the file's schema does (the error behind an alias replay).
    Yours(&'e YamlError),
}

impl<'e> Described<'e> {
    /// Our words, with `own` wording what the kit handed back; `None` for serde-saphyr's.
    pub(crate) fn or_own(self, own: impl FnOnce(&'e YamlError) -> Option<Said>) -> Option<Said> {
        match self {
            Described::Said(message, help) => Some((message, help)),
            Described::Unsaid => None,
            Described::Yours(err) => own(err),
        }
    }
}

/// Word `err` as every settings file does, or hand it back.
pub(crate) fn describe<'e>(err: &'e YamlError, kind: &Kind) -> Described<'e> {
    let said =
        |message: String, help: Option<&str>| Described::Said(message, help.map(str::to_owned));
    match err {
        // An error met while replaying an alias: describe the original error.
        YamlError::AliasError { error, .. } => describe(error, kind),
        YamlError::SerdeUnknownField {
            field, expected, ..
        } => Described::Said(
            format!("unknown field `{field}`{}", (kind.section)(expected)),
            Some((kind.choose)(field, expected)),
        ),
        YamlError::DuplicateMappingKey { key, .. } => said(
            match key {
                Some(k) => format!("duplicate key `{k}`"),
                None => "duplicate key".into(),
            },
            Some("each key may appear only once in a mapping"),
        ),
        YamlError::MultipleDocuments { .. } => {
            said(kind.one_document.0.into(), Some(kind.one_document.1))
        }
        YamlError::Budget { breach, .. } => said(
            format!(
                "{} exceeds the parser's safety limits ({breach:?})",
                kind.name
            ),
            kind.budget_help,
        ),
        YamlError::Message { msg, .. } => match untag(msg) {
            Some((message, help)) => Described::Said(message, help),
            None => Described::Unsaid,
        },
        YamlError::ExternalMessage { msg, .. } => {
            said(format!("YAML syntax error: {msg}"), Some(kind.syntax_help))
        }
        _ => Described::Yours(err),
    }
}

/// Where serde-saphyr places the error; the start of the file when it does not.
pub(crate) fn error_place(err: &YamlError, text: &str) -> Place {
    err.location()
        .map_or(Place::at_offset(text, 0, 0), |l| place_of(&l, text))
}

/// serde-saphyr's own message for the error.
pub(crate) fn parser_message(err: &YamlError) -> String {
    serde_saphyr::UserMessageFormatter
        .format_message(err)
        .into_owned()
}

/// What lblint's own deserializers put before a value they refused, so that the parse can
/// tell it from serde's errors and split message and help again (serde's custom errors
/// carry only a string).
const REFUSAL_TAG: &str = "lblint-refused:";

/// A value our deserializer refuses, with our message and help; the deserializer adds the
/// value's location.
pub(crate) fn refuse<E: serde::de::Error>(message: impl AsRef<str>, help: impl AsRef<str>) -> E {
    let payload = serde_json::json!({"message": message.as_ref(), "help": help.as_ref()});
    E::custom(format!("{REFUSAL_TAG}{payload}"))
}

/// Whether serde's custom error is one of [`refuse`]'s.
pub(crate) fn is_refusal(msg: &str) -> bool {
    msg.starts_with(REFUSAL_TAG)
}

/// The message and help of a [`refuse`] error.
fn untag(msg: &str) -> Option<Said> {
    let payload = msg.strip_prefix(REFUSAL_TAG)?;
    let v: serde_json::Value = serde_json::from_str(payload).ok()?;
    Some((
        v["message"].as_str()?.to_owned(),
        v["help"].as_str().map(str::to_owned),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_keeps_its_message_and_help() {
        let err: serde_json::Error = refuse("bad `x`", "write `y`");
        let text = err.to_string();
        assert!(is_refusal(&text), "{text}");
        assert_eq!(
            untag(&text),
            Some(("bad `x`".to_owned(), Some("write `y`".to_owned())))
        );
        assert_eq!(untag("invalid type: map"), None);
    }
}
