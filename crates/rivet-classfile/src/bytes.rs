//! Big-endian byte cursor and byte sink used by the class-file reader and writer.

use crate::error::{ParseError, ParseErrorKind};

/// A bounds-checked big-endian reader over a byte slice.
#[derive(Debug, Clone)]
pub struct ByteReader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        ByteReader { data, pos: 0 }
    }

    pub fn position(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    fn need(&self, n: usize, what: &'static str) -> Result<(), ParseError> {
        if self.remaining() < n {
            Err(ParseErrorKind::Truncated {
                what,
                offset: self.pos,
                needed: n - self.remaining(),
            }
            .into())
        } else {
            Ok(())
        }
    }

    pub fn u8(&mut self, what: &'static str) -> Result<u8, ParseError> {
        self.need(1, what)?;
        let v = self.data[self.pos];
        self.pos += 1;
        Ok(v)
    }

    pub fn u16(&mut self, what: &'static str) -> Result<u16, ParseError> {
        self.need(2, what)?;
        let v = u16::from_be_bytes([self.data[self.pos], self.data[self.pos + 1]]);
        self.pos += 2;
        Ok(v)
    }

    pub fn u32(&mut self, what: &'static str) -> Result<u32, ParseError> {
        self.need(4, what)?;
        let d = &self.data[self.pos..self.pos + 4];
        self.pos += 4;
        Ok(u32::from_be_bytes([d[0], d[1], d[2], d[3]]))
    }

    pub fn i32(&mut self, what: &'static str) -> Result<i32, ParseError> {
        self.u32(what).map(|v| v as i32)
    }

    pub fn u64(&mut self, what: &'static str) -> Result<u64, ParseError> {
        let hi = self.u32(what)? as u64;
        let lo = self.u32(what)? as u64;
        Ok((hi << 32) | lo)
    }

    pub fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], ParseError> {
        self.need(n, what)?;
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub fn skip(&mut self, n: usize, what: &'static str) -> Result<(), ParseError> {
        self.need(n, what)?;
        self.pos += n;
        Ok(())
    }
}

/// A growable big-endian byte sink.
#[derive(Debug, Default, Clone)]
pub struct ByteWriter {
    pub buf: Vec<u8>,
}

impl ByteWriter {
    pub fn with_capacity(n: usize) -> Self {
        ByteWriter {
            buf: Vec::with_capacity(n),
        }
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    pub fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    pub fn i32(&mut self, v: i32) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// Reserves a u32 length slot, returning its position for `patch_len`.
    pub fn len_slot(&mut self) -> usize {
        let at = self.buf.len();
        self.u32(0);
        at
    }

    /// Writes into a slot from `len_slot` the number of bytes written since it.
    pub fn patch_len(&mut self, at: usize) {
        let len = (self.buf.len() - at - 4) as u32;
        self.buf[at..at + 4].copy_from_slice(&len.to_be_bytes());
    }
}

/// Converts a count to u16, or reports which table overflowed.
pub fn count_u16(n: usize, what: &str) -> Result<u16, crate::error::WriteError> {
    u16::try_from(n).map_err(|_| crate::error::WriteError::TooMany {
        what: what.to_string(),
        count: n,
    })
}
