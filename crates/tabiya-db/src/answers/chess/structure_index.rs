//! The candidates of a structure search: the games the structure index names for the
//! query's pawn structures and material signatures, and every game no shape segment
//! covers (stored before the index existed, or by a path that does not write it).

use tabiya_structure::Query;

use super::search::Candidates;
use crate::Result;
use crate::answers::snapshot::Snapshot;
use crate::shapes::rows::{MATERIAL, PAWNS, games_of, material_codes};
use crate::shapes::{material_counts, material_key, pawns_key, read_segments, uncovered};

impl Snapshot<'_> {
    /// The games that may match `query` (see the module).
    pub(crate) fn structure_candidates(&self, query: &Query) -> Result<Candidates> {
        let end = self.index.replayer.games.ids_end()?;
        let pawns = query.pawn_structures();
        let materials = query.materials();
        if pawns.is_empty() && materials.is_empty() {
            return Ok(Candidates::all(end));
        }
        let mut segs = read_segments(&self.read)?;
        segs.sort_by_key(|s| s.first);
        let mut ids = Vec::new();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for seg in &segs {
            a.clear();
            b.clear();
            if !pawns.is_empty() {
                for p in &pawns {
                    games_of(
                        &self.read,
                        seg,
                        PAWNS,
                        pawns_key(p.white.0, p.black.0),
                        &mut a,
                    )?;
                }
                a.sort_unstable();
                a.dedup();
            }
            if !materials.is_empty() {
                let into = if pawns.is_empty() { &mut a } else { &mut b };
                for code in material_codes(&self.read, seg)? {
                    let counts = material_counts(code);
                    if materials.iter().any(|m| m.matches_counts(counts)) {
                        games_of(&self.read, seg, MATERIAL, material_key(code), into)?;
                    }
                }
                into.sort_unstable();
                into.dedup();
                if !pawns.is_empty() {
                    a.retain(|g| b.binary_search(g).is_ok());
                }
            }
            ids.extend_from_slice(&a);
        }
        ids.sort_unstable();
        ids.dedup();
        Ok(Candidates {
            ids,
            ranges: uncovered(&segs, end),
        })
    }
}
