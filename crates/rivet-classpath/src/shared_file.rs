//! A read-only file shared between threads, read with positional reads, and a cheap
//! clonable `Read + Seek` window onto it (used to read jars and jmods lazily).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An open file read only through positional reads, so any number of threads can read it
/// at once without a lock.
#[derive(Debug)]
pub struct SharedFile {
    file: File,
    path: PathBuf,
    len: u64,
}

impl SharedFile {
    pub fn open(path: &Path) -> io::Result<SharedFile> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(SharedFile {
            file,
            path: path.to_path_buf(),
            len,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Reads up to `buf.len()` bytes at `offset`; returns how many were read.
    pub fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        #[cfg(unix)]
        {
            std::os::unix::fs::FileExt::read_at(&self.file, buf, offset)
        }
        #[cfg(windows)]
        {
            std::os::windows::fs::FileExt::seek_read(&self.file, buf, offset)
        }
    }

    /// Fills `buf` from `offset`, failing with `UnexpectedEof` at the end of the file.
    pub fn read_exact_at(&self, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
        while !buf.is_empty() {
            match self.read_at(buf, offset) {
                Ok(0) => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        format!("file ends before byte {}", offset + buf.len() as u64),
                    ))
                }
                Ok(n) => {
                    buf = &mut buf[n..];
                    offset += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Reads `len` bytes at `offset` into a new vector.
    pub fn read_vec(&self, offset: u64, len: usize) -> io::Result<Vec<u8>> {
        let mut buf = vec![0; len];
        self.read_exact_at(&mut buf, offset)?;
        Ok(buf)
    }
}

/// A `Read + Seek` view of the bytes of a [`SharedFile`] from `start` to its end; cloning
/// it is cheap and each clone has its own position.
#[derive(Debug, Clone)]
pub struct FileWindow {
    file: Arc<SharedFile>,
    start: u64,
    pos: u64,
}

impl FileWindow {
    pub fn new(file: Arc<SharedFile>, start: u64) -> FileWindow {
        FileWindow {
            file,
            start,
            pos: 0,
        }
    }

    fn len(&self) -> u64 {
        self.file.len().saturating_sub(self.start)
    }
}

impl Read for FileWindow {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.len().saturating_sub(self.pos);
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        if want == 0 {
            return Ok(0);
        }
        let n = self.file.read_at(&mut buf[..want], self.start + self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for FileWindow {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::End(d) => self.len().checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        match target {
            Some(p) => {
                self.pos = p;
                Ok(p)
            }
            None => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("seek before the start of {}", self.file.path().display()),
            )),
        }
    }
}
