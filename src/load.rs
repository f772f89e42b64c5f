//! The load stage: bytes to text to documents. Files are read (regular files only, capped
//! at the size limit), decoded the way kubectl decodes them (UTF-8 with or without a BOM,
//! UTF-16 with one), parsed on worker threads under one memory budget, and unrendered
//! templates are told apart from YAML errors. A file that cannot be loaded becomes an
//! `LBL003` diagnostic, never a failed run.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::catalog::lbl;
use crate::diagnostic::Diagnostic;
use crate::objects::LintFile;
use crate::panic;
use crate::read::ReadError;
use crate::source::SourceFile;
use crate::source::Span;
use crate::walk::{self, InputFile, InputSource};
use crate::yaml::{self, Limits, LoadedFile, MemoryBudget, Split};

/// One file, read and parsed (or not, and why).
#[derive(Clone)]
pub(crate) struct Loaded {
    pub(crate) file: Option<LintFile>,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

/// Files a run may take from an earlier one instead of reading and parsing them again (the
/// language server's cache, `server/cache.rs`). `load` loads the files it does not hold.
pub(crate) trait FileCache: Send + Sync + std::fmt::Debug {
    fn load(
        &self,
        files: &[InputFile],
        overlay: Option<&HashMap<PathBuf, String>>,
        load: &dyn Fn(&[InputFile]) -> Vec<Loaded>,
    ) -> Vec<Loaded>;
}

/// Parse trees (and texts) a run may hold: 16 times the file size limit, 1 GiB by default.
/// Real manifests build trees of 5 to 10 times their size; a file of one-character list
/// items, 40 times. Raising --max-file-size raises it with the files it admits.
pub fn memory_budget(max_file_size: u64) -> u64 {
    max_file_size.saturating_mul(16)
}

/// Nodes one file may build: the loader's default (20 million), or one per 4 bytes of the
/// file size limit when --max-file-size is raised past that. A 300 MB stream of manifests
/// holds about 26 million nodes, and a user who admits such a file expects all of it read;
/// the memory budget still bounds what its trees cost.
pub fn max_nodes(max_file_size: u64) -> usize {
    let by_size = usize::try_from(max_file_size / 4).unwrap_or(usize::MAX);
    Limits::default().max_nodes.max(by_size)
}

/// The threads `--threads` asks for: 0 is one per core.
pub(crate) fn cores(threads: usize) -> usize {
    match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// Read and parse files on worker threads; results come back in input order.
pub(crate) fn load_all(
    inputs: &[InputFile],
    stdin: Option<&[u8]>,
    threads: usize,
    max_size: u64,
    overlay: Option<&HashMap<PathBuf, String>>,
) -> Vec<Loaded> {
    let cores = cores(threads);
    // A large stream is split over the cores its file has to itself: all of them for one
    // file, none for a tree (which keeps every core busy already). Threads never exceed
    // about one per core, however many large files there are.
    let split = Split::new((cores / inputs.len().max(1)).max(1));
    let threads = cores.min(inputs.len().max(1));
    let limits = Limits {
        budget: Some(Arc::new(MemoryBudget::new(memory_budget(max_size)))),
        max_nodes: max_nodes(max_size),
        ..Limits::default()
    };
    if threads <= 1 {
        return inputs
            .iter()
            .map(|i| load_one(i, stdin, &limits, split, max_size, overlay))
            .collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<Option<Loaded>> = (0..inputs.len()).map(|_| None).collect();
    let chunks: Vec<Vec<(usize, Loaded)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(input) = inputs.get(i) else { break };
                        done.push((i, load_one(input, stdin, &limits, split, max_size, overlay)));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            // `load_one` catches panics per file; one escaping here is re-raised, never
            // turned into silently missing files.
            .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    for (i, loaded) in chunks.into_iter().flatten() {
        results[i] = Some(loaded);
    }
    results.into_iter().flatten().collect()
}

/// Decode a file's bytes the way kubectl reads a file (cli-runtime's `FileVisitor`:
/// `unicode.BOMOverride(UTF8)`): UTF-8 with an optional BOM, or UTF-16 LE/BE when it starts
/// with a byte-order mark (what Windows PowerShell `>` writes). Anything else is reported,
/// not guessed. Positions in a UTF-16 file are lines and characters, the same in both.
pub(crate) fn decode(bytes: Vec<u8>) -> Result<String, String> {
    if let Some(big_endian) = match bytes.get(..2) {
        Some([0xFF, 0xFE]) => Some(false),
        Some([0xFE, 0xFF]) => Some(true),
        _ => None,
    } {
        return decode_utf16(&bytes[2..], big_endian);
    }
    let bytes = match bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        Some(rest) => rest.to_vec(),
        None => bytes,
    };
    if let Some(nul) = memchr::memchr(0, &bytes) {
        // ASCII text saved as UTF-16 without a BOM: every other byte is NUL.
        let sample = &bytes[..bytes.len().min(512)];
        let half = |skip: usize| sample.iter().skip(skip).step_by(2);
        let nuls = half(nul % 2).filter(|&&b| b == 0).count();
        let text = half(1 - nul % 2).filter(|&&b| b != 0).count();
        let pairs = sample.len() / 2;
        if pairs >= 2 && nuls * 10 >= pairs * 9 && text * 10 >= pairs * 9 {
            return Err("it looks UTF-16 encoded without a byte-order mark; save it as UTF-8 (kubectl reads UTF-16 only with a BOM)".into());
        }
        return Err("it is a binary file (it contains NUL bytes)".into());
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = crate::source::line_breaks(valid) + 1;
        format!("it is not valid UTF-8 (first invalid byte on line {line}); Kubernetes manifests must be UTF-8")
    })
}

fn decode_utf16(bytes: &[u8], big_endian: bool) -> Result<String, String> {
    if bytes.len() % 2 != 0 {
        return Err("it is UTF-16 encoded (byte-order mark) but has an odd number of bytes".into());
    }
    let units = bytes.chunks_exact(2).map(|c| {
        if big_endian {
            u16::from_be_bytes([c[0], c[1]])
        } else {
            u16::from_le_bytes([c[0], c[1]])
        }
    });
    let mut text = String::with_capacity(bytes.len() / 2);
    for (i, unit) in char::decode_utf16(units).enumerate() {
        match unit {
            Ok('\0') => return Err("it is a binary file (it contains NUL characters)".into()),
            Ok(c) => text.push(c),
            Err(_) => {
                let line = crate::source::line_breaks(text.as_bytes()) + 1;
                return Err(format!(
                    "it is UTF-16 encoded (byte-order mark) but invalid: unpaired surrogate at code unit {i}, line {line}"
                ));
            }
        }
    }
    // A UTF-8 BOM after the UTF-16 one is not content.
    Ok(match text.strip_prefix('\u{FEFF}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}

fn load_one(
    input: &InputFile,
    stdin: Option<&[u8]>,
    limits: &Limits,
    split: Split,
    max_size: u64,
    overlay: Option<&HashMap<PathBuf, String>>,
) -> Loaded {
    guarded(&input.display, || {
        let bytes = match &input.source {
            InputSource::Stdin => Ok(stdin.unwrap_or_default().to_vec()),
            InputSource::File(path) => match overlay.and_then(|texts| {
                // Canonical: one file linted under two names (--follow-links) reads its
                // one new text under both.
                texts.get(&walk::canonical(path))
            }) {
                Some(text) => Ok(text.as_bytes().to_vec()),
                None => read_capped(path, max_size),
            },
        };
        let bytes = bytes.and_then(|b| match b.len() as u64 {
            len if len > max_size => Err(walk::too_large(len, max_size)),
            _ => Ok(b),
        });
        load_bytes(&input.display, bytes, limits, split)
    })
}

/// Read a regular file of at most `max_size` bytes: a FIFO or device is never opened, and a
/// file that grew after the walk measured it cannot exhaust memory.
fn read_capped(path: &std::path::Path, max_size: u64) -> Result<Vec<u8>, String> {
    crate::read::read_regular(path, max_size).map_err(|e| match e {
        ReadError::TooLarge { len, limit } => walk::too_large(len, limit),
        ReadError::NotRegular(kind) => walk::not_regular(kind),
        ReadError::Io(e) => format!("cannot read: {e}"),
    })
}

/// Run one file's loading so that a bug (a panic) costs only that file: it becomes an
/// `LBL003` diagnostic on the file, and every other file is still linted.
pub(crate) fn guarded(display: &str, load: impl FnOnce() -> Loaded) -> Loaded {
    match panic::catch(load) {
        Ok(loaded) => loaded,
        Err(crash) => {
            let what = crash.to_string();
            Loaded {
                file: None,
                diagnostics: vec![lbl::file_skipped(
                    display,
                    &format!("lblint crashed while loading it ({what}); this is a bug in lblint, please report it with the file"),
                    None,
                )],
            }
        }
    }
}

pub(crate) fn load_bytes(
    display: &str,
    bytes: Result<Vec<u8>, String>,
    limits: &Limits,
    split: Split,
) -> Loaded {
    let text = match bytes.and_then(decode) {
        Ok(text) => text,
        Err(reason) => {
            return Loaded {
                file: None,
                diagnostics: vec![lbl::file_skipped(display, &reason, None)],
            }
        }
    };
    let over_budget = |limit: u64| {
        Loaded {
        file: None,
        diagnostics: vec![lbl::file_skipped(
            display,
            &format!(
                "the run's memory budget ({} MiB of parse trees, 16 times --max-file-size) is used up; lint it in a separate run, or raise --max-file-size",
                limit >> 20
            ),
            None,
        )],
    }
    };
    let text_cost = text.len() as u64;
    if let Some(budget) = &limits.budget {
        if !budget.charge(text_cost) {
            return over_budget(budget.limit());
        }
    }
    let source = Arc::new(SourceFile::new(display, text));
    // Documents are slimmed as they are parsed; first note where their block and quoted
    // scalars hold `{{` (data, not Helm actions, see `unrendered_template`).
    let text = &source.text;
    let finish = |doc: yaml::Document, braced: &mut Vec<(usize, usize)>| {
        braced.extend(braced_scalar_spans(&doc, text));
        crate::views::slim(doc)
    };
    let (mut loaded, braced) = yaml::load_split(&source, limits, split, &finish);
    let mut braced = braced.concat();
    braced.sort_unstable();
    if let (Some(limit), Some(budget)) = (loaded.over_budget, &limits.budget) {
        budget.release(text_cost);
        return over_budget(limit);
    }
    let mut diagnostics = Vec::new();
    if let Some(at) = unrendered_template(&source.text, loaded.errors.is_empty(), &braced) {
        let span = Span {
            start: source.pos_at(at),
            end: source.pos_at(at + 2),
        };
        diagnostics.push(lbl::unrendered_template(&source.path, span));
        loaded = LoadedFile::default();
    }
    // Kubernetes objects: documents with an apiVersion and a kind.
    let is_object = |doc: usize| {
        let root = loaded.documents.get(doc).and_then(|d| d.root());
        root.is_some_and(|r| r.get("apiVersion").is_some() && r.get("kind").is_some())
    };
    diagnostics.extend(lbl::loader_diagnostics(&source.path, &loaded, is_object));
    Loaded {
        file: Some(LintFile {
            source,
            loaded: Arc::new(loaded),
        }),
        diagnostics,
    }
}

/// A Helm template, not rendered output: a line that starts with a `{{` action (control
/// structures, includes), or `{{` in a file that does not parse. `{{` inside values of a
/// file that parses is data (Prometheus alert templates, Go templates in ConfigMaps), and
/// so is a line inside a block or quoted scalar of such a file (Istio's sidecar-injector
/// ConfigMap holds whole Go templates in `|` blocks).
fn unrendered_template(text: &str, parsed: bool, braced: &[(usize, usize)]) -> Option<usize> {
    let first = text.find("{{")?;
    // Only the lines holding `{{` are looked at (a 50 MB stream has a million lines), and
    // only their first `{{`; each byte is scanned back over at most once.
    let bytes = text.as_bytes();
    let (mut scanned, mut seen_one) = (0, false);
    for at in memchr::memmem::find_iter(bytes, b"{{") {
        let new_line = memchr::memrchr(b'\n', &bytes[scanned..at]).map(|n| scanned + n + 1);
        scanned = at;
        let line_start = match new_line {
            Some(start) => start,
            None if !seen_one => 0,
            // Not the first `{{` of its line.
            None => continue,
        };
        seen_one = true;
        if !text[line_start..at].trim_start().is_empty() {
            continue;
        }
        if !parsed {
            return Some(at);
        }
        let i = braced.partition_point(|&(start, _)| start <= at);
        if !(i > 0 && at < braced[i - 1].1) {
            return Some(at);
        }
    }
    (!parsed).then_some(first)
}

/// Byte ranges of a document's block and quoted scalars that hold `{{`, outermost first.
fn braced_scalar_spans(doc: &yaml::Document, text: &str) -> Vec<(usize, usize)> {
    doc.nodes
        .iter()
        .filter_map(|n| match &n.kind {
            yaml::NodeKind::Scalar(s) if s.style != yaml::Style::Plain => {
                let (start, end) = (n.extent.start(), n.extent.end());
                text.get(start..end)?.contains("{{").then_some((start, end))
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The node limit follows a raised --max-file-size, never below the loader's default.
    #[test]
    fn the_node_limit_grows_with_the_file_size_limit() {
        assert_eq!(max_nodes(64 << 20), 20_000_000);
        assert_eq!(max_nodes(0), 20_000_000);
        assert_eq!(max_nodes(400_000_000), 100_000_000);
        assert_eq!(max_nodes(u64::MAX), usize::try_from(u64::MAX / 4).unwrap());
    }

    fn skipped_reason(loaded: &Loaded) -> String {
        assert!(loaded.file.is_none());
        assert_eq!(loaded.diagnostics.len(), 1);
        assert_eq!(loaded.diagnostics[0].rule(), "LBL003");
        loaded.diagnostics[0].message().to_string()
    }

    #[test]
    fn read_error_is_a_file_diagnostic() {
        let loaded = load_bytes(
            "gone.yaml",
            Err("cannot read: gone".into()),
            &Limits::default(),
            Split::new(1),
        );
        assert!(skipped_reason(&loaded).contains("cannot read: gone"));
    }

    #[test]
    fn file_that_vanished_after_the_walk_is_reported() {
        let dir = std::env::temp_dir().join(format!("lblint-vanish-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("vanishing.yaml");
        std::fs::write(&path, "kind: x\n").unwrap();
        let input = InputFile {
            display: "vanishing.yaml".into(),
            source: InputSource::File(path.clone()),
            stamp: None,
        };
        // Walked, then deleted before the read.
        std::fs::remove_file(&path).unwrap();
        let loaded = load_all(&[input], None, 1, u64::MAX, None).pop().unwrap();
        assert!(skipped_reason(&loaded).contains("cannot read"));
        let _ = std::fs::remove_dir(&dir);
    }

    #[test]
    fn file_that_grew_past_the_limit_after_the_walk_is_reported() {
        let loaded = load_one(
            &InputFile {
                display: "<stdin>".into(),
                source: InputSource::Stdin,
                stamp: None,
            },
            Some(&b"# 0123456789\n"[..]),
            &Limits::default(),
            Split::new(1),
            4,
            None,
        );
        assert!(skipped_reason(&loaded).contains("over the size limit of 4 bytes"));
    }

    #[test]
    fn a_panic_while_loading_becomes_a_diagnostic_for_that_file() {
        let loaded = guarded("boom.yaml", || panic!("kaboom"));
        let reason = skipped_reason(&loaded);
        assert!(
            reason.contains("kaboom") && reason.contains("bug"),
            "{reason}"
        );
        assert_eq!(&*loaded.diagnostics[0].location().file, "boom.yaml");
    }

    #[test]
    fn utf16_with_a_bom_is_decoded_like_kubectl_does() {
        let text = "\u{FEFF}kind: Service # café\n";
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        assert_eq!(decode(le.clone()).unwrap(), "kind: Service # café\n");
        assert_eq!(decode(be).unwrap(), "kind: Service # café\n");
        assert!(decode(le[..le.len() - 1].to_vec())
            .unwrap_err()
            .contains("odd number"));
        let lone = [0xFF, 0xFE, 0x00, 0xD8, b'a', 0];
        assert!(decode(lone.to_vec())
            .unwrap_err()
            .contains("unpaired surrogate"));
        let no_bom: Vec<u8> = "kind: x\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert!(decode(no_bom)
            .unwrap_err()
            .contains("without a byte-order mark"));
        assert!(decode(vec![1, 2, 0, 0, 0, 5, 6, 7, 8, 9])
            .unwrap_err()
            .contains("binary"));
    }

    /// The line-by-line reading `unrendered_template` replaced: the first line whose first
    /// non-blank text is `{{`.
    fn first_action_line(text: &str) -> Option<usize> {
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let trimmed = line.trim_start();
            if trimmed.starts_with("{{") {
                return Some(offset + line.len() - trimmed.len());
            }
            offset += line.len();
        }
        None
    }

    #[test]
    fn template_actions_are_found_at_line_starts_only() {
        let texts = [
            "a: 1\n{{ if x }}\nb: 2\n",
            "{{- include \"x\" . }}\n",
            "a: \"{{ x }}\" {{ y }}\n  \t{{ end }}\n",
            "a: {{ x }} {{ y }} {{ z }}\nb: 1\n",
            "x: 1\r\n  {{{ y }}}\r\n",
            "\u{a0}{{ nbsp }}\n",
            "a: 1\n",
            "{{",
        ];
        for text in texts {
            let expected = first_action_line(text);
            let found = unrendered_template(text, true, &[]);
            assert_eq!(found, expected, "{text:?}");
        }
        // Inside a block scalar of a file that parses: data.
        let text = "a: |\n  {{ x }}\n";
        assert_eq!(unrendered_template(text, true, &[(3, 15)]), None);
        assert_eq!(unrendered_template(text, false, &[]), Some(7));
    }
}
