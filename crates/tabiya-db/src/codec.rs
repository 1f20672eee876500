//! Small binary helpers: LEB128 varints, length-prefixed strings, and a bounds-checked reader
//! whose errors say what was being read at which offset.

/// A decoding error: the data is shorter than it claims or holds an impossible value, or a
/// value it refers to could not be read (`cause`: the store's error, naming the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    pub what: &'static str,
    pub offset: usize,
    pub cause: Option<std::sync::Arc<str>>,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.cause {
            None => write!(f, "corrupt {} at byte {}", self.what, self.offset),
            Some(c) => write!(
                f,
                "{} at byte {} could not be read: {c}",
                self.what, self.offset
            ),
        }
    }
}

impl std::error::Error for DecodeError {}

pub fn put_varint(out: &mut Vec<u8>, v: u64) {
    if v < 0x80 {
        out.push(v as u8);
    } else {
        let (bytes, n) = varint_bytes(v);
        out.extend_from_slice(&bytes[..n]);
    }
}

/// The bytes [`put_varint`] writes for `v`, and how many they are (for writing a varint
/// before data already written).
pub fn varint_bytes(mut v: u64) -> ([u8; 10], usize) {
    let (mut bytes, mut n) = ([0u8; 10], 0);
    while v >= 0x80 {
        bytes[n] = (v as u8) | 0x80;
        v >>= 7;
        n += 1;
    }
    bytes[n] = v as u8;
    (bytes, n + 1)
}

pub fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Reads values from a byte slice, tracking the position for error messages.
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Reader { data, pos: 0 }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    pub fn remaining(&self) -> &'a [u8] {
        &self.data[self.pos.min(self.data.len())..]
    }

    fn err(&self, what: &'static str) -> DecodeError {
        DecodeError {
            what,
            offset: self.pos,
            cause: None,
        }
    }

    /// The error "`what` is wrong here" at the reader's position.
    pub fn bad(&self, what: &'static str) -> DecodeError {
        DecodeError {
            what,
            offset: self.pos,
            cause: None,
        }
    }

    pub fn u8(&mut self, what: &'static str) -> Result<u8, DecodeError> {
        let b = *self.data.get(self.pos).ok_or_else(|| self.err(what))?;
        self.pos += 1;
        Ok(b)
    }

    pub fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], DecodeError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.data.len())
            .ok_or_else(|| self.err(what))?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    pub fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], DecodeError> {
        let b = self.bytes(N, what)?;
        Ok(b.try_into().expect("length checked"))
    }

    pub fn varint(&mut self, what: &'static str) -> Result<u64, DecodeError> {
        let mut v: u64 = 0;
        let mut shift = 0;
        loop {
            let b = self.u8(what)?;
            if shift >= 64 || (shift == 63 && b > 1) {
                return Err(self.err(what));
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
            shift += 7;
        }
    }

    pub fn varint_u32(&mut self, what: &'static str) -> Result<u32, DecodeError> {
        let v = self.varint(what)?;
        u32::try_from(v).map_err(|_| self.err(what))
    }

    pub fn str(&mut self, what: &'static str) -> Result<&'a str, DecodeError> {
        let n = self.varint(what)? as usize;
        let b = self.bytes(n, what)?;
        std::str::from_utf8(b).map_err(|_| self.err(what))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_reject_garbage() {
        let mut out = Vec::new();
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            out.clear();
            put_varint(&mut out, v);
            assert_eq!(Reader::new(&out).varint("v").unwrap(), v);
        }
        assert!(Reader::new(&[0x80]).varint("v").is_err());
        assert!(Reader::new(&[0xff; 11]).varint("v").is_err());
    }
}
