//! No lost update: every write carries the expectation of what was judged and is compared under
//! the lock as late as the file system allows. A concurrent writer's bytes — an editor's save by
//! rename or in place, another MCP session's write — are never silently replaced.

use crate::security::mcp::Mcp;
use crate::suite::tree::{
    describe, lancet, lancet_env, lancet_in_background, temp_tree, wait_paused,
};
use serde_json::json;
use std::io::Write;
use std::path::Path;

fn r(p: &Path) -> &str {
    p.to_str().unwrap()
}

const TWO_FILES: &[u8] = b"*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-b\n+B\n*** End Patch\n";

/// Where the test's files stand: at the root, and one directory down (a target beside its temp
/// file in a directory of its own is swapped through that directory's handle).
const PLACES: [&str; 2] = ["", "src/"];

/// A patch turning `a` into `A` (and `b` into `B` with `two`) in the files under `at`.
fn patch_under(at: &str, two: bool) -> Vec<u8> {
    let b = if two {
        format!("*** Update File: {at}b.txt\n-b\n+B\n")
    } else {
        String::new()
    };
    format!("*** Begin Patch\n*** Update File: {at}a.txt\n-a\n+A\n{b}*** End Patch\n").into_bytes()
}

/// How an editor saves.
#[derive(Clone, Copy, Debug)]
enum Save {
    /// Writes a temp file and renames it over the target (vim's default, most IDEs).
    ByRename,
    /// Truncates and rewrites the target in its own inode.
    InPlace,
}

fn save(path: &Path, bytes: &[u8], how: Save) {
    match how {
        Save::ByRename => {
            let tmp = path.with_extension("swp");
            std::fs::write(&tmp, bytes).unwrap();
            std::fs::rename(&tmp, path).unwrap();
        }
        Save::InPlace => {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(path)
                .unwrap();
            f.write_all(bytes).unwrap();
        }
    }
}

/// An editor's save landing after lancet judged a file and before it replaced it: lancet once
/// recorded the file's stamp only after hashing the whole batch, so a save in between was taken
/// for the expected state and overwritten while lancet said "Applied". The swap compares what
/// it replaces with what was judged, at the moment it replaces it: the batch is refused, the
/// save stands, nothing of the batch is written.
#[test]
fn an_editors_save_after_the_judgement_is_never_overwritten() {
    for (how, at) in [Save::ByRename, Save::InPlace]
        .into_iter()
        .flat_map(|how| PLACES.map(|at| (how, at)))
    {
        for point in ["judged", "rename"] {
            let ctx = format!("{how:?} at {point} in {at:?}");
            let (a, b) = (format!("{at}a.txt"), format!("{at}b.txt"));
            let dir = temp_tree(&[(a.as_str(), b"a\n"), (b.as_str(), b"b\n")]);
            let root = dir.path();
            let pause_dir = tempfile::tempdir().unwrap();
            let pause = pause_dir.path().join("paused");
            let mut child = lancet_in_background(
                &["apply", "-C", r(root), "--json"],
                &patch_under(at, true),
                &[("LANCET_PAUSE_AT", point), ("LANCET_PAUSE_FILE", r(&pause))],
            );
            wait_paused(&mut child, &pause);
            save(&root.join(&a), b"the editor's a\n", how);
            std::fs::remove_file(&pause).unwrap();
            let out = child.wait_with_output().unwrap();
            assert_eq!(out.status.code(), Some(1), "{ctx}: {}", describe(&out));
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(v["error"]["kind"], "stale", "{ctx}: {v:#}");
            assert_eq!(
                std::fs::read(root.join(&a)).unwrap(),
                b"the editor's a\n",
                "{ctx}"
            );
            assert_eq!(std::fs::read(root.join(&b)).unwrap(), b"b\n", "{ctx}");
        }
    }
}

/// An editor holding the old file open writes into it in place after lancet swapped the new
/// file in: that write would land in an inode nobody sees any more. It is compared again before
/// the pre-image is dropped, and the batch goes back with the editor's bytes.
#[test]
fn an_in_place_write_after_the_swap_is_never_dropped() {
    let dir = temp_tree(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
    let root = dir.path();
    let mut held = std::fs::OpenOptions::new()
        .write(true)
        .open(root.join("a.txt"))
        .unwrap();
    let pause_dir = tempfile::tempdir().unwrap();
    let pause = pause_dir.path().join("paused");
    let mut child = lancet_in_background(
        &["apply", "-C", r(root), "--json"],
        TWO_FILES,
        &[
            ("LANCET_PAUSE_AT", "verify_swapped"),
            ("LANCET_PAUSE_FILE", r(&pause)),
        ],
    );
    wait_paused(&mut child, &pause);
    assert_eq!(
        std::fs::read(root.join("a.txt")).unwrap(),
        b"A\n",
        "swapped in"
    );
    held.write_all(b"z\n").unwrap();
    drop(held);
    std::fs::remove_file(&pause).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"z\n");
    assert_eq!(std::fs::read(root.join("b.txt")).unwrap(), b"b\n");
}

/// A save in place that keeps the file's length and modification time — as `cp -p`, `rsync -t`
/// or `touch -r` leave a file, or any quick second save of the same length where timestamps are
/// coarse (a kernel without fine-grained timestamps: one tick is several milliseconds) — has
/// the very stamp lancet judged. Compared by stamp alone, the file that came out of the swap
/// was taken for the judged bytes and the save overwritten; landing in the file already swapped
/// out, it was dropped with the pre-image. Both with "Applied". Found by
/// tests/faults/torture.py. What came out is compared by content: the batch is refused, or
/// rolled back with the save.
#[test]
fn a_save_that_keeps_the_files_stamp_is_never_overwritten() {
    use std::os::unix::fs::FileExt;
    for point in ["judged", "rename", "verify_swapped"] {
        let dir = temp_tree(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
        let root = dir.path();
        // An editor holding a.txt open since before the batch.
        let held = std::fs::OpenOptions::new()
            .write(true)
            .open(root.join("a.txt"))
            .unwrap();
        let pause_dir = tempfile::tempdir().unwrap();
        let pause = pause_dir.path().join("paused");
        let mut child = lancet_in_background(
            &["apply", "-C", r(root), "--json"],
            TWO_FILES,
            &[("LANCET_PAUSE_AT", point), ("LANCET_PAUSE_FILE", r(&pause))],
        );
        wait_paused(&mut child, &pause);
        let stamp = held.metadata().unwrap().modified().unwrap();
        held.write_all_at(b"z\n", 0).unwrap();
        held.set_modified(stamp).unwrap();
        drop(held);
        std::fs::remove_file(&pause).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(1), "at {point}: {}", describe(&out));
        assert_eq!(
            std::fs::read(root.join("a.txt")).unwrap(),
            b"z\n",
            "at {point}: the editor's save"
        );
        assert_eq!(
            std::fs::read(root.join("b.txt")).unwrap(),
            b"b\n",
            "at {point}"
        );
    }
}

/// A batch stopped right after its swap, before comparing what came out (killed there, or an
/// I/O error there): a save by rename that landed after the judgement had come out, under the
/// batch's temp name. The rollback, and the recovery after a kill, put the pre-image back and
/// deleted the temp name — the save gone. Found reading the door for tests/faults/torture.py.
/// What the swap took out of the tree is what goes back.
#[test]
fn a_save_the_swap_took_out_goes_back_when_the_batch_stops_there() {
    for (failpoint, at) in ["crash:exchanged:1", "exchanged:1"]
        .into_iter()
        .flat_map(|f| PLACES.map(|at| (f, at)))
    {
        let a = format!("{at}a.txt");
        let dir = temp_tree(&[(a.as_str(), b"a\n")]);
        let root = dir.path();
        let pause_dir = tempfile::tempdir().unwrap();
        let pause = pause_dir.path().join("paused");
        let mut child = lancet_in_background(
            &["apply", "-C", r(root), "--json"],
            &patch_under(at, false),
            &[
                ("LANCET_PAUSE_AT", "rename"),
                ("LANCET_PAUSE_FILE", r(&pause)),
                ("LANCET_FAILPOINT", failpoint),
            ],
        );
        wait_paused(&mut child, &pause);
        save(&root.join(&a), b"the editor's a\n", Save::ByRename);
        std::fs::remove_file(&pause).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_ne!(
            out.status.code(),
            Some(0),
            "{failpoint} in {at:?}: {}",
            describe(&out)
        );
        let out = lancet(&["recover", "-C", r(root)], b"");
        assert!(
            out.status.code().is_some(),
            "{failpoint} in {at:?}: {}",
            describe(&out)
        );
        assert_eq!(
            std::fs::read(root.join(&a)).unwrap(),
            b"the editor's a\n",
            "{failpoint} in {at:?}: {}",
            describe(&out)
        );
        let names: Vec<String> = std::fs::read_dir(root.join(at))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != ".lancet")
            .collect();
        assert_eq!(names, ["a.txt"], "{failpoint}: nothing else is left");
    }
}

/// Two saves against one swap: right after the exchange the editor writes in place into the
/// file it holds open (now out of the tree, so the swap is stale), then saves the path — by
/// rename (replacing the batch's new file), or in place (into the batch's new file, which
/// stands there). Exchanging back took that second save out of the tree, and it was deleted
/// with the temp name: the file ended as the older save. Found by tests/faults/torture.py
/// (in place) and reading the door (by rename). The newest save stays.
#[test]
fn a_save_landing_while_a_stale_swap_is_taken_back_stays() {
    use std::os::unix::fs::FileExt;
    for (how, at) in [Save::ByRename, Save::InPlace]
        .into_iter()
        .flat_map(|how| PLACES.map(|at| (how, at)))
    {
        let a = format!("{at}a.txt");
        let dir = temp_tree(&[(a.as_str(), b"a\n")]);
        let root = dir.path();
        let held = std::fs::OpenOptions::new()
            .write(true)
            .open(root.join(&a))
            .unwrap();
        let pause_dir = tempfile::tempdir().unwrap();
        let pause = pause_dir.path().join("paused");
        let mut child = lancet_in_background(
            &["apply", "-C", r(root), "--json"],
            &patch_under(at, false),
            &[
                ("LANCET_PAUSE_AT", "exchanged"),
                ("LANCET_PAUSE_FILE", r(&pause)),
            ],
        );
        wait_paused(&mut child, &pause);
        held.write_all_at(b"z\n", 0).unwrap();
        drop(held);
        save(&root.join(&a), b"the editor's a\n", how);
        std::fs::remove_file(&pause).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(1),
            "{how:?} in {at:?}: {}",
            describe(&out)
        );
        assert_eq!(
            std::fs::read(root.join(&a)).unwrap(),
            b"the editor's a\n",
            "{how:?} in {at:?}: the newest save"
        );
        let names: Vec<String> = std::fs::read_dir(root.join(at))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != ".lancet")
            .collect();
        assert_eq!(names, ["a.txt"], "{how:?} in {at:?}: nothing else is left");
    }
}

/// A batch taken back (its tests failed, or a crash recovered) judges each path by content — it
/// still holds what the batch wrote — and then renames the pre-image over it: a save landing
/// in between (by rename, or in place into the batch's file) was overwritten by the pre-image.
/// The pre-image is exchanged in and what came out compared, as a forward write is: a path
/// saved meanwhile keeps the save, and is reported changed by someone else with its pre-image
/// kept.
#[test]
fn a_save_landing_while_a_batch_is_taken_back_stays() {
    for how in [Save::ByRename, Save::InPlace] {
        let dir = temp_tree(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
        let root = dir.path();
        let pause_dir = tempfile::tempdir().unwrap();
        let pause = pause_dir.path().join("paused");
        let mut child = lancet_in_background(
            &["apply", "-C", r(root), "--json", "--test", "exit 1"],
            TWO_FILES,
            &[
                ("LANCET_PAUSE_AT", "recover"),
                ("LANCET_PAUSE_FILE", r(&pause)),
            ],
        );
        wait_paused(&mut child, &pause);
        // The rollback goes from the last path to the first: b.txt is being put back now.
        save(&root.join("b.txt"), b"the editor's b\n", how);
        std::fs::remove_file(&pause).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_ne!(out.status.code(), Some(0), "{how:?}: {}", describe(&out));
        assert_eq!(
            std::fs::read(root.join("b.txt")).unwrap(),
            b"the editor's b\n",
            "{how:?}: the save, {}",
            describe(&out)
        );
        assert_eq!(
            std::fs::read(root.join("a.txt")).unwrap(),
            b"a\n",
            "{how:?}"
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(
            report.to_string().contains("b.txt"),
            "{how:?}: the report names the path left alone: {report:#}"
        );
    }
}

/// Where the file system cannot exchange files atomically, each target's stamp is compared
/// right before its rename, and the report says the guarantee is weaker.
#[test]
fn without_an_atomic_exchange_the_report_says_so() {
    let dir = temp_tree(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
    let root = dir.path();
    let out = lancet_env(
        &["apply", "-C", r(root), "--json"],
        TWO_FILES,
        &[("LANCET_FAILPOINT", "no-exchange:1")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["notes"]
            .to_string()
            .contains("cannot exchange files atomically"),
        "{v:#}"
    );
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"A\n");
    let pause_dir = tempfile::tempdir().unwrap();
    let pause = pause_dir.path().join("paused");
    let mut child = lancet_in_background(
        &["apply", "-C", r(root), "--json"],
        b"*** Begin Patch\n*** Update File: a.txt\n-A\n+AA\n*** End Patch\n",
        &[
            ("LANCET_FAILPOINT", "no-exchange:1"),
            ("LANCET_PAUSE_AT", "rename"),
            ("LANCET_PAUSE_FILE", r(&pause)),
        ],
    );
    wait_paused(&mut child, &pause);
    save(&root.join("a.txt"), b"saved\n", Save::ByRename);
    std::fs::remove_file(&pause).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"saved\n");
}

/// Two MCP sessions, each reading a file and appending a line with `write_file`, in turns: once
/// all 40 were reported applied while 20 lines were lost (`write_file` decided "read and
/// unchanged" before taking the lock and carried no expectation). Every write now lands on the
/// bytes its session read, is rebased over what changed, or is refused — and every line
/// reported written is in the file at the end.
#[test]
fn two_sessions_never_lose_each_others_writes() {
    let dir = temp_tree(&[("log.txt", b"start\n")]);
    let root = dir.path();
    let mut sessions = [Mcp::start(root, &[], &[]), Mcp::start(root, &[], &[])];
    let mut written: Vec<String> = Vec::new();
    let mut refused = 0;
    for round in 0..20 {
        // Both read, then both write what they read plus a line of their own.
        let reads: Vec<String> = sessions
            .iter_mut()
            .map(|s| {
                let a = s.call("read_file", json!({"path": "log.txt"}));
                assert!(!a.is_error, "{a:?}");
                a.structured["lines"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|l| format!("{}\n", l["text"].as_str().unwrap()))
                    .collect()
            })
            .collect();
        for (i, s) in sessions.iter_mut().enumerate() {
            let line = format!("session {i} round {round}");
            let a = s.call(
                "write_file",
                json!({"path": "log.txt", "content": format!("{}{line}\n", reads[i])}),
            );
            if a.is_error {
                refused += 1;
                let kind = a.structured["error"]["kind"].as_str().unwrap_or_default();
                assert!(
                    ["stale", "rebase_conflict"].contains(&kind)
                        || a.structured["files"]
                            .to_string()
                            .contains("rebase_conflict"),
                    "{a:?}"
                );
            } else {
                written.push(line);
            }
        }
    }
    let end = std::fs::read_to_string(root.join("log.txt")).unwrap();
    for line in &written {
        assert!(
            end.contains(line.as_str()),
            "{line} reported written, gone:\n{end}"
        );
    }
    assert!(
        written.len() >= 20,
        "{} written, {refused} refused",
        written.len()
    );
}

/// A CLI whole-file write (no `--expect`, no `--base`) over a file changed since the model's
/// `lancet read`: it applies (the person's command line asked for it), and the report says
/// what it replaced.
#[test]
fn a_whole_file_write_over_a_changed_file_says_so() {
    let dir = temp_tree(&[("a.py", b"x = 1\n")]);
    let root = dir.path();
    let out = lancet(&["read", "-C", r(root), "a.py"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    std::fs::write(root.join("a.py"), "x = 1\ny = 2  # someone else\n").unwrap();
    let out = lancet(
        &[
            "apply",
            "-C",
            r(root),
            "--json",
            "--format",
            "whole",
            "--path",
            "a.py",
        ],
        b"```python\nx = 3\n```\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["notes"].to_string().contains("changed since it was read"),
        "{v:#}"
    );
}
