//! polyglot — see docs/formats/polyglot.md.
