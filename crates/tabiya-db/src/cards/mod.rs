//! Flashcards: chess positions with the move(s) a player should know there, their
//! repetition schedule and the history of answers (`tabiya cards`, `tabiya train`).
//!
//! Tables:
//!
//! | table | key | value |
//! |---|---|---|
//! | `cards` | card id (u32, big-endian) | the card's position key (16 bytes), then the card ([`StoredCard`]) |
//! | `card_keys` | position key (16 bytes, big-endian) | the card id of that position |
//! | `card_reviews` | card id, answer number (u32 + u32, big-endian) | one answer ([`Review`]) |
//!
//! `meta`'s `next_card` is the next id. One card per position: a card made again for a
//! position that has one gets the new moves added to it. Every change is one write
//! transaction (a batch of new cards, an answer with its new schedule, a deletion), so a
//! crash leaves all of it or none. Cards change no statistic: writing one does not move the
//! database's generation. Reads see the latest state, also while answers are pinned for an
//! import.

mod record;

pub use record::{Review, Schedule, StoredCard};

use crate::{Database, Error, Kind, META, Result};

/// The cards, by id.
pub const CARDS: &str = "cards";
/// Position key → card id.
pub const CARD_KEYS: &str = "card_keys";
/// The answers, by card and number.
pub const CARD_REVIEWS: &str = "card_reviews";

/// A card to make (or to add moves to, when its position has one).
#[derive(Debug, Clone)]
pub struct NewCard {
    pub key: u128,
    pub fen: String,
    pub white: bool,
    /// UCI, as the caller wrote them (the same move is the same text).
    pub moves: Vec<String>,
    /// Replaces the card's note when given.
    pub note: Option<String>,
    pub line: Vec<String>,
    pub source: String,
    /// The schedule of a new card.
    pub schedule: Schedule,
    pub created: u64,
}

/// What adding a card did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// A new card.
    Created,
    /// The position had a card: moves were added to it (or its note replaced).
    Extended,
    /// The position had a card with these moves already.
    Unchanged,
}

fn review_key(id: u32, n: u32) -> [u8; 8] {
    let mut k = [0u8; 8];
    k[..4].copy_from_slice(&id.to_be_bytes());
    k[4..].copy_from_slice(&n.to_be_bytes());
    k
}

fn id_of(bytes: &[u8]) -> Result<u32> {
    <[u8; 4]>::try_from(bytes)
        .map(u32::from_be_bytes)
        .map_err(|_| Error::Corrupt("a card id of the wrong length".into()))
}

fn key_of(card: &[u8]) -> Result<u128> {
    <[u8; 16]>::try_from(card)
        .map(u128::from_be_bytes)
        .map_err(|_| Error::Corrupt("a card's position key of the wrong length".into()))
}

/// The stored value of `cards`: the position key, then the card's bytes.
fn card_value(c: &StoredCard) -> Vec<u8> {
    let mut v = c.key.to_be_bytes().to_vec();
    v.extend_from_slice(&c.encode());
    v
}

fn card_from(id: u32, value: &[u8]) -> Result<StoredCard> {
    if value.len() < 16 {
        return Err(Error::Corrupt(format!("card {id} is cut short")));
    }
    StoredCard::decode(id, key_of(&value[..16])?, &value[16..])
}

impl Database {
    fn cards_chess_only(&self) -> Result<()> {
        if self.kind() == Kind::Othello {
            return Err(Error::Usage(format!(
                "{} is an Othello database: flashcards are kept on chess positions",
                self.dir().display()
            )));
        }
        Ok(())
    }

    /// Adds cards in one transaction: a position without a card gets one, a position with
    /// one gets the moves it lacks (and the note, when one is given). Returns each card's id
    /// and what was done, in order.
    pub fn add_cards(&self, cards: &[NewCard]) -> Result<Vec<(u32, Added)>> {
        self.cards_chess_only()?;
        let w = self.store.write()?;
        let mut out = Vec::with_capacity(cards.len());
        {
            let mut meta = w.table(META)?;
            let mut next: u32 = meta
                .get(b"next_card")?
                .and_then(|v| String::from_utf8_lossy(&v).parse().ok())
                .unwrap_or(1);
            let first = next;
            let mut table = w.table(CARDS)?;
            let mut keys = w.table(CARD_KEYS)?;
            for new in cards {
                let k = new.key.to_be_bytes();
                match keys.get(&k)? {
                    Some(id) => {
                        let id = id_of(&id)?;
                        let value = table.get(&id.to_be_bytes())?.ok_or_else(|| {
                            Error::Corrupt(format!("position index names card {id}, missing"))
                        })?;
                        let mut card = card_from(id, &value)?;
                        let mut changed = false;
                        for m in &new.moves {
                            if !card.moves.contains(m) {
                                card.moves.push(m.clone());
                                changed = true;
                            }
                        }
                        if new.note.is_some() && new.note != card.note {
                            card.note = new.note.clone();
                            changed = true;
                        }
                        if card.line.is_empty() && !new.line.is_empty() {
                            card.line = new.line.clone();
                        }
                        table.put(&id.to_be_bytes(), &card_value(&card))?;
                        out.push((
                            id,
                            if changed {
                                Added::Extended
                            } else {
                                Added::Unchanged
                            },
                        ));
                    }
                    None => {
                        let id = next;
                        next = next
                            .checked_add(1)
                            .ok_or_else(|| Error::Usage("no card id is left".into()))?;
                        let card = StoredCard {
                            id,
                            key: new.key,
                            fen: new.fen.clone(),
                            white: new.white,
                            moves: new.moves.clone(),
                            note: new.note.clone(),
                            line: new.line.clone(),
                            source: new.source.clone(),
                            created: new.created,
                            schedule: new.schedule.clone(),
                        };
                        table.put(&id.to_be_bytes(), &card_value(&card))?;
                        keys.put(&k, &id.to_be_bytes())?;
                        out.push((id, Added::Created));
                    }
                }
            }
            if next != first {
                meta.put(b"next_card", next.to_string().as_bytes())?;
            }
        }
        w.commit()?;
        Ok(out)
    }

    /// A card by id.
    pub fn card(&self, id: u32) -> Result<Option<StoredCard>> {
        self.cards_chess_only()?;
        let read = self.store.read()?;
        match read.table(CARDS)?.get(&id.to_be_bytes())? {
            Some(v) => Ok(Some(card_from(id, &v)?)),
            None => Ok(None),
        }
    }

    /// The card of a position, if it has one.
    pub fn card_at(&self, key: u128) -> Result<Option<StoredCard>> {
        self.cards_chess_only()?;
        let read = self.store.read()?;
        let Some(id) = read.table(CARD_KEYS)?.get(&key.to_be_bytes())? else {
            return Ok(None);
        };
        let id = id_of(&id)?;
        match read.table(CARDS)?.get(&id.to_be_bytes())? {
            Some(v) => Ok(Some(card_from(id, &v)?)),
            None => Ok(None),
        }
    }

    /// Every card, by id.
    pub fn cards(&self) -> Result<Vec<StoredCard>> {
        self.cards_chess_only()?;
        let read = self.store.read()?;
        let mut raw = Vec::new();
        read.table(CARDS)?.scan(&[], None, |k, v| {
            raw.push((k.to_vec(), v.to_vec()));
            true
        })?;
        raw.iter().map(|(k, v)| card_from(id_of(k)?, v)).collect()
    }

    /// A card's answers, oldest first.
    pub fn card_reviews(&self, id: u32) -> Result<Vec<Review>> {
        self.cards_chess_only()?;
        let read = self.store.read()?;
        let mut raw = Vec::new();
        read.table(CARD_REVIEWS)?.scan(
            &review_key(id, 0),
            id.checked_add(1)
                .map(|n| review_key(n, 0))
                .as_ref()
                .map(|k| &k[..]),
            |_, v| {
                raw.push(v.to_vec());
                true
            },
        )?;
        raw.iter().map(|v| Review::decode(v)).collect()
    }

    /// Every answer to every card, by card id (for statistics).
    pub fn all_card_reviews(&self) -> Result<Vec<(u32, Review)>> {
        self.cards_chess_only()?;
        let read = self.store.read()?;
        let mut raw = Vec::new();
        read.table(CARD_REVIEWS)?.scan(&[], None, |k, v| {
            raw.push((k.get(..4).map(<[u8]>::to_vec), v.to_vec()));
            true
        })?;
        raw.into_iter()
            .map(|(k, v)| {
                let id = id_of(&k.unwrap_or_default())?;
                Ok((id, Review::decode(&v)?))
            })
            .collect()
    }

    /// Records an answer in one transaction: `judge` gets the card as stored now and gives
    /// its new schedule and the answer to keep; the card's answer count follows. Returns
    /// the card as it is then, or `None` when there is no card `id`.
    pub fn answer_card<E>(
        &self,
        id: u32,
        judge: impl FnOnce(&StoredCard) -> std::result::Result<(Schedule, Review), E>,
    ) -> std::result::Result<Option<(StoredCard, Review)>, E>
    where
        E: From<Error>,
    {
        self.cards_chess_only()?;
        let w = self.store.write().map_err(Error::from)?;
        let done = {
            let mut table = w.table(CARDS).map_err(Error::from)?;
            let Some(value) = table.get(&id.to_be_bytes()).map_err(Error::from)? else {
                return Ok(None);
            };
            let mut card = card_from(id, &value)?;
            let (mut schedule, review) = judge(&card)?;
            let n = card.schedule.reviews;
            schedule.reviews = n.saturating_add(1);
            card.schedule = schedule;
            table
                .put(&id.to_be_bytes(), &card_value(&card))
                .map_err(Error::from)?;
            w.table(CARD_REVIEWS)
                .and_then(|mut t| t.put(&review_key(id, n), &review.encode()))
                .map_err(Error::from)?;
            (card, review)
        };
        w.commit().map_err(Error::from)?;
        Ok(Some(done))
    }

    /// Deletes a card and its answers in one transaction; returns it, or `None` when there
    /// was none.
    pub fn delete_card(&self, id: u32) -> Result<Option<StoredCard>> {
        self.cards_chess_only()?;
        let w = self.store.write()?;
        let card = {
            let mut table = w.table(CARDS)?;
            let Some(value) = table.get(&id.to_be_bytes())? else {
                return Ok(None);
            };
            let card = card_from(id, &value)?;
            table.remove(&id.to_be_bytes())?;
            w.table(CARD_KEYS)?.remove(&card.key.to_be_bytes())?;
            let to = id.checked_add(1).map_or([0xff; 8], |n| review_key(n, 0));
            w.table(CARD_REVIEWS)?
                .remove_range(&review_key(id, 0), &to)?;
            card
        };
        w.commit()?;
        Ok(Some(card))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(due: u64) -> Schedule {
        Schedule {
            repetitions: 0,
            easiness: 250,
            interval_days: 0,
            due,
            again: false,
            reviews: 0,
            lapses: 0,
            last_review: None,
        }
    }

    fn new(key: u128, moves: &[&str], note: Option<&str>) -> NewCard {
        NewCard {
            key,
            fen: format!("fen {key}"),
            white: true,
            moves: moves.iter().map(|m| m.to_string()).collect(),
            note: note.map(String::from),
            line: Vec::new(),
            source: "hand".into(),
            schedule: schedule(100),
            created: 100,
        }
    }

    #[test]
    fn a_position_has_one_card_that_gathers_moves() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open_or_create(dir.path(), Kind::Chess, None).unwrap();
        let got = db
            .add_cards(&[
                new(5, &["e2e4"], None),
                new(9, &["d2d4"], Some("QG")),
                new(5, &["e2e4", "g1f3"], None),
                new(5, &["g1f3"], None),
            ])
            .unwrap();
        assert_eq!(
            got,
            vec![
                (1, Added::Created),
                (2, Added::Created),
                (1, Added::Extended),
                (1, Added::Unchanged)
            ]
        );
        let c = db.card_at(5).unwrap().unwrap();
        assert_eq!(c.moves, ["e2e4", "g1f3"]);
        assert_eq!(db.card(2).unwrap().unwrap().note.as_deref(), Some("QG"));
        // Ids are never given twice, even after a deletion.
        assert_eq!(db.delete_card(2).unwrap().unwrap().key, 9);
        assert!(db.card_at(9).unwrap().is_none());
        assert_eq!(db.add_cards(&[new(9, &["d2d4"], None)]).unwrap()[0].0, 3);
        assert_eq!(db.cards().unwrap().len(), 2);
    }

    #[test]
    fn answers_keep_their_order_and_go_with_their_card() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open_or_create(dir.path(), Kind::Chess, None).unwrap();
        db.add_cards(&[new(1, &["e2e4"], None), new(2, &["d2d4"], None)])
            .unwrap();
        for (id, t) in [(1, 10), (2, 11), (1, 12)] {
            let (card, _) = db
                .answer_card::<Error>(id, |c| {
                    let mut s = c.schedule.clone();
                    s.due = t + 86_400;
                    Ok((
                        s,
                        Review {
                            time: t,
                            given: "e4".into(),
                            uci: "e2e4".into(),
                            correct: true,
                            grade: 4,
                            drill: false,
                            interval_days: 1,
                            easiness: 250,
                            due: t + 86_400,
                        },
                    ))
                })
                .unwrap()
                .unwrap();
            assert_eq!(card.schedule.due, t + 86_400);
        }
        let times: Vec<u64> = db.card_reviews(1).unwrap().iter().map(|r| r.time).collect();
        assert_eq!(times, [10, 12]);
        assert_eq!(db.card(1).unwrap().unwrap().schedule.reviews, 2);
        assert_eq!(db.all_card_reviews().unwrap().len(), 3);
        // A failed judgement writes nothing.
        let failed = db.answer_card(1, |_| Err(Error::Usage("no".into())));
        assert!(failed.is_err());
        assert_eq!(db.card_reviews(1).unwrap().len(), 2);
        assert!(
            db.answer_card::<Error>(77, |_| unreachable!())
                .unwrap()
                .is_none()
        );
        db.delete_card(1).unwrap();
        assert!(db.card_reviews(1).unwrap().is_empty());
        assert_eq!(db.card_reviews(2).unwrap().len(), 1);
    }

    #[test]
    fn othello_databases_have_no_cards() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open_or_create(dir.path(), Kind::Othello, None).unwrap();
        let e = db.cards().unwrap_err().to_string();
        assert!(e.contains("Othello"), "{e}");
        assert!(db.add_cards(&[new(1, &["e2e4"], None)]).is_err());
    }
}
