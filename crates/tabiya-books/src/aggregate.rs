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
//!   (unknown results count in `games` only).
//! * **Ratings and performance follow the database** (`tabiya_db::stats::Stats`), so a book
//!   built from games shows the same numbers as `tabiya explore` on those games:
//!   `rating_games` = games where **both** ratings are known, `rating_sum` = ⌊Σ (white +
//!   black) / 2⌋ over them, so `rating_sum / rating_games` (rounded down) is the database's
//!   average rating ⌊Σ (white + black) / (2 n)⌋ exactly. `performance_games` = games with a
//!   known result and both ratings known, and `performance_sum` = `performance_games` × the
//!   **FIDE performance** over them ([`fide_performance`]: the mean opponent rating, rounded,
//!   plus dp(p) of FIDE table 8.1(a) for the score p rounded to hundredths), so that
//!   `performance_sum / performance_games` is that performance exactly. (Adding two such
//!   sums — merging positions — gives the mean of the two performances weighted by games, not
//!   the FIDE performance of the union.) Whose performance a position's totals hold is
//!   [`AggregateOptions::performance_side`]: the side to move (default) or the side that made
//!   the last move (what a CTG book needs, since a CTG move shows its child's record).
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
    /// Whose performance the position totals hold (move statistics always hold the
    /// mover's). Default [`PerformanceSide::SideToMove`].
    pub performance_side: PerformanceSide,
}

/// Whose performance a position's totals hold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PerformanceSide {
    /// The side to move, like every other position total.
    #[default]
    SideToMove,
    /// The side that made the last move (the side not to move). A CTG book reads a move's
    /// statistics from its child record, so the child must hold the mover's performance.
    LastMover,
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
            performance_side: PerformanceSide::SideToMove,
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

/// FIDE table 8.1(a): rating difference dp for a score p in hundredths, 50..=100 (the
/// same public table as `tabiya_db::stats`; the command-line tests check that both agree).
const FIDE_DP: [i32; 51] = [
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65, 72, 80, 87, 95, 102, 110, 117, 125, 133, 141, 149, 158,
    166, 175, 184, 193, 202, 211, 220, 230, 240, 251, 262, 273, 284, 296, 309, 322, 336, 351, 366,
    383, 401, 422, 444, 470, 501, 538, 589, 677, 800,
];

/// FIDE table 8.1(a): dp for a score of `p` hundredths (0..=100; larger values count as 100):
/// ±800 at 100 % / 0 %.
pub fn fide_dp(p: usize) -> i32 {
    let p = p.min(100);
    if p >= 50 {
        FIDE_DP[p - 50]
    } else {
        -FIDE_DP[50 - p]
    }
}

/// FIDE performance over `games` games: the mean opponent rating `opponent_sum / games`
/// rounded half up, plus [`fide_dp`] of the score `score2 / (2 games)` (score2 = 2 per win,
/// 1 per draw) rounded half up to hundredths — exactly `tabiya_db::stats::Stats::performance`.
/// `None` without games.
pub fn fide_performance(games: u64, opponent_sum: u64, score2: u64) -> Option<i32> {
    if games == 0 {
        return None;
    }
    let ra = (2 * opponent_sum + games) / (2 * games);
    let p = (score2 * 100 + games) / (2 * games);
    Some(ra as i32 + fide_dp(p as usize))
}

/// Counters of one position or move, finished into a [`BookStats`].
#[derive(Debug, Clone, Default)]
struct Counts {
    games: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    /// Games with both ratings and the sum of white + black over them.
    rated_games: u64,
    rating_pair_sum: u64,
    /// Games with a result and both ratings: opponent rating sum and 2 × score.
    perf_games: u64,
    perf_opponent_sum: u64,
    perf_score2: u64,
}

impl Counts {
    /// Counts a game: results from `side`, performance of `perf_side`.
    fn add(&mut self, info: &GameInfo, side: Color, perf_side: Color) {
        self.games += 1;
        match score2(info.result, side) {
            Some(2) => self.wins += 1,
            Some(1) => self.draws += 1,
            Some(_) => self.losses += 1,
            None => {}
        }
        if let (Some(w), Some(b)) = (info.white_elo, info.black_elo) {
            self.rated_games += 1;
            self.rating_pair_sum += u64::from(w) + u64::from(b);
            if let Some(s2) = score2(info.result, perf_side) {
                let opponent = match perf_side {
                    Color::White => b,
                    Color::Black => w,
                };
                self.perf_games += 1;
                self.perf_opponent_sum += u64::from(opponent);
                self.perf_score2 += s2;
            }
        }
    }

    fn finish(&self) -> BookStats {
        let performance =
            fide_performance(self.perf_games, self.perf_opponent_sum, self.perf_score2);
        BookStats {
            games: self.games,
            wins: self.wins,
            draws: self.draws,
            losses: self.losses,
            rating_games: self.rated_games,
            rating_sum: self.rating_pair_sum / 2,
            performance_games: self.perf_games,
            performance_sum: performance.map_or(0, |p| p.max(0) as u64 * self.perf_games),
        }
    }
}

/// 2 × the score of `side` (2 win, 1 draw, 0 loss), `None` for an unknown result.
fn score2(result: GameResult, side: Color) -> Option<u64> {
    match (result, side) {
        (GameResult::WhiteWins, Color::White) | (GameResult::BlackWins, Color::Black) => Some(2),
        (GameResult::WhiteWins, Color::Black) | (GameResult::BlackWins, Color::White) => Some(0),
        (GameResult::Draw, _) => Some(1),
        (GameResult::Unknown, _) => None,
    }
}

struct MoveAcc {
    mv: u16,
    counts: Counts,
    first: (u32, u32),
}

struct PosAcc {
    first: (u32, u32),
    counts: Counts,
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
        let perf_side = match opts.performance_side {
            PerformanceSide::SideToMove => side,
            PerformanceSide::LastMover => !side,
        };
        let mut acc = PosAcc {
            first: (first.game, first.ply),
            counts: Counts::default(),
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
            acc.counts.add(info, side, perf_side);
            if r.mv != NO_MOVE {
                let m = match acc.moves.iter_mut().position(|m| m.mv == r.mv) {
                    Some(k) => &mut acc.moves[k],
                    None => {
                        acc.moves.push(MoveAcc {
                            mv: r.mv,
                            counts: Counts::default(),
                            first: (r.game, r.ply),
                        });
                        acc.moves.last_mut().expect("just pushed")
                    }
                };
                m.counts.add(info, side, side);
            }
        }
        i = j;
        if acc.counts.games < opts.min_games
            || (opts.only_white && side != Color::White)
            || (opts.only_black && side != Color::Black)
        {
            continue;
        }
        acc.moves.retain(|m| m.counts.games >= opts.min_games);
        if acc.moves.is_empty() && !opts.keep_leaves {
            continue;
        }
        acc.moves.sort_by(|a, b| {
            b.counts
                .games
                .cmp(&a.counts.games)
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
                        stats: Some(m.counts.finish()),
                        green: None,
                        red: None,
                        commentary: None,
                    })
                })
                .collect();
            out.push(BookPosition {
                position: pos.clone(),
                stats: Some(acc.counts.finish()),
                recommendation: None,
                commentary: None,
                moves,
            });
            k += 1;
        }
    }
    out
}
