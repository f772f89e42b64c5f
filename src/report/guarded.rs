//! Reports rendered under a panic guard: a reporter's bug loses no findings a person would
//! see (the human format falls back to compact lines) and never writes half a document.

use std::io;

use crate::panic::{catch, InternalError};
use crate::report::Format;

/// A report rendered under a guard.
#[derive(Debug)]
pub(crate) struct Rendered {
    /// What to write: the report, the compact fallback, or nothing.
    pub bytes: Vec<u8>,
    /// The reporter's crash, if it crashed.
    pub crash: Option<InternalError>,
}

/// Renders the report in `format` with `render`, guarded: a reporter that panics writes nothing
/// (half a JSON document is worse than none) and gives an `InternalError`. For the human
/// format the findings then come out one per line in the compact format, so a person still sees
/// them. An I/O error is returned as it is.
pub(crate) fn render_report(
    format: Format,
    mut render: impl FnMut(Format, &mut Vec<u8>) -> io::Result<()>,
) -> io::Result<Rendered> {
    let mut bytes = Vec::new();
    let crash = match catch(|| render(format, &mut bytes)) {
        Ok(written) => {
            written?;
            return Ok(Rendered { bytes, crash: None });
        }
        Err(crash) => crash,
    };
    let mut lost = "no report was written";
    let mut fallback = Vec::new();
    if format == Format::Human
        && matches!(catch(|| render(Format::Compact, &mut fallback)), Ok(Ok(())))
    {
        lost = "the findings are listed in the compact format instead";
    } else {
        fallback.clear();
    }
    Ok(Rendered {
        bytes: fallback,
        crash: Some(InternalError {
            what: format!("the {format} reporter"),
            lost,
            crash,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::panic::install_hook;

    /// A reporter with a bug in the formats listed; the others write their name.
    fn reporter(broken: &'static [Format]) -> impl FnMut(Format, &mut Vec<u8>) -> io::Result<()> {
        move |format, out| {
            out.extend_from_slice(b"partial ");
            if broken.contains(&format) {
                panic!("{format} is broken");
            }
            out.extend_from_slice(format.as_str().as_bytes());
            Ok(())
        }
    }

    #[test]
    fn a_crashing_human_reporter_falls_back_to_compact_lines() {
        install_hook();
        let rendered = render_report(Format::Human, reporter(&[Format::Human])).unwrap();
        assert_eq!(rendered.bytes, b"partial compact");
        let crash = rendered.crash.unwrap();
        assert_eq!(crash.what, "the human reporter");
        assert_eq!(crash.crash.message, "human is broken");
        assert_eq!(
            crash.lost,
            "the findings are listed in the compact format instead"
        );
    }

    #[test]
    fn a_crashing_machine_reporter_writes_nothing() {
        install_hook();
        for format in [Format::Json, Format::Sarif] {
            let rendered = render_report(format, reporter(&[Format::Json, Format::Sarif])).unwrap();
            assert!(rendered.bytes.is_empty(), "no half document");
            assert_eq!(rendered.crash.unwrap().lost, "no report was written");
        }
        let both =
            render_report(Format::Human, reporter(&[Format::Human, Format::Compact])).unwrap();
        assert!(both.bytes.is_empty());
        assert_eq!(both.crash.unwrap().lost, "no report was written");
    }

    #[test]
    fn a_working_reporter_and_io_errors_pass_through() {
        let rendered = render_report(Format::Github, reporter(&[])).unwrap();
        assert_eq!(rendered.bytes, b"partial github");
        assert!(rendered.crash.is_none());
        let failing = render_report(Format::Human, |_, _| Err(io::Error::other("disk full")));
        assert_eq!(failing.unwrap_err().to_string(), "disk full");
    }
}
