//! The packs checkpoints write, and folding them into one once they pile up.
//!
//! A batch of more than a few files writes its checkpoint objects as one pack. Nothing else
//! consolidates them until someone runs `git gc`, and every object lookup opens and searches
//! every pack's index: a repository that took a hundred such batches had a one-line edit's
//! checkpoint spend 1.4 ms looking objects up instead of 0.12 ms. So the state records the
//! name of every pack lancet writes ([`PACKS_LOG`]), and once [`FOLD_AT`] of them are on disk
//! the next batch, after its commit point, folds them into one pack: the same objects, written,
//! synced, then the old packs removed. Only lancet's own packs are folded (never the
//! repository's, never one it cannot read whole), so nothing of the user's is rewritten.

use crate::state::StateDir;
use flate2::Compression;
use flate2::write::ZlibEncoder;
use git2::{ObjectType, Oid};
use sha1::{Digest, Sha1};
use std::collections::HashSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The state file listing the packs lancet wrote, one name (the pack's checksum) a line.
pub const PACKS_LOG: &str = "packs";

/// How many of lancet's packs may stand before they are folded into one: lookups then open
/// at most this many of lancet's indexes, and a fold happens once per this many large batches.
pub const FOLD_AT: usize = 8;

/// One object of a pack (format v2): its type and inflated size as a varint, then its data
/// deflated. Level 1: a checkpoint is written on every batch and read rarely; git repacks it
/// tighter later anyway.
pub(crate) fn pack_entry(kind: ObjectType, data: &[u8]) -> io::Result<Vec<u8>> {
    let type_bits: u8 = match kind {
        ObjectType::Commit => 1,
        ObjectType::Tree => 2,
        ObjectType::Blob => 3,
        _ => 4,
    };
    let mut size = data.len();
    let mut header = Vec::with_capacity(data.len() / 2 + 16);
    let mut byte = (type_bits << 4) | (size & 0x0f) as u8;
    size >>= 4;
    while size > 0 {
        header.push(byte | 0x80);
        byte = (size & 0x7f) as u8;
        size >>= 7;
    }
    header.push(byte);
    let mut encoder = ZlibEncoder::new(header, Compression::fast());
    encoder.write_all(data)?;
    encoder.finish()
}

/// Writes a pack through the object database's pack writer (which indexes it): header, the
/// entries, and the SHA-1 of everything before it. Returns the pack's name (that checksum, as
/// git and libgit2 name a pack).
pub(crate) fn write_pack(odb: &git2::Odb<'_>, entries: &[Vec<u8>]) -> io::Result<String> {
    let mut out = odb.packwriter().map_err(io::Error::other)?;
    let mut hasher = Sha1::new();
    let mut put = |bytes: &[u8]| -> io::Result<()> {
        hasher.update(bytes);
        out.write_all(bytes)
    };
    put(b"PACK")?;
    put(&2u32.to_be_bytes())?;
    let count = u32::try_from(entries.len()).map_err(io::Error::other)?;
    put(&count.to_be_bytes())?;
    for entry in entries {
        put(entry)?;
    }
    let checksum = hasher.finalize();
    out.write_all(&checksum)?;
    out.commit().map_err(io::Error::other)?;
    Ok(lancet_core::digest::hex(&checksum))
}

/// The object ids a pack index (version 2, what git and libgit2 write) lists; `None` for an
/// index lancet cannot read, whose pack is then never folded.
fn indexed_objects(idx: &[u8]) -> Option<Vec<Oid>> {
    const FANOUT: usize = 8;
    let header = idx.get(..FANOUT)?;
    if header != [0xff, b't', b'O', b'c', 0, 0, 0, 2] {
        return None;
    }
    let last = idx.get(FANOUT + 255 * 4..FANOUT + 256 * 4)?;
    let count = u32::from_be_bytes(last.try_into().ok()?) as usize;
    let start = FANOUT + 256 * 4;
    let names = idx.get(start..start.checked_add(count.checked_mul(20)?)?)?;
    names
        .chunks_exact(20)
        .map(|id| Oid::from_bytes(id).ok())
        .collect()
}

/// What a fold did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folded {
    /// How many packs were folded.
    pub packs: usize,
    /// How many objects the one pack holds.
    pub objects: usize,
}

/// A pack of lancet's, by its name, in the repository's pack directory.
struct Pack {
    name: String,
    dir: PathBuf,
}

impl Pack {
    fn file(&self, ext: &str) -> PathBuf {
        self.dir.join(format!("pack-{}.{ext}", self.name))
    }

    fn on_disk(&self) -> bool {
        self.file("pack").is_file() && self.file("idx").is_file()
    }

    /// Syncs the pack and its index, so a fold never removes what it copied before the copy is
    /// on the disk.
    fn sync(&self) -> io::Result<()> {
        for ext in ["pack", "idx"] {
            std::fs::File::open(self.file(ext))?.sync_all()?;
        }
        Ok(())
    }

    /// Removes it: its index first, so no reader finds an index without its pack.
    fn remove(&self) -> io::Result<()> {
        std::fs::remove_file(self.file("idx"))?;
        std::fs::remove_file(self.file("pack"))
    }
}

impl StateDir {
    /// Records a pack lancet wrote (appended to [`PACKS_LOG`] through the state's handle).
    pub(crate) fn record_pack(&self, name: &str) -> io::Result<()> {
        let mut log = self.handle()?.open_with(
            PACKS_LOG,
            cap_std::fs::OpenOptions::new().create(true).append(true),
        )?;
        writeln!(log, "{name}")
    }

    /// The packs lancet recorded that are still on disk (`git gc` removes them), in the order
    /// written, each once.
    fn recorded_packs(&self, dir: &Path) -> Vec<Pack> {
        let Ok(text) = self.handle().and_then(|h| h.read_to_string(PACKS_LOG)) else {
            return Vec::new();
        };
        let mut seen = HashSet::new();
        text.lines()
            .map(str::trim)
            .filter(|name| name.len() == 40 && name.bytes().all(|b| b.is_ascii_hexdigit()))
            .filter(|name| seen.insert(name.to_string()))
            .map(|name| Pack {
                name: name.to_string(),
                dir: dir.to_path_buf(),
            })
            .filter(Pack::on_disk)
            .collect()
    }

    /// Folds lancet's packs into one once [`FOLD_AT`] of them stand (else does nothing and
    /// returns `Ok(None)`). Called after a batch's commit point, under the state lock: the new
    /// pack is written and synced, and its index checked to hold every object of the old ones,
    /// before any old pack is removed; a crash anywhere leaves every object readable (at worst
    /// twice). A pack whose index cannot be read is left as it is.
    pub fn fold_packs(&self) -> io::Result<Option<Folded>> {
        // Most calls write no pack and have none to fold: one read of a missing file.
        if self
            .handle()?
            .symlink_metadata(PACKS_LOG)
            .is_err_and(|e| e.kind() == io::ErrorKind::NotFound)
        {
            return Ok(None);
        }
        let repo = self
            .checkpoint_repository(false)
            .map_err(|e| io::Error::other(e.to_string()))?;
        let dir = repo.path().join("objects").join("pack");
        let recorded = self.recorded_packs(&dir);
        if recorded.len() < FOLD_AT {
            return Ok(None);
        }
        let mut folded = Vec::new();
        let mut ids = Vec::new();
        let mut seen = HashSet::new();
        for pack in recorded {
            let Some(listed) = std::fs::read(pack.file("idx"))
                .ok()
                .and_then(|idx| indexed_objects(&idx))
            else {
                continue;
            };
            ids.extend(listed.into_iter().filter(|id| seen.insert(*id)));
            folded.push(pack);
        }
        if folded.len() < FOLD_AT {
            return Ok(None);
        }
        let odb = repo.odb().map_err(io::Error::other)?;
        let entries = ids
            .iter()
            .map(|id| {
                let object = odb.read(*id).map_err(io::Error::other)?;
                pack_entry(object.kind(), object.data())
            })
            .collect::<io::Result<Vec<_>>>()?;
        let one = Pack {
            name: write_pack(&odb, &entries)?,
            dir: dir.clone(),
        };
        one.sync()?;
        std::fs::File::open(&dir)?.sync_all()?;
        let holds: HashSet<Oid> = std::fs::read(one.file("idx"))
            .ok()
            .and_then(|idx| indexed_objects(&idx))
            .unwrap_or_default()
            .into_iter()
            .collect();
        if let Some(missing) = ids.iter().find(|id| !holds.contains(id)) {
            return Err(io::Error::other(format!(
                "the folded pack pack-{} lacks object {missing}: lancet's {} packs were kept as they are",
                one.name,
                folded.len()
            )));
        }
        self.record_pack(&one.name)?;
        for pack in folded.iter().filter(|p| p.name != one.name) {
            pack.remove()?;
        }
        let state = self.handle()?;
        let temp = format!("{PACKS_LOG}.tmp");
        state.write(&temp, format!("{}\n", one.name))?;
        state.rename(&temp, &state, PACKS_LOG)?;
        Ok(Some(Folded {
            packs: folded.len(),
            objects: ids.len(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_lists_its_objects_and_a_foreign_one_is_not_read() {
        let mut idx = vec![0xff, b't', b'O', b'c', 0, 0, 0, 2];
        let ids = [[1u8; 20], [2u8; 20]];
        for bucket in 0..256u32 {
            let count = ids.iter().filter(|id| u32::from(id[0]) <= bucket).count();
            idx.extend((count as u32).to_be_bytes());
        }
        for id in ids {
            idx.extend(id);
        }
        let listed = indexed_objects(&idx).unwrap();
        assert_eq!(listed, ids.map(|id| Oid::from_bytes(&id).unwrap()).to_vec());
        // Version 1 (no magic), and a truncated index, are not read.
        assert_eq!(indexed_objects(&idx[8..]), None);
        assert_eq!(indexed_objects(&idx[..idx.len() - 1]), None);
    }
}
