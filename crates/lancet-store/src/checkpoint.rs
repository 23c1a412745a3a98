//! Checkpoints: each batch as a pair of git commits under `refs/lancet/checkpoints/<id>`
//! (private refs a `git gc` keeps and no push sends), so `git diff <id>^ <id>` is exactly the batch and `lancet undo` can put it back.
//!
//! *before* is HEAD's tree with every touched path set to its pre-batch content (parent HEAD),
//! or HEAD itself where that is the same tree; *after* is *before* plus the batch. Only touched paths are hashed, so the cost grows with
//! the batch, not the repository. Blobs are written from raw bytes (no filters, hooks or
//! external commands), commits are created without moving any ref but lancet's own: HEAD, the
//! index, the stash, branches and the working tree are never touched. Outside a git repository
//! a private bare repository in `.lancet/git` holds the objects.

use crate::packs::{pack_entry, write_pack};
use crate::repository::RepositoryError;
use crate::state::StateDir;
use flate2::Compression;
use flate2::write::ZlibEncoder;
use git2::build::TreeUpdateBuilder;
use git2::{FileMode, ObjectType, Oid, Signature, Tree};
use lancet_core::Root;
use lancet_core::timing::lap;
use lancet_core::{Before, StagedFile};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The ref namespace of checkpoints.
pub const REF_PREFIX: &str = "refs/lancet/checkpoints/";

/// A path's content in a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Image {
    /// Absent.
    Missing,
    /// A file with its bytes and executable bit.
    File {
        /// The content.
        bytes: Vec<u8>,
        /// Whether it is executable (git keeps only that bit).
        executable: bool,
    },
    /// A symlink.
    Link {
        /// Its target.
        target: PathBuf,
    },
}

/// A file's blob ids in a checkpoint: its pre-image (file content or link target), if any, and
/// its post-image, if any.
type BlobIds = (Option<Oid>, Option<Oid>);

/// A staged file's pre-image and post-image bytes as blobs.
fn contents(f: &StagedFile) -> (Option<&[u8]>, Option<&[u8]>) {
    let before = match &f.before {
        Before::Missing => None,
        Before::File { bytes, .. } => Some(bytes.as_slice()),
        Before::Link { target } => Some(target.as_os_str().as_bytes()),
    };
    (before, f.after.as_deref())
}

/// A blob's git object id: SHA-1 of `blob <len>\0` and the bytes.
fn blob_id(bytes: &[u8]) -> Oid {
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {}\0", bytes.len()).as_bytes());
    hasher.update(bytes);
    Oid::from_bytes(&hasher.finalize()).expect("a SHA-1 is 20 bytes")
}

/// Batches of at most this many files write their checkpoint objects loose (a handful each);
/// larger ones write one pack.
const LOOSE_MAX_FILES: usize = 16;

/// A repository holding checkpoints for a root (lent by the state, which keeps it opened for
/// the process).
pub struct Checkpoints<'a> {
    repo: crate::kept_repository::Lent<'a>,
    /// The state, which records the packs written (`packs.rs`).
    state: &'a StateDir,
    /// The root relative to the repository's work tree (empty for the private repository).
    prefix: PathBuf,
}

impl<'a> Checkpoints<'a> {
    /// Opens the repository that holds the root, or creates the private one, as the state
    /// found it (`repository.rs`). Paths in it are relative to the work tree the state found
    /// (libgit2 gives a bare repository none, whatever `GIT_WORK_TREE` says).
    pub fn open(root: &Root, state: &'a StateDir) -> Result<Checkpoints<'a>, RepositoryError> {
        let repo = state.checkpoint_repository(true)?;
        if !state.in_git {
            return Ok(Checkpoints {
                repo,
                state,
                prefix: PathBuf::new(),
            });
        }
        let prefix = root
            .path()
            .strip_prefix(&state.home)
            .map(Path::to_path_buf)
            .map_err(|_| {
                git2::Error::from_str(&format!(
                    "the root {} is not inside the repository's work tree {}",
                    root.path().display(),
                    state.home.display()
                ))
            })?;
        Ok(Checkpoints {
            repo,
            state,
            prefix,
        })
    }

    fn repo_path(&self, rel: &str) -> PathBuf {
        self.prefix.join(rel)
    }

    /// Writes a batch's objects: the *before* and *after* commits, their trees and blobs.
    /// Returns the after commit, which no ref names yet: [`Checkpoints::point_ref`] records it
    /// once the batch's journal is durable (the objects alone are harmless garbage if the batch
    /// never happens: git prunes them). Trees and commits are built in memory; only objects the repository lacks are written. A
    /// small batch writes its few new objects loose, as git itself does (one file each, never
    /// one for an object already there), so a long run of one-file edits does not pile up one
    /// pack per call (every object lookup searches every pack: 150 packs made each call 60%
    /// slower). A larger batch writes them as one pack holding exactly them (not thousands of
    /// loose files, and not the rest of the tree): one write sized by the batch.
    pub fn write_objects(
        &self,
        id: &str,
        files: &[StagedFile],
        message: &str,
    ) -> Result<Oid, git2::Error> {
        let mut clock = std::time::Instant::now();
        // Blob ids are hashed (in parallel for many files); only blobs the repository lacks are
        // written.
        let hash = |f: &StagedFile| {
            let (before, after) = contents(f);
            (before.map(blob_id), after.map(blob_id))
        };
        let ids: Vec<BlobIds> = if files.len() < 2 {
            files.iter().map(hash).collect()
        } else {
            files.par_iter().map(hash).collect()
        };
        let odb = self.repo.odb()?;
        let mut seen = std::collections::HashSet::new();
        let mut blobs: Vec<(Oid, &[u8])> = Vec::new();
        for (f, (before_id, after_id)) in files.iter().zip(&ids) {
            let (before, after) = contents(f);
            for (oid, bytes) in [(before_id, before), (after_id, after)] {
                if let (Some(oid), Some(bytes)) = (oid, bytes)
                    && seen.insert(*oid)
                    && !odb.exists(*oid)
                {
                    blobs.push((*oid, bytes));
                }
            }
        }
        lap("checkpoint: blobs hashed", &mut clock);
        // Trees and commits are built in memory; the trees may name blobs that exist only in
        // what is about to be written, so libgit2's existence check is off meanwhile.
        let mempack = odb.add_new_mempack_backend(1000)?;
        let mut others = Vec::new();
        git2::opts::strict_object_creation(false);
        let built = self.build(id, files, message, &ids, &mut others);
        git2::opts::strict_object_creation(true);
        let objects = built.and_then(|after| {
            let mut objects: Vec<(ObjectType, Vec<u8>)> = Vec::with_capacity(others.len());
            for oid in &others {
                let object = odb.read(*oid)?;
                objects.push((object.kind(), object.data().to_vec()));
            }
            Ok((after, objects))
        });
        mempack.reset()?;
        let (after, objects) = objects?;
        lap("checkpoint: trees and commits built", &mut clock);
        let written = if files.len() <= LOOSE_MAX_FILES {
            self.write_loose(&blobs, &others, &objects)
        } else {
            self.write_as_pack(&odb, &blobs, &objects)
        };
        written.map_err(|e| git2::Error::from_str(&format!("writing the checkpoint: {e}")))?;
        lap("checkpoint: objects written", &mut clock);
        Ok(after)
    }

    /// Writes the objects the repository lacks as loose objects: each compressed into a file
    /// beside its final place and renamed there, as git writes them.
    fn write_loose(
        &self,
        blobs: &[(Oid, &[u8])],
        others: &[Oid],
        objects: &[(ObjectType, Vec<u8>)],
    ) -> std::io::Result<()> {
        let dir = self.repo.path().join("objects");
        // Whether the disk has an object, asked of an object database of its own: the
        // repository's caches every object read through it (the ones just built included).
        let disk = git2::Odb::new().map_err(std::io::Error::other)?;
        disk.add_disk_alternate(&dir.to_string_lossy())
            .map_err(std::io::Error::other)?;
        let missing = blobs
            .iter()
            .map(|(oid, bytes)| (*oid, ObjectType::Blob, *bytes))
            .chain(
                others
                    .iter()
                    .zip(objects)
                    .map(|(oid, (kind, data))| (*oid, *kind, data.as_slice())),
            )
            .filter(|(oid, _, _)| !disk.exists(*oid));
        for (oid, kind, data) in missing {
            let hex = oid.to_string();
            let (fan, rest) = hex.split_at(2);
            let fan_dir = dir.join(fan);
            match std::fs::create_dir(&fan_dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
            let mut encoder = ZlibEncoder::new(Vec::new(), Compression::fast());
            encoder.write_all(format!("{} {}\0", kind.str(), data.len()).as_bytes())?;
            encoder.write_all(data)?;
            let compressed = encoder.finish()?;
            let temp = fan_dir.join(format!("tmp_obj_{rest}_{}", std::process::id()));
            {
                let mut file = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o444)
                    .open(&temp)?;
                file.write_all(&compressed)?;
            }
            std::fs::rename(&temp, fan_dir.join(rest))?;
        }
        Ok(())
    }

    /// Writes the new blobs and objects as one pack, recorded in the state as lancet's (so
    /// [`StateDir::fold_packs`] can fold it with the others later).
    fn write_as_pack(
        &self,
        odb: &git2::Odb<'_>,
        blobs: &[(Oid, &[u8])],
        objects: &[(ObjectType, Vec<u8>)],
    ) -> std::io::Result<()> {
        let entries: Vec<Vec<u8>> = blobs
            .par_iter()
            .map(|(_, bytes)| pack_entry(ObjectType::Blob, bytes))
            .chain(
                objects
                    .par_iter()
                    .map(|(kind, data)| pack_entry(*kind, data)),
            )
            .collect::<std::io::Result<_>>()?;
        let name = write_pack(odb, &entries)?;
        self.state.record_pack(&name)
    }

    /// Records the checkpoint: its ref pointed at its after commit.
    pub fn point_ref(&self, id: &str, after: Oid) -> Result<Oid, git2::Error> {
        self.repo.reference(
            &format!("{REF_PREFIX}{id}"),
            after,
            true,
            "lancet checkpoint",
        )?;
        Ok(after)
    }

    /// Notes in `fresh` the trees from `tree` down to each touched path's directory: the only
    /// trees a batch can have created.
    fn note_trees(&self, tree: &Tree, files: &[StagedFile], fresh: &mut Vec<Oid>) {
        let mut seen = std::collections::HashSet::new();
        fresh.push(tree.id());
        for f in files {
            let path = self.repo_path(f.path.as_str());
            for dir in path.ancestors().skip(1) {
                if dir.as_os_str().is_empty() || !seen.insert(dir.to_path_buf()) {
                    break;
                }
                if let Ok(entry) = tree.get_path(dir) {
                    fresh.push(entry.id());
                }
            }
        }
    }

    /// Builds the before and after commits of a batch; returns the after commit. Every object
    /// it may have created is noted in `fresh` (trees it merely reuses are harmless there).
    fn build(
        &self,
        id: &str,
        files: &[StagedFile],
        message: &str,
        blob_ids: &[BlobIds],
        fresh: &mut Vec<Oid>,
    ) -> Result<Oid, git2::Error> {
        let repo = &self.repo;
        let head = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
        let base = match &head {
            Some(c) => c.tree()?,
            None => {
                let empty = repo.treebuilder(None)?.write()?;
                fresh.push(empty);
                repo.find_tree(empty)?
            }
        };
        // The checkpoint records the disk, whatever HEAD says: where HEAD has a file, a link or
        // a submodule at a directory a touched path goes through (a work tree that replaced a
        // file by a directory; a path inside a submodule or a nested repository), that entry
        // gives way to the directory on disk. (A separate step: one update cannot both remove
        // `x` and add `x/y`.)
        let mut cleared = TreeUpdateBuilder::new();
        let mut in_the_way = false;
        for f in files {
            let path = self.repo_path(f.path.as_str());
            // And where HEAD has a directory at the path the disk has a file at.
            if base
                .get_path(&path)
                .is_ok_and(|e| e.kind() == Some(ObjectType::Tree))
            {
                cleared.remove(&path);
                in_the_way = true;
            }
            for dir in path.ancestors().skip(1) {
                if dir.as_os_str().is_empty() {
                    break;
                }
                if base
                    .get_path(dir)
                    .is_ok_and(|e| e.kind() != Some(ObjectType::Tree))
                {
                    cleared.remove(dir);
                    in_the_way = true;
                }
            }
        }
        let base = if in_the_way {
            let tree = repo.find_tree(cleared.create_updated(repo, &base)?)?;
            fresh.push(tree.id());
            tree
        } else {
            base
        };
        let mut before = TreeUpdateBuilder::new();
        for (f, (before_id, _)) in files.iter().zip(blob_ids) {
            let path = self.repo_path(f.path.as_str());
            match (&f.before, before_id) {
                (Before::File { mode, .. }, Some(oid)) => {
                    before.upsert(&path, *oid, file_mode(*mode));
                }
                (Before::Link { .. }, Some(oid)) => {
                    before.upsert(&path, *oid, FileMode::Link);
                }
                _ => {
                    if base.get_path(&path).is_ok() {
                        before.remove(&path);
                    }
                }
            }
        }
        let before_tree = repo.find_tree(before.create_updated(repo, &base)?)?;
        self.note_trees(&before_tree, files, fresh);
        let mut after = TreeUpdateBuilder::new();
        for (f, (_, after_id)) in files.iter().zip(blob_ids) {
            let path = self.repo_path(f.path.as_str());
            match after_id {
                Some(oid) => {
                    after.upsert(&path, *oid, file_mode(f.mode.unwrap_or(0o644)));
                }
                None => {
                    if before_tree.get_path(&path).is_ok() {
                        after.remove(&path);
                    }
                }
            }
        }
        let after_tree = repo.find_tree(after.create_updated(repo, &before_tree)?)?;
        self.note_trees(&after_tree, files, fresh);
        let before_commit = self.before_commit(id, head, &before_tree, fresh)?;
        let sig = repo
            .signature()
            .or_else(|_| Signature::now("lancet", "lancet@localhost"))?;
        let after_commit =
            repo.commit(None, &sig, &sig, message, &after_tree, &[&before_commit])?;
        fresh.push(after_commit);
        fresh.sort();
        fresh.dedup();
        Ok(after_commit)
    }

    /// The batch's before commit. Where the touched paths are on disk as HEAD has them (a clean
    /// tree), HEAD itself: one object fewer to write per batch, and `git diff <id>^ <id>` is
    /// still exactly the batch. Else a commit of `before_tree` on HEAD (noted in `fresh`).
    fn before_commit<'r>(
        &'r self,
        id: &str,
        head: Option<git2::Commit<'r>>,
        before_tree: &Tree,
        fresh: &mut Vec<Oid>,
    ) -> Result<git2::Commit<'r>, git2::Error> {
        if let Some(head) = head.as_ref().filter(|h| h.tree_id() == before_tree.id()) {
            return Ok(head.clone());
        }
        let repo = &self.repo;
        let sig = repo
            .signature()
            .or_else(|_| Signature::now("lancet", "lancet@localhost"))?;
        let parents: Vec<&git2::Commit> = head.iter().collect();
        let before_commit = repo.commit(
            None,
            &sig,
            &sig,
            &format!("lancet checkpoint {id}: before"),
            before_tree,
            &parents,
        )?;
        fresh.push(before_commit);
        repo.find_commit(before_commit)
    }

    /// A path's content before and after the batch `id`.
    pub fn images(&self, id: &str, rel: &str) -> Result<(Image, Image), git2::Error> {
        let after = self
            .repo
            .find_reference(&format!("{REF_PREFIX}{id}"))?
            .peel_to_commit()?;
        let before = after.parent(0)?;
        let path = self.repo_path(rel);
        Ok((
            self.image(&before.tree()?, &path)?,
            self.image(&after.tree()?, &path)?,
        ))
    }

    fn image(&self, tree: &Tree, path: &Path) -> Result<Image, git2::Error> {
        let Ok(entry) = tree.get_path(path) else {
            return Ok(Image::Missing);
        };
        let blob = self.repo.find_blob(entry.id())?;
        Ok(if entry.filemode() == i32::from(FileMode::Link) {
            Image::Link {
                target: PathBuf::from(std::ffi::OsStr::from_bytes(blob.content())),
            }
        } else {
            Image::File {
                bytes: blob.content().to_vec(),
                executable: entry.filemode() == i32::from(FileMode::BlobExecutable),
            }
        })
    }
}

fn file_mode(mode: u32) -> FileMode {
    if mode & 0o111 != 0 {
        FileMode::BlobExecutable
    } else {
        FileMode::Blob
    }
}

/// What `lancet log` shows about a checkpoint; kept beside the journal, updated by undo and
/// test runs (the commits themselves are immutable).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CheckpointMeta {
    /// The batch id (also the ref name).
    pub id: String,
    /// Seconds since the Unix epoch.
    pub time: u64,
    /// The edit format.
    pub format: String,
    /// Every touched path (relative to the root) with what happened to it.
    pub files: Vec<TouchedFile>,
    /// One line: what the batch did.
    pub summary: String,
    /// The test run, if `--test` was given.
    pub test: Option<TestSummary>,
    /// Whether the batch has been undone (by `lancet undo` or a failed test run).
    pub undone: bool,
    /// The *after* commit (`git diff <commit>^ <commit>` shows the batch).
    #[serde(default)]
    pub commit: Option<String>,
    /// Directories the batch created (relative to the root): undo removes them when empty.
    #[serde(default)]
    pub created_dirs: Vec<String>,
    /// The batch that undid this one, while that is in flight or done: a crash during the undo
    /// rolls it back, and recovery then marks this batch live again.
    #[serde(default)]
    pub undone_by: Option<String>,
    /// The root the batch ran on, relative to the work tree (`""`: the work tree itself, or
    /// the root outside git): its paths are relative to it, whichever root undoes it.
    #[serde(default)]
    pub root: String,
    /// For an undo (itself a checkpointed batch): the batch it undid. Undoing the undo redoes
    /// that batch, which is then live again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<String>,
}

impl CheckpointMeta {
    /// Whether every path the batch touched lies inside the root at `root_in_home` (relative
    /// to the state's home, `""` for the home itself): only such batches are that root's
    /// history (`log`, `undo`), so a root never undoes files outside itself.
    pub fn within(&self, root_in_home: &str) -> bool {
        self.files.iter().all(|f| {
            let path = if self.root.is_empty() {
                f.path.clone()
            } else {
                format!("{}/{}", self.root, f.path)
            };
            root_in_home.is_empty()
                || path
                    .strip_prefix(root_in_home)
                    .is_some_and(|rest| rest.starts_with('/'))
        })
    }
}

/// One touched path of a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TouchedFile {
    /// The path, relative to the root.
    pub path: String,
    /// `add`, `update` or `delete`.
    pub action: String,
    /// The permission bits the path had before the batch (git keeps only the executable bit):
    /// undo restores a deleted 0600 file as 0600.
    #[serde(default)]
    pub mode: Option<u32>,
}

/// The outcome of a `--test` run, as `lancet log` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TestSummary {
    /// The command.
    pub command: String,
    /// Whether it passed.
    pub passed: bool,
}

impl StateDir {
    /// A batch that never completed has no checkpoint worth keeping; and if it was an undo, the
    /// batch it undid is live again.
    pub fn forget_batch(&self, id: &str) {
        let all = self.list_meta();
        for mut meta in all.iter().cloned() {
            if meta.undone_by.as_deref() == Some(id) {
                meta.undone = false;
                meta.undone_by = None;
                let _ = self.save_meta(&meta);
                // An undo live again has its batch undone again (the forgotten batch redid it).
                if let Some(undid) = meta.undoes.as_deref()
                    && let Some(mut batch) = all.iter().find(|m| m.id == undid).cloned()
                {
                    batch.undone = true;
                    batch.undone_by = Some(meta.id.clone());
                    let _ = self.save_meta(&batch);
                }
            }
        }
        if let Ok(repo) = self.checkpoint_repository(false) {
            self.drop_checkpoint(&repo, id);
        }
    }

    /// Removes one checkpoint: its log entry and its ref (git's gc then drops its objects).
    pub(crate) fn drop_checkpoint(&self, repo: &git2::Repository, id: &str) {
        if let Ok(log) = self.subdir("checkpoints") {
            let _ = log.remove_file(format!("{id}.json"));
        }
        if let Ok(mut r) = repo.find_reference(&format!("{}{id}", REF_PREFIX)) {
            let _ = r.delete();
        }
    }

    /// Saves a new checkpoint's log entry, counted first in the retention tally (so the tally
    /// is never below the entries recorded).
    pub fn save_new_meta(&self, meta: &CheckpointMeta) -> std::io::Result<()> {
        self.tally_checkpoint();
        self.save_meta(meta)
    }

    /// Saves a checkpoint's metadata (temp file and rename, through the state's handle).
    pub fn save_meta(&self, meta: &CheckpointMeta) -> std::io::Result<()> {
        let log = self.subdir("checkpoints")?;
        let (name, tmp) = (format!("{}.json", meta.id), format!("{}.json.tmp", meta.id));
        log.write(
            &tmp,
            serde_json::to_vec_pretty(meta).map_err(std::io::Error::other)?,
        )?;
        log.rename(&tmp, &log, &name)
    }

    /// Every checkpoint's metadata, newest first.
    pub fn list_meta(&self) -> Vec<CheckpointMeta> {
        let Ok(log) = self.subdir("checkpoints") else {
            return Vec::new();
        };
        let Ok(entries) = log.entries() else {
            return Vec::new();
        };
        let mut all: Vec<CheckpointMeta> = entries
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|name| name.ends_with(".json"))
            .filter_map(|name| log.read(&name).ok())
            .filter_map(|b| serde_json::from_slice(&b).ok())
            .collect();
        all.sort_by(|a, b| b.id.cmp(&a.id));
        all
    }
}
