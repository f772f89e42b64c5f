//! Stdio framing (`Content-Length` headers) for an `lsp_server::Connection`. lsp-server's
//! own stdio transport stops reading at the first payload that is not JSON-RPC; this one
//! answers it with the JSON-RPC error (parse error, invalid request; id null) and reads on,
//! so a client's bad message costs that message, not the session.

use std::io::{self, BufRead, Write};
use std::thread::JoinHandle;

use lsp_server::{Connection, Message};

use super::log;

/// The reader and writer threads: join the writer after dropping the connection, so
/// every message queued is written before the process exits.
pub(crate) struct Threads {
    writer: JoinHandle<()>,
}

impl Threads {
    pub(crate) fn join(self) {
        if self.writer.join().is_err() {
            log("the writer thread crashed");
        }
    }
}

/// A connection over this process's stdin and stdout.
pub(crate) fn stdio() -> io::Result<(Connection, Threads)> {
    let (to_client, outgoing) = crossbeam_channel::unbounded::<Message>();
    let (incoming, from_client) = crossbeam_channel::unbounded::<Message>();
    let writer = std::thread::Builder::new()
        .name("lblint-lsp-writer".to_string())
        .spawn(move || {
            for message in outgoing {
                let mut out = io::stdout().lock();
                if let Err(err) = message.write(&mut out) {
                    log(&format!("cannot write to the client: {err}"));
                    break;
                }
            }
        })?;
    // Not joined: it may be blocked reading stdin when the server exits.
    std::thread::Builder::new()
        .name("lblint-lsp-reader".to_string())
        .spawn(move || read_loop(&mut io::stdin().lock(), &incoming))?;
    let connection = Connection {
        sender: to_client,
        receiver: from_client,
    };
    Ok((connection, Threads { writer }))
}

/// Read messages until end of input, `exit`, or a read error.
fn read_loop(input: &mut impl BufRead, incoming: &crossbeam_channel::Sender<Message>) {
    let mut skipped = |line: String| log(&format!("malformed header {line:?}: skipped"));
    loop {
        let message = match read_frame(input, &mut skipped) {
            Ok(None) => return,
            Ok(Some(body)) => match parse(&body) {
                Ok(message) => message,
                Err((code, text)) => {
                    log(&text);
                    reply_error(code, &text);
                    continue;
                }
            },
            Err(err) => {
                log(&format!("cannot read from the client: {err}"));
                return;
            }
        };
        let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
        if incoming.send(message).is_err() || exit {
            return;
        }
    }
}

/// Payloads larger than this are refused unread (an editor never sends one; a corrupt
/// length must not allocate gigabytes).
const MAX_PAYLOAD: usize = 256 << 20;

/// Header lines are cut to this many bytes (the rest is read and dropped): a header is a
/// few dozen bytes, and a line of garbage must not be held whole.
const MAX_HEADER_LINE: usize = 4096;

/// The next framed payload. Header lines that are not headers (not `name: value`, not
/// UTF-8, a bad length, a header block with no length) are given to `skipped` and reading
/// goes on: the next `Content-Length` line and blank line frame a message again. A frame
/// whose length is shorter than its body leaves the body's end before the next header, on
/// the same line: that end is skipped and the header read (see [`resync`]).
fn read_frame(
    input: &mut impl BufRead,
    skipped: &mut impl FnMut(String),
) -> io::Result<Option<Vec<u8>>> {
    let mut length = None;
    let mut line = Vec::new();
    loop {
        if !read_line(input, &mut line)? {
            return Ok(None);
        }
        let bytes = line.strip_suffix(b"\n").unwrap_or(&line);
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        let bytes = resync(bytes, skipped);
        if bytes.is_empty() {
            match length.take() {
                Some(length) => {
                    let mut body = vec![0; length];
                    input.read_exact(&mut body)?;
                    return Ok(Some(body));
                }
                None => {
                    skipped("(no Content-Length)".to_string());
                    continue;
                }
            }
        }
        let header = std::str::from_utf8(bytes).ok();
        match header.and_then(|h| h.split_once(':')) {
            Some((name, value)) if name.trim().eq_ignore_ascii_case("Content-Length") => {
                match value.trim().parse::<usize>() {
                    Ok(n) if n <= MAX_PAYLOAD => length = Some(n),
                    _ => skipped(String::from_utf8_lossy(bytes).into_owned()),
                }
            }
            // Content-Type and other headers: nothing to do.
            Some(_) => {}
            None => skipped(String::from_utf8_lossy(bytes).into_owned()),
        }
    }
}

/// The header a line holds after other bytes (the end of a body longer than its
/// frame's `Content-Length` said, before the next frame's header): those bytes go to
/// `skipped`. Any other line is returned as it is.
fn resync<'a>(bytes: &'a [u8], skipped: &mut impl FnMut(String)) -> &'a [u8] {
    const HEADER: &[u8] = b"content-length:";
    let found = bytes
        .windows(HEADER.len())
        .skip(1)
        .position(|w| w.eq_ignore_ascii_case(HEADER));
    match found {
        Some(at) => {
            skipped(String::from_utf8_lossy(&bytes[..at + 1]).into_owned());
            &bytes[at + 1..]
        }
        None => bytes,
    }
}

/// Of a line longer than [`MAX_HEADER_LINE`], this many bytes of its end are kept too:
/// a frame's header can follow a long run of bytes that are not (see [`resync`]).
const KEPT_END: usize = 64;

/// One line, `\n` included, into `line` (at most [`MAX_HEADER_LINE`] bytes of its start
/// and [`KEPT_END`] of its end); false at end of input.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<bool> {
    line.clear();
    let mut end = Vec::new();
    let mut read_any = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if buf.is_empty() {
            line.append(&mut end);
            return Ok(read_any);
        }
        read_any = true;
        let (used, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(at) => (at + 1, true),
            None => (buf.len(), false),
        };
        let room = MAX_HEADER_LINE.saturating_sub(line.len());
        line.extend_from_slice(&buf[..used.min(room)]);
        let over = &buf[used.min(room)..used];
        end.extend_from_slice(&over[over.len().saturating_sub(KEPT_END)..]);
        end.drain(..end.len().saturating_sub(KEPT_END));
        input.consume(used);
        if done {
            line.append(&mut end);
            return Ok(true);
        }
    }
}

/// A payload as a message, or the JSON-RPC error code and text for it.
fn parse(body: &[u8]) -> Result<Message, (i32, String)> {
    let value: serde_json::Value = serde_json::from_slice(body).map_err(|e| {
        (
            -32700,
            format!("Parse error: the message is not JSON ({e})"),
        )
    })?;
    serde_json::from_value(value).map_err(|e| {
        (
            -32600,
            format!("Invalid request: not a JSON-RPC message ({e})"),
        )
    })
}

/// An error response with id null: the id of a message that could not be read is unknown.
fn reply_error(code: i32, message: &str) {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message},
    })
    .to_string();
    let mut out = io::stdout().lock();
    let written =
        write!(out, "Content-Length: {}\r\n\r\n{body}", body.len()).and_then(|_| out.flush());
    if let Err(err) = written {
        log(&format!("cannot write to the client: {err}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<String> {
        let mut input = io::Cursor::new(input.to_vec());
        let mut out = Vec::new();
        loop {
            let mut skipped = Vec::new();
            let frame = read_frame(&mut input, &mut |line| skipped.push(line));
            out.extend(skipped.into_iter().map(|line| format!("bad header {line}")));
            let Ok(Some(body)) = frame else {
                return out;
            };
            out.push(match parse(&body) {
                Ok(Message::Notification(n)) => format!("notification {}", n.method),
                Ok(other) => format!("{other:?}"),
                Err((code, _)) => format!("error {code}"),
            });
        }
    }

    #[test]
    fn bad_frames_cost_one_message() {
        let good = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        let input = format!(
            "garbage\r\nContent-Length: 5\r\n\r\nnot{{}}Content-Length: 2\r\n\r\n{{}}\
             Content-Length: {}\r\n\r\n{good}Content-Length: 99999999999\r\n\r\n",
            good.len()
        );
        assert_eq!(
            frames(input.as_bytes()),
            [
                "bad header garbage",
                "error -32700",
                "error -32600",
                "notification initialized",
                "bad header Content-Length: 99999999999",
                // The blank line after the refused header ends a header with no length.
                "bad header (no Content-Length)",
            ]
        );
    }

    #[test]
    fn non_utf8_headers_are_skipped_and_bodies_are_parse_errors() {
        let good = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        let mut input = b"\xff\xfe garbage\r\n".to_vec();
        // A bad line inside a header block: the block's length still frames the body.
        input.extend(format!("Content-Length: {}\r\n", good.len()).as_bytes());
        input.extend(b"X-\xff: 1\r\n\r\n");
        input.extend(good.as_bytes());
        let body = b"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}";
        input.extend(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
        input.extend(body);
        // A line longer than any header is cut to its start and end, not held whole.
        input.extend(vec![b'x'; MAX_HEADER_LINE * 3]);
        input.extend(format!("\r\nContent-Length: {}\r\n\r\n{good}", good.len()).as_bytes());
        let long = format!("bad header {}", "x".repeat(MAX_HEADER_LINE + KEPT_END - 2));
        assert_eq!(
            frames(&input),
            [
                "bad header \u{fffd}\u{fffd} garbage",
                "bad header X-\u{fffd}: 1",
                "notification initialized",
                "error -32700",
                &long,
                "notification initialized",
            ]
        );
    }

    #[test]
    fn a_frame_shorter_than_its_body_costs_that_frame() {
        let good = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        // Before: the body's end and the next header made one line, read as an unknown
        // header, and every later frame's body swallowed the header after it.
        let input = format!(
            "Content-Length: 20\r\n\r\n{good}Content-Length: {n}\r\n\r\n{good}\
             Content-Length: {n}\r\n\r\n{good}",
            n = good.len()
        );
        assert_eq!(
            frames(input.as_bytes()),
            [
                "error -32700",
                "bad header thod\":\"initialized\",\"params\":{}}",
                "notification initialized",
                "notification initialized",
            ]
        );
        // The end is longer than a header line may be: the header after it is still read.
        let long = format!("{{\"text\":\"{}\"}}", "y".repeat(MAX_HEADER_LINE * 2));
        let input = format!(
            "Content-Length: 9\r\n\r\n{long}Content-Length: {}\r\n\r\n{good}",
            good.len()
        );
        let read = frames(input.as_bytes());
        assert_eq!(read.len(), 3, "{read:?}");
        assert_eq!(
            (read[0].as_str(), read[2].as_str()),
            ("error -32700", "notification initialized")
        );
    }
}
