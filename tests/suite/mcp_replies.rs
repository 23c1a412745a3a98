//! What a model reads over MCP in a tool result's text (the structured content aside, which
//! many clients never show it): that its tests ran and passed, and which argument of a call
//! was wrong and what it must be.

use crate::security::mcp::Mcp;
use crate::suite::tree::temp_tree;
use serde_json::json;

const PATCH: &str = "*** Begin Patch\n*** Update File: app.py\n-x = 1\n+x = 2\n*** End Patch\n";

/// Issue #41: over MCP only the structured content said the tests passed; the text says it.
#[test]
fn the_text_says_the_tests_passed() {
    let dir = temp_tree(&[("app.py", b"x = 1\n")]);
    let mut mcp = Mcp::start(dir.path(), &["--test-command", "true", "--no-sandbox"], &[]);
    let a = mcp.call("apply_patch", json!({"text": PATCH, "test": true}));
    assert!(!a.is_error, "{a:?}");
    assert_eq!(a.structured["test"]["passed"], true, "{a:?}");
    assert!(a.text.contains("Tests passed in "), "{a:?}");
    assert!(a.text.contains("(`true`)"), "{a:?}");
}

/// Issue #41: arguments a tool cannot take came back as serde's text ("invalid type: integer
/// `3`, expected a string"); the answer names the tool, the argument and what it must be.
#[test]
fn argument_errors_name_the_argument_and_what_it_must_be() {
    let dir = temp_tree(&[("app.py", b"x = 1\n")]);
    let mut mcp = Mcp::start(dir.path(), &[], &[]);
    let cases = [
        (
            "read_file",
            json!({"path": 3}),
            "`path` must be a string, not the number 3",
        ),
        (
            "edit",
            json!({"path": "app.py", "old_string": "x", "new_string": "y", "test": true}),
            "there is no argument `test`",
        ),
        ("edit", json!({"path": "app.py"}), "`old_string` is missing"),
        (
            "edit_lines",
            json!({"path": "app.py", "edits": [{"op": "replace", "start": 1}]}),
            "`edits[0].start` must be a string, not the number 1",
        ),
    ];
    for (tool, args, said) in cases {
        let a = mcp.call(tool, args);
        assert!(a.is_error, "{tool}: {a:?}");
        assert!(
            a.text.starts_with(&format!("Wrong arguments for {tool}: ")),
            "{tool}: {a:?}"
        );
        assert!(a.text.contains(said), "{tool}: {a:?}");
        assert!(!a.text.contains("deserialize"), "{tool}: {a:?}");
    }
    assert_eq!(
        std::fs::read(dir.path().join("app.py")).unwrap(),
        b"x = 1\n"
    );
}

/// Issue #43: the MCP list of formats `apply_patch` may be told to read is built from
/// lancet-core's list (it omitted `anchors`): the parameter's description and the refusal of an
/// unknown name both name every one, and the names work.
#[test]
fn the_format_list_names_every_format_lancet_reads() {
    let dir = temp_tree(&[("app.py", b"x = 1\n")]);
    let mut mcp = Mcp::start(dir.path(), &[], &[]);
    let tools = mcp.request("tools/list", json!({})).expect("tools/list");
    let apply = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "apply_patch")
        .expect("apply_patch listed");
    // The arguments' own description stays with them (the list's builder once took it).
    assert_eq!(
        apply["inputSchema"]["description"], "`apply_patch` arguments.",
        "the input schema's description"
    );
    let described = apply["inputSchema"]["properties"]["format"]["description"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let refused = mcp.call("apply_patch", json!({"text": PATCH, "format": "diff3"}));
    assert!(refused.is_error, "{refused:?}");
    assert!(
        refused.text.contains("unknown format \"diff3\""),
        "{refused:?}"
    );
    for format in lancet::Format::STRICTEST_FIRST {
        assert!(
            described.contains(format.name()),
            "{format:?} in {described}"
        );
        assert!(
            refused.text.contains(format.name()),
            "{format:?}: {refused:?}"
        );
    }
    let anchored = mcp.call("apply_patch", json!({"text": PATCH, "format": "anchors"}));
    assert!(
        !anchored.text.contains("unknown format"),
        "anchors is taken: {anchored:?}"
    );
    assert_eq!(
        std::fs::read(dir.path().join("app.py")).unwrap(),
        b"x = 1\n"
    );
}
