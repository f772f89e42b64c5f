//! Text shown to people: terminal-safe escaping of untrusted text, and source excerpts with
//! a line-numbered gutter. A leaf below every printer (reports, profile and config errors,
//! fix previews), so none of them depends on another to print safely.

pub(crate) mod escape;
pub(crate) mod excerpt;
