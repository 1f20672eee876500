//! The lists of moves records say are reached other ways ([`TRecord::elsewhere`]) against
//! the stored games. For each complete T record with a list (chess), its position's legal
//! moves are told by replaying one of its games; then every stored game of the same run
//! that reaches the position one of those moves leads to, without having played that move
//! from the record's position, is *reached elsewhere*. For each legal move:
//! - whole ([`TRecord::whole`]) or neither played, whole nor listed: no game reaches it
//!   elsewhere;
//! - listed with its games: those games, less the deleted ones, are exactly the games that
//!   reach it elsewhere;
//! - listed without its games: nothing to compare (the query looks it up).
//!
//! A listed move must be legal in the position. The queries answer `reached` from these
//! lists with no lookup, so a wrong list would change an answer in silence.

use std::collections::HashMap;

use crate::chess::replay::successors_in_record;
use crate::game::{NO_MOVE, Occurrence};
use crate::index::RunDir;
use crate::index::amend::Amendments;
use crate::index::record::{ELSEWHERE_GAMES, Elsewhere, Posting, TRecord};
use crate::records::Records;

use super::CheckReport;

/// Bits of a key's low word that [`Lists::filter`] keeps (a set bit: some child may have it).
const FILTER_BITS: u32 = 27;

/// One record with a list, as the T blocks hold it.
struct Listed {
    run: u32,
    key: u128,
    /// Its moves played (code, whole).
    played: Vec<(u16, bool)>,
    list: Vec<Elsewhere>,
    /// A few of its games, to replay to its position.
    games: Vec<u32>,
    /// Its legal moves (code, key of where it leads), once told.
    legal: Option<Vec<(u16, u128)>>,
}

/// What the check learns of the records' lists: see the module's documentation.
#[derive(Default)]
pub(super) struct Lists {
    listed: Vec<Listed>,
    /// By the key of a position one legal move away from a listed record's: (the record,
    /// the move).
    children: HashMap<u128, Vec<(u32, u16)>>,
    /// A bit per low bits of those keys: most positions of most games are none of them.
    filter: Vec<u64>,
    /// By (record, move): the games of its run that reach where the move leads elsewhere,
    /// in the order replayed (by game id), once each; no more than one past what a list
    /// holds ([`ELSEWHERE_GAMES`]).
    reached: HashMap<(u32, u16), Vec<u32>>,
}

impl Lists {
    /// Pass 1: a record of `run` (with its games), kept when it is complete and has a list.
    pub(super) fn note(&mut self, run: &RunDir, rec: &TRecord, games: &[Posting]) {
        let Some(list) = &rec.elsewhere else {
            return;
        };
        if !run.complete_for(rec.key) {
            return;
        }
        self.listed.push(Listed {
            run: run.id,
            key: rec.key,
            played: (0..rec.moves.len())
                .map(|i| (rec.moves[i].code, rec.whole.get(i) == Some(&true)))
                .collect(),
            list: list.clone(),
            games: games.iter().map(|p| p.game).take(8).collect(),
            legal: None,
        });
    }

    /// After the passes over the runs: each listed record's position told by replaying one
    /// of its stored games (a record all of whose games were deleted is left out), and its
    /// listed moves checked to be legal there.
    pub(super) fn find_positions(
        &mut self,
        records: &Records,
        amend: &Amendments,
        report: &mut CheckReport,
    ) -> crate::Result<()> {
        let mut raw = Vec::new();
        for (r, l) in self.listed.iter_mut().enumerate() {
            for &g in l.games.iter().filter(|&&g| !amend.is_removed(g)) {
                if !records.get_into(g, &mut raw)? {
                    continue;
                }
                if let Ok(Some(legal)) = successors_in_record(&raw, l.key) {
                    l.legal = Some(legal);
                    break;
                }
            }
            let Some(legal) = &l.legal else {
                continue;
            };
            for e in &l.list {
                if !legal.iter().any(|m| m.0 == e.code) {
                    report.problem(
                        "index",
                        format!("run {} position {:032x}", l.run, l.key),
                        format!(
                            "its T record lists move {} as reached other ways; it is not a \
                             legal move there",
                            e.code
                        ),
                    );
                }
            }
            for &(code, child) in legal {
                self.children
                    .entry(child)
                    .or_default()
                    .push((r as u32, code));
            }
        }
        self.filter = vec![0; 1 << (FILTER_BITS - 6)];
        for &k in self.children.keys() {
            let b = filter_bit(k);
            self.filter[b / 64] |= 1 << (b % 64);
        }
        Ok(())
    }

    /// Pass 3: a stored game of run `run`, its counted positions `occs`.
    pub(super) fn game(&mut self, g: u32, run: u32, occs: &[Occurrence]) {
        if self.children.is_empty() {
            return;
        }
        // The game's (position, move) pairs, sorted once the game reaches a child.
        let mut played: Vec<(u128, u16)> = Vec::new();
        for (i, o) in occs.iter().enumerate() {
            let b = filter_bit(o.key);
            if (self.filter[b / 64] >> (b % 64)) & 1 == 0 {
                continue;
            }
            let Some(of) = self.children.get(&o.key) else {
                continue;
            };
            for &(r, code) in of {
                let l = &self.listed[r as usize];
                if l.run != run {
                    continue;
                }
                // A game that played the move from the record's position is the move's own:
                // most often just before, else anywhere in the game.
                if i > 0 && occs[i - 1].key == l.key && occs[i - 1].code == code {
                    continue;
                }
                if played.is_empty() {
                    played.extend(occs.iter().map(|p| (p.key, p.code)));
                    played.sort_unstable();
                }
                if played.binary_search(&(l.key, code)).is_ok() {
                    continue;
                }
                let games = self.reached.entry((r, code)).or_default();
                // More than a list holds is all a comparison needs.
                if games.last() != Some(&g) && games.len() <= ELSEWHERE_GAMES {
                    games.push(g);
                }
            }
        }
    }

    /// After pass 3: each listed record's legal moves against the games that reach where
    /// they lead elsewhere.
    pub(super) fn problems(&self, amend: &Amendments, report: &mut CheckReport) {
        for (r, l) in self.listed.iter().enumerate() {
            let Some(legal) = &l.legal else {
                continue;
            };
            for &(code, _) in legal {
                let mut actual = self
                    .reached
                    .get(&(r as u32, code))
                    .cloned()
                    .unwrap_or_default();
                actual.sort_unstable();
                let whole = l
                    .played
                    .iter()
                    .any(|&(c, w)| c == code && c != NO_MOVE && w);
                let claim = match l.list.iter().find(|e| e.code == code) {
                    _ if whole => Some(Vec::new()),
                    None => Some(Vec::new()),
                    Some(Elsewhere { games: None, .. }) => None,
                    Some(Elsewhere {
                        games: Some(games), ..
                    }) => {
                        let mut kept: Vec<u32> = games
                            .iter()
                            .copied()
                            .filter(|&g| !amend.is_removed(g))
                            .collect();
                        kept.sort_unstable();
                        Some(kept)
                    }
                };
                let Some(claim) = claim else {
                    continue;
                };
                if claim != actual {
                    let said = if claim.is_empty() {
                        "that no other game of its run reaches where it leads".to_string()
                    } else {
                        format!("that games {claim:?} reach where it leads other ways")
                    };
                    report.problem(
                        "index",
                        format!("run {} position {:032x}", l.run, l.key),
                        format!(
                            "its T record says of move {code} {said}; the stored games say \
                             {actual:?}"
                        ),
                    );
                }
            }
        }
    }
}

fn filter_bit(key: u128) -> usize {
    (key as u64 as usize) & ((1 << FILTER_BITS) - 1)
}
