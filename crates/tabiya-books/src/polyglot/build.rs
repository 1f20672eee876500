//! Builder that reproduces `polyglot make-book` byte for byte.
//!
//! What `make-book` does (PolyGlot 2.0.4, Debian `polyglot` 2.0.4+git20210322), and how this
//! builder follows it:
//!
//! * Every game is replayed from the standard starting position: `make-book` ignores the
//!   `FEN` tag (and aborts on the first move that is then illegal). Games whose start is not
//!   the standard position are skipped here and counted in
//!   [`BuildReport::skipped_non_standard_start`].
//! * For each of the first `max_ply` moves (default 1024) the entry (position key, move) gets
//!   `n += 1` and `sum += 2` (mover won), `1` (draw, **or unknown result**: anything but
//!   `1-0`/`0-1` in the `Result` tag) or `0` (mover lost). Repeated positions in one game count
//!   each time.
//! * When an entry's `n` reaches 16384 (`COUNT_MAX`), `n` and `sum` of every entry of that
//!   position created so far are halved, rounding up: `(x + 1) / 2`. This keeps weights in 16
//!   bits and depends on the order of the games, so games are processed in the order given.
//! * An entry is kept when `n >= min_game` (default 3), `sum > 0`, `sum / n / 2 >=
//!   min_score / 100` and it passes the colour filter (`only_white` keeps positions with White
//!   to move, `only_black` those with Black to move).
//! * Weight = `sum` (or 1 with `uniform`); learn = 0.
//! * Entries are ordered by key, then by weight descending, then by the order in which the
//!   (position, move) pair first occurred (glibc's `qsort` is a stable merge sort there).

use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, Color, EnPassantMode, Position};

use super::{Entry, PolyglotBook, START_KEY, encode_move};
use crate::{BookGame, GameResult};

/// `COUNT_MAX` of `polyglot make-book`: an entry's count is halved when it reaches this.
const COUNT_MAX: u32 = 16384;

/// Options of [`build`], the same as `polyglot make-book`'s flags.
#[derive(Debug, Clone, PartialEq)]
pub struct PolyglotBuildOptions {
    /// `-max-ply`: only the first `max_ply` moves (half-moves) of each game are counted.
    /// Default 1024.
    pub max_ply: u32,
    /// `-min-game`: entries played in fewer games are dropped. Default 3.
    pub min_game: u32,
    /// `-min-score`, in percent: entries whose score for the mover, `sum / n / 2`, is below
    /// `min_score / 100` are dropped. Default 0.
    pub min_score: f64,
    /// `-only-white`: keep only entries of positions with White to move.
    pub only_white: bool,
    /// `-only-black`: keep only entries of positions with Black to move. Setting both flags
    /// keeps nothing (polyglot's own command line lets the last flag win instead).
    pub only_black: bool,
    /// `-uniform`: every kept entry gets weight 1.
    pub uniform: bool,
}

impl Default for PolyglotBuildOptions {
    fn default() -> Self {
        PolyglotBuildOptions {
            max_ply: 1024,
            min_game: 3,
            min_score: 0.0,
            only_white: false,
            only_black: false,
            uniform: false,
        }
    }
}

/// What [`build_with_report`] did with its input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildReport {
    /// Games given.
    pub games: u64,
    /// Games counted.
    pub games_used: u64,
    /// Games skipped because they do not start from the standard position (`make-book`
    /// would replay them from the standard position and abort at the first illegal move).
    pub skipped_non_standard_start: u64,
    /// Games skipped because a move within `max_ply` is not legal (or cannot be encoded);
    /// `make-book` aborts the whole build on such a game.
    pub skipped_illegal: u64,
    /// Games not read because the builder's 2³² move limit was reached.
    pub skipped_capacity: u64,
    /// Moves counted (one per position of each counted game, up to `max_ply`).
    pub moves_counted: u64,
    /// Distinct (position, move) pairs before filtering (`make-book`'s first "entries").
    pub entries_before_filter: u64,
    /// Entries written.
    pub entries: u64,
    /// Times the counts of a position were halved on reaching 16384.
    pub halvings: u64,
}

/// One counted move: 16 bytes, sorted by (key, seq).
#[derive(Clone, Copy)]
struct Rec {
    key: u64,
    seq: u32,
    mv: u16,
    /// 0 mover lost, 1 draw or unknown, 2 mover won.
    score: u8,
    white: bool,
}

#[derive(Clone, Copy)]
struct Acc {
    mv: u16,
    n: u32,
    sum: u32,
    first: u32,
    white: bool,
}

/// Builds a book exactly as `polyglot make-book` would from the same games in the same
/// order (see the module documentation for the rules and the two deliberate differences).
pub fn build(
    games: impl IntoIterator<Item = BookGame>,
    opts: &PolyglotBuildOptions,
) -> PolyglotBook {
    build_with_report(games, opts).0
}

/// [`build`], also telling which games were used.
pub fn build_with_report(
    games: impl IntoIterator<Item = BookGame>,
    opts: &PolyglotBuildOptions,
) -> (PolyglotBook, BuildReport) {
    let max_ply = opts.max_ply;
    build_counted(games.into_iter().map(|g| count_game(&g, max_ply)), opts)
}

/// One counted move of a game: the key of the position before it, the packed move and
/// whether White made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CountedMove {
    pub key: u64,
    pub mv: u16,
    pub white: bool,
}

/// A game replayed for the builder ([`count_game`]): the moves `make-book` counts, or why
/// none are. Counting games is independent per game, so callers may do it on several
/// threads and hand the results to [`build_counted`] in the games' order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CountedGame {
    /// The game's first `max_ply` moves, with its result.
    Counted {
        moves: Vec<CountedMove>,
        result: GameResult,
    },
    /// Not from the standard start position (skipped).
    NonStandardStart,
    /// A move within `max_ply` is not legal or cannot be encoded (skipped).
    Illegal,
}

/// Replays a game from the standard start and lists the moves `make-book` counts (the first
/// `max_ply`, each with the key of the position before it).
pub fn count_game(game: &BookGame, max_ply: u32) -> CountedGame {
    if game.start != Chess::default() {
        return CountedGame::NonStandardStart;
    }
    let mut pos = Chess::default();
    let mut key = START_KEY;
    let limit = (max_ply as usize).min(game.moves.len());
    let mut moves = Vec::with_capacity(limit);
    for &m in &game.moves[..limit] {
        let encoded = match encode_move(&m) {
            Some(e) if pos.is_legal(m) => e,
            _ => return CountedGame::Illegal,
        };
        moves.push(CountedMove {
            key,
            mv: encoded,
            white: pos.turn() == Color::White,
        });
        let next =
            pos.update_zobrist_hash::<Zobrist64>(Zobrist64(key), m, EnPassantMode::PseudoLegal);
        pos.play_unchecked(m);
        key = match next {
            Some(z) => z.0,
            None => {
                let z: Zobrist64 = pos.zobrist_hash(EnPassantMode::PseudoLegal);
                z.0
            }
        };
    }
    CountedGame::Counted {
        moves,
        result: game.result,
    }
}

/// [`build_with_report`] over games already replayed by [`count_game`] (with the same
/// `max_ply`), in the games' order.
pub fn build_counted(
    games: impl IntoIterator<Item = CountedGame>,
    opts: &PolyglotBuildOptions,
) -> (PolyglotBook, BuildReport) {
    let mut report = BuildReport::default();
    let mut records: Vec<Rec> = Vec::new();
    for game in games {
        report.games += 1;
        match game {
            CountedGame::NonStandardStart => report.skipped_non_standard_start += 1,
            CountedGame::Illegal => report.skipped_illegal += 1,
            CountedGame::Counted { moves, result } => {
                if records.len() + moves.len() >= u32::MAX as usize - 2048 {
                    report.skipped_capacity += 1;
                    continue;
                }
                report.games_used += 1;
                // Result from the point of view of the mover: +1 win, 0 draw/unknown, -1 loss.
                let white_result: i8 = match result {
                    GameResult::WhiteWins => 1,
                    GameResult::BlackWins => -1,
                    GameResult::Draw | GameResult::Unknown => 0,
                };
                for m in moves {
                    let r = if m.white { white_result } else { -white_result };
                    records.push(Rec {
                        key: m.key,
                        seq: records.len() as u32,
                        mv: m.mv,
                        score: (r + 1) as u8,
                        white: m.white,
                    });
                }
            }
        }
    }
    report.moves_counted = records.len() as u64;
    let entries = aggregate(records, opts, &mut report);
    report.entries = entries.len() as u64;
    (PolyglotBook { entries }, report)
}

/// Sorts records by (key, seq) and aggregates them: one counting pass and one scatter pass
/// on the top bits of the key (keys are uniformly distributed hashes), then per bucket a
/// small sort and the per-position pass. Buckets hold disjoint key ranges, so with many
/// records contiguous runs of buckets are sorted and aggregated on several threads and the
/// results concatenated in key order (the output is the same as one pass).
fn aggregate(
    records: Vec<Rec>,
    opts: &PolyglotBuildOptions,
    report: &mut BuildReport,
) -> Vec<Entry> {
    let n = records.len();
    let by_key_seq = |r: &Rec| (r.key, r.seq);
    if n < 1 << 14 {
        let mut records = records;
        records.sort_unstable_by_key(by_key_seq);
        return aggregate_sorted(&records, opts, report);
    }
    // About 16 records per bucket, at most 2^20 buckets.
    let bits = (usize::BITS - (n / 16).leading_zeros()).clamp(10, 20);
    let shift = 64 - bits;
    let mut starts = vec![0usize; (1 << bits) + 1];
    for r in &records {
        starts[(r.key >> shift) as usize + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut next = starts.clone();
    let blank = Rec {
        key: 0,
        seq: 0,
        mv: 0,
        score: 0,
        white: false,
    };
    let mut out = vec![blank; n];
    for r in records {
        let b = (r.key >> shift) as usize;
        out[next[b]] = r;
        next[b] += 1;
    }
    drop(next);
    let threads = if n >= 1 << 16 {
        std::thread::available_parallelism().map_or(1, |t| t.get().min(4))
    } else {
        1
    };
    // Cut the buckets into `threads` runs of about n / threads records each.
    let mut cuts = vec![0usize];
    for t in 1..threads {
        let target = n * t / threads;
        let b = starts.partition_point(|&s| s < target);
        let at = starts[b.min(starts.len() - 1)];
        if at > *cuts.last().expect("non-empty") && at < n {
            cuts.push(at);
        }
    }
    cuts.push(n);
    let work = |part: &mut [Rec], base: usize| -> (Vec<Entry>, BuildReport) {
        let end = base + part.len();
        let first = starts.partition_point(|&s| s < base);
        let mut b = first;
        while b + 1 < starts.len() && starts[b] < end {
            let (lo, hi) = (starts[b] - base, starts[b + 1].min(end) - base);
            part[lo..hi].sort_unstable_by_key(by_key_seq);
            b += 1;
        }
        let mut r = BuildReport::default();
        let entries = aggregate_sorted(part, opts, &mut r);
        (entries, r)
    };
    let mut parts: Vec<(&mut [Rec], usize)> = Vec::new();
    let mut rest: &mut [Rec] = &mut out;
    for w in cuts.windows(2) {
        let (head, tail) = rest.split_at_mut(w[1] - w[0]);
        parts.push((head, w[0]));
        rest = tail;
    }
    let results: Vec<(Vec<Entry>, BuildReport)> = if parts.len() == 1 {
        parts.into_iter().map(|(p, base)| work(p, base)).collect()
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = parts
                .into_iter()
                .map(|(p, base)| scope.spawn(move || work(p, base)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        })
    };
    let mut entries = Vec::with_capacity(results.iter().map(|r| r.0.len()).sum());
    for (e, r) in results {
        entries.extend(e);
        report.halvings += r.halvings;
        report.entries_before_filter += r.entries_before_filter;
    }
    entries
}

/// The per-position pass over records sorted by (key, seq).
fn aggregate_sorted(
    records: &[Rec],
    opts: &PolyglotBuildOptions,
    report: &mut BuildReport,
) -> Vec<Entry> {
    let min_score = opts.min_score / 100.0;
    let mut out = Vec::new();
    let mut accs: Vec<Acc> = Vec::new();
    let mut kept: Vec<Acc> = Vec::new();
    let mut i = 0;
    while i < records.len() {
        let key = records[i].key;
        let mut j = i;
        accs.clear();
        while j < records.len() && records[j].key == key {
            let r = records[j];
            let idx = match accs.iter().position(|a| a.mv == r.mv) {
                Some(idx) => idx,
                None => {
                    accs.push(Acc {
                        mv: r.mv,
                        n: 0,
                        sum: 0,
                        first: r.seq,
                        white: r.white,
                    });
                    accs.len() - 1
                }
            };
            let a = &mut accs[idx];
            a.n += 1;
            a.sum += u32::from(r.score);
            if a.n >= COUNT_MAX {
                report.halvings += 1;
                for a in accs.iter_mut() {
                    a.n = a.n.div_ceil(2);
                    a.sum = a.sum.div_ceil(2);
                }
            }
            j += 1;
        }
        report.entries_before_filter += accs.len() as u64;
        kept.clear();
        kept.extend(accs.iter().copied().filter(|a| keep(a, opts, min_score)));
        let weight = |a: &Acc| if opts.uniform { 1 } else { a.sum };
        kept.sort_by(|a, b| weight(b).cmp(&weight(a)).then(a.first.cmp(&b.first)));
        out.extend(kept.iter().map(|a| Entry {
            key,
            raw_move: a.mv,
            weight: weight(a) as u16,
            learn: 0,
        }));
        i = j;
    }
    out
}

/// `keep_entry()` of `make-book`.
fn keep(a: &Acc, opts: &PolyglotBuildOptions, min_score: f64) -> bool {
    if a.n < opts.min_game || a.sum == 0 {
        return false;
    }
    let score = (f64::from(a.sum) / f64::from(a.n)) / 2.0;
    if score < min_score {
        return false;
    }
    if (opts.only_black && a.white) || (opts.only_white && !a.white) {
        return false;
    }
    true
}
