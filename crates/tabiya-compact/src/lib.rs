//! Compact chess position codecs: B32 (32 bytes) and CDB's 24-byte form.
