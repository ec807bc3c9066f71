//! Reader for the JDK's `lib/modules` file in the jimage format (JDK 9+), used when a JDK
//! ships no `jmods` directory (JEP 493 builds such as Temurin 25).
//!
//! Layout (integers in the image's byte order, which the magic reveals):
//! a 28-byte header (magic 0xCAFEDADA, version major<<16|minor, flags, resource count,
//! table length, locations size, strings size); the redirect table (table length × s4);
//! the offsets table (table length × u4, offsets into the locations); the locations (each
//! a run of attributes: a byte `kind << 3 | (length - 1)` then `length` big-endian value
//! bytes, ended by a byte <= 7); the strings (NUL-terminated modified UTF-8). Resources
//! follow; a location's OFFSET attribute counts from the end of that index.
//!
//! A resource's name is `/module/parent/base.extension`. Names are found through a
//! perfect hash: `h = hash(name, 0x01000193) % table_length`; the redirect entry at `h` is
//! either `-1 - index` (the offsets-table index itself), a positive seed to hash the name
//! again with, or 0 (absent). The hash is FNV-1-like over the modified UTF-8 bytes:
//! `seed = (seed * 0x01000193) ^ byte`, masked to 31 bits at the end.
//!
//! Besides the modules' resources the image has directory entries: `/modules/<module>/<dir>`
//! and `/packages/<package.name>`, whose content lists (is_empty: u4, module name: u4 string
//! offset) pairs, telling which modules hold a package.
//!
//! A resource with a non-zero COMPRESSED attribute starts with 29-byte headers (magic
//! 0xCAFEFAFA, compressed size u8, uncompressed size u8, decompressor name u4, unused u4,
//! terminal flag u1), possibly stacked. `zip` (zlib) is decompressed here; `compact-cp`
//! (string sharing) is reported as [`JimageError::UnsupportedCompression`].

use std::borrow::Cow;
use std::io::Read;
use std::path::Path;

use rivet_classfile::constant_pool::{decode_modified_utf8, encode_modified_utf8};

use crate::error::JimageError;
use crate::shared_file::SharedFile;

const MAGIC: u32 = 0xCAFE_DADA;
const HEADER_SIZE: usize = 28;
const HASH_MULTIPLIER: u32 = 0x0100_0193;
const COMPRESSED_MAGIC: u32 = 0xCAFE_FAFA;
const COMPRESSED_HEADER_SIZE: usize = 29;

const ATTRIBUTE_MODULE: usize = 1;
const ATTRIBUTE_PARENT: usize = 2;
const ATTRIBUTE_BASE: usize = 3;
const ATTRIBUTE_EXTENSION: usize = 4;
const ATTRIBUTE_OFFSET: usize = 5;
const ATTRIBUTE_COMPRESSED: usize = 6;
const ATTRIBUTE_UNCOMPRESSED: usize = 7;
const ATTRIBUTE_COUNT: usize = 8;

/// The jimage string hash of `name` with `seed` (31 bits).
pub fn jimage_hash(name: &str, seed: u32) -> u32 {
    let hash_bytes = |bytes: &[u8]| {
        bytes
            .iter()
            .fold(seed, |h, &b| h.wrapping_mul(HASH_MULTIPLIER) ^ u32::from(b))
    };
    let h = if name.bytes().all(|b| b != 0 && b < 0x80) {
        hash_bytes(name.as_bytes())
    } else {
        hash_bytes(&encode_modified_utf8(name))
    };
    h & 0x7FFF_FFFF
}

/// Where a resource's name parts and content are, decoded from the locations table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageLocation {
    attributes: [u64; ATTRIBUTE_COUNT],
}

impl ImageLocation {
    /// Offset of the content from the end of the image's index.
    pub fn content_offset(&self) -> u64 {
        self.attributes[ATTRIBUTE_OFFSET]
    }
    /// Stored size when compressed, 0 when stored as is.
    pub fn compressed_size(&self) -> u64 {
        self.attributes[ATTRIBUTE_COMPRESSED]
    }
    pub fn uncompressed_size(&self) -> u64 {
        self.attributes[ATTRIBUTE_UNCOMPRESSED]
    }
    pub fn is_compressed(&self) -> bool {
        self.compressed_size() != 0
    }
    fn string_offset(&self, kind: usize) -> u64 {
        self.attributes[kind]
    }
}

/// An opened jimage file: the index is held in memory, resources are read on demand with
/// positional reads (safe to share between threads).
#[derive(Debug)]
pub struct Jimage {
    file: SharedFile,
    big_endian: bool,
    resource_count: u32,
    redirect: Vec<i32>,
    offsets: Vec<u32>,
    locations: Vec<u8>,
    strings: Vec<u8>,
    index_size: u64,
}

impl Jimage {
    /// Opens a jimage file and reads its index.
    pub fn open(path: &Path) -> Result<Jimage, JimageError> {
        let io = |source| JimageError::Io {
            path: path.to_path_buf(),
            source,
        };
        let corrupt = |reason: String| JimageError::Corrupt {
            path: path.to_path_buf(),
            reason,
        };
        let file = SharedFile::open(path).map_err(io)?;
        if file.len() < HEADER_SIZE as u64 {
            return Err(corrupt(format!(
                "{} bytes, shorter than the header",
                file.len()
            )));
        }
        let header = file.read_vec(0, HEADER_SIZE).map_err(io)?;
        let magic_bytes = [header[0], header[1], header[2], header[3]];
        let big_endian = if u32::from_le_bytes(magic_bytes) == MAGIC {
            false
        } else if u32::from_be_bytes(magic_bytes) == MAGIC {
            true
        } else {
            return Err(JimageError::BadMagic {
                path: path.to_path_buf(),
                magic: u32::from_be_bytes(magic_bytes),
            });
        };
        let word = |i: usize| read_u32(&header[i * 4..i * 4 + 4], big_endian);
        let version = word(1);
        let (major, minor) = ((version >> 16) as u16, (version & 0xFFFF) as u16);
        if (major, minor) != (1, 0) {
            return Err(JimageError::UnsupportedVersion {
                path: path.to_path_buf(),
                major,
                minor,
            });
        }
        let resource_count = word(3);
        let table_length = word(4) as usize;
        let locations_size = word(5) as usize;
        let strings_size = word(6) as usize;
        let index_size = (HEADER_SIZE as u64)
            + 8 * table_length as u64
            + locations_size as u64
            + strings_size as u64;
        if index_size > file.len() {
            return Err(corrupt(format!(
                "index of {index_size} bytes is larger than the file ({} bytes)",
                file.len()
            )));
        }
        let index = file
            .read_vec(HEADER_SIZE as u64, (index_size as usize) - HEADER_SIZE)
            .map_err(io)?;
        let (redirect_bytes, rest) = index.split_at(4 * table_length);
        let (offset_bytes, rest) = rest.split_at(4 * table_length);
        let (location_bytes, string_bytes) = rest.split_at(locations_size);
        let redirect = redirect_bytes
            .chunks_exact(4)
            .map(|c| read_u32(c, big_endian) as i32)
            .collect();
        let offsets = offset_bytes
            .chunks_exact(4)
            .map(|c| read_u32(c, big_endian))
            .collect();
        tracing::debug!(path = %path.display(), resource_count, table_length, "opened jimage");
        Ok(Jimage {
            file,
            big_endian,
            resource_count,
            redirect,
            offsets,
            locations: location_bytes.to_vec(),
            strings: string_bytes.to_vec(),
            index_size,
        })
    }

    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Number of resources, directory entries included, as the header states.
    pub fn resource_count(&self) -> u32 {
        self.resource_count
    }

    fn corrupt(&self, reason: String) -> JimageError {
        JimageError::Corrupt {
            path: self.path().to_path_buf(),
            reason,
        }
    }

    /// Decodes the location whose attributes start at `offset` in the locations table.
    fn location_at(&self, offset: u32) -> Result<ImageLocation, JimageError> {
        let mut attributes = [0u64; ATTRIBUTE_COUNT];
        let mut at = offset as usize;
        loop {
            let Some(&byte) = self.locations.get(at) else {
                return Err(self.corrupt(format!("location at {offset} runs past the table")));
            };
            at += 1;
            if byte <= 7 {
                break;
            }
            let kind = usize::from(byte >> 3);
            let length = usize::from(byte & 7) + 1;
            let Some(value_bytes) = self.locations.get(at..at + length) else {
                return Err(self.corrupt(format!("location at {offset} runs past the table")));
            };
            if kind >= ATTRIBUTE_COUNT {
                return Err(self.corrupt(format!("location at {offset} has attribute kind {kind}")));
            }
            attributes[kind] = value_bytes
                .iter()
                .fold(0u64, |v, &b| (v << 8) | u64::from(b));
            at += length;
        }
        Ok(ImageLocation { attributes })
    }

    /// The string at `offset` of the strings table.
    fn string(&self, offset: u64) -> Result<Cow<'_, str>, JimageError> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        let Some(tail) = self.strings.get(start..) else {
            return Err(self.corrupt(format!("string offset {offset} is past the table")));
        };
        let bytes = match tail.iter().position(|&b| b == 0) {
            Some(end) => &tail[..end],
            None => return Err(self.corrupt(format!("string at {offset} is not terminated"))),
        };
        Ok(match std::str::from_utf8(bytes) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => Cow::Owned(decode_modified_utf8(bytes)),
        })
    }

    /// The module of a location, empty for top-level entries.
    pub fn module(&self, location: &ImageLocation) -> Result<Cow<'_, str>, JimageError> {
        self.string(location.string_offset(ATTRIBUTE_MODULE))
    }
    /// The directory part of the name inside the module (`java/lang`).
    pub fn parent(&self, location: &ImageLocation) -> Result<Cow<'_, str>, JimageError> {
        self.string(location.string_offset(ATTRIBUTE_PARENT))
    }
    /// The file name without extension (`String`).
    pub fn base(&self, location: &ImageLocation) -> Result<Cow<'_, str>, JimageError> {
        self.string(location.string_offset(ATTRIBUTE_BASE))
    }
    /// The extension without the dot (`class`).
    pub fn extension(&self, location: &ImageLocation) -> Result<Cow<'_, str>, JimageError> {
        self.string(location.string_offset(ATTRIBUTE_EXTENSION))
    }

    /// The full name `/module/parent/base.extension` of a location.
    pub fn full_name(&self, location: &ImageLocation) -> Result<String, JimageError> {
        let mut name = String::new();
        let module = self.module(location)?;
        if !module.is_empty() {
            name.push('/');
            name.push_str(&module);
            name.push('/');
        }
        let parent = self.parent(location)?;
        if !parent.is_empty() {
            name.push_str(&parent);
            name.push('/');
        }
        name.push_str(&self.base(location)?);
        let extension = self.extension(location)?;
        if !extension.is_empty() {
            name.push('.');
            name.push_str(&extension);
        }
        Ok(name)
    }

    /// The location of the resource with full name `name` (`/java.base/java/lang/String.class`).
    pub fn find(&self, name: &str) -> Result<Option<ImageLocation>, JimageError> {
        let count = self.offsets.len() as u32;
        if count == 0 {
            return Ok(None);
        }
        let slot = (jimage_hash(name, HASH_MULTIPLIER) % count) as usize;
        let redirect = self.redirect[slot];
        let index = if redirect < 0 {
            (-1 - i64::from(redirect)) as usize
        } else if redirect > 0 {
            (jimage_hash(name, redirect as u32) % count) as usize
        } else {
            return Ok(None);
        };
        let Some(&offset) = self.offsets.get(index) else {
            return Err(self.corrupt(format!("redirect for {name} points past the offsets")));
        };
        let location = self.location_at(offset)?;
        if self.full_name(&location)? == name {
            Ok(Some(location))
        } else {
            Ok(None)
        }
    }

    /// The content of resource `name`, or None if the image has no such resource.
    pub fn resource(&self, name: &str) -> Result<Option<Vec<u8>>, JimageError> {
        match self.find(name)? {
            None => Ok(None),
            Some(location) => self.read(&location).map(Some),
        }
    }

    /// Reads (and if needed decompresses) the content of a location.
    pub fn read(&self, location: &ImageLocation) -> Result<Vec<u8>, JimageError> {
        let stored = if location.is_compressed() {
            location.compressed_size()
        } else {
            location.uncompressed_size()
        };
        let start = self.index_size.saturating_add(location.content_offset());
        if start.saturating_add(stored) > self.file.len() {
            return Err(self.corrupt(format!(
                "resource {} ({stored} bytes at {start}) lies past the end of the file",
                self.full_name(location)?
            )));
        }
        let data = self
            .file
            .read_vec(start, stored as usize)
            .map_err(|source| JimageError::Io {
                path: self.path().to_path_buf(),
                source,
            })?;
        if location.is_compressed() {
            self.decompress(location, data)
        } else {
            Ok(data)
        }
    }

    /// Undoes the (possibly stacked) compressions of a compressed resource.
    fn decompress(
        &self,
        location: &ImageLocation,
        mut data: Vec<u8>,
    ) -> Result<Vec<u8>, JimageError> {
        while data.len() >= COMPRESSED_HEADER_SIZE
            && read_u32(&data[0..4], self.big_endian) == COMPRESSED_MAGIC
        {
            let header = &data[..COMPRESSED_HEADER_SIZE];
            let uncompressed = read_u64(&header[12..20], self.big_endian);
            let decompressor =
                self.string(u64::from(read_u32(&header[20..24], self.big_endian)))?;
            let bad = |reason: String| -> Result<JimageError, JimageError> {
                Ok(JimageError::BadCompressedResource {
                    path: self.path().to_path_buf(),
                    resource: self.full_name(location)?,
                    reason,
                })
            };
            if decompressor != "zip" {
                return Err(JimageError::UnsupportedCompression {
                    path: self.path().to_path_buf(),
                    resource: self.full_name(location)?,
                    decompressor: decompressor.into_owned(),
                });
            }
            if uncompressed > location.uncompressed_size().max(1 << 30) {
                return Err(bad(format!(
                    "header claims {uncompressed} uncompressed bytes"
                ))?);
            }
            let mut out = Vec::with_capacity(uncompressed as usize);
            let mut inflater = flate2::read::ZlibDecoder::new(&data[COMPRESSED_HEADER_SIZE..]);
            if let Err(e) = inflater.read_to_end(&mut out) {
                return Err(bad(e.to_string())?);
            }
            if out.len() as u64 != uncompressed {
                return Err(bad(format!(
                    "inflated to {} bytes, header says {uncompressed}",
                    out.len()
                ))?);
            }
            data = out;
        }
        Ok(data)
    }

    /// All locations of the image in offsets-table order (directory entries included).
    pub fn locations(&self) -> impl Iterator<Item = Result<ImageLocation, JimageError>> + '_ {
        self.offsets
            .iter()
            .filter(|&&offset| offset != 0)
            .map(|&offset| self.location_at(offset))
    }

    /// The modules holding classes of a package (`java/lang` or `java.lang`), from the
    /// image's `/packages/<package>` entry; empty if no module has it.
    pub fn package_modules(&self, package: &str) -> Result<Vec<String>, JimageError> {
        let dotted = package.replace('/', ".");
        let Some(content) = self.resource(&format!("/packages/{dotted}"))? else {
            return Ok(Vec::new());
        };
        let mut modules = Vec::new();
        for pair in content.chunks_exact(8) {
            let is_empty = read_u32(&pair[0..4], self.big_endian);
            let module = read_u32(&pair[4..8], self.big_endian);
            if is_empty == 0 {
                modules.push(self.string(u64::from(module))?.into_owned());
            }
        }
        Ok(modules)
    }

    /// Finds class `internal_name` (`java/lang/String`) in whichever module holds its
    /// package; returns the module and the location.
    pub fn find_class(
        &self,
        internal_name: &str,
    ) -> Result<Option<(String, ImageLocation)>, JimageError> {
        let package = crate::name::package_of(internal_name);
        if package.is_empty() {
            return Ok(None);
        }
        for module in self.package_modules(package)? {
            if let Some(location) = self.find(&format!("/{module}/{internal_name}.class"))? {
                return Ok(Some((module, location)));
            }
        }
        Ok(None)
    }

    /// Every class resource: (module, internal name, location), sorted by module and name;
    /// `module-info` classes are left out.
    pub fn class_locations(&self) -> Result<Vec<(String, String, ImageLocation)>, JimageError> {
        let mut classes = Vec::new();
        for location in self.locations() {
            let location = location?;
            if self.extension(&location)? != "class" {
                continue;
            }
            let module = self.module(&location)?;
            if module.is_empty() || module == "modules" || module == "packages" {
                continue;
            }
            let base = self.base(&location)?;
            if base == "module-info" {
                continue;
            }
            let parent = self.parent(&location)?;
            let name = if parent.is_empty() {
                base.into_owned()
            } else {
                format!("{parent}/{base}")
            };
            classes.push((module.into_owned(), name, location));
        }
        classes.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        Ok(classes)
    }
}

fn read_u32(bytes: &[u8], big_endian: bool) -> u32 {
    let b = [bytes[0], bytes[1], bytes[2], bytes[3]];
    if big_endian {
        u32::from_be_bytes(b)
    } else {
        u32::from_le_bytes(b)
    }
}

fn read_u64(bytes: &[u8], big_endian: bool) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&bytes[..8]);
    if big_endian {
        u64::from_be_bytes(b)
    } else {
        u64::from_le_bytes(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_matches_the_jdk() {
        // The seed itself for the empty string; FNV-1-style steps otherwise.
        assert_eq!(jimage_hash("", HASH_MULTIPLIER), 16_777_619);
        assert_eq!(jimage_hash("foo", HASH_MULTIPLIER), 1_213_053_849);
        assert_eq!(jimage_hash("bar", HASH_MULTIPLIER), 977_475_810);
        // NUL hashes as its modified UTF-8 form C0 80.
        let step = |h: u32, b: u8| h.wrapping_mul(HASH_MULTIPLIER) ^ u32::from(b);
        let expected = [b'a', 0xC0, 0x80].into_iter().fold(HASH_MULTIPLIER, step) & 0x7FFF_FFFF;
        assert_eq!(jimage_hash("a\0", HASH_MULTIPLIER), expected);
    }
}
