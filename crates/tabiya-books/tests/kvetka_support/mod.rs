//! Test support for the Kvetka tests: the corpus reader of `tabiya-compact`'s tests (one copy
//! for both crates).

#[path = "../../../tabiya-compact/tests/common/mod.rs"]
mod common;

pub use common::*;
