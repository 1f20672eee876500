//! A structure search answered from the shape statistics (`shapes::stats`): an exact
//! material or pawn structure asked alone, with no filter, of a database that keeps a record
//! for it. The record gives the totals, the moves and the structures that follow, and the
//! first page of games when its lists reach that far; only the games imported after the
//! record was counted are replayed (and, for a page past its lists, the index's candidates
//! among the games it counted).

use tabiya_structure::Query;

use super::filter::GameFilter;
use super::search::{Candidates, Found, Hit, MoveSums, SearchPage};
use crate::GameSort;
use crate::Result;
use crate::answers::snapshot::Snapshot;
use crate::facts::FactsReader;
use crate::shapes::keys::code_of_counts;
use crate::shapes::stands::{Shape, material_shape};
use crate::shapes::stats::{ListOrder, coverage, read_record};

/// The shape whose record answers `query`, if the query is one exact shape alone.
fn shape_of(query: &Query) -> Option<Shape> {
    if query.has_pattern()
        || query.either_colour()
        || query.hold() != 1
        || query.asks_opposite_bishops()
    {
        return None;
    }
    match (query.material(), query.pawns()) {
        (Some(m), None) => m.exact_counts().map(|c| material_shape(code_of_counts(c))),
        (None, Some(p)) => Some(p.key()),
        _ => None,
    }
}

/// The list of a record that a game list in `sort` reads.
fn list_order(sort: GameSort) -> Option<ListOrder> {
    match sort {
        GameSort::Rating => Some(ListOrder::Rating),
        GameSort::Date => Some(ListOrder::Date),
        GameSort::Id => Some(ListOrder::Id),
        _ => None,
    }
}

impl Snapshot<'_> {
    /// What the workers would find, from the shape statistics when they answer `query`
    /// (see the module); none when they do not.
    pub(super) fn found_from_stats(
        &self,
        query: &Query,
        filter: &GameFilter,
        page: SearchPage,
    ) -> Result<Option<Found>> {
        if !filter.is_empty() {
            return Ok(None);
        }
        let Some(shape) = shape_of(query) else {
            return Ok(None);
        };
        let Some(cov) = coverage(&self.read)? else {
            return Ok(None);
        };
        let Some(mut rec) = read_record(&self.read, shape)? else {
            return Ok(None);
        };
        let want = page.offset.saturating_add(page.limit);
        let list = list_order(page.sort)
            .map(|o| rec.list(o).clone())
            .filter(|l| l.len() >= want || l.len() as u64 == rec.totals.games());
        // The candidates are read only when some must be replayed: games newer than the
        // record, or a page past its lists.
        let end = self.index.replayer.games.ids_end()?;
        let (below, later) = if end > cov.through || list.is_none() {
            self.structure_candidates(query)?.split(cov.through)
        } else {
            (Candidates::none(), Candidates::none())
        };
        let mut found = self.replay_candidates(query, filter, &later, page.next > 0)?;
        let mut counted = Found {
            totals: rec.totals,
            ..Found::default()
        };
        for m in std::mem::take(&mut rec.moves) {
            counted.moves.insert(
                m.code,
                MoveSums {
                    first: m.first,
                    uci: m.uci,
                    san: m.san,
                    stats: m.stats,
                },
            );
        }
        counted.next.extend(rec.next.iter().copied());
        match list {
            Some(list) => {
                let facts = FactsReader::new(&self.read)?;
                for &(id, ply) in list.iter().take(want) {
                    counted.hits.push(Hit {
                        id,
                        ply,
                        swapped: false,
                        facts: facts.get(id)?,
                    });
                }
            }
            None => {
                // A page past the lists: the counted games' candidates, replayed.
                let mut listed = self.replay_candidates(query, filter, &below, false)?;
                counted.hits = std::mem::take(&mut listed.hits);
                counted.replayed = listed.replayed;
                counted.unindexed = listed.unindexed;
            }
        }
        found.merge(counted);
        Ok(Some(found))
    }
}
