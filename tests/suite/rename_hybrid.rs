//! The hybrid resolver (#38): the sites lancet cannot decide, and only those, are asked of the
//! project's language server, one definition question per site; the server's word decides
//! them, the report names the server, its version and each site it decided; without a server
//! the refusal stays, naming the server that would decide them.

use super::rename::fake_server_path_as;
use super::tree::{describe, lancet_env, temp_tree};
use std::path::Path;

const SHOP_PY: &str = "class Cart:\n    def close(self):\n        pass\n";
/// `c` and `s` are parameters of unknown type (lancet cannot decide `c.close()` and
/// `s.close()`); `Cart().close()` it decides itself.
const A_PY: &str =
    "from shop import Cart\n\n\ndef f(c, s):\n    c.close()\n    s.close()\n    Cart().close()\n";

/// The fake server's answers by position (0-based line and character): `c.close()` is
/// `Cart.close`, `s.close()` a socket's (outside the root), and `Cart().close()` (which lancet
/// decides without asking) answered wrongly, so that asking it would show.
fn definitions(s_close: &str) -> String {
    let cart_close = r#"{"uri": "{ROOT}/shop.py", "range": {"start": {"line": 1, "character": 8}, "end": {"line": 1, "character": 13}}}"#;
    let socket = r#"[{"targetUri": "file:///usr/lib/python3/socket.py", "targetRange": {"start": {"line": 9, "character": 0}, "end": {"line": 9, "character": 20}}, "targetSelectionRange": {"start": {"line": 9, "character": 8}, "end": {"line": 9, "character": 13}}}]"#;
    let s_close = if s_close == "socket" { socket } else { s_close };
    format!(r#"{{"a.py:4:6": {cart_close}, "a.py:5:6": {s_close}, "a.py:6:11": {socket}}}"#)
}

fn rename(
    root: &Path,
    path: &str,
    answers: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> (Option<i32>, serde_json::Value) {
    let root = root.to_str().unwrap();
    let mut args = vec![
        "rename",
        "-C",
        root,
        "--at",
        "shop.py:2:9",
        "shutdown",
        "--json",
    ];
    args.extend(extra);
    let mut vars = vec![
        ("PATH", path),
        ("FAKE_LSP", "definitions"),
        ("FAKE_LSP_DEFINITIONS", answers),
        ("LANCET_LSP_TIMEOUT", "20"),
    ];
    vars.extend(env);
    let out = lancet_env(&args, b"", &vars);
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", describe(&out)));
    (out.status.code(), v)
}

fn sites(v: &serde_json::Value, list: &str) -> Vec<String> {
    v["rename"][list]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|s| format!("{}:{}", s["path"].as_str().unwrap(), s["line"]))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_server_decides_only_the_undecided_sites_each_asked_alone() {
    let tools = tempfile::tempdir().unwrap();
    let path = fake_server_path_as(tools.path(), "basedpyright-langserver");
    let dir = temp_tree(&[("shop.py", SHOP_PY.as_bytes()), ("a.py", A_PY.as_bytes())]);
    let (code, v) = rename(dir.path(), &path, &definitions("socket"), &[], &[]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        sites(&v, "renamed"),
        ["a.py:5", "a.py:7", "shop.py:2"],
        "{v:#}"
    );
    // The report names the server, its version and each site it decided, and only the two
    // lancet could not decide were asked (`Cart().close()`'s wrong answer never counted).
    let by = &v["rename"]["decided_by"];
    assert_eq!(by.as_array().map(Vec::len), Some(1), "{v:#}");
    assert_eq!(by[0]["server"], "basedpyright-langserver", "{v:#}");
    assert_eq!(by[0]["version"], "0.0-test", "{v:#}");
    assert_eq!(by[0]["undecided"], 0, "{v:#}");
    assert_eq!(
        by[0]["sites"],
        serde_json::json!([
            {"path": "a.py", "line": 5, "column": 7, "renamed": true, "definition": "shop.py:2"},
            {"path": "a.py", "line": 6, "column": 7, "renamed": false, "definition": "/usr/lib/python3/socket.py"}
        ]),
        "{v:#}"
    );
    assert_eq!(sites(&v, "outside"), ["a.py:6"], "{v:#}");
    assert!(sites(&v, "unresolved").is_empty(), "{v:#}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("basedpyright-langserver (0.0-test) decided 2 site(s)"),
        "{v:#}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
        A_PY.replace("c.close()", "c.shutdown()")
            .replace("Cart().close()", "Cart().shutdown()")
    );
}

#[test]
fn without_a_servers_word_the_refusal_stays_and_names_the_server() {
    let tools = tempfile::tempdir().unwrap();
    let path = fake_server_path_as(tools.path(), "basedpyright-langserver");
    let dir = temp_tree(&[("shop.py", SHOP_PY.as_bytes()), ("a.py", A_PY.as_bytes())]);
    let refused = |v: &serde_json::Value, says: &str| {
        assert_eq!(v["error"]["kind"], "unresolved_sites", "{v:#}");
        let message = v["message"].as_str().unwrap();
        assert!(message.contains(says), "{says}: {v:#}");
        assert!(
            message.contains("a.py:6:"),
            "the undecided site is listed: {v:#}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
            A_PY
        );
    };
    // The server cannot tell for `s.close()`: that site stays undecided, nothing written.
    let (code, v) = rename(dir.path(), &path, &definitions("null"), &[], &[]);
    assert_eq!(code, Some(1), "{v:#}");
    refused(
        &v,
        "basedpyright-langserver or pyright-langserver was asked and could not tell",
    );
    // Asking is off: by flag, and by the person's settings.
    let (code, v) = rename(
        dir.path(),
        &path,
        &definitions("socket"),
        &["--no-lsp"],
        &[],
    );
    assert_eq!(code, Some(1), "{v:#}");
    refused(&v, "would decide them; asking it is off");
    let settings = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(settings.path().join("lancet")).unwrap();
    std::fs::write(
        settings.path().join("lancet/config.toml"),
        "[rename]\nlsp = false\n",
    )
    .unwrap();
    let config_home = settings.path().to_str().unwrap();
    let (code, v) = rename(
        dir.path(),
        &path,
        &definitions("socket"),
        &[],
        &[("XDG_CONFIG_HOME", config_home)],
    );
    assert_eq!(code, Some(1), "{v:#}");
    refused(&v, "asking it is off");
    // No server installed: named, with how to get one.
    let (code, v) = rename(
        dir.path(),
        "/usr/bin:/bin",
        &definitions("socket"),
        &[],
        &[],
    );
    assert_eq!(code, Some(1), "{v:#}");
    refused(
        &v,
        "would decide them: no basedpyright-langserver or pyright-langserver on PATH",
    );
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("install basedpyright-langserver or pyright-langserver outside the project"),
        "{v:#}"
    );
}

#[test]
fn a_server_inside_the_root_is_never_run() {
    // `node_modules/.bin` of the project on PATH: its server is the project's, not the
    // person's, and is skipped.
    let dir = temp_tree(&[("shop.py", SHOP_PY.as_bytes()), ("a.py", A_PY.as_bytes())]);
    let bin = dir.path().join("node_modules/.bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/suite/lsp/fake_langserver.py");
    std::fs::copy(fake, bin.join("basedpyright-langserver")).unwrap();
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let (code, v) = rename(dir.path(), &path, &definitions("socket"), &[], &[]);
    assert_eq!(code, Some(1), "{v:#}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("would decide them: no basedpyright-langserver"),
        "{v:#}"
    );
}

#[test]
fn a_site_the_server_places_on_another_symbol_is_left_and_disagreeing_places_decide_nothing() {
    let tools = tempfile::tempdir().unwrap();
    let path = fake_server_path_as(tools.path(), "basedpyright-langserver");
    let other = "class Other:\n    def close(self):\n        pass\n";
    let a = "def f(o, u):\n    o.close()\n    u.close()\n";
    let dir = temp_tree(&[
        ("shop.py", SHOP_PY.as_bytes()),
        ("other.py", other.as_bytes()),
        ("a.py", a.as_bytes()),
    ]);
    let at = |file: &str| {
        format!(
            r#"{{"uri": "{{ROOT}}/{file}", "range": {{"start": {{"line": 1, "character": 8}}, "end": {{"line": 1, "character": 13}}}}}}"#
        )
    };
    // `o.close()` is Other.close (another symbol of the tree); `u.close()` is either (a union).
    let answers = format!(
        r#"{{"a.py:1:6": {}, "a.py:2:6": [{}, {}]}}"#,
        at("other.py"),
        at("shop.py"),
        at("other.py")
    );
    let (code, v) = rename(dir.path(), &path, &answers, &[], &[]);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(
        v["rename"]["decided_by"][0]["sites"],
        serde_json::json!([
            {"path": "a.py", "line": 2, "column": 7, "renamed": false, "definition": "other.py:2"}
        ]),
        "{v:#}"
    );
    assert_eq!(v["rename"]["decided_by"][0]["undecided"], 1, "{v:#}");
    assert_eq!(sites(&v, "unresolved"), ["a.py:3"], "{v:#}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("was asked and could not tell"),
        "{v:#}"
    );
    assert_eq!(std::fs::read_to_string(dir.path().join("a.py")).unwrap(), a);
}

/// One site the server cannot decide stops a rename, so the questions stop there: on a large
/// tree the refusal comes in seconds, not at the server's deadline. With `--leave-unresolved`
/// every site is asked, since each one the server decides is then renamed.
#[test]
fn the_questions_stop_at_the_first_site_the_server_cannot_decide() {
    let tools = tempfile::tempdir().unwrap();
    let path = fake_server_path_as(tools.path(), "basedpyright-langserver");
    let dir = temp_tree(&[("shop.py", SHOP_PY.as_bytes()), ("a.py", A_PY.as_bytes())]);
    // `c.close()` (asked first) has no answer; `s.close()` would be a socket's.
    let socket = r#"[{"targetUri": "file:///usr/lib/python3/socket.py", "targetRange": {"start": {"line": 9, "character": 0}, "end": {"line": 9, "character": 20}}, "targetSelectionRange": {"start": {"line": 9, "character": 8}, "end": {"line": 9, "character": 13}}}]"#;
    let answers = format!(r#"{{"a.py:4:6": null, "a.py:5:6": {socket}}}"#);
    let (code, v) = rename(dir.path(), &path, &answers, &[], &[]);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "unresolved_sites", "{v:#}");
    let by = &v["rename"]["decided_by"][0];
    assert_eq!(by["sites"], serde_json::json!([]), "{v:#}");
    assert_eq!(by["undecided"], 1, "asked once: {v:#}");
    assert!(
        v["message"].as_str().unwrap().contains(
            "was asked and could not tell for a.py:5; one undecided site stops the rename, so the 1 site(s) after it were not asked (--leave-unresolved asks about every site)"
        ),
        "{v:#}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
        A_PY
    );
    // Leaving undecided sites by choice: both are asked, the socket's is left as outside.
    let (code, v) = rename(dir.path(), &path, &answers, &["--leave-unresolved"], &[]);
    assert_eq!(code, Some(0), "{v:#}");
    let by = &v["rename"]["decided_by"][0];
    assert_eq!(
        by["sites"],
        serde_json::json!([
            {"path": "a.py", "line": 6, "column": 7, "renamed": false, "definition": "/usr/lib/python3/socket.py"}
        ]),
        "{v:#}"
    );
    assert_eq!(by["undecided"], 1, "{v:#}");
    assert_eq!(sites(&v, "renamed"), ["a.py:7", "shop.py:2"], "{v:#}");
}

/// With basedpyright installed (rename_oracle.py caches one: put its bin/ on PATH), the real
/// server decides what lancet's syntax cannot: a list's element, a dict's value.
#[test]
fn basedpyright_decides_the_sites_lancet_cannot_when_it_is_installed() {
    let installed = std::env::var_os("PATH").is_some_and(|p| {
        std::env::split_paths(&p).any(|d| d.join("basedpyright-langserver").is_file())
    });
    if !installed {
        eprintln!("basedpyright-langserver is not on PATH: the real server is not tried here");
        return;
    }
    let a = "from shop import Cart\n\nx = [Cart()][0]\nx.close()\ny = {\"k\": open(\"f\")}[\"k\"]\ny.close()\n";
    let dir = temp_tree(&[("shop.py", SHOP_PY.as_bytes()), ("a.py", a.as_bytes())]);
    let root = dir.path().to_str().unwrap();
    let out = lancet_env(
        &[
            "rename",
            "-C",
            root,
            "--at",
            "shop.py:2:9",
            "shutdown",
            "--json",
        ],
        b"",
        &[],
    );
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", describe(&out)));
    assert_eq!(out.status.code(), Some(0), "{v:#}");
    assert_eq!(sites(&v, "renamed"), ["a.py:4", "shop.py:2"], "{v:#}");
    assert_eq!(sites(&v, "outside"), ["a.py:6"], "{v:#}");
    assert_eq!(
        v["rename"]["decided_by"][0]["server"], "basedpyright-langserver",
        "{v:#}"
    );
    assert!(v["rename"]["decided_by"][0]["version"].is_string(), "{v:#}");
}
