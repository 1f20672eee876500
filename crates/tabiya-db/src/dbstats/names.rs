//! The players and events (Othello: tournaments) with the most games. Chess games are counted
//! by what their names mean (the entries of `crate::persons`: every spelling of a player or
//! event, a spelling with a life only in games within it); Othello's by WTHOR's ids.

use std::collections::HashMap;

use serde::Serialize;

/// Most players, events or openings listed.
pub const TOP: usize = 20;

/// A name and its games.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct NamedGames {
    pub name: String,
    pub games: u64,
}

/// Games counted by entry (or, for a spelling newer than the entries, by spelling).
#[derive(Debug, Default)]
pub struct Tally {
    by_entry: HashMap<u32, u64>,
    by_spelling: HashMap<u32, u64>,
}

impl Tally {
    pub fn add_entry(&mut self, entry: u32) {
        *self.by_entry.entry(entry).or_default() += 1;
    }

    pub fn add_spelling(&mut self, spelling: u32) {
        *self.by_spelling.entry(spelling).or_default() += 1;
    }

    /// The [`TOP`] names with the most games (most first, then by name), unknown names
    /// (`?`, as PGN writes them, `???`, `N.N.`, or empty) left out.
    pub fn top(
        &self,
        entry_name: impl Fn(u32) -> String,
        spelling_name: impl Fn(u32) -> Option<String>,
    ) -> Vec<NamedGames> {
        let mut all: HashMap<String, u64> = HashMap::new();
        let named = self
            .by_entry
            .iter()
            .map(|(&e, &n)| (Some(entry_name(e)), n))
            .chain(
                self.by_spelling
                    .iter()
                    .map(|(&s, &n)| (spelling_name(s), n)),
            );
        for (name, games) in named {
            let Some(name) = name.filter(|n| !unknown(n)) else {
                continue;
            };
            *all.entry(name).or_default() += games;
        }
        let mut list: Vec<NamedGames> = all
            .into_iter()
            .map(|(name, games)| NamedGames { name, games })
            .collect();
        list.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.name.cmp(&b.name)));
        list.truncate(TOP);
        list
    }
}

/// A name that says nothing: `?` (PGN's unknown; WTHOR's `???`), `-`, empty, or chess's
/// unknown player (`NN`, `N.N.`).
fn unknown(name: &str) -> bool {
    let name = name.trim();
    name.chars().all(|c| c == '?') || matches!(name, "-" | "NN" | "N.N." | "N. N." | "N.N")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_most_games_first_unknown_names_left_out() {
        let mut t = Tally::default();
        for e in [0, 1, 1, 2, 2, 3, 3, 3] {
            t.add_entry(e);
        }
        // Spelling 7 (newer than the entries) is written as entry 0's name: one name.
        t.add_spelling(7);
        t.add_spelling(8);
        t.add_entry(4);
        t.add_entry(5);
        let names = ["Zeta", "Alpha", "Beta", "?", "N.N.", "???"];
        let top = t.top(
            |e| names[e as usize].to_string(),
            |s| Some(if s == 7 { "Zeta" } else { "Omega" }.to_string()),
        );
        let got: Vec<(&str, u64)> = top.iter().map(|n| (n.name.as_str(), n.games)).collect();
        assert_eq!(got, [("Alpha", 2), ("Beta", 2), ("Zeta", 2), ("Omega", 1)]);
        let mut many = Tally::default();
        for e in 0..(TOP as u32 + 5) {
            many.add_entry(e);
        }
        assert_eq!(many.top(|e| format!("n{e:02}"), |_| None).len(), TOP);
    }
}
