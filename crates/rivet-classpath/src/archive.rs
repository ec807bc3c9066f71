//! Zip archives (jars, and jmods after their 4-byte header): the central directory is read
//! once, entries are read lazily and concurrently.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use zip::{CompressionMethod, ZipArchive};

use crate::shared_file::{FileWindow, SharedFile};

/// Why an archive or one of its entries could not be read.
#[derive(Debug)]
pub enum ArchiveError {
    /// The file could not be opened or read.
    Io(std::io::Error),
    /// The bytes are not a valid zip archive or entry.
    Format(String),
}

impl std::fmt::Display for ArchiveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArchiveError::Io(e) => write!(f, "{e}"),
            ArchiveError::Format(e) => write!(f, "{e}"),
        }
    }
}

impl From<zip::result::ZipError> for ArchiveError {
    fn from(e: zip::result::ZipError) -> Self {
        match e {
            zip::result::ZipError::Io(io) => ArchiveError::Io(io),
            other => ArchiveError::Format(other.to_string()),
        }
    }
}

/// An opened zip archive with its central directory indexed.
#[derive(Debug, Clone)]
pub struct ZipIndex {
    path: PathBuf,
    file: Arc<SharedFile>,
    /// Where the zip starts in the file (4 for jmods).
    start: u64,
    archive: ZipArchive<FileWindow>,
}

impl ZipIndex {
    /// Opens the zip archive that starts `start` bytes into the file at `path`.
    pub fn open(path: &Path, start: u64) -> Result<ZipIndex, ArchiveError> {
        let file = Arc::new(SharedFile::open(path).map_err(ArchiveError::Io)?);
        Self::from_file(file, start)
    }

    /// Indexes the zip archive that starts `start` bytes into an opened file.
    pub fn from_file(file: Arc<SharedFile>, start: u64) -> Result<ZipIndex, ArchiveError> {
        let path = file.path().to_path_buf();
        let archive = ZipArchive::new(FileWindow::new(file.clone(), start))?;
        Ok(ZipIndex {
            path,
            file,
            start,
            archive,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of entries (files and directories).
    pub fn len(&self) -> usize {
        self.archive.len()
    }

    pub fn is_empty(&self) -> bool {
        self.archive.is_empty()
    }

    /// Entry names in central-directory order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        (0..self.archive.len()).filter_map(|i| self.archive.name_for_index(i))
    }

    /// The name of entry `index`.
    pub fn name_at(&self, index: usize) -> Option<&str> {
        self.archive.name_for_index(index)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.archive.index_for_name(name).is_some()
    }

    /// The uncompressed bytes of entry `name`, or None if there is no such entry.
    pub fn read(&self, name: &str) -> Result<Option<Vec<u8>>, ArchiveError> {
        match self.archive.index_for_name(name) {
            None => Ok(None),
            Some(i) => self.read_at(i).map(Some),
        }
    }

    /// The uncompressed bytes of entry `index`.
    ///
    /// Stored and deflated entries (all that jars and jmods use) are read with one
    /// positional read and inflated in one call into a buffer of the recorded size, their
    /// CRC checked; other methods go through the `zip` crate's readers.
    pub fn read_at(&self, index: usize) -> Result<Vec<u8>, ArchiveError> {
        // Cloning shares the central directory and gives this read its own file position.
        let mut archive = self.archive.clone();
        let entry = archive.by_index_raw(index)?;
        let method = entry.compression();
        if method != CompressionMethod::Stored && method != CompressionMethod::Deflated {
            drop(entry);
            return self.read_with_zip_crate(index);
        }
        let (size, crc) = (entry.size(), entry.crc32());
        let stored = usize::try_from(entry.compressed_size())
            .map_err(|_| ArchiveError::Format(format!("{} is too large", entry.name())))?;
        let size = usize::try_from(size)
            .map_err(|_| ArchiveError::Format(format!("{} is too large", entry.name())))?;
        let raw = self
            .file
            .read_vec(self.start + entry.data_start(), stored)
            .map_err(ArchiveError::Io)?;
        let data = if method == CompressionMethod::Stored {
            raw
        } else {
            inflate(&raw, size)
                .map_err(|e| ArchiveError::Format(format!("{}: {e}", entry.name())))?
        };
        let mut check = flate2::Crc::new();
        check.update(&data);
        if data.len() != size || check.sum() != crc {
            return Err(ArchiveError::Format(format!(
                "{}: {} bytes with CRC {:08x}, the central directory says {size} bytes with CRC {crc:08x}",
                entry.name(),
                data.len(),
                check.sum()
            )));
        }
        Ok(data)
    }

    fn read_with_zip_crate(&self, index: usize) -> Result<Vec<u8>, ArchiveError> {
        let mut archive = self.archive.clone();
        let mut entry = archive.by_index(index)?;
        let size = usize::try_from(entry.size()).unwrap_or(0);
        let mut data = Vec::with_capacity(size);
        entry.read_to_end(&mut data).map_err(|e| {
            if e.kind() == std::io::ErrorKind::InvalidData
                || e.kind() == std::io::ErrorKind::UnexpectedEof
            {
                ArchiveError::Format(e.to_string())
            } else {
                ArchiveError::Io(e)
            }
        })?;
        Ok(data)
    }
}

/// Inflates raw deflate data that should give exactly `size` bytes.
fn inflate(raw: &[u8], size: usize) -> Result<Vec<u8>, String> {
    // One more byte of room than expected, so that a longer output shows as a mismatch.
    let mut out = Vec::with_capacity(size + 1);
    let mut inflater = flate2::Decompress::new(false);
    let status = inflater
        .decompress_vec(raw, &mut out, flate2::FlushDecompress::Finish)
        .map_err(|e| format!("bad deflate data: {e}"))?;
    if status != flate2::Status::StreamEnd {
        return Err(format!(
            "deflate data did not end within {} bytes of output",
            out.len()
        ));
    }
    Ok(out)
}
