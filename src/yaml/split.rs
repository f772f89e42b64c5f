//! One large stream parsed on several threads: the text is cut at document
//! starts and each chunk is parsed by its own builder. A cut is only a candidate, `---` at
//! the start of a line: the chunk before it must itself reach a document start at exactly
//! that offset, so the whole-stream parse would start a document there too (a `---` line
//! inside a block scalar or a flow collection never does). When any cut is not confirmed,
//! or a limit that counts over the whole file is reached, the file is parsed again on one
//! thread: the result is always what the one-thread parse gives.

use std::sync::Arc;

use super::builder::{assign_leading_comments, Builder, Chunk, Part, MAX_ERRORS};
use super::tree::Document;
use super::types::{Limits, LoadedFile};
use crate::source::SourceFile;

/// How a stream may be split.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Split {
    /// Threads to parse on; 1 never splits.
    pub threads: usize,
    /// No chunk smaller than this: below a megabyte, threads cost more than they save.
    pub min_chunk: usize,
}

impl Split {
    pub(crate) fn new(threads: usize) -> Split {
        Split {
            threads,
            min_chunk: 1 << 20,
        }
    }
}

/// Parse `source` on up to `split.threads` threads. `finish` sees every complete document
/// (as [`super::load_with`]'s callback) with the state of its chunk; the states come back
/// in source order.
pub(crate) fn load_split<S: Default + Send>(
    file: &Arc<SourceFile>,
    limits: &Limits,
    split: Split,
    finish: &(dyn Fn(Document, &mut S) -> Document + Sync),
) -> (LoadedFile, Vec<S>) {
    try_split(file, limits, split, finish).unwrap_or_else(|| one_thread(file, limits, finish))
}

/// The split parse, or `None` when it cannot be used: no cut, or a cut not confirmed, or a
/// whole-file limit reached, or a crash (met again, and reported, on one thread).
fn try_split<S: Default + Send>(
    file: &Arc<SourceFile>,
    limits: &Limits,
    split: Split,
    finish: &(dyn Fn(Document, &mut S) -> Document + Sync),
) -> Option<(LoadedFile, Vec<S>)> {
    let source = file.text.as_str();
    let cuts = cuts(source, split.threads, split.min_chunk);
    if cuts.is_empty() {
        return None;
    }
    let chunks: Vec<Chunk> = (0..=cuts.len())
        .map(|i| {
            let start = if i == 0 { 0 } else { cuts[i - 1] };
            match cuts.get(i) {
                // The `---` line itself, so that the parser reaches the document start.
                Some(&stop) => Chunk {
                    start,
                    end: memchr::memchr(b'\n', &source.as_bytes()[stop..])
                        .map_or(source.len(), |n| stop + n + 1),
                    stop_at: Some(stop),
                },
                None => Chunk {
                    start,
                    end: source.len(),
                    stop_at: None,
                },
            }
        })
        .collect();
    let parse =
        |chunk: Chunk| crate::panic::catch(|| parse_chunk(file, limits, chunk, finish)).ok();
    let parts: Vec<Option<(Part, S)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks[1..]
            .iter()
            .map(|&chunk| scope.spawn(move || parse(chunk)))
            .collect();
        let mut parts = vec![parse(chunks[0])];
        parts.extend(handles.into_iter().map(|h| h.join().ok().flatten()));
        parts
    });
    merge(parts, source.len(), limits)
}

fn one_thread<S: Default>(
    file: &Arc<SourceFile>,
    limits: &Limits,
    finish: &(dyn Fn(Document, &mut S) -> Document + Sync),
) -> (LoadedFile, Vec<S>) {
    let (part, state) = parse_chunk(file, limits, Chunk::whole(file.text.len()), finish);
    let mut loaded = part.out;
    assign_leading_comments(&mut loaded, &part.comment_floors, file.text.len());
    (loaded, vec![state])
}

/// One chunk, read by the fast path and granit, or by granit alone when the builder asks
/// for it (each attempt with a fresh state, so `finish` sees each document once).
fn parse_chunk<S: Default>(
    file: &Arc<SourceFile>,
    limits: &Limits,
    chunk: Chunk,
    finish: &(dyn Fn(Document, &mut S) -> Document + Sync),
) -> (Part, S) {
    let attempt = |fast: bool| {
        let mut state = S::default();
        let mut finish_one = |doc| finish(doc, &mut state);
        let mut builder = Builder::new(file, limits, &mut finish_one, chunk);
        if !fast {
            builder.granit_only();
        }
        builder.run();
        if builder.needs_granit() {
            builder.abandon();
            return None;
        }
        let part = builder.finish_part();
        Some((part, state))
    };
    attempt(true)
        .or_else(|| attempt(false))
        .unwrap_or_else(|| unreachable!("granit alone never asks to be run again"))
}

/// Candidate cuts: the first `---` line start at or after each equal share of the text.
/// None when the stream has directives (`%TAG` handles reach across the document start).
fn cuts(source: &str, threads: usize, min_chunk: usize) -> Vec<usize> {
    let bytes = source.as_bytes();
    let parts = threads.min(bytes.len() / min_chunk.max(1));
    if parts < 2 || has_directives(bytes) {
        return Vec::new();
    }
    let mut cuts: Vec<usize> = Vec::new();
    for share in 1..parts {
        let from = (bytes.len() / parts * share).max(cuts.last().map_or(0, |&c| c));
        match next_marker_line(bytes, from) {
            Some(at) if at < bytes.len() && cuts.last() != Some(&at) => cuts.push(at),
            _ => {}
        }
    }
    cuts
}

/// Whether `bytes` has a line starting with `%` (a directive, or text that may be one):
/// directives reach across `---` lines, so such text is not cut there.
pub(super) fn has_directives(bytes: &[u8]) -> bool {
    bytes.first() == Some(&b'%') || memchr::memmem::find(bytes, b"\n%").is_some()
}

/// The first `---` line (a candidate document start) that starts after `from`.
pub(super) fn next_marker_line(bytes: &[u8], from: usize) -> Option<usize> {
    let from = from.min(bytes.len());
    memchr::memmem::find_iter(&bytes[from..], b"\n---")
        .map(|at| from + at + 1)
        .find(|&at| matches!(bytes.get(at + 3), None | Some(b' ' | b'\t' | b'\r' | b'\n')))
}

/// The chunks' results as one file's, or `None` when the one-thread parse could differ.
fn merge<S>(
    parts: Vec<Option<(Part, S)>>,
    source_len: usize,
    limits: &Limits,
) -> Option<(LoadedFile, Vec<S>)> {
    let release = |parts: &[Option<(Part, S)>]| {
        if let Some(budget) = &limits.budget {
            for (part, _) in parts.iter().flatten() {
                budget.release(part.charged);
            }
        }
    };
    // Over budget on one thread too: the file is dropped whole either way.
    if let Some(limit) = parts.iter().flatten().find_map(|(p, _)| p.out.over_budget) {
        release(&parts);
        return Some((
            LoadedFile {
                over_budget: Some(limit),
                ..LoadedFile::default()
            },
            Vec::new(),
        ));
    }
    let last = parts.len() - 1;
    let confirmed = parts.iter().enumerate().all(|(i, part)| {
        part.as_ref()
            .is_some_and(|(p, _)| !p.cut_short && (i == last || p.reached_stop))
    });
    let total_nodes: usize = parts.iter().flatten().map(|(p, _)| p.total_nodes).sum();
    let errors: usize = parts
        .iter()
        .flatten()
        .map(|(p, _)| p.out.errors.len())
        .sum();
    if !confirmed || total_nodes > limits.max_nodes || errors >= MAX_ERRORS {
        release(&parts);
        return None;
    }
    let mut out = LoadedFile::default();
    let mut floors = Vec::new();
    let mut states = Vec::new();
    let (mut started, mut last_node_end) = (0, 0);
    // Room for exactly all of them: growing by doubling left up to half again unused.
    let total = |of: fn(&Part) -> usize| parts.iter().flatten().map(|(p, _)| of(p)).sum();
    out.documents
        .reserve_exact(total(|p| p.out.documents.len()));
    out.comments.reserve_exact(total(|p| p.out.comments.len()));
    for (part, state) in parts.into_iter().flatten() {
        let kept = out.documents.len();
        // A chunk's first document follows the previous chunk's last node.
        floors.extend(part.comment_floors.iter().map(|&f| f.max(last_node_end)));
        out.documents
            .extend(part.out.documents.into_iter().map(|mut doc| {
                doc.index += started;
                doc
            }));
        out.duplicate_keys
            .extend(part.out.duplicate_keys.into_iter().map(|mut dup| {
                dup.document += kept;
                dup
            }));
        out.errors.extend(part.out.errors);
        out.comments.extend(part.out.comments);
        out.too_complex.extend(part.out.too_complex);
        started += part.doc_count;
        last_node_end = last_node_end.max(part.last_node_end);
        states.push(state);
    }
    assign_leading_comments(&mut out, &floors, source_len);
    Some((out, states))
}

#[cfg(test)]
#[path = "split_tests.rs"]
mod tests;
