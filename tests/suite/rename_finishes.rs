//! Issue #38, "Renames that finish": the shapes a rename once wrote wrong with exit 0, where one
//! run's report cannot show it (a workspace link, a compiler's verdict); the others are
//! scenarios under `fixtures/rename/`.

use super::tree::{describe, lancet, temp_tree};
use std::path::Path;

fn run_json(root: &Path, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut all = vec![args[0], "-C", root.to_str().unwrap(), "--json"];
    all.extend(&args[1..]);
    let out = lancet(&all, b"");
    let v =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", describe(&out)));
    (out.status.code(), v)
}

fn read(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap()
}

/// A TypeScript monorepo: `packages/b` imports `@demo/a`, which is `packages/a` through the
/// workspace's link in `node_modules` (no package.json names it, no tsconfig maps it). The
/// importer is the tree, renamed with the definition.
#[test]
fn a_workspace_package_reached_through_its_node_modules_link_is_renamed() {
    let dir = temp_tree(&[
        (".gitignore", b"node_modules/\n"),
        ("packages/a/index.ts", b"export function makeThing() {}\n"),
        (
            "packages/b/src/index.ts",
            b"import { makeThing } from '@demo/a';\nexport const x = makeThing();\n",
        ),
    ]);
    std::fs::create_dir_all(dir.path().join("node_modules/@demo")).unwrap();
    std::os::unix::fs::symlink("../../packages/a", dir.path().join("node_modules/@demo/a"))
        .unwrap();
    let (code, v) = run_json(dir.path(), &["rename", "makeThing", "createThing"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "packages/b/src/index.ts"),
        "import { createThing } from '@demo/a';\nexport const x = createThing();\n"
    );
    assert_eq!(v["rename"]["outside"], serde_json::json!([]), "{v:#}");
}
