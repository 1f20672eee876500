//! ECO comments for Kvetka books, from the Lichess opening tables.

use shakmaty::Chess;

/// Kvetka ECO comments from the Lichess opening tables: `B33|Sicilian Defense|Pelikan
/// Variation` — the name split at its first `:` into opening and variation.
pub fn eco_comment(pos: &Chess) -> Option<(String, String, Option<String>)> {
    let o = tabiya_db::chess::openings::named(pos)?;
    Some(match o.name.split_once(':') {
        Some((name, variation)) => (
            o.eco.clone(),
            name.trim().to_string(),
            Some(variation.trim().to_string()),
        ),
        None => (o.eco.clone(), o.name.trim().to_string(), None),
    })
}
