//! `polyglot merge-book`.

use super::{Entry, EntrySource, PolyglotBook};

/// Merges two books as `polyglot merge-book -in1 a -in2 b` does (Debian's PolyGlot 2.0.4,
/// checked byte for byte against it):
///
/// * positions found in only one book are copied with their entries unchanged;
/// * for a position found in both, the entries of `a` are written in their order, each
///   absorbing the weight of every entry of `b` with the same move (16-bit wrap-around
///   addition, as the C code's `uint16`; the learn field of `a` is kept). Entries of `b`
///   whose move `a` does not have follow, in `b`'s order. Only the first entry of `a` with a
///   given move absorbs; duplicate entries of `b` that `a` lacks stay separate.
///
/// The result is sorted by key; within a position it is *not* re-sorted by weight.
pub fn merge(a: &impl EntrySource, b: &impl EntrySource) -> PolyglotBook {
    let (la, lb) = (a.len(), b.len());
    let mut out: Vec<Entry> = Vec::with_capacity(la + lb);
    let mut extra: Vec<Entry> = Vec::new();
    let (mut i, mut j) = (0, 0);
    loop {
        let ea = if i < la { a.entry(i) } else { None };
        let eb = if j < lb { b.entry(j) } else { None };
        match (ea, eb) {
            (None, None) => break,
            (Some(x), None) => {
                out.push(x);
                i += 1;
            }
            (None, Some(y)) => {
                out.push(y);
                j += 1;
            }
            (Some(x), Some(y)) if x.key < y.key => {
                out.push(x);
                i += 1;
            }
            (Some(x), Some(y)) if x.key > y.key => {
                out.push(y);
                j += 1;
            }
            (Some(x), Some(_)) => {
                let key = x.key;
                let group_start = out.len();
                while let Some(e) = a.entry(i).filter(|e| e.key == key) {
                    out.push(e);
                    i += 1;
                }
                extra.clear();
                while let Some(e) = b.entry(j).filter(|e| e.key == key) {
                    match out[group_start..]
                        .iter_mut()
                        .find(|o| o.raw_move == e.raw_move)
                    {
                        Some(o) => o.weight = o.weight.wrapping_add(e.weight),
                        None => extra.push(e),
                    }
                    j += 1;
                }
                out.extend_from_slice(&extra);
            }
        }
    }
    PolyglotBook { entries: out }
}
