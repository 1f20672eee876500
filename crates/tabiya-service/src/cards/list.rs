//! The cards: listed (due first), one shown with its history, one deleted.

use serde::{Deserialize, Serialize};
use tabiya_db::StoredCard;

use super::add::check;
use super::view::{Card, ReviewView, Side};
use crate::database::Db;
use crate::error::{Error, Result};

/// Which cards to list.
#[derive(Debug, Clone, Default)]
pub struct ListRequest {
    /// Only the cards due now (those asked again today included).
    pub due_only: bool,
    /// Only the cards of one side.
    pub side: Option<Side>,
    /// At most this many.
    pub limit: Option<usize>,
}

/// Cards, due first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CardList {
    /// Cards of the side asked (all when none was), due or not.
    pub total: usize,
    /// Of those, the cards due now.
    pub due: usize,
    pub cards: Vec<Card>,
}

/// Where a card comes in the list: its day come (oldest first), then those asked again
/// today (SM-2's step 7, after the day's reviews), then the rest by due date.
fn rank(c: &StoredCard, now: u64) -> (u8, u64, u32) {
    let s = &c.schedule;
    let group = if s.due <= now {
        0
    } else if s.again {
        1
    } else {
        2
    };
    (group, s.due, c.id)
}

/// The cards, due first (see [`rank`]).
pub fn list(db: &Db, req: &ListRequest, now: u64) -> Result<CardList> {
    check(db)?;
    let mut cards: Vec<StoredCard> = db
        .inner()?
        .cards()?
        .into_iter()
        .filter(|c| req.side.is_none_or(|s| s.is_white() == c.white))
        .collect();
    let total = cards.len();
    cards.sort_by_key(|c| rank(c, now));
    let due = cards.iter().filter(|c| rank(c, now).0 < 2).count();
    if req.due_only {
        cards.truncate(due);
    }
    if let Some(n) = req.limit {
        cards.truncate(n);
    }
    Ok(CardList {
        total,
        due,
        cards: cards
            .iter()
            .map(|c| Card::from_stored(c, now))
            .collect::<Result<_>>()?,
    })
}

fn no_card(db: &Db, id: u32) -> Error {
    Error::not_found(format!(
        "no card {id} in {} (tabiya cards list shows them)",
        db.dir().display()
    ))
}

/// One card with its answers.
pub fn show(db: &Db, id: u32, now: u64) -> Result<Card> {
    check(db)?;
    let stored = db.inner()?.card(id)?.ok_or_else(|| no_card(db, id))?;
    let mut card = Card::from_stored(&stored, now)?;
    card.history = db
        .inner()?
        .card_reviews(id)?
        .iter()
        .map(ReviewView::of)
        .collect();
    Ok(card)
}

/// Deletes a card and its history; returns the card as it was.
pub fn delete(db: &Db, id: u32, now: u64) -> Result<Card> {
    check(db)?;
    let stored = db
        .inner()?
        .delete_card(id)?
        .ok_or_else(|| no_card(db, id))?;
    Card::from_stored(&stored, now)
}
