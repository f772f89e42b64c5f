//! The real binary over stdio: framing, a garbage message answered with a JSON-RPC
//! parse error (the session goes on), diagnostics, shutdown and exit with status 0.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value};

fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// `lblint server` with piped stdio.
fn spawn(stderr: Stdio) -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lblint"))
        .arg("server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let input = child.stdin.take().unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    (child, input, out)
}

fn read_message(out: &mut BufReader<ChildStdout>) -> Value {
    let mut length = 0;
    loop {
        let mut line = String::new();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "the server closed stdout"
        );
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = n.parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    out.read_exact(&mut body).unwrap();
    serde_json::from_slice(&body).unwrap()
}

#[test]
fn server_binary_over_stdio() {
    let dir = crate::cli::tempdir("server-stdio");
    let text = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n    service.cloud.tencent.com/prevent-loopback: true\n";
    std::fs::write(dir.join("svc.yaml"), text).unwrap();
    let root = lblint::server::uri::from_path(&std::fs::canonicalize(&dir).unwrap());
    let (mut child, mut input, mut out) = spawn(Stdio::piped());
    let mut send = |value: Value| input.write_all(&frame(&value.to_string())).unwrap();

    // Not JSON: a parse error with id null, and the server reads on.
    send(json!({"jsonrpc": "2.0"}));
    let invalid = read_message(&mut out);
    assert_eq!(
        (invalid["id"].clone(), invalid["error"]["code"].clone()),
        (Value::Null, json!(-32600))
    );
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"processId": null, "rootUri": root, "capabilities": {}}}));
    let init = read_message(&mut out);
    assert_eq!(init["id"], 1);
    assert_eq!(init["result"]["serverInfo"]["name"], "lblint");
    send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let published = read_message(&mut out);
    assert_eq!(published["method"], "textDocument/publishDiagnostics");
    assert_eq!(published["params"]["diagnostics"][0]["code"], "K8S002");
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
    assert_eq!(
        read_message(&mut out),
        json!({"jsonrpc": "2.0", "id": 2, "result": null})
    );
    send(json!({"jsonrpc": "2.0", "method": "exit"}));
    drop(input);
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("Invalid request"), "{stderr}");
}

#[test]
fn server_binary_answers_garbage_with_a_parse_error() {
    let (mut child, mut input, mut out) = spawn(Stdio::null());
    input.write_all(&frame("{not json")).unwrap();
    let error = read_message(&mut out);
    assert_eq!(error["error"]["code"], -32700);
    assert_eq!(error["id"], Value::Null);
    // End of input without exit: status 1, no hang.
    drop(input);
    assert_eq!(child.wait().unwrap().code(), Some(1));
}

#[test]
fn server_binary_skips_a_non_utf8_header_line() {
    let (mut child, mut input, mut out) = spawn(Stdio::piped());
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"processId": null, "capabilities": {}}});
    input.write_all(&frame(&init.to_string())).unwrap();
    assert_eq!(read_message(&mut out)["id"], 1);
    // Once cost the session: the line was read as a String and the error ended the reader.
    input.write_all(b"\xff\xfe garbage\r\n").unwrap();
    let body = b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"\xff\"}";
    input
        .write_all(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes())
        .unwrap();
    input.write_all(body).unwrap();
    input.flush().unwrap();
    assert_eq!(
        read_message(&mut out),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700,
               "message": "Parse error: the message is not JSON (invalid unicode code point at line 1 column 35)"}})
    );
    let shutdown = json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown"});
    input.write_all(&frame(&shutdown.to_string())).unwrap();
    assert_eq!(
        read_message(&mut out),
        json!({"jsonrpc": "2.0", "id": 3, "result": null})
    );
    input
        .write_all(&frame(r#"{"jsonrpc":"2.0","method":"exit"}"#))
        .unwrap();
    drop(input);
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    let mut err = child.stderr.take().unwrap();
    err.read_to_string(&mut stderr).unwrap();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("lblint server: malformed header \"\u{fffd}\u{fffd} garbage\": skipped\n"),
        "{stderr}"
    );
}

/// `initialize` with no workspace folder (nothing on disk is linted), answered.
fn initialize(input: &mut ChildStdin, out: &mut BufReader<ChildStdout>) {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"processId": null, "capabilities": {}}});
    input.write_all(&frame(&init.to_string())).unwrap();
    assert_eq!(read_message(out)["id"], 1);
}

/// Send `shutdown` (id 99) and `exit` and close stdin, all before reading, so a server
/// that lost its framing ends at end of input instead of leaving the test waiting. The
/// messages before the shutdown's answer, the exit status and stderr.
fn shut_down(
    mut child: Child,
    mut input: ChildStdin,
    mut out: BufReader<ChildStdout>,
) -> (Vec<Value>, Option<i32>, String) {
    let shutdown = json!({"jsonrpc": "2.0", "id": 99, "method": "shutdown"});
    input.write_all(&frame(&shutdown.to_string())).unwrap();
    input
        .write_all(&frame(r#"{"jsonrpc":"2.0","method":"exit"}"#))
        .unwrap();
    drop(input);
    let mut before = Vec::new();
    loop {
        let message = read_message(&mut out);
        if message["id"] == 99 {
            assert_eq!(message, json!({"jsonrpc": "2.0", "id": 99, "result": null}));
            break;
        }
        before.push(message);
    }
    let status = child.wait().unwrap().code();
    let mut stderr = String::new();
    let mut err = child.stderr.take().unwrap();
    err.read_to_string(&mut stderr).unwrap();
    (before, status, stderr)
}

#[test]
fn server_binary_reads_on_after_a_frame_shorter_than_its_body() {
    let (child, mut input, mut out) = spawn(Stdio::piped());
    initialize(&mut input, &mut out);
    // Once the end of the session: the body's last bytes and the next header made one line,
    // read as an unknown header, and each later frame's body swallowed the next header.
    let hover = json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover",
                       "params": {"textDocument": {"uri": "file:///x.yaml"},
                                  "position": {"line": 0, "character": 0}}})
    .to_string();
    let short = hover.len() - 12;
    input
        .write_all(format!("Content-Length: {short}\r\n\r\n{hover}").as_bytes())
        .unwrap();
    let (before, status, stderr) = shut_down(child, input, out);
    assert_eq!(
        before,
        [
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700,
                "message": "Parse error: the message is not JSON (EOF while parsing a string at line 1 column 129)"}})
        ]
    );
    assert_eq!(status, Some(0), "{stderr}");
    assert!(
        stderr.contains("lblint server: malformed header \"//x.yaml\\\"}}}\": skipped\n"),
        "{stderr}"
    );
}

#[test]
fn server_binary_refuses_a_directory_opened_as_a_document() {
    let dir = std::fs::canonicalize(crate::cli::tempdir("server-stdio-dir")).unwrap();
    let (child, mut input, mut out) = spawn(Stdio::piped());
    initialize(&mut input, &mut out);
    let initialized = json!({"jsonrpc": "2.0", "method": "initialized", "params": {}});
    input.write_all(&frame(&initialized.to_string())).unwrap();
    // `file:///` once linted the whole disk; a directory without the trailing slash too.
    let dir_uri = lblint::server::uri::from_path(&dir);
    for uri in ["file:///", dir_uri.as_str()] {
        let open = json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": "a: b\n"}}});
        input.write_all(&frame(&open.to_string())).unwrap();
    }
    let (before, status, stderr) = shut_down(child, input, out);
    let shown = |uri: &str| {
        json!({"jsonrpc": "2.0", "method": "window/showMessage", "params": {"type": 2,
               "message": format!("lblint: {uri} is a directory, not a document: not linted \
                                   (the workspace folders are linted as a whole already)")}})
    };
    assert_eq!(before, [shown("file:///"), shown(&dir_uri)]);
    assert_eq!(status, Some(0), "{stderr}");
    // No lint after the first (of no folder), and nothing published above.
    assert!(!stderr.contains("lint 2"), "{stderr}");
}
