//! One player's card: the games under a name (any case or accents), results by colour,
//! years, the player's own ratings, the openings most played.

use std::collections::HashMap;

use serde::Serialize;
use shakmaty::Position;
use tabiya_db::{Dict, GameOutcome};

use crate::database::{Db, Kind};
use crate::error::{Error, Result};
use crate::names::fold;

/// Results with one colour, from the player's side.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
pub struct ColourScore {
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Games without a result.
    pub unknown: u64,
}

/// An opening the player played, by its name at the last named position of the game.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct PlayedOpening {
    pub eco: String,
    pub name: String,
    /// The line of its named position from the standard start (UCI moves joined by commas;
    /// of the named positions bearing this name, the one most of these games reached): where
    /// the page opens the explorer.
    pub uci: String,
    pub games: u64,
}

/// What `tabiya names show` and the player page give.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerCard {
    /// The player's name (the entry's: see `tabiya names list`).
    pub name: String,
    /// What Scid's spelling file says of the player, when one is loaded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub info: Option<tabiya_db::PlayerInfo>,
    /// Every spelling of the player in the games.
    pub names: Vec<String>,
    pub games: u64,
    pub white: ColourScore,
    pub black: ColourScore,
    pub first_year: Option<u16>,
    pub last_year: Option<u16>,
    /// The player's own ratings, lowest and highest.
    pub rating_min: Option<u16>,
    pub rating_max: Option<u16>,
    /// Most played first, at most 10.
    pub openings: Vec<PlayedOpening>,
}

/// The entries a player's name means (any case or accents, aliases, the other way round:
/// [`tabiya_db::Entries::resolve`]); none is an error saying where spellings are found.
pub(crate) fn resolve(
    db: &Db,
    entries: &tabiya_db::Entries,
    list: &[(u32, String)],
    name: &str,
) -> Result<Vec<u32>> {
    let found = entries.resolve(list, name);
    if found.is_empty() {
        return Err(Error::not_found(format!(
            "no player named {name:?} in {} (tabiya names search finds spellings)",
            db.dir().display()
        )));
    }
    Ok(found)
}

/// The card of the player named `name` (any case or accents) in a chess database.
pub fn card(db: &Db, name: &str) -> Result<PlayerCard> {
    if db.kind() != Kind::Chess {
        return Err(Error::bad_request(format!(
            "{} is an Othello database: its players are searched with the game filters",
            db.dir().display()
        )));
    }
    let snap = db.inner()?.snapshot()?;
    let entries = snap.entries(Dict::Player)?;
    let list = snap.names().all(Dict::Player)?;
    let found = resolve(db, &entries, &list, name)?;
    let selector = entries.selector(&found);
    let spelled: std::collections::HashMap<u32, &String> =
        list.iter().map(|(i, n)| (*i, n)).collect();
    let mut names: Vec<String> = Vec::new();
    for &e in &found {
        for s in &entries.entries[e as usize].spellings {
            if let Some(n) = spelled.get(s)
                && !names.contains(n)
            {
                names.push((*n).clone());
            }
        }
    }
    names.sort_by_cached_key(|n| (fold(n), n.clone()));
    let main = &entries.entries[found[0] as usize];
    let mut card = PlayerCard {
        name: main.name.clone(),
        info: main.info.clone(),
        names,
        games: 0,
        white: ColourScore::default(),
        black: ColourScore::default(),
        first_year: None,
        last_year: None,
        rating_min: None,
        rating_max: None,
        openings: Vec::new(),
    };
    // By name: the games, and by line (its UCI moves) the games that reached it.
    type ByLine = HashMap<String, u64>;
    let mut openings: HashMap<(String, String), (u64, ByLine)> = HashMap::new();
    for id in snap.all_game_ids()? {
        let players = snap.players(id)?;
        for (side, player) in players.iter().enumerate() {
            let Some(p) = *player else { continue };
            let dated = selector.dated.iter().any(|(d, _)| d.spelling == p);
            if !dated && selector.always.binary_search(&p).is_err() {
                continue;
            }
            let f = snap.facts(id)?;
            if dated && !selector.matches(p, f.date) {
                continue;
            }
            card.games += 1;
            let score = if side == 0 {
                &mut card.white
            } else {
                &mut card.black
            };
            score.games += 1;
            match (f.outcome(), side) {
                (GameOutcome::Unknown, _) => score.unknown += 1,
                (GameOutcome::Draw, _) => score.draws += 1,
                (GameOutcome::FirstWins, 0) | (GameOutcome::SecondWins, 1) => score.wins += 1,
                _ => score.losses += 1,
            }
            if let Some(y) = f.year {
                card.first_year = Some(card.first_year.map_or(y, |v| v.min(y)));
                card.last_year = Some(card.last_year.map_or(y, |v| v.max(y)));
            }
            if let Some(r) = f.ratings[side] {
                card.rating_min = Some(card.rating_min.map_or(r, |v| v.min(r)));
                card.rating_max = Some(card.rating_max.map_or(r, |v| v.max(r)));
            }
            if let Some(g) = snap.chess_game(id)? {
                let mut pos = g.start.clone();
                let mut line = vec![pos.clone()];
                for m in g.main_line().take(60) {
                    pos.play_unchecked(*m);
                    line.push(pos.clone());
                }
                if let Some(o) = tabiya_db::chess::openings::last_named(&line) {
                    let uci = o
                        .moves
                        .iter()
                        .map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
                        .collect::<Vec<_>>()
                        .join(",");
                    let named = openings.entry((o.eco.clone(), o.name.clone())).or_default();
                    named.0 += 1;
                    *named.1.entry(uci).or_default() += 1;
                }
            }
        }
    }
    let mut list: Vec<PlayedOpening> = openings
        .into_iter()
        .map(|((eco, name), (games, lines))| {
            // The line most reached; among equals the shortest, then the first in text order.
            let uci = lines
                .into_iter()
                .min_by(|a, b| {
                    b.1.cmp(&a.1)
                        .then(a.0.len().cmp(&b.0.len()))
                        .then(a.0.cmp(&b.0))
                })
                .map(|(uci, _)| uci)
                .unwrap_or_default();
            PlayedOpening {
                eco,
                name,
                uci,
                games,
            }
        })
        .collect();
    list.sort_by(|a, b| {
        b.games
            .cmp(&a.games)
            .then(a.eco.cmp(&b.eco))
            .then(a.name.cmp(&b.name))
    });
    list.truncate(10);
    card.openings = list;
    Ok(card)
}
