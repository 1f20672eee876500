//! How the training goes: cards, due, answered, right.

use serde::{Deserialize, Serialize};

use super::add::check;
use super::view::is_due;
use crate::database::Db;
use crate::error::Result;

/// The cards' statistics.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CardStats {
    pub cards: usize,
    /// Due now (those asked again today included).
    pub due: usize,
    /// Due by the end of the day (UTC).
    pub due_today: usize,
    /// Never answered.
    pub new: usize,
    /// Answers given (drills included), and of them the right ones.
    pub answers: usize,
    pub right: usize,
    /// Answers given today (UTC).
    pub answers_today: usize,
    /// Right answers over all answers, when there are any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub success_rate: Option<f64>,
    /// Wrong answers when a card was due.
    pub lapses: u64,
}

/// The cards' statistics at `now`.
pub fn stats(db: &Db, now: u64) -> Result<CardStats> {
    check(db)?;
    let cards = db.inner()?.cards()?;
    let reviews = db.inner()?.all_card_reviews()?;
    let day_start = now - now % 86_400;
    let day_end = day_start + 86_399;
    let right = reviews.iter().filter(|(_, r)| r.correct).count();
    Ok(CardStats {
        cards: cards.len(),
        due: cards.iter().filter(|c| is_due(c, now)).count(),
        due_today: cards
            .iter()
            .filter(|c| c.schedule.due <= day_end || c.schedule.again)
            .count(),
        new: cards.iter().filter(|c| c.schedule.reviews == 0).count(),
        answers: reviews.len(),
        right,
        answers_today: reviews.iter().filter(|(_, r)| r.time >= day_start).count(),
        success_rate: (!reviews.is_empty()).then(|| right as f64 / reviews.len() as f64),
        lapses: cards.iter().map(|c| u64::from(c.schedule.lapses)).sum(),
    })
}
