//! The fixed words some answers hold as `&'static str` (a winner, a side, a speed class, an
//! evaluation's bound and source),
//! read back from an answer's JSON as the same static words: an answer sent by a server
//! to a command (`tabiya_service::reads`) is read into the same types it was made of.

use serde::{Deserialize, Deserializer};

/// Such a field's type. An alias, not `&'static str` written out: serde's derive would
/// borrow a `&str` field from its input, which a `'static` one cannot be.
pub type Word = &'static str;

/// Every word such a field holds.
const WORDS: [&str; 14] = [
    "lower",
    "upper",
    "engine",
    "stored",
    "white",
    "black",
    "draw",
    "none",
    "ultraBullet",
    "bullet",
    "blitz",
    "rapid",
    "classical",
    "correspondence",
];

fn known<E: serde::de::Error>(s: &str) -> Result<&'static str, E> {
    WORDS
        .iter()
        .find(|w| **w == s)
        .copied()
        .ok_or_else(|| E::custom(format!("{s:?} is not a word this field holds")))
}

/// One of the [`WORDS`].
pub fn word<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let s = String::deserialize(d)?;
    known(&s)
}

/// One of the [`WORDS`], or nothing.
pub fn maybe_word<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'static str>, D::Error> {
    match Option::<String>::deserialize(d)? {
        Some(s) => known(&s).map(Some),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_speed_name_is_a_word() {
        for s in crate::speed::Speed::ALL {
            assert!(super::WORDS.contains(&s.name()), "{}", s.name());
        }
    }
}
