//! A settings file (profile, lblint.yaml) that cannot be used, with the place in the file
//! that says why: one error type, so every settings error is shown the same way.

use std::fmt;
use std::sync::{Arc, OnceLock};

use miette::{Diagnostic, LabeledSpan, MietteError, SourceCode, SourceSpan, SpanContents};

use crate::text::escape::{escape, Keep};
use crate::text::excerpt::Excerpt;

/// Why a settings file could not be loaded.
///
/// `line`/`column` are 1-based (column in chars, like the rest of lblint); both are 0 when
/// the error has no place in the file (the file could not be read). `offset`/`len` are the
/// byte range of the offending key or value in [`SettingsError::source_text`].
#[derive(Clone, Debug)]
pub struct SettingsError {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub offset: usize,
    pub len: usize,
    pub message: String,
    pub help: Option<String>,
    /// Text and snippet for miette, and the miette code; boxed to keep
    /// `Result<_, SettingsError>` small.
    named: Box<Named>,
}

#[derive(Clone, Debug)]
struct Named {
    text: Arc<str>,
    /// The miette code: `lblint::profile`, `lblint::config`.
    code: &'static str,
    /// Built when first rendered.
    snippet: OnceLock<Snippet>,
    /// Further errors found in the same run, in file order (shown after this one).
    more: Vec<SettingsError>,
    /// The file's text is not shown (it may hold a Secret's values): no snippet, and the
    /// heading names the place.
    withheld: bool,
}

impl SettingsError {
    pub(crate) fn new(
        code: &'static str,
        path: &str,
        source_text: Arc<str>,
        at: Place,
        message: impl Into<String>,
        help: Option<String>,
    ) -> SettingsError {
        SettingsError {
            path: path.to_owned(),
            line: at.line,
            column: at.column,
            offset: at.offset,
            len: at.len,
            message: message.into(),
            help,
            named: Box::new(Named {
                text: source_text,
                code,
                snippet: OnceLock::new(),
                more: Vec::new(),
                withheld: false,
            }),
        }
    }

    /// The same error without the file's text: its place is still given, never a snippet.
    pub(crate) fn withheld(mut self) -> SettingsError {
        self.named.text = Arc::from("");
        self.named.withheld = true;
        self
    }

    /// The first of `errors`, carrying the others; `None` when there are none.
    pub(crate) fn all(mut errors: Vec<SettingsError>) -> Option<SettingsError> {
        errors.sort_by_key(|e| (e.line == 0, e.line, e.column));
        let mut rest = errors.into_iter();
        let mut first = rest.next()?;
        first.named.more = rest.collect();
        Some(first)
    }

    /// This error and the ones found with it.
    pub(crate) fn each(&self) -> impl Iterator<Item = &SettingsError> {
        std::iter::once(self).chain(&self.named.more)
    }

    /// The file's text as parsed (BOM stripped); empty when the file could not be read.
    pub(crate) fn source_text(&self) -> &str {
        &self.named.text
    }

    /// The snippet miette draws: the error's line, clipped and escaped like a finding's (a
    /// one-line JSON file must not make miette panic on columns past 65,535).
    fn snippet(&self) -> &Snippet {
        self.named.snippet.get_or_init(|| {
            let text = &*self.named.text;
            let lines = crate::source::LineIndex::new(text);
            let range = (self.offset, self.offset + self.len);
            let (excerpt, spans) = Excerpt::new(text, &lines, &[range]);
            Snippet {
                name: escape(&self.path, Keep::Nothing).into_owned(),
                excerpt,
                label: spans[0],
                line: self.line.saturating_sub(1),
                column: self.column.saturating_sub(1),
            }
        })
    }

    /// Whether the error points into the file (false for unreadable files).
    pub(crate) fn is_located(&self) -> bool {
        self.line > 0
    }

    /// Whether a snippet of the file is shown.
    fn shows_text(&self) -> bool {
        self.is_located() && !self.named.withheld
    }
}

/// A 1-based line/column plus byte range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Place {
    pub line: usize,
    pub column: usize,
    pub offset: usize,
    pub len: usize,
}

impl Place {
    pub(crate) const NOWHERE: Place = Place {
        line: 0,
        column: 0,
        offset: 0,
        len: 0,
    };

    /// Place of a byte offset in `text` (clamped to the text, snapped to a char boundary).
    pub(crate) fn at_offset(text: &str, offset: usize, len: usize) -> Place {
        let pos = crate::source::LineIndex::new(text).pos(text, offset);
        let offset = pos.offset;
        Place {
            line: pos.line as usize,
            column: pos.column as usize,
            offset,
            len: len.min(text.len() - offset),
        }
    }
}

impl Place {
    /// Place of a 1-based line/column (column in chars), clamped to the text.
    pub(crate) fn at_line_column(text: &str, line: usize, column: usize) -> Place {
        let mut offset = 0;
        for (i, l) in text.split_inclusive('\n').enumerate() {
            if i + 1 == line {
                let in_line: usize = l
                    .chars()
                    .take(column.saturating_sub(1))
                    .map(char::len_utf8)
                    .sum();
                return Place::at_offset(text, offset + in_line, 0);
            }
            offset += l.len();
        }
        Place::at_offset(text, text.len(), 0)
    }
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = escape(&self.path, Keep::Nothing);
        let message = escape(&self.message, Keep::Newlines);
        if self.is_located() {
            write!(f, "{path}:{}:{}: {message}", self.line, self.column)?;
        } else {
            write!(f, "{path}: {message}")?;
        }
        if let Some(help) = &self.help {
            write!(f, "\n  help: {}", escape(help, Keep::Newlines))?;
        }
        for more in &self.named.more {
            write!(f, "\n{more}")?;
        }
        Ok(())
    }
}

impl std::error::Error for SettingsError {}

/// Delegates to `SettingsDiagnostic`; note that miette then uses the full `Display`
/// (with location and help) as the heading. Prefer [`SettingsError::diagnostic`] for reports.
impl Diagnostic for SettingsError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.named.code))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(escape(h, Keep::Newlines)) as Box<dyn fmt::Display + 'a>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.shows_text().then(|| self.snippet() as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let label = self.label()?;
        Some(Box::new(std::iter::once(label)))
    }
}

/// [`SettingsError`] for miette's graphical handler: the heading is the bare message, and
/// miette draws path, position, snippet and help itself.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SettingsDiagnostic<'a>(pub &'a SettingsError);

impl SettingsError {
    pub(crate) fn diagnostic(&self) -> SettingsDiagnostic<'_> {
        SettingsDiagnostic(self)
    }

    fn label(&self) -> Option<LabeledSpan> {
        // Short label: miette prints the message as the heading above the snippet.
        self.shows_text()
            .then(|| LabeledSpan::new_with_span(Some("here".to_owned()), self.snippet().label))
    }
}

impl fmt::Display for SettingsDiagnostic<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = escape(&self.0.message, Keep::Newlines);
        let path = escape(&self.0.path, Keep::Nothing);
        if self.0.shows_text() {
            f.write_str(&message)
        } else if self.0.is_located() {
            write!(f, "{path}:{}:{}: {message}", self.0.line, self.0.column)
        } else {
            write!(f, "{path}: {message}")
        }
    }
}

impl std::error::Error for SettingsDiagnostic<'_> {}

impl Diagnostic for SettingsDiagnostic<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.0.named.code))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.0.help()
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.0.source_code()
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let label = self.0.label()?;
        Some(Box::new(std::iter::once(label)))
    }
}

/// The error's excerpt, named by the file's path, with the label's real position for the
/// header (miette would count the excerpt's columns, and in bytes).
#[derive(Clone, Debug)]
struct Snippet {
    name: String,
    excerpt: Excerpt,
    label: SourceSpan,
    /// 0-based line and char column of the label in the file.
    line: usize,
    column: usize,
}

impl SourceCode for Snippet {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let contents = self.excerpt.read_named(
            span,
            context_lines_before,
            context_lines_after,
            Some(self.name.clone()),
        )?;
        if context_lines_before > 0 || span.offset() != self.label.offset() {
            return Ok(Box::new(contents));
        }
        // The label alone: miette reads its header position from here.
        Ok(Box::new(miette::MietteSpanContents::new_named(
            self.name.clone(),
            contents.data(),
            *contents.span(),
            self.line,
            self.column,
            contents.line_count(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn place_from_offset_counts_chars() {
        let text = "a: 1\nbé: x\n";
        let p = Place::at_offset(text, text.find('x').unwrap(), 1);
        assert_eq!((p.line, p.column), (2, 5));
        let end = Place::at_offset(text, 999, 5);
        assert_eq!((end.line, end.column, end.len), (3, 1, 0));
        let back = Place::at_line_column(text, 2, 5);
        assert_eq!(back.offset, text.find('x').unwrap());
    }
}
