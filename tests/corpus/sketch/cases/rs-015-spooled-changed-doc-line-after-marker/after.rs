use crate::file::tempfile;
use crate::tempfile_in;
use std::fs::File;
use std::io::{self, Cursor, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// A wrapper for the two states of a [`SpooledTempFile`]. Either:
///
/// 1. An in-memory [`Cursor`] representing the state of the file.
/// 2. A temporary [`File`].
#[derive(Debug)]
pub enum SpooledData {
    InMemory(Cursor<Vec<u8>>),
    OnDisk(File),
}

/// An object that behaves like a regular temporary file, but keeps data in
/// memory until it reaches a configured size, at which point the data is
/// written to a temporary file on disk, and further operations use the file
/// on disk.
#[derive(Debug)]
pub struct SpooledTempFile {
    max_size: usize,
    dir: Option<PathBuf>,
    inner: SpooledData,
}

/// Write a cursor into a temporary file, returning the temporary file.
fn cursor_to_tempfile(cursor: &Cursor<Vec<u8>>, p: &Option<PathBuf>) -> io::Result<File> {
    let mut file = match p {
        Some(p) => tempfile_in(p)?,
        None => tempfile()?,
    };
    file.write_all(cursor.get_ref())?;
    file.seek(SeekFrom::Start(cursor.position()))?;
    Ok(file)
}

impl SpooledTempFile {
    /// Construct a new [`SpooledTempFile`].
    #[must_use]
    pub fn new(max_size: usize) -> SpooledTempFile {
        SpooledTempFile {
            max_size,
            dir: None,
            inner: SpooledData::InMemory(Cursor::new(Vec::new())),
        }
    }

    /// Construct a new [`SpooledTempFile`], backed by a file in the specified directory.
    #[must_use]
    pub fn new_in<P: AsRef<Path>>(max_size: usize, dir: P) -> SpooledTempFile {
        SpooledTempFile {
            max_size,
            dir: Some(dir.as_ref().to_owned()),
            inner: SpooledData::InMemory(Cursor::new(Vec::new())),
        }
    }

    /// Returns true if the file has been rolled over to disk.
    #[must_use]
    pub fn is_rolled(&self) -> bool {
        match self.inner {
            SpooledData::InMemory(_) => false,
            SpooledData::OnDisk(_) => true,
        }
    }

    /// Rolls over to a file on disk, regardless of current size. Does nothing
    /// if already rolled over.
    pub fn roll(&mut self) -> io::Result<()> {
        if let SpooledData::InMemory(cursor) = &mut self.inner {
            self.inner = SpooledData::OnDisk(cursor_to_tempfile(cursor, &self.dir)?);
        }
        Ok(())
    }

    /// Truncates or extends the file to the specified size.
    pub fn set_len(&mut self, size: u64) -> Result<(), io::Error> {
        if size > self.max_size as u64 {
            self.roll()?; // does nothing if already rolled over
        }
        match &mut self.inner {
            SpooledData::InMemory(cursor) => {
                cursor.get_mut().resize(size as usize, 0);
                Ok(())
            }
            SpooledData::OnDisk(file) => file.set_len(size),
        }
    }

    /// Consumes and returns the inner `SpooledData` type.
    #[must_use]
    pub fn into_inner(self) -> SpooledData {
        self.inner
    }

    /// Convert into a regular unnamed temporary file, writing it to disk if necessary.
    pub fn into_file(self) -> io::Result<File> {
        match self.inner {
            SpooledData::InMemory(cursor) => cursor_to_tempfile(&cursor, &self.dir),
            SpooledData::OnDisk(file) => Ok(file),
        }
    }
}
