//! The builder's reading loop: each document is read by the fast path when it
//! can, and by granit when it cannot.
//!
//! granit takes over at the start of a document the fast path gives up on, and hands back
//! at the next `---` line it confirms as a document start: the same test that lets a stream
//! be split between threads (`split.rs`), for the same reason. When granit does not confirm
//! that line, or a limit stops loading in a document the fast path read, the builder asks
//! to be run again with granit alone ([`Builder::needs_granit`]): the result is always what
//! granit alone gives.

use granit_parser::Event;

use super::{Abort, Builder, Chunk, Progress};
use crate::yaml::fast::{Doc, FastParser, Sink};
use crate::yaml::split::{has_directives, next_marker_line};

/// What building a document changes before it completes: restored when the fast path gives
/// up on the document part way. The document itself (`doc`, `doc_cost`) is dropped.
struct Mark {
    progress: Progress,
    comments: usize,
}

impl Sink<'_> for Builder<'_, '_, '_> {
    fn event(&mut self, event: Event<'_>, start: usize, end: usize) -> bool {
        match self.event_at(event, start, end, None) {
            Ok(()) => true,
            // granit may not have emitted the same comments before stopping, and may not
            // even have built this far (it stops at a character the fast path only checks
            // when the document ends): granit alone decides, over the budget too.
            Err(Abort::File(_) | Abort::Document(_) | Abort::Budget) => {
                self.needs_granit = true;
                false
            }
        }
    }
}

impl Builder<'_, '_, '_> {
    /// Read granit's part only (the fallback, and what the fast path is checked against).
    pub(in crate::yaml) fn granit_only(&mut self) {
        self.use_fast = false;
    }

    /// The result may differ from granit's: drop it ([`Builder::abandon`]) and parse again
    /// with [`Builder::granit_only`].
    pub(in crate::yaml) fn needs_granit(&self) -> bool {
        self.needs_granit
    }

    /// Give back what this builder holds of the memory budget (its result is not used).
    pub(in crate::yaml) fn abandon(mut self) {
        self.drop_over_budget();
    }

    pub(in crate::yaml) fn run(&mut self) {
        // Directives (`%TAG`) reach across a `---` line, where granit hands back.
        let chunk = self.read;
        let directives = has_directives(&self.source().as_bytes()[chunk.start..chunk.end]);
        // Below the fast path's own depth limit, the configured one could stop a document
        // it reads: leave such runs to granit.
        if !self.use_fast || directives || self.limits.max_depth <= crate::yaml::fast::MAX_DEPTH {
            return self.run_granit();
        }
        let source = self.source();
        // The fast path reads up to the next chunk's first `---` line, as to the end of the
        // text: in the whole text it reads a `---` line there, which ends a document the same
        // way (so reaching it confirms the cut, as granit's document start does).
        let fast_end = chunk.stop_at.unwrap_or(chunk.end);
        let mut at = chunk.start;
        loop {
            if self.out.errors.len() >= super::MAX_ERRORS {
                self.cut_short = true;
                return;
            }
            if chunk.stop_at == Some(at) {
                self.reached_stop = true;
                return;
            }
            let mark = self.mark();
            match FastParser::new(source, fast_end, self).document(at) {
                Doc::End => {
                    self.reached_stop = chunk.stop_at.is_some();
                    return;
                }
                Doc::Parsed { next } => at = next,
                // The sink stopped it: granit must start over.
                Doc::Unsupported if self.needs_granit => return,
                Doc::Unsupported => {
                    self.rollback(mark);
                    match self.granit_from(at, chunk) {
                        Some(next) => at = next,
                        None => return,
                    }
                }
            }
        }
    }

    fn mark(&self) -> Mark {
        Mark {
            progress: self.progress,
            comments: self.out.comments.len(),
        }
    }

    /// Forget the part of a document the fast path sent before it gave up.
    fn rollback(&mut self, mark: Mark) {
        self.doc = None;
        let cost = std::mem::take(&mut self.doc_cost);
        self.uncharge(cost);
        self.progress = mark.progress;
        self.out.comments.truncate(mark.comments);
    }

    /// granit parses from the document start `at` to the next `---` line and confirms it;
    /// returns that line, or `None` when loading is over (end of the chunk, a limit, or an
    /// unconfirmed line that asks for granit alone).
    fn granit_from(&mut self, at: usize, chunk: Chunk) -> Option<usize> {
        let bytes = self.source().as_bytes();
        let next = next_marker_line(&bytes[..chunk.end], own_marker_end(bytes, at, chunk.end))
            .filter(|&line| chunk.stop_at.is_none_or(|stop| line < stop));
        let part = match next {
            Some(line) => Chunk {
                start: at,
                end: memchr::memchr(b'\n', &bytes[line..chunk.end])
                    .map_or(chunk.end, |n| line + n + 1),
                stop_at: Some(line),
            },
            None => Chunk { start: at, ..chunk },
        };
        self.read = part;
        self.run_granit();
        self.read = chunk;
        let reached = std::mem::take(&mut self.reached_stop);
        if self.cut_short || self.out.over_budget.is_some() {
            return None;
        }
        match next {
            Some(line) if reached => Some(line),
            Some(_) => {
                self.needs_granit = true;
                None
            }
            // granit read the rest of the chunk, up to its own stop.
            None => {
                self.reached_stop = reached;
                None
            }
        }
    }
}

/// Past the `---` line of the document starting at `at` (after blank and comment lines at
/// the start of the stream), or past `at` when its first line is content: the next `---`
/// line from there is the next document's.
fn own_marker_end(bytes: &[u8], at: usize, end: usize) -> usize {
    let mut line = at;
    while line < end {
        let eol = memchr::memchr(b'\n', &bytes[line..end]).map_or(end, |n| line + n);
        let text = &bytes[line..eol];
        match text.iter().find(|&&c| c != b' ') {
            None | Some(b'#') => line = eol + 1,
            _ if text.starts_with(b"---") => return eol,
            _ => return line + 1,
        }
    }
    at + 1
}
