//! Medium 8 and Low 13, over MCP: a request over the 16 MiB message limit is answered with an
//! error naming the limit (the SDK alone drops it and the client waits forever); deleting or
//! moving a file the model never read is refused, as overwriting one is.

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
