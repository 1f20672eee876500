//! Where the player varies most: their positions (the player to move) in the tree shown with
//! at least two moves shown, ranked by the Shannon entropy of the shares of those moves
//! (in bits: two moves half and half are 1, three equal 1.58; a favourite with rare
//! alternatives little), then by the number of moves, then by games.

use super::{Preparation, Share, Spread};

/// The `top` positions where the player spreads their choices most.
pub(super) fn most(prep: &Preparation, top: usize) -> Vec<Spread> {
    let mut out: Vec<Spread> = prep
        .positions
        .iter()
        .filter(|p| p.player_to_move && p.moves.len() >= 2)
        .map(|p| {
            let games: u64 = p.moves.iter().map(|m| m.score.games).sum();
            let share = |g: u64| g as f64 / games as f64;
            let entropy: f64 = p
                .moves
                .iter()
                .map(|m| share(m.score.games))
                .filter(|&s| s > 0.0)
                .map(|s| -s * s.log2())
                .sum();
            Spread {
                key: p.key.clone(),
                fen: p.fen.clone(),
                line: p.line.clone(),
                games,
                entropy: (entropy * 1000.0).round() / 1000.0,
                moves: p
                    .moves
                    .iter()
                    .map(|m| Share {
                        uci: m.uci.clone(),
                        san: m.san.clone(),
                        games: m.score.games,
                        share: (share(m.score.games) * 1000.0).round() / 10.0,
                    })
                    .collect(),
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.entropy
            .total_cmp(&a.entropy)
            .then(b.moves.len().cmp(&a.moves.len()))
            .then(b.games.cmp(&a.games))
            .then(a.line.len().cmp(&b.line.len()))
    });
    out.truncate(top);
    out
}
