//! The database-statistics view (CDB's "File → Database Statistics"): what is stored, what it
//! costs on disk, and what the games are. One pass over the stored games (their facts, and
//! the names in their tags: only the tags' first bytes are read, no move is decoded) counts
//! games by year, result, time-control class and rating, and the players and events with the
//! most games; the index's runs give the positions by kind; the index answers how many games
//! reach each named opening. Each part is one file: `games.rs`, `names.rs`, `openings.rs`,
//! `positions.rs`, `parts.rs`.

mod games;
mod names;
mod openings;
mod parts;
mod positions;

use serde::Serialize;

pub use games::{RatingBin, Ratings, Results, SpeedGames, Speeds, YearGames};
pub use names::{NamedGames, TOP};
pub use openings::ReachedOpening;
pub use parts::Part;
pub use positions::PositionKinds;

use crate::answers::Snapshot;
use crate::game::{Dict, NameLookup};
use crate::index as run;
use crate::notes::NOTES;
use crate::othello::StoredGame;
use crate::trace::trace;
use crate::{Database, GAMES, Kind, Result};
use games::GameCounts;
use names::Tally;

#[derive(Debug, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DbStats {
    pub kind: String,
    pub games: u64,
    /// Positions counted (once per game at their first occurrence).
    pub positions: u64,
    /// Distinct positions, estimated (HyperLogLog, standard error 0.8 %).
    pub distinct_positions: u64,
    /// Positions with a precomputed statistics record (the opening tree).
    pub tree_positions: u64,
    pub promote_at: usize,
    pub runs: usize,
    /// Names in the dictionaries (spellings as the games write them).
    pub players: u64,
    pub events: u64,
    pub sites: u64,
    pub file_bytes: u64,
    pub bytes_per_game: f64,
    pub parts: Vec<Part>,
    /// The positions counted, by where the index keeps them.
    pub position_kinds: PositionKinds,
    /// Positions with a note (`tabiya note`).
    pub notes: u64,
    /// The gamesets (`tabiya gameset`) with their games.
    pub gamesets: Vec<crate::Gameset>,
    /// Flashcards (`tabiya cards`).
    pub cards: u64,
    /// Games by year, oldest first; games without a year apart.
    pub years: Vec<YearGames>,
    pub no_year: u64,
    pub results: Results,
    /// Chess: the players' ratings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratings: Option<Ratings>,
    /// Chess: games by time-control class.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speeds: Option<Speeds>,
    /// Chess: the named openings most reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_openings: Option<Vec<ReachedOpening>>,
    /// The players with the most games (chess: by what their names mean).
    pub top_players: Vec<NamedGames>,
    /// The events (Othello: tournaments) with the most games.
    pub top_events: Vec<NamedGames>,
}

/// What the pass over the games counted.
struct Scan {
    counts: GameCounts,
    players: Vec<NamedGames>,
    events: Vec<NamedGames>,
}

/// Chess games: facts, and players and events by what their names mean.
fn scan_chess(snap: &Snapshot<'_>) -> Result<Scan> {
    let player_entries = snap.entries(Dict::Player)?;
    let event_entries = snap.entries(Dict::Event)?;
    let mut counts = GameCounts::new(false);
    let (mut players, mut events) = (Tally::default(), Tally::default());
    snap.index.replayer.games.scan(|id, raw| {
        let f = snap.facts(id)?;
        counts.add(&f);
        let (sides, event) = crate::chess::stored::players_and_event(raw)?;
        for p in sides.into_iter().flatten() {
            match player_entries.entry_of(p, f.date) {
                Some(e) => players.add_entry(e),
                None => players.add_spelling(p),
            }
        }
        if let Some(ev) = event {
            match event_entries.entry_of_spelling(ev) {
                Some(e) => events.add_entry(e),
                None => events.add_spelling(ev),
            }
        }
        Ok(true)
    })?;
    let names = snap.names();
    let entry = |entries: &crate::Entries, e: u32| {
        entries
            .entries
            .get(e as usize)
            .map_or_else(String::new, |x| x.name.clone())
    };
    let scan = Scan {
        counts,
        players: players.top(
            |e| entry(&player_entries, e),
            |s| names.name(Dict::Player, s),
        ),
        events: events.top(|e| entry(&event_entries, e), |s| names.name(Dict::Event, s)),
    };
    // A name the store could not read is an error, not a name left out.
    match names.failure() {
        Some(why) => Err(crate::Error::Corrupt(why.to_string())),
        None => Ok(scan),
    }
}

/// Othello games: facts, and players and tournaments by WTHOR's ids.
fn scan_othello(snap: &Snapshot<'_>) -> Result<Scan> {
    let wthor = snap.wthor_names()?;
    let mut counts = GameCounts::new(true);
    let (mut players, mut events) = (Tally::default(), Tally::default());
    snap.index.replayer.games.scan(|id, raw| {
        counts.add(&snap.facts(id)?);
        let g = StoredGame::decode(raw)?;
        players.add_entry(u32::from(g.black));
        players.add_entry(u32::from(g.white));
        events.add_entry(u32::from(g.tournament));
        Ok(true)
    })?;
    Ok(Scan {
        counts,
        players: players.top(|id| wthor.player(id as u16), |_| None),
        events: events.top(|id| wthor.tournament(id as u16), |_| None),
    })
}

/// Everything the view shows (`TABIYA_TRACE` times each part on standard error).
pub fn collect(db: &Database) -> Result<DbStats> {
    let t0 = std::time::Instant::now();
    let snap = db.snapshot()?;
    let read = snap.read_tx();
    let games = read.table(GAMES)?.len()?;
    let index = positions::count(read)?;
    trace("stats: the index's positions", t0);
    let chess = db.kind() == Kind::Chess;
    let scan = if chess {
        scan_chess(&snap)?
    } else {
        scan_othello(&snap)?
    };
    trace("stats: the games' facts and names", t0);
    let top_openings = if chess {
        Some(openings::most_reached(&snap)?)
    } else {
        None
    };
    trace("stats: the openings most reached", t0);
    let names = snap.names();
    let file_bytes = db.store.file_size();
    Ok(DbStats {
        kind: db.kind().as_str().to_string(),
        games,
        positions: index.positions(),
        distinct_positions: index.distinct,
        tree_positions: index.tree_positions,
        promote_at: run::PROMOTE_AT,
        runs: index.runs,
        players: names.count(Dict::Player)?,
        events: names.count(Dict::Event)?,
        sites: names.count(Dict::Site)?,
        file_bytes,
        bytes_per_game: parts::per_game(file_bytes, games),
        parts: parts::parts(db, games)?,
        position_kinds: index.kinds.clone(),
        notes: read.table(NOTES)?.len()?,
        gamesets: if chess { snap.gamesets()? } else { Vec::new() },
        cards: read.table(crate::CARDS)?.len()?,
        years: scan.counts.years(),
        no_year: scan.counts.no_year,
        results: scan.counts.results.clone(),
        ratings: chess.then(|| scan.counts.ratings()),
        speeds: chess.then(|| scan.counts.speeds()),
        top_openings,
        top_players: scan.players,
        top_events: scan.events,
    })
}
