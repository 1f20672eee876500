//! The games of one player, read from the `players` table (each game's two name ids, 128
//! games a row): no game is decoded, and only the games of a spelling that means the player
//! within a life have their date read.

use super::filter::PlayerFilter;
use crate::players::scan_players;
use crate::{Result, Snapshot};

impl Snapshot<'_> {
    /// The ids of the games the player of `filter` played (with the colour it asks for,
    /// either when `None`), in id order, each with the side they had (0 White, 1 Black; a
    /// game they played against themselves, with either colour, counts as White's).
    pub fn chess_player_games(&self, filter: &PlayerFilter) -> Result<Vec<(u32, u8)>> {
        let sel = &filter.names;
        if sel.is_empty() {
            return Ok(Vec::new());
        }
        // (game, side, whether the spelling means the player only within a life).
        let mut candidates: Vec<(u32, u8, bool)> = Vec::new();
        scan_players(self.read_tx(), |game, players| {
            for (side, p) in players.iter().enumerate() {
                if filter.colour.is_some_and(|c| usize::from(c) != side) {
                    continue;
                }
                let Some(p) = *p else { continue };
                if sel.always.binary_search(&p).is_ok() {
                    candidates.push((game, side as u8, false));
                } else if sel.dated.iter().any(|(d, _)| d.spelling == p) {
                    candidates.push((game, side as u8, true));
                }
            }
        })?;
        let mut out: Vec<(u32, u8)> = Vec::with_capacity(candidates.len());
        for (game, side, dated) in candidates {
            if out.last().is_some_and(|&(g, _)| g == game) {
                continue;
            }
            if dated {
                let players = self.players(game)?;
                let Some(p) = players[usize::from(side)] else {
                    continue;
                };
                if !sel.matches(p, self.facts(game)?.date) {
                    continue;
                }
            }
            out.push((game, side));
        }
        Ok(out)
    }
}
