//! ctg — see docs/formats/ctg.md.
