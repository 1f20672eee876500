//! `repertoire check`: a repertoire against a database — its gaps (`gaps.rs`, by the walk of
//! `walk.rs`), its badly scoring moves (`bad.rs`), its rare lines (`rare.rs`) and the
//! positions it answers differently in two places (`inconsistent.rs`).

use serde::Serialize;

use super::bad::{BadMove, bad_moves};
use super::counts::Lookups;
use super::gaps::{Gap, gaps};
use super::inconsistent::{Inconsistent, inconsistent};
use super::load::Repertoire;
use super::rare::{RareLine, rare_lines};
use super::walk::walk;
use crate::cards::Side;
use crate::database::{Db, Kind};
use crate::error::{Error, Result};
use crate::filter::Filter;

/// What to check, and how strictly.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// The side the repertoire is for.
    pub side: Side,
    /// Plies from the start examined.
    pub depth: u32,
    /// The least probability of a gap shown (and of a position followed).
    pub min_share: f64,
    /// A move scores badly with at least this many games with a result …
    pub min_games: u64,
    /// … scoring at least this much (0–1) below its position.
    pub bad_margin: f64,
    /// A prepared opponent move is rare below this probability.
    pub rare: f64,
    /// Gaps listed at most (all are counted).
    pub limit: usize,
    /// Which games of the database count.
    pub filter: Filter,
}

impl CheckOptions {
    /// The defaults for a side: 20 plies, gaps from 1 %, bad moves 5 points under their
    /// position over at least 10 games, rare lines under 0.1 %, 20 gaps listed.
    pub fn new(side: Side) -> CheckOptions {
        CheckOptions {
            side,
            depth: 20,
            min_share: 0.01,
            min_games: 10,
            bad_margin: 0.05,
            rare: 0.001,
            limit: 20,
            filter: Filter::default(),
        }
    }

    fn validate(&self) -> Result<()> {
        let share = |name: &str, v: f64| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(Error::bad_request(format!(
                    "{name} {v}: give a probability from 0 to 1 (0.01 is 1 %)"
                )))
            }
        };
        share("min-share", self.min_share)?;
        share("bad-margin", self.bad_margin)?;
        share("rare", self.rare)?;
        if self.depth == 0 || self.depth > 200 {
            return Err(Error::bad_request(format!(
                "depth {}: give 1 to 200 plies",
                self.depth
            )));
        }
        Ok(())
    }
}

/// The answer of `repertoire check`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckReport {
    pub repertoire: String,
    pub side: &'static str,
    /// Positions in the repertoire, and those where it gives your move.
    pub positions: usize,
    pub own_positions: usize,
    pub depth: u32,
    pub min_share: f64,
    /// Games of the database (with the filters) in the start position.
    pub games: u64,
    /// Your positions the walk reached that the repertoire answers.
    pub answered: usize,
    /// The probabilities of all the gaps found, summed.
    pub gap_probability: f64,
    /// All gaps found (at least `minShare` likely), and the first `limit` of them.
    pub gap_count: usize,
    pub gaps: Vec<Gap>,
    pub bad_moves: Vec<BadMove>,
    pub rare_lines: Vec<RareLine>,
    pub inconsistent: Vec<Inconsistent>,
    /// Positions looked up in the database.
    pub lookups: usize,
    /// What was wrong in the repertoire's file but did not stop it from being read.
    pub warnings: Vec<String>,
}

/// Checks `rep` against the database.
pub fn check(db: &Db, rep: &Repertoire, options: &CheckOptions) -> Result<CheckReport> {
    if db.kind() != Kind::Chess {
        return Err(Error::bad_request(format!(
            "{} is an Othello database: repertoires are chess",
            db.dir().display()
        )));
    }
    options.validate()?;
    let snap = db.inner()?.snapshot()?;
    let filter = options.filter.resolve(&snap)?;
    let mut lookups = Lookups::new(&snap, filter);
    let side = options.side;
    let walked = walk(rep, side, options.depth, options.min_share, &mut lookups)?;
    let mut all_gaps = gaps(rep, &walked, options.min_share, &mut lookups)?;
    let answered = walked
        .own
        .values()
        .filter(|r| !rep.moves_at(&r.pos).is_empty())
        .count();
    let gap_probability = all_gaps.iter().map(|g| g.probability).sum();
    let gap_count = all_gaps.len();
    all_gaps.truncate(options.limit);
    let bad = bad_moves(
        rep,
        side,
        options.depth,
        options.min_games,
        options.bad_margin,
        &mut lookups,
    )?;
    let rare = rare_lines(rep, side, options.depth, options.rare, &mut lookups)?;
    let games = match rep.roots.first() {
        Some(root) => lookups.of(root)?.totals.games(),
        None => 0,
    };
    Ok(CheckReport {
        repertoire: rep.name.clone(),
        side: if side.is_white() { "white" } else { "black" },
        positions: rep.len(),
        own_positions: rep
            .entries()
            .filter(|(_, e)| Side::of(&e.pos) == side && !e.moves.is_empty())
            .count(),
        depth: options.depth,
        min_share: options.min_share,
        games,
        answered,
        gap_probability,
        gap_count,
        gaps: all_gaps,
        bad_moves: bad,
        rare_lines: rare,
        inconsistent: inconsistent(rep, side),
        lookups: lookups.len(),
        warnings: rep.warnings.clone(),
    })
}
