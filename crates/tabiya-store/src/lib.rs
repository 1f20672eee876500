//! Tabiya's storage interface and its embedded implementation on redb.
