//! Cards made by hand (a position and its moves) and from a line (each position of the line
//! where the chosen side is to move, with the line's move there). A position that has a
//! card already gets the new moves added to it; a batch is one transaction.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Move, Position as _};
use tabiya_db::chess::position_key;
use tabiya_db::{CardAdded, NewCard};

use super::sm2;
use super::typed::read_move;
use super::view::{Card, Side, uci};
use crate::database::Db;
use crate::error::{Error, Result};
use crate::position::ChessPosition;

/// What happened to one card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// A new card.
    Created,
    /// The position had a card: moves were added (or its note replaced).
    Extended,
    /// The position had a card that knew these moves.
    Unchanged,
}

/// One card of a report, as it is after the change.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AddedCard {
    pub outcome: Outcome,
    #[serde(flatten)]
    pub card: Card,
}

/// What a command that makes cards did.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AddReport {
    pub created: usize,
    pub extended: usize,
    pub unchanged: usize,
    /// The walk stopped at its limit of cards (`from-book`, `from-db`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Each card once, in the order first met.
    pub cards: Vec<AddedCard>,
}

/// A card to make: a position, how it was reached (the moves from the standard start, when
/// it is the start), and its moves.
pub(crate) struct Draft {
    pub pos: Chess,
    pub line: Vec<String>,
    pub moves: Vec<Move>,
}

impl Draft {
    /// A position reached by `moves` from `start`; its line is kept when `start` is the
    /// standard start.
    pub fn at(start: &Chess, path: &[Move], pos: Chess, moves: Vec<Move>) -> Draft {
        let line = if *start == Chess::default() {
            let mut p = start.clone();
            path.iter()
                .map(|&m| {
                    let u = uci(&p, m);
                    p.play_unchecked(m);
                    u
                })
                .collect()
        } else {
            Vec::new()
        };
        Draft { pos, line, moves }
    }
}

pub(crate) fn check(db: &Db) -> Result<()> {
    if db.kind() != crate::Kind::Chess {
        return Err(Error::bad_request(format!(
            "{} is an Othello database: flashcards are kept on chess positions",
            db.dir().display()
        )));
    }
    Ok(())
}

/// Stores drafts in one transaction and reports each card once.
pub(crate) fn store(
    db: &Db,
    drafts: Vec<Draft>,
    note: Option<&str>,
    source: &str,
    now: u64,
) -> Result<AddReport> {
    check(db)?;
    let note = note.map(str::trim).filter(|n| !n.is_empty());
    if let Some(n) = note
        && n.len() > tabiya_db::NOTE_MAX
    {
        return Err(Error::bad_request(format!(
            "a note of {} bytes: notes are kept up to {} bytes",
            n.len(),
            tabiya_db::NOTE_MAX
        )));
    }
    let new: Vec<NewCard> = drafts
        .iter()
        .map(|d| NewCard {
            key: position_key(&d.pos),
            fen: shakmaty::fen::Fen::from_position(&d.pos, shakmaty::EnPassantMode::Legal)
                .to_string(),
            white: d.pos.turn().is_white(),
            moves: d.moves.iter().map(|&m| uci(&d.pos, m)).collect(),
            note: note.map(String::from),
            line: d.line.clone(),
            source: source.to_string(),
            schedule: sm2::new_card(now),
            created: now,
        })
        .collect();
    let done = db.inner()?.add_cards(&new)?;
    // Each card once: created when its first draft made it, extended when a later one
    // added to it.
    let mut order = Vec::new();
    let mut outcome: BTreeMap<u32, Outcome> = BTreeMap::new();
    for (id, added) in done {
        let o = match added {
            CardAdded::Created => Outcome::Created,
            CardAdded::Extended => Outcome::Extended,
            CardAdded::Unchanged => Outcome::Unchanged,
        };
        match outcome.get_mut(&id) {
            None => {
                order.push(id);
                outcome.insert(id, o);
            }
            Some(first) if *first == Outcome::Unchanged => *first = o,
            Some(_) => {}
        }
    }
    let mut report = AddReport {
        created: 0,
        extended: 0,
        unchanged: 0,
        truncated: false,
        cards: Vec::with_capacity(order.len()),
    };
    for id in order {
        let o = outcome[&id];
        match o {
            Outcome::Created => report.created += 1,
            Outcome::Extended => report.extended += 1,
            Outcome::Unchanged => report.unchanged += 1,
        }
        let stored = db
            .inner()?
            .card(id)?
            .ok_or_else(|| Error::not_found(format!("no card {id}")))?;
        report.cards.push(AddedCard {
            outcome: o,
            card: Card::from_stored(&stored, now)?,
        });
    }
    Ok(report)
}

/// A card by hand: the position and its moves (SAN or UCI, at least one), with a note.
pub fn add(
    db: &Db,
    at: &ChessPosition,
    moves: &[String],
    note: Option<&str>,
    now: u64,
) -> Result<AddReport> {
    check(db)?;
    if moves.is_empty() {
        return Err(Error::bad_request(
            "give the move(s) to know here: --move Nf3 (repeatable)",
        ));
    }
    let mut ms = Vec::new();
    for text in moves {
        let m = read_move(&at.pos, text)
            .map_err(|e| Error::bad_request(format!("--move {text}: {}", e.message())))?
            .0;
        if !ms.contains(&m) {
            ms.push(m);
        }
    }
    let draft = Draft::at(&at.start, &at.moves, at.pos.clone(), ms);
    store(db, vec![draft], note, "hand", now)
}

/// Cards from a line: each position of it where `side` is to move gets the line's move
/// there (the last position, with no move after it, none).
pub fn from_line(
    db: &Db,
    line: &ChessPosition,
    side: Side,
    note: Option<&str>,
    now: u64,
) -> Result<AddReport> {
    check(db)?;
    let mut drafts = Vec::new();
    for (i, &m) in line.moves.iter().enumerate() {
        let pos = &line.line[i];
        if Side::of(pos) == side {
            drafts.push(Draft::at(
                &line.start,
                &line.moves[..i],
                pos.clone(),
                vec![m],
            ));
        }
    }
    if drafts.is_empty() {
        return Err(Error::bad_request(format!(
            "the line has no move of {}'s: give --play with their moves, or the other --side",
            side.name()
        )));
    }
    store(db, drafts, note, "line", now)
}
