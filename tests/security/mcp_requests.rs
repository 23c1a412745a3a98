//! Medium 8 and Low 13, over MCP: a request over the 16 MiB message limit is answered with an
//! error naming the limit (the SDK alone drops it and the client waits forever); a line that is
//! not JSON is answered with a JSON-RPC parse error (the SDK alone drops it too, issue #35);
//! deleting or moving a file the model never read is refused, as overwriting one is.

use super::mcp::Mcp;
use crate::suite::tree::temp_tree;
use serde_json::json;

#[test]
fn a_request_over_the_message_limit_is_answered_naming_the_limit() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let mut mcp = Mcp::start(dir.path(), &[], &[]);
    let content = "x".repeat(17 * 1024 * 1024);
    let line = json!({"jsonrpc": "2.0", "id": 901, "method": "tools/call",
                      "params": {"name": "write_file", "arguments": {"path": "big.txt", "content": content}}})
    .to_string();
    mcp.send_line(&line);
    let answer = mcp.answer_to(&json!(901));
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "{answer:.300}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("16 MiB") && text.contains("nothing was read or written"),
        "{text}"
    );
    assert!(!dir.path().join("big.txt").exists());
    // The session goes on.
    let a = mcp.call("read_file", json!({"path": "a.txt"}));
    assert!(!a.is_error, "{a:?}");
}

/// Issue #35: a line nested deeper than JSON parsers go, a line cut short and a line with a
/// byte that is not UTF-8 each get a parse error (-32700, id null) saying what was wrong; the
/// next request is answered as usual.
#[test]
fn malformed_lines_are_answered_with_a_parse_error_and_the_session_goes_on() {
    let dir = temp_tree(&[("a.txt", b"a\n")]);
    let mut mcp = Mcp::start(dir.path(), &[], &[]);
    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":71,\"method\":\"ping\",\"params\":{{\"a\":{}{}}}}}",
        "[".repeat(130),
        "]".repeat(130)
    );
    mcp.send_line(&deep);
    mcp.send_line(r#"{"jsonrpc":"2.0","id":72,"method":"tools/list""#);
    mcp.send_bytes(
        b"{\"jsonrpc\":\"2.0\",\"id\":73,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}",
    );
    mcp.send_line(r#"{"jsonrpc":"2.0","id":74,"method":"ping"}"#);
    let mut messages = mcp.messages_until(&json!(74));
    let answer = messages.pop().unwrap();
    assert_eq!(answer["result"], json!({}), "{answer}");
    let errors: Vec<_> = messages
        .iter()
        .filter(|m| m["error"]["code"] == -32700)
        .collect();
    assert_eq!(
        errors.len(),
        3,
        "one parse error per malformed line: {messages:#?}"
    );
    for (error, why) in errors.iter().zip(["recursion limit", "EOF", "unicode"]) {
        assert_eq!(error["jsonrpc"], "2.0");
        assert!(error["id"].is_null(), "{error}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(message.contains(why), "{why}: {message}");
        assert!(message.contains("ignored"), "{message}");
    }
    // The session goes on.
    let a = mcp.call("read_file", json!({"path": "a.txt"}));
    assert!(!a.is_error, "{a:?}");
}

#[test]
fn deleting_or_moving_an_unread_file_is_refused() {
    let dir = temp_tree(&[("keep.py", b"x = 1\n"), ("old.py", b"y = 2\n")]);
    let root = dir.path();
    let mut mcp = Mcp::start(root, &[], &[]);
    for patch in [
        "*** Begin Patch\n*** Delete File: keep.py\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: old.py\n*** Move to: new.py\n@@\n y = 2\n*** End Patch\n",
        "diff --git a/keep.py b/keep.py\ndeleted file mode 100644\n--- a/keep.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x = 1\n",
    ] {
        let a = mcp.call("apply_patch", json!({"text": patch}));
        assert!(
            a.is_error && a.text.contains("you have not read it"),
            "{patch}: {a:?}"
        );
    }
    assert!(root.join("keep.py").exists() && root.join("old.py").exists());
    // Once read, they are the model's to delete or move.
    for path in ["keep.py", "old.py"] {
        assert!(!mcp.call("read_file", json!({"path": path})).is_error);
    }
    let a = mcp.call("apply_patch", json!({"text": "*** Begin Patch\n*** Delete File: keep.py\n*** Update File: old.py\n*** Move to: new.py\n@@\n y = 2\n*** End Patch\n"}));
    assert!(!a.is_error, "{a:?}");
    assert!(!root.join("keep.py").exists() && root.join("new.py").exists());
}
