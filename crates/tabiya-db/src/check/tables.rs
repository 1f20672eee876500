//! Every table of a database read and decoded: the settings, the dictionaries and the names'
//! entries, gamesets, notes, flashcards, evaluations, the patches of edits; and, game by game
//! (called from the index's pass over the stored games), each game decoded whole and its
//! facts and players compared with what the `facts` and `players` tables say.

use tabiya_store::ReadTx;

use super::{CheckReport, note};
use crate::chess::stored;
use crate::facts::FactsReader;
use crate::game::Dict;
use crate::names::StoreNames;
use crate::players::PlayersReader;
use crate::stats::GameFacts;
use crate::{Database, Kind, Result};

/// The tables other than the games and the index.
pub(super) fn check(db: &Database, read: &ReadTx, report: &mut CheckReport) -> Result<()> {
    let meta = read.table(crate::META)?;
    for name in ["kind", "version"] {
        if note(
            report,
            "meta",
            name,
            meta.get(name.as_bytes()).map_err(Into::into),
        )
        .is_some_and(|v| v.is_none())
        {
            report.problem("meta", name, "missing");
        }
    }
    note(
        report,
        "meta",
        "removed",
        crate::index::amend::load_removed(read),
    );
    let names = StoreNames::new(read);
    if let Some(names) = note(report, "names", "", names) {
        for dict in Dict::ALL {
            if let Some(all) = note(report, "names", format!("{dict:?}"), names.all(dict)) {
                report.names += all.len() as u64;
            }
        }
    }
    for dict in crate::persons::ENTRY_DICTS {
        note(
            report,
            "entries",
            format!("{dict:?}"),
            crate::persons::read_entries(read, dict),
        );
    }
    note(report, "name_rules", "", crate::persons::load_rules(read));
    note(report, "spelling", "", crate::persons::load_spelling(read));
    let patches = read.table(crate::index::amend::PATCHES)?;
    let mut bad = Vec::new();
    patches.scan(&[], None, |k, v| {
        if k.len() != 20 {
            bad.push((
                k.to_vec(),
                "a key that is not a run and a position".to_string(),
            ));
        } else if let Err(e) = crate::index::amend::Patch::decode(v) {
            bad.push((k.to_vec(), e.to_string()));
        }
        true
    })?;
    for (k, e) in bad {
        report.problem("patches", hex(&k), e);
    }
    let sets = db.snapshot().and_then(|snap| snap.gamesets());
    if let Some(sets) = note(report, "gamesets", "", sets) {
        report.gamesets = sets.len() as u64;
    }
    let mut notes = Vec::new();
    read.table(crate::NOTES)?.scan(&[], None, |k, v| {
        if k.len() != 16 {
            notes.push((k.to_vec(), "a key that is not a position key"));
        } else if std::str::from_utf8(v).is_err() {
            notes.push((k.to_vec(), "a note that is not UTF-8 text"));
        }
        report.notes += 1;
        true
    })?;
    for (k, e) in notes {
        report.problem("notes", hex(&k), e);
    }
    if db.kind() == Kind::Chess {
        if let Some(cards) = note(report, "cards", "", db.cards()) {
            report.cards = cards.len() as u64;
        }
        if let Some(reviews) = note(report, "card_reviews", "", db.all_card_reviews()) {
            report.card_reviews = reviews.len() as u64;
        }
        let mut evals = Vec::new();
        read.table(crate::EVALS)?.scan(&[], None, |k, v| {
            report.evals += 1;
            if k.len() != 16 {
                evals.push((k.to_vec(), "a key that is not a position key".to_string()));
            } else if let Err(e) = crate::evals::StoredEval::decode(v) {
                evals.push((k.to_vec(), e.to_string()));
            }
            true
        })?;
        for (k, e) in evals {
            report.problem("evals", hex(&k), e);
        }
    }
    Ok(())
}

pub(super) fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Checks each stored game against the tables that describe it.
pub(super) struct Games {
    kind: Kind,
    names: Option<StoreNames>,
    facts: FactsReader,
    players: PlayersReader,
}

impl Games {
    pub fn new(db: &Database, read: &ReadTx) -> Result<Games> {
        Ok(Games {
            kind: db.kind(),
            names: StoreNames::new(read).ok(),
            facts: FactsReader::new(read)?,
            players: PlayersReader::new(read)?,
        })
    }

    /// One game: decoded whole, its facts and players as the tables hold them.
    pub fn game(&self, id: u32, raw: &[u8], report: &mut CheckReport) {
        let place = format!("game {id}");
        let (expected, players) = match self.kind {
            Kind::Chess => {
                let Some(names) = &self.names else { return };
                let game = match stored::decode_game(raw, names) {
                    Ok(g) => g,
                    Err(e) => {
                        report.problem("games", place, format!("does not decode: {e}"));
                        return;
                    }
                };
                let players = match stored::players_and_event(raw) {
                    Ok((p, _)) => Some(p),
                    Err(e) => {
                        report.problem("games", place, format!("its players do not decode: {e}"));
                        return;
                    }
                };
                (crate::chess::facts::facts(&game), players)
            }
            Kind::Othello => match crate::othello::stored::StoredGame::decode(raw) {
                Ok(g) => (g.facts(), None),
                Err(e) => {
                    report.problem("games", place, format!("does not decode: {e}"));
                    return;
                }
            },
        };
        match self.facts.get(id) {
            Ok(f) => {
                if !same_facts(&f, &expected) {
                    report.problem(
                        "facts",
                        place.clone(),
                        format!("the table holds {f:?}, the game says {expected:?}"),
                    );
                }
            }
            Err(e) => report.problem("facts", place.clone(), e.to_string()),
        }
        if let Some(p) = players {
            match self.players.get(id) {
                Ok(stored) if stored != p => report.problem(
                    "players",
                    place,
                    format!("the table holds player ids {stored:?}, the game names {p:?}"),
                ),
                Ok(_) => {}
                Err(e) => report.problem("players", place, e.to_string()),
            }
        }
    }
}

/// The facts the index counts with (the time-control class is compared too).
fn same_facts(stored: &GameFacts, game: &GameFacts) -> bool {
    stored.outcome() == game.outcome()
        && stored.ratings == game.ratings
        && stored.year == game.year
        && stored.date == game.date
        && stored.values == game.values
        && stored.speed == game.speed
}
