//! Issue #35, Low: line anchors without the read's sha256. An anchor's hash is 3 base-36
//! characters, so a line changed after the read into one with the same hash (1 in 46,656) let
//! the edit replace a line the model never saw. Anchors that name no read now run on the newest
//! kept read they hold in (rebased onto the file now), and are refused (`stale`, asking for the
//! sha256) when no kept read decides; over MCP they run on what the session saw.

use super::mcp::Mcp;
use crate::suite::tree::{describe, lancet, temp_tree};
use serde_json::json;
use std::path::Path;

fn r(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The anchor hash of a line, as DESIGN fixes it: the first 8 bytes of its SHA-256, big-endian,
/// mod 36³, in 3 base-36 digits.
fn line_hash(line: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(line.as_bytes());
    let mut n = u64::from_be_bytes(digest[..8].try_into().unwrap()) % 36u64.pow(3);
    let mut out = [0u8; 3];
    for slot in out.iter_mut().rev() {
        *slot = b"0123456789abcdefghijklmnopqrstuvwxyz"[(n % 36) as usize];
        n /= 36;
    }
    String::from_utf8(out.to_vec()).unwrap()
}

/// The hex SHA-256 of `bytes`: what a read's `sha256` says.
fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A line other than `line`, of the same anchor hash.
fn same_hash_as(line: &str) -> String {
    let hash = line_hash(line);
    (0..)
        .map(|i| format!("b = {i}  # changed"))
        .find(|l| line_hash(l) == hash)
        .unwrap()
}

/// `*** Edit Lines: m.py` replacing line 2 (anchored as `b = 2`) by `b = 20`, no sha256.
fn replace_line_two() -> String {
    format!(
        "*** Edit Lines: m.py\n@@ replace 2:{}\nb = 20\n",
        line_hash("b = 2")
    )
}

#[test]
fn a_line_changed_into_one_of_the_same_hash_since_the_read_is_not_replaced() {
    let dir = temp_tree(&[("m.py", b"a = 1\nb = 2\nc = 3\n")]);
    let root = dir.path();
    let out = lancet(&["read", "-C", r(root), "--anchors", "m.py"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    // After the read, someone changes line 2 into another line of the same hash.
    let changed = format!("a = 1\n{}\nc = 3\n", same_hash_as("b = 2"));
    std::fs::write(root.join("m.py"), &changed).unwrap();
    let out = lancet(
        &["apply", "-C", r(root), "--format", "anchors", "--json"],
        replace_line_two().as_bytes(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["files"][0]["kind"], "rebase_conflict", "{report:#}");
    assert_eq!(std::fs::read_to_string(root.join("m.py")).unwrap(), changed);
}

#[test]
fn anchors_without_a_kept_read_are_refused_asking_for_the_sha256() {
    let dir = temp_tree(&[("m.py", b"a = 1\nb = 2\nc = 3\n")]);
    let root = dir.path();
    let out = lancet(
        &["apply", "-C", r(root), "--format", "anchors", "--json"],
        replace_line_two().as_bytes(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["files"][0]["kind"], "stale", "{report:#}");
    let message = report["message"].as_str().unwrap();
    assert!(
        message.contains("no sha256 names the read") && message.contains("sha256 HEX"),
        "{message}"
    );
    assert_eq!(
        std::fs::read(root.join("m.py")).unwrap(),
        b"a = 1\nb = 2\nc = 3\n"
    );
    // With the read's sha256, the same anchors apply.
    let sha = sha256_hex(&std::fs::read(root.join("m.py")).unwrap());
    let named = replace_line_two().replace("m.py\n", &format!("m.py sha256 {sha}\n"));
    let out = lancet(
        &["apply", "-C", r(root), "--format", "anchors"],
        named.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(
        std::fs::read(root.join("m.py")).unwrap(),
        b"a = 1\nb = 20\nc = 3\n"
    );
}

#[test]
fn over_mcp_anchors_run_on_what_the_session_saw() {
    let dir = temp_tree(&[("m.py", b"a = 1\nb = 2\nc = 3\n")]);
    let root = dir.path();
    let mut mcp = Mcp::start(root, &[], &[]);
    let edit = json!({"path": "m.py", "edits": [
        {"op": "replace", "start": format!("2:{}", line_hash("b = 2")), "lines": ["b = 20"]}]});
    // Never read in the session: refused, asking for a read.
    let a = mcp.call("edit_lines", edit.clone());
    assert!(
        a.is_error && a.text.contains("you have not read it") && a.text.contains("anchors true"),
        "{a:?}"
    );
    assert_eq!(
        std::fs::read(root.join("m.py")).unwrap(),
        b"a = 1\nb = 2\nc = 3\n"
    );
    // Read, unchanged since: applied.
    assert!(
        !mcp.call("read_file", json!({"path": "m.py", "anchors": true}))
            .is_error
    );
    let a = mcp.call("edit_lines", edit.clone());
    assert!(!a.is_error, "{a:?}");
    assert_eq!(
        std::fs::read(root.join("m.py")).unwrap(),
        b"a = 1\nb = 20\nc = 3\n"
    );
    // Read, then line 2 changed into one of the same hash: the edit runs on the read and the
    // change since conflicts with it; nothing written.
    std::fs::write(root.join("m.py"), b"a = 1\nb = 2\nc = 3\n").unwrap();
    assert!(
        !mcp.call("read_file", json!({"path": "m.py", "anchors": true}))
            .is_error
    );
    let changed = format!("a = 1\n{}\nc = 3\n", same_hash_as("b = 2"));
    std::fs::write(root.join("m.py"), &changed).unwrap();
    let a = mcp.call("edit_lines", edit);
    assert!(
        a.is_error && a.structured["files"][0]["kind"] == "rebase_conflict",
        "{a:?}"
    );
    assert_eq!(std::fs::read_to_string(root.join("m.py")).unwrap(), changed);
}
