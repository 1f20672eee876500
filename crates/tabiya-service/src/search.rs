//! Structure search as users give it: a pattern (pgn-extract's `FENPattern`), a material
//! signature, a pawn structure, either colour, held for N plies, bishops of opposite
//! colours — read, checked, and asked of a database or a set of databases with the
//! explorer's filters.

use std::cmp::Ordering;
use std::collections::HashMap;

use tabiya_db::chess::MoveRow;
pub use tabiya_db::chess::{NextStructure, SearchGame, SearchPage, StructureSearch};
use tabiya_db::{ListKey, Stats, StructuresBuilt};
use tabiya_structure::{Material, Pattern, PawnStructure, Query};

use crate::database::Db;
use crate::error::{Error, Result};
use crate::filter::Filter;

/// A structure query as text, each part optional (at least one given).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StructureText {
    /// pgn-extract's `FENPattern` syntax.
    pub pattern: Option<String>,
    /// A material signature (`KRPvKR`, with `*`, `+`, `m`).
    pub material: Option<String>,
    /// A board of pawns only.
    pub pawns: Option<String>,
    /// Also with colours swapped (pgn-extract's `FENPatternI`).
    pub either_colour: bool,
    /// Consecutive positions the query must hold in (Scid's "for N half-moves"; 0 or 1: one).
    pub hold: u32,
    /// Each side has one bishop, on squares of opposite colours.
    pub opposite_bishops: bool,
}

/// The longest run of positions a query may be asked to hold in.
pub const MOST_HOLD: u32 = 1000;

/// A part given and not blank.
fn given(s: &Option<String>) -> Option<&str> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

impl StructureText {
    /// The query, each part read; the first mistake named.
    pub fn query(&self) -> Result<Query> {
        let pattern = given(&self.pattern)
            .map(Pattern::parse)
            .transpose()
            .map_err(|e| Error::bad_request(e.to_string()))?;
        let material = given(&self.material)
            .map(Material::parse)
            .transpose()
            .map_err(|e| Error::bad_request(e.to_string()))?;
        let pawns = given(&self.pawns)
            .map(PawnStructure::parse)
            .transpose()
            .map_err(|e| Error::bad_request(e.to_string()))?;
        if self.hold > MOST_HOLD {
            return Err(Error::bad_request(format!(
                "for {}: at most {MOST_HOLD} plies",
                self.hold
            )));
        }
        Query::new(
            pattern,
            material,
            pawns,
            self.either_colour,
            self.hold.max(1),
            self.opposite_bishops,
        )
        .map_err(|e| {
            Error::bad_request(format!(
                "{e}: give --pattern, --material or --pawns (or pattern, material, pawns)"
            ))
        })
    }
}

/// Builds the structure index of the games of `db` no segment covers (see
/// `tabiya_db::Database::build_structure_index`); `progress(done, total)` ids.
pub fn build_index(db: &Db, progress: impl FnMut(u64, u64)) -> Result<StructuresBuilt> {
    if db.is_set() {
        return Err(Error::bad_request(
            "the structure index is built for one database at a time (one --db)",
        ));
    }
    Ok(db.inner()?.build_structure_index(progress)?)
}

/// The answer of a structure search of `db` (a database or a set), the games passing
/// `filter`.
pub fn search(
    db: &Db,
    text: &StructureText,
    filter: &Filter,
    page: SearchPage,
) -> Result<StructureSearch> {
    let query = text.query()?;
    if !db.is_set() {
        let snap = db.inner()?.snapshot()?;
        let f = filter.resolve(&snap)?;
        return Ok(snap.chess_search(&query, &f, page)?);
    }
    let want = page.offset.saturating_add(page.limit);
    let mut answers = Vec::new();
    for member in &db.members {
        let snap = member.snapshot()?;
        let f = filter.resolve(&snap)?;
        let member_page = SearchPage {
            offset: 0,
            limit: want,
            next: usize::MAX,
            moves: usize::MAX,
            ..page
        };
        answers.push(snap.chess_search(&query, &f, member_page)?);
    }
    Ok(merged(db, answers, page))
}

/// The answers of a set's members as one database would give them: sums, the moves and the
/// structures reached next by their names, the games merged in the order asked (ties: the
/// member's place, then its id), then paged.
fn merged(db: &Db, answers: Vec<StructureSearch>, page: SearchPage) -> StructureSearch {
    let mut totals = Stats::default();
    let mut moves: Vec<MoveRow> = Vec::new();
    let mut next: Option<HashMap<String, NextStructure>> = None;
    let mut list: Vec<(usize, u32, SearchGame)> = Vec::new();
    let (mut ended, mut replayed, mut unindexed) = (0, 0, 0);
    for (m, a) in answers.into_iter().enumerate() {
        totals.merge(&a.totals);
        ended += a.ended;
        replayed += a.replayed;
        unindexed += a.unindexed;
        for row in a.moves {
            match moves.iter_mut().find(|r| r.uci == row.uci) {
                Some(mine) => {
                    let mut s = mine.stats;
                    s.merge(&row.stats);
                    mine.set_stats(s);
                }
                None => moves.push(row),
            }
        }
        if let Some(n) = a.next {
            let into = next.get_or_insert_with(HashMap::new);
            for s in n {
                match into.get_mut(&s.pawns) {
                    Some(mine) => {
                        mine.games += s.games;
                        mine.white += s.white;
                        mine.draws += s.draws;
                        mine.black += s.black;
                        mine.unknown += s.unknown;
                    }
                    None => {
                        into.insert(s.pawns.clone(), s);
                    }
                }
            }
        }
        list.extend(
            a.list
                .into_iter()
                .map(|g| (m, g.id.parse().unwrap_or(u32::MAX), g)),
        );
    }
    moves.sort_by(|a, b| b.games().cmp(&a.games()).then(a.uci.cmp(&b.uci)));
    let distinct_moves = moves.len() as u64;
    moves.truncate(page.moves);
    let order = |a: &(usize, u32, SearchGame), b: &(usize, u32, SearchGame)| -> Ordering {
        let then = (a.0, a.1).cmp(&(b.0, b.1));
        let none = ListKey::default();
        page.sort
            .order((&a.2.facts, &none), (&b.2.facts, &none))
            .then(then)
    };
    list.sort_by(order);
    let list = list
        .into_iter()
        .skip(page.offset)
        .take(page.limit)
        .map(|(m, id, mut g)| {
            g.id = crate::dbset::ids::name(db, m, id);
            g
        })
        .collect();
    let next = next.map(|n| {
        let mut v: Vec<NextStructure> = n.into_values().collect();
        v.sort_by(|a, b| b.games.cmp(&a.games).then(a.pawns.cmp(&b.pawns)));
        v.truncate(page.next);
        v
    });
    StructureSearch {
        games: totals.games(),
        white: totals.first,
        draws: totals.draws,
        black: totals.second,
        unknown: totals.unknown,
        average_rating: totals.average_rating(),
        ended,
        moves,
        distinct_moves,
        list,
        next,
        replayed,
        unindexed,
        totals,
    }
}
