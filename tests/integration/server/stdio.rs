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
