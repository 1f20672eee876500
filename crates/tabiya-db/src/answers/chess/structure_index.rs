//! The candidates of a structure search: the games the structure index names for the
//! query's pawn structures and material signatures, and every game no shape segment
//! covers (stored before the index existed, or by a path that does not write it).

use tabiya_structure::Query;

use super::search::Candidates;
use crate::Result;
use crate::answers::snapshot::Snapshot;
use crate::shapes::keys::code_of_counts;
use crate::shapes::rows::{MATERIAL, PAWNS, games_of, material_codes};
use crate::shapes::squares::{BitmapReader, Pinned, Plies, games_with, read_square_segments};
use crate::shapes::{material_counts, material_key, pawns_key, read_segments, uncovered};

impl Snapshot<'_> {
    /// The games that may match `query` (see the module).
    pub(crate) fn structure_candidates(&self, query: &Query) -> Result<Candidates> {
        let end = self.index.replayer.games.ids_end()?;
        let pawns = query.pawn_structures();
        let materials = query.materials();
        let pinned = self.pinned_games(query, end)?;
        if pawns.is_empty() && materials.is_empty() {
            return Ok(pinned.unwrap_or_else(|| Candidates::all(end)));
        }
        let mut segs = read_segments(&self.read)?;
        segs.sort_by_key(|s| s.first);
        let exact: Option<Vec<u64>> = materials
            .iter()
            .map(|m| m.exact_counts().map(code_of_counts))
            .collect();
        let mut ids: Vec<u32> = Vec::new();
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
                match &exact {
                    // Each signature one material: its rows alone (a code the segment does
                    // not hold only costs the replay of a game sharing its fingerprint).
                    Some(codes) => {
                        for &code in codes {
                            games_of(&self.read, seg, MATERIAL, material_key(code), into)?;
                        }
                    }
                    // Ranges: the codes of the segment's directory they match.
                    None => {
                        for code in material_codes(&self.read, seg)? {
                            let counts = material_counts(code);
                            if materials.iter().any(|m| m.matches_counts(counts)) {
                                games_of(&self.read, seg, MATERIAL, material_key(code), into)?;
                            }
                        }
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
        let mut ranges = uncovered(segs.iter().map(|s| (s.first, s.end)), end);
        let Some(p) = pinned else {
            let plies = vec![Plies::ANY; ids.len()];
            return Ok(Candidates { ids, plies, ranges });
        };
        // Both narrow: a game must pass each (the shapes' ranges read whole are kept to
        // those the squares allow), and is replayed no further than the squares allow.
        let mut kept: Vec<(u32, Plies)> = ids
            .iter()
            .filter_map(|&id| match p.ids.binary_search(&id) {
                Ok(i) => Some((id, p.plies[i])),
                Err(_) => p
                    .ranges
                    .iter()
                    .any(|&(a, b)| a <= id && id < b)
                    .then_some((id, Plies::ANY)),
            })
            .collect();
        let mut from_ranges = Vec::new();
        for (a, b) in ranges.drain(..) {
            for &(c, d) in &p.ranges {
                if a.max(c) < b.min(d) {
                    from_ranges.push((a.max(c), b.min(d)));
                }
            }
            let lo = p.ids.partition_point(|id| *id < a);
            let hi = p.ids.partition_point(|id| *id < b);
            kept.extend(
                p.ids[lo..hi]
                    .iter()
                    .copied()
                    .zip(p.plies[lo..hi].iter().copied()),
            );
        }
        let (ids, plies) = merged(kept);
        Ok(Candidates {
            ids,
            plies,
            ranges: from_ranges,
        })
    }

    /// The games the square index allows for the query's patterns (those that had every
    /// pinned piece on its square in one band of plies, as given or, when asked, with
    /// colours swapped), each with the last ply a match can be at, and the id ranges it does
    /// not cover; none when no pattern pins a piece.
    fn pinned_games(&self, query: &Query, end: u32) -> Result<Option<Candidates>> {
        let pins: Vec<_> = query.patterns().iter().map(|p| p.pinned()).collect();
        if pins.is_empty() || pins.iter().any(|p| p.is_empty()) {
            return Ok(None);
        }
        // In the table's order: by first id.
        let segs = read_square_segments(&self.read)?;
        let mut found: Vec<(u32, Plies)> = Vec::new();
        let mut bitmaps = BitmapReader::new()?;
        for seg in &segs {
            for p in &pins {
                let Pinned { ids, plies } = games_with(&self.read, seg, p, &mut bitmaps)?;
                found.extend(ids.into_iter().zip(plies));
            }
        }
        // A game allowed by both orientations: at the plies of either.
        let (ids, plies) = merged(found);
        Ok(Some(Candidates {
            ids,
            plies,
            ranges: uncovered(segs.iter().map(|s| (s.first, s.end)), end),
        }))
    }
}

/// Candidates by id, each once: a game named twice (by both orientations of a pattern, or by
/// two parts of a query) may match at the plies of either.
fn merged(mut found: Vec<(u32, Plies)>) -> (Vec<u32>, Vec<Plies>) {
    found.sort_unstable_by_key(|(id, _)| *id);
    found.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.1 = kept.1.union(later.1);
        }
        same
    });
    found.into_iter().unzip()
}
