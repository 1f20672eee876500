//! Bringing a database of an earlier format up to this one, once, when it is opened.
//!
//! Format 2 (Tabiya after the server came) adds what the explorer's filters need without
//! decoding games: each chess game's time-control class (in its facts' last byte, 0 until
//! then) and its players' name ids (the `players` table). A format-1 database gets them from
//! its stored games (about 5 µs a game).
//!
//! Format 3 counts a move's ratings (its average rating) over the games its results count:
//! a game without a result (`*`) no longer adds its players' ratings. The T records of
//! earlier formats summed them; each run's T records are written again with their rating
//! sums counted again from their games' facts (S entries are counted at query time and need
//! nothing).
//!
//! Format 4 lets games be deleted and edited (the removed set in `meta`, the `patches`
//! table: what an older Tabiya would not read, so it must refuse such a database) and gives
//! names their entries (`entries`, `name_rules`, `spelling`) and annotators a dictionary:
//! nothing is rewritten; the annotators' spellings are gathered from the games' tags, and
//! the entries computed once the upgrade is committed (`Database::open`).
//!
//! Each upgrade is one transaction: a kill leaves the database as it was, upgraded again at
//! the next open.

use tabiya_store::Store;

use crate::chess::stored::time_control_and_players;
use crate::facts::{FactsReader, set_speeds};
use crate::game::Dict;
use crate::index::load_runs;
use crate::index::record::TRecord;
use crate::index::restat::rewrite_t_records;
use crate::names::NameCache;
use crate::players::{Players, write_players};
use crate::records::Records;
use crate::schema::{Kind, META};
use crate::speed::Speed;
use crate::stats::GameOutcome;
use crate::trace::trace;
use crate::{Error, Result};

/// Upgrades a database of format `from` to the current format, in one transaction.
pub(crate) fn upgrade(store: &Store, kind: Kind, from: u32) -> Result<()> {
    if !(1..crate::FORMAT_VERSION).contains(&from) {
        return Err(Error::Usage(format!(
            "this database was written in format {from}; this Tabiya reads formats 1 to {}",
            crate::FORMAT_VERSION
        )));
    }
    let t0 = std::time::Instant::now();
    let w = store.write()?;
    if from < 2 && kind == Kind::Chess {
        let read = store.read()?;
        let games = Records::new(&read)?;
        let names = NameCache::load(&read)?;
        let tc = names.get(Dict::TagName, "TimeControl");
        let ids = games.ids()?;
        let mut speeds: Vec<(u32, Option<Speed>)> = Vec::with_capacity(ids.len());
        let mut players: Vec<Players> = Vec::with_capacity(ids.len());
        let first = ids.first().copied().unwrap_or(1);
        for &id in &ids {
            let data = games
                .get(id)?
                .ok_or_else(|| Error::Corrupt(format!("game {id} is missing")))?;
            let (speed, p) = time_control_and_players(&data, tc)?;
            speeds.push((id, speed));
            // Game ids are dense from the first; a gap (never made by an import) keeps none.
            let at = (id - first) as usize;
            if players.len() < at {
                players.resize(at, [None, None]);
            }
            players.push(p);
        }
        set_speeds(&w, &speeds)?;
        write_players(&w, first, &players)?;
        trace(&format!("upgrade: {} games to format 2", ids.len()), t0);
    }
    if from < 3 {
        let read = store.read()?;
        let facts = FactsReader::new(&read)?;
        let mut changed = 0;
        for dir in load_runs(&read)? {
            changed += rewrite_t_records(&read, &w, &dir, &mut |rec| recount_ratings(rec, &facts))?;
        }
        trace(&format!("upgrade: {changed} T records to format 3"), t0);
    }
    if from < 4 && kind == Kind::Chess {
        // The annotators' dictionary, from the games' Annotator tags.
        let read = store.read()?;
        let games = Records::new(&read)?;
        let mut names = NameCache::load(&read)?;
        if let Some(tag) = names.get(Dict::TagName, "Annotator") {
            for id in games.ids()? {
                let data = games
                    .get(id)?
                    .ok_or_else(|| Error::Corrupt(format!("game {id} is missing")))?;
                let tags = crate::chess::stored::skip_tags(&mut crate::codec::Reader::new(&data))?;
                for (t, value) in crate::chess::tags::extra_tags(tags)? {
                    if t == tag {
                        crate::game::Names::id(&mut names, Dict::Annotator, &value);
                    }
                }
            }
            crate::names::write_names(&w, &names.take_pending())?;
        }
        trace("upgrade: annotators for format 4", t0);
    }
    w.with_table(META, |t| {
        t.put(b"version", crate::FORMAT_VERSION.to_string().as_bytes())
    })?;
    w.commit()?;
    Ok(())
}

/// Counts a T record's rating sums again from its games' facts, over the games with a
/// result (format 3's rule; what earlier formats summed is not trusted, so an upgrade run
/// twice gives the same); returns whether anything changed.
fn recount_ratings(rec: &mut TRecord, facts: &FactsReader) -> Result<bool> {
    let mut sums = vec![(0u64, 0u64); rec.moves.len()];
    for p in rec.postings.as_deref().unwrap_or(&[]) {
        let f = facts.get(p.game)?;
        if let ([Some(a), Some(b)], false, Some(s)) = (
            f.ratings,
            f.outcome() == GameOutcome::Unknown,
            sums.get_mut(p.slot as usize),
        ) {
            s.0 += 1;
            s.1 += u64::from(a) + u64::from(b);
        }
    }
    let mut changed = false;
    for (m, (games, sum)) in rec.moves.iter_mut().zip(sums) {
        if (m.stats.rating_games, m.stats.rating_sum) != (games, sum) {
            m.stats.rating_games = games;
            m.stats.rating_sum = sum;
            changed = true;
        }
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use shakmaty::{CastlingMode, Chess};

    use super::*;
    use crate::{Database, ImportOptions, ImportProgress};

    fn explore_start(db: &Database) -> String {
        let snap = db.snapshot().unwrap();
        let e = snap
            .chess_explore(&[Chess::default()], CastlingMode::Standard, 8)
            .unwrap();
        serde_json::to_string(&e).unwrap()
    }

    /// A format-2 database (its T records summing the ratings of `*` games too, as format 2
    /// did) answers like one imported now once opened.
    #[test]
    fn format_2_rating_sums_are_counted_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        // Kasparov's games: Kasparov–Piket 2000 is `*` with both ratings (2851, 2633).
        let pgn = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/data/pgn/pgnmentor/Kasparov.pgn");
        let fresh = {
            let db = Database::open_or_create(&path, Kind::Chess, None).unwrap();
            db.import(
                std::slice::from_ref(&pgn),
                &ImportOptions::default(),
                &ImportProgress::default(),
            )
            .unwrap();
            explore_start(&db)
        };
        // Write the T records as format 2 did: the ratings of every game with both.
        {
            let db = Database::open(&path).unwrap();
            let store = db.store();
            let read = store.read().unwrap();
            let facts = FactsReader::new(&read).unwrap();
            let w = store.write().unwrap();
            let mut old_rule = |rec: &mut TRecord| -> Result<bool> {
                let mut changed = false;
                for p in rec.postings.as_deref().unwrap_or(&[]) {
                    let f = facts.get(p.game)?;
                    if let ([Some(a), Some(b)], true) =
                        (f.ratings, f.outcome() == GameOutcome::Unknown)
                    {
                        let m = &mut rec.moves[p.slot as usize].stats;
                        m.rating_games += 1;
                        m.rating_sum += u64::from(a) + u64::from(b);
                        changed = true;
                    }
                }
                Ok(changed)
            };
            let mut changed = 0;
            for dir in load_runs(&read).unwrap() {
                changed += rewrite_t_records(&read, &w, &dir, &mut old_rule).unwrap();
            }
            assert!(changed > 0, "no T record holds a rated `*` game");
            w.with_table(META, |t| t.put(b"version", b"2")).unwrap();
            w.commit().unwrap();
        }
        // Opened, it is upgraded: the same answer as the fresh import (the old rule changed
        // some T records above, so this is not vacuous).
        let db = Database::open(&path).unwrap();
        assert_eq!(explore_start(&db), fresh);
        // The upgrade said so.
        let read = db.store().read().unwrap();
        let v = read.table(META).unwrap().get(b"version").unwrap().unwrap();
        assert_eq!(v, crate::FORMAT_VERSION.to_string().as_bytes());
    }
}
