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
pub struct Threads {
    writer: JoinHandle<()>,
}

impl Threads {
    pub fn join(self) {
        if self.writer.join().is_err() {
            log("the writer thread crashed");
        }
    }
}

/// A connection over this process's stdin and stdout.
pub fn stdio() -> io::Result<(Connection, Threads)> {
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
    loop {
        let message = match read_frame(input) {
            Ok(None) => return,
            Ok(Some(Frame::Body(body))) => match parse(&body) {
                Ok(message) => message,
                Err((code, text)) => {
                    log(&text);
                    reply_error(code, &text);
                    continue;
                }
            },
            Ok(Some(Frame::BadHeader(line))) => {
                let text = format!("malformed header {line:?}: skipped");
                log(&text);
                continue;
            }
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

/// One framed payload, or a header line that is not one (skipped: the next line may
/// start a good header again).
enum Frame {
    Body(Vec<u8>),
    BadHeader(String),
}

/// Payloads larger than this are refused unread (an editor never sends one; a corrupt
/// length must not allocate gigabytes).
const MAX_PAYLOAD: usize = 256 << 20;

fn read_frame(input: &mut impl BufRead) -> io::Result<Option<Frame>> {
    let mut length = None;
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else {
            return Ok(Some(Frame::BadHeader(header.to_string())));
        };
        if name.trim().eq_ignore_ascii_case("Content-Length") {
            match value.trim().parse::<usize>() {
                Ok(n) if n <= MAX_PAYLOAD => length = Some(n),
                _ => return Ok(Some(Frame::BadHeader(header.to_string()))),
            }
        }
    }
    let Some(length) = length else {
        return Ok(Some(Frame::BadHeader("(no Content-Length)".to_string())));
    };
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    Ok(Some(Frame::Body(body)))
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

    fn frames(input: &str) -> Vec<String> {
        let mut input = io::Cursor::new(input.as_bytes().to_vec());
        let mut out = Vec::new();
        while let Ok(Some(frame)) = read_frame(&mut input) {
            out.push(match frame {
                Frame::Body(body) => match parse(&body) {
                    Ok(Message::Notification(n)) => format!("notification {}", n.method),
                    Ok(other) => format!("{other:?}"),
                    Err((code, _)) => format!("error {code}"),
                },
                Frame::BadHeader(line) => format!("bad header {line}"),
            });
        }
        out
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
            frames(&input),
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
}
