//! kvetka — see docs/formats/kvetka.md.
