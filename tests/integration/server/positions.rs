//! Positions in both encodings on a line with CJK text and an emoji before the finding
//! (Chinese comments are normal in TKE and ACK manifests).

use serde_json::json;

use super::{push_client, TestServer};

const TEXT: &str = "\
apiVersion: v1
kind: Service
metadata:
  name: web # 中文注释 🚀
  annotations: {\"说明🚀\": \"负载均衡\", service.cloud.tencent.com/prevent-loopback: true}
spec:
  ports:
    - port: 80
";

fn start(name: &str, encodings: Option<&[&str]>) -> TestServer {
    let mut caps = push_client();
    if let Some(encodings) = encodings {
        caps["general"] = json!({"positionEncodings": encodings});
    }
    TestServer::start(name, &[("cjk.yaml", TEXT)], caps, json!({}))
}

/// The finding's start: `true` on line 4, in UTF-16 units and in bytes.
fn expected() -> (u64, u64) {
    let line = TEXT.lines().nth(4).unwrap();
    let before = &line[..line.find("true}").unwrap()];
    (before.encode_utf16().count() as u64, before.len() as u64)
}

#[test]
fn server_positions_utf16_by_default() {
    let mut server = start("utf16", None);
    assert_eq!(
        server.initialize_result["capabilities"]["positionEncoding"],
        "utf-16"
    );
    let published = server.published("cjk.yaml");
    let d = &published["diagnostics"][0];
    assert_eq!(d["code"], "K8S002");
    let (utf16, utf8) = expected();
    assert_ne!(utf16, utf8);
    assert_eq!(d["range"]["start"], json!({"line": 4, "character": utf16}));
    assert_eq!(
        d["range"]["end"],
        json!({"line": 4, "character": utf16 + 4})
    );
    // Hover at the same place finds it; the quick fix's edit is in UTF-16 too.
    server.open("cjk.yaml", None);
    let hover = server.hover("cjk.yaml", 4, utf16 as u32 + 1);
    assert!(hover["contents"]["value"]
        .as_str()
        .unwrap()
        .starts_with("**K8S002**"));
    let actions = server.code_actions("cjk.yaml", &d["range"], Some(&["quickfix"]));
    let edit = &actions[0]["edit"]["changes"][server.uri("cjk.yaml")][0];
    assert_eq!(
        edit["range"]["start"],
        json!({"line": 4, "character": utf16})
    );
    let fixed = super::apply_edits(TEXT, std::slice::from_ref(edit));
    assert!(fixed.contains("prevent-loopback: \"true\"}"), "{fixed}");
    assert_eq!(server.shutdown(), 0);
}

#[test]
fn server_positions_utf8_when_offered() {
    let mut server = start("utf8", Some(&["utf-32", "utf-8", "utf-16"]));
    assert_eq!(
        server.initialize_result["capabilities"]["positionEncoding"],
        "utf-8"
    );
    let published = server.published("cjk.yaml");
    let (_, utf8) = expected();
    let d = &published["diagnostics"][0];
    assert_eq!(d["range"]["start"], json!({"line": 4, "character": utf8}));
    // An edit in bytes: insert a space before `true`, and the finding moves one byte.
    server.open("cjk.yaml", None);
    let at = json!({"line": 4, "character": utf8});
    server.change(
        "cjk.yaml",
        2,
        json!([{"range": {"start": at, "end": at}, "text": " "}]),
    );
    let moved = server.published("cjk.yaml");
    let start = &moved["diagnostics"][0]["range"]["start"];
    assert_eq!(start, &json!({"line": 4, "character": utf8 + 1}));
    assert_eq!(server.shutdown(), 0);
}
