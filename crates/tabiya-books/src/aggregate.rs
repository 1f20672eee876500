//! Counting games into positions and moves: the common aggregator of the CTG and Kvetka
//! builders and of database export. (The Polyglot builder does not use it: it follows
//! `polyglot make-book`'s own rules, see [`crate::polyglot::build`].)
//!
//! Rules, exactly:
//!
//! * **Position identity**: piece placement, side to move, castling rights and the en-passant
//!   square only when an en-passant capture is legal (shakmaty's `Chess` equality). Positions
//!   are grouped by their 128-bit Zobrist hash of exactly these (shakmaty `Zobrist128`,
//!   `EnPassantMode::Legal`); a collision would need 2⁶⁴ positions.
//! * **Which positions**: the main line of each game, from its start (the standard position
//!   or its `FEN`), positions at plies `0..=max_ply` counted from the game's first move (not
//!   from the FEN's move number). A game stops at its first move that is not legal (counted
//!   in [`AggregateReport::illegal_games`]; positions before it count).
//! * **Once per game**: a position that occurs several times in one game (a repetition)
//!   counts once, at its first occurrence; the move counted for it is the move played at that
//!   first occurrence (up to ply `max_ply - 1`). The final position of a game (or the one at
//!   `max_ply`) counts as a position without a move.
//! * **Position totals** ([`BookPosition::stats`]) are from the side to move: `games` = games
//!   reaching it; `wins`/`draws`/`losses` = results of those games for the side to move
//!   (unknown results count in `games` only); `rating_games`/`rating_sum` = games where the
//!   side to move's rating is known and the sum of those ratings; `performance_games` /
//!   `performance_sum` = games with a known result and a known opponent rating, each
//!   contributing the opponent's rating + 400 for a win, + 0 for a draw, − 400 for a loss
//!   (floored at 0): the average is the "rating ± 400" linear performance.
//! * **Move stats** ([`BookMove::stats`]) are the same quantities over the games that played
//!   the move in the position, from the mover's side (the side to move of the position).
//! * **Filters**: positions reached in fewer than `min_games` games are dropped, and so are
//!   moves played in fewer than `min_games` games; `only_white` / `only_black` keep positions
//!   with White / Black to move; `keep_leaves = false` drops positions left without moves.
//! * **Order**: positions in the order of their first occurrence (game, then ply); moves of a
//!   position by `games` descending, then by first occurrence.

use shakmaty::zobrist::Zobrist128;
use shakmaty::{Chess, Color, EnPassantMode, Position};

use crate::polyglot::{decode_among, encode_move};
use crate::{BookGame, BookMove, BookPosition, BookStats, GameResult};

/// Options of [`aggregate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AggregateOptions {
    /// Positions reached in fewer games, and moves played in fewer games, are dropped.
    /// Default 1.
    pub min_games: u64,
    /// Positions at plies `0..=max_ply` of each game count (moves from plies below
    /// `max_ply`). Default `u32::MAX` (whole games).
    pub max_ply: u32,
    /// Keep only positions with White to move.
    pub only_white: bool,
    /// Keep only positions with Black to move (both flags together keep nothing).
    pub only_black: bool,
    /// Count games that start from a non-standard position (`FEN`). Default true.
    pub include_non_standard_start: bool,
    /// Keep positions that have no move left after filtering (game ends, the ply limit, rare
    /// moves dropped by `min_games`). Default true.
    pub keep_leaves: bool,
}

impl Default for AggregateOptions {
    fn default() -> Self {
        AggregateOptions {
            min_games: 1,
            max_ply: u32::MAX,
            only_white: false,
            only_black: false,
            include_non_standard_start: true,
            keep_leaves: true,
        }
    }
}

/// What [`aggregate_with_report`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AggregateReport {
    /// Games given.
    pub games: u64,
    /// Games counted.
    pub games_used: u64,
    /// Games skipped because they start from a FEN and `include_non_standard_start` is off.
    pub skipped_non_standard_start: u64,
    /// Games cut at a move that is not legal.
    pub illegal_games: u64,
    /// Positions and moves in the result.
    pub positions: u64,
    pub moves: u64,
}

const NO_MOVE: u16 = u16::MAX;

#[derive(Clone, Copy)]
struct Rec {
    key: u128,
    game: u32,
    ply: u32,
    mv: u16,
    white: bool,
}

struct GameInfo {
    result: GameResult,
    white_elo: Option<u16>,
    black_elo: Option<u16>,
}

impl GameInfo {
    fn add(&self, stats: &mut BookStats, side: Color) {
        stats.games += 1;
        let (own, opp) = match side {
            Color::White => (self.white_elo, self.black_elo),
            Color::Black => (self.black_elo, self.white_elo),
        };
        let score: Option<i64> = match (self.result, side) {
            (GameResult::WhiteWins, Color::White) | (GameResult::BlackWins, Color::Black) => {
                Some(1)
            }
            (GameResult::WhiteWins, Color::Black) | (GameResult::BlackWins, Color::White) => {
                Some(-1)
            }
            (GameResult::Draw, _) => Some(0),
            (GameResult::Unknown, _) => None,
        };
        match score {
            Some(1) => stats.wins += 1,
            Some(0) => stats.draws += 1,
            Some(_) => stats.losses += 1,
            None => {}
        }
        if let Some(r) = own {
            stats.rating_games += 1;
            stats.rating_sum += u64::from(r);
        }
        if let (Some(r), Some(s)) = (opp, score) {
            stats.performance_games += 1;
            stats.performance_sum += (i64::from(r) + 400 * s).max(0) as u64;
        }
    }
}

struct MoveAcc {
    mv: u16,
    stats: BookStats,
    first: (u32, u32),
}

struct PosAcc {
    first: (u32, u32),
    stats: BookStats,
    moves: Vec<MoveAcc>,
}

/// Counts games into positions with their moves (see the module documentation for the exact
/// rules).
pub fn aggregate(
    games: impl IntoIterator<Item = BookGame>,
    opts: &AggregateOptions,
) -> Vec<BookPosition> {
    aggregate_with_report(games, opts).0
}

/// [`aggregate`], also telling which games were used.
pub fn aggregate_with_report(
    games: impl IntoIterator<Item = BookGame>,
    opts: &AggregateOptions,
) -> (Vec<BookPosition>, AggregateReport) {
    let mut report = AggregateReport::default();
    let mut kept_games: Vec<BookGame> = Vec::new();
    let mut infos: Vec<GameInfo> = Vec::new();
    let mut records: Vec<Rec> = Vec::new();
    let standard = Chess::default();
    for game in games {
        report.games += 1;
        if kept_games.len() >= u32::MAX as usize {
            break;
        }
        if !opts.include_non_standard_start && game.start != standard {
            report.skipped_non_standard_start += 1;
            continue;
        }
        let index = kept_games.len() as u32;
        if !replay(&game, index, opts.max_ply, &mut records) {
            report.illegal_games += 1;
        }
        report.games_used += 1;
        infos.push(GameInfo {
            result: game.result,
            white_elo: game.white_elo,
            black_elo: game.black_elo,
        });
        kept_games.push(game);
    }

    records.sort_unstable_by_key(|r| (r.key, r.game, r.ply));

    let mut kept: Vec<PosAcc> = Vec::new();
    let mut i = 0;
    while i < records.len() {
        let first = records[i];
        let side = if first.white {
            Color::White
        } else {
            Color::Black
        };
        let mut acc = PosAcc {
            first: (first.game, first.ply),
            stats: BookStats::default(),
            moves: Vec::new(),
        };
        let mut last_game = None;
        let mut j = i;
        while j < records.len() && records[j].key == first.key {
            let r = records[j];
            j += 1;
            if last_game == Some(r.game) {
                continue; // a repetition within the game: counted at its first occurrence
            }
            last_game = Some(r.game);
            let info = &infos[r.game as usize];
            info.add(&mut acc.stats, side);
            if r.mv != NO_MOVE {
                let m = match acc.moves.iter_mut().position(|m| m.mv == r.mv) {
                    Some(k) => &mut acc.moves[k],
                    None => {
                        acc.moves.push(MoveAcc {
                            mv: r.mv,
                            stats: BookStats::default(),
                            first: (r.game, r.ply),
                        });
                        acc.moves.last_mut().expect("just pushed")
                    }
                };
                info.add(&mut m.stats, side);
            }
        }
        i = j;
        if acc.stats.games < opts.min_games
            || (opts.only_white && side != Color::White)
            || (opts.only_black && side != Color::Black)
        {
            continue;
        }
        acc.moves.retain(|m| m.stats.games >= opts.min_games);
        if acc.moves.is_empty() && !opts.keep_leaves {
            continue;
        }
        acc.moves.sort_by(|a, b| {
            b.stats
                .games
                .cmp(&a.stats.games)
                .then(a.first.cmp(&b.first))
        });
        kept.push(acc);
    }
    kept.sort_by_key(|p| p.first);

    let positions = rebuild(&kept_games, kept);
    report.positions = positions.len() as u64;
    report.moves = positions.iter().map(|p| p.moves.len() as u64).sum();
    (positions, report)
}

/// Appends the game's positions; returns false when it stopped at an illegal move.
fn replay(game: &BookGame, index: u32, max_ply: u32, records: &mut Vec<Rec>) -> bool {
    let mut pos = game.start.clone();
    let mut key: Zobrist128 = pos.zobrist_hash(EnPassantMode::Legal);
    let limit = (max_ply as usize).min(game.moves.len());
    let mut legal = true;
    let mut ply = 0usize;
    loop {
        let next = if ply < limit {
            let m = game.moves[ply];
            match encode_move(&m) {
                Some(e) if pos.is_legal(m) => Some((m, e)),
                _ => {
                    legal = false;
                    None
                }
            }
        } else {
            None
        };
        records.push(Rec {
            key: key.0,
            game: index,
            ply: ply as u32,
            mv: next.map_or(NO_MOVE, |(_, e)| e),
            white: pos.turn() == Color::White,
        });
        let Some((m, _)) = next else { break };
        let updated = pos.update_zobrist_hash(key, m, EnPassantMode::Legal);
        pos.play_unchecked(m);
        key = updated.unwrap_or_else(|| pos.zobrist_hash(EnPassantMode::Legal));
        ply += 1;
    }
    legal
}

/// Replays the games once more to recover each kept position (at its first occurrence) and
/// turns the counts into [`BookPosition`]s.
fn rebuild(games: &[BookGame], kept: Vec<PosAcc>) -> Vec<BookPosition> {
    // `kept` is sorted by first occurrence: game, then ply.
    let mut out: Vec<BookPosition> = Vec::with_capacity(kept.len());
    let mut k = 0;
    while k < kept.len() {
        let game = kept[k].first.0;
        let g = &games[game as usize];
        let mut pos = g.start.clone();
        let mut ply = 0u32;
        while k < kept.len() && kept[k].first.0 == game {
            let target = kept[k].first.1;
            while ply < target {
                pos.play_unchecked(g.moves[ply as usize]);
                ply += 1;
            }
            let acc = &kept[k];
            let legal = pos.legal_moves();
            let moves = acc
                .moves
                .iter()
                .filter_map(|m| {
                    let mv = decode_among(&pos, &legal, m.mv).ok()?;
                    Some(BookMove {
                        mv,
                        annotation: None,
                        weight: None,
                        learn: None,
                        stats: Some(m.stats.clone()),
                        green: None,
                        red: None,
                        commentary: None,
                    })
                })
                .collect();
            out.push(BookPosition {
                position: pos.clone(),
                stats: Some(acc.stats.clone()),
                recommendation: None,
                commentary: None,
                moves,
            });
            k += 1;
        }
    }
    out
}
