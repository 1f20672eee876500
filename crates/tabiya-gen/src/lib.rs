//! A deterministic generator of realistic PGN collections, for scale benchmarks.
//!
//! No real collection of a million games is at hand, so benchmarks at that scale use games
//! made from real ones: a [`Model`] learns from real PGN the opening tree (which move was
//! played how often in each position, up to [`Model::TREE_PLIES`]), the distribution of game
//! lengths, results and ratings, and the names of players, events and sites. [`generate`]
//! then follows the opening tree by the observed frequencies, continues with legal moves
//! (captures and checks preferred a little, as in real play) to a length drawn from the
//! real lengths, and labels the game with a result drawn from the real results (or the
//! board's, when the game ends in mate or stalemate). The same model and seed always give
//! the same bytes, made on every core (blocks of games with their own random sequences).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, Color, EnPassantMode, KnownOutcome, Move, MoveList, Position};
use tabiya_pgn::Game;

/// A small, fast, deterministic random number generator (SplitMix64): its sequence never
/// changes with a dependency update.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// What the generator learned from real games.
#[derive(Debug, Default, Clone)]
pub struct Model {
    /// Position → moves played there with their counts (sorted for determinism).
    tree: HashMap<u64, Vec<(Move, u32)>>,
    lengths: Vec<u16>,
    results: [u32; 3],
    ratings: Vec<u16>,
    players: Vec<String>,
    events: Vec<(String, String)>,
    years: Vec<u16>,
    games: u64,
}

impl Model {
    /// Depth of the learned opening tree.
    pub const TREE_PLIES: usize = 24;

    /// Learns from games (standard start only).
    pub fn learn<'a>(&mut self, games: impl IntoIterator<Item = &'a Game>) {
        let mut counts: HashMap<u64, HashMap<Move, u32>> = HashMap::new();
        for (k, moves) in self.tree.drain() {
            counts.insert(k, moves.into_iter().collect());
        }
        for g in games {
            if !g.standard_start() || g.moves.is_empty() {
                continue;
            }
            self.games += 1;
            let mut pos = g.start.clone();
            for n in g.moves.iter().take(Self::TREE_PLIES) {
                *counts
                    .entry(key(&pos))
                    .or_default()
                    .entry(n.mv)
                    .or_default() += 1;
                pos.play_unchecked(n.mv);
            }
            self.lengths
                .push(g.moves.len().min(u16::MAX as usize) as u16);
            match g.outcome() {
                Some(KnownOutcome::Decisive {
                    winner: Color::White,
                }) => self.results[0] += 1,
                Some(KnownOutcome::Draw) => self.results[1] += 1,
                Some(KnownOutcome::Decisive {
                    winner: Color::Black,
                }) => self.results[2] += 1,
                None => {}
            }
            for c in [Color::White, Color::Black] {
                if let Some(e) = g.elo(c) {
                    self.ratings.push(e);
                }
            }
            for t in ["White", "Black"] {
                if let Some(p) = g.tag(t).filter(|p| !p.is_empty() && *p != "?") {
                    self.players.push(p.to_string());
                }
            }
            self.events.push((
                g.tag("Event").unwrap_or("?").to_string(),
                g.tag("Site").unwrap_or("?").to_string(),
            ));
            if let Some(y) = g.year() {
                self.years.push(y);
            }
        }
        self.tree = counts
            .into_iter()
            .map(|(k, m)| {
                let mut v: Vec<(Move, u32)> = m.into_iter().collect();
                v.sort_by_key(|(m, c)| (std::cmp::Reverse(*c), m.to_string()));
                (k, v)
            })
            .collect();
        self.players.sort();
        self.players.dedup();
        self.events.sort();
        self.events.dedup();
        self.lengths.sort_unstable();
        self.ratings.sort_unstable();
        self.years.sort_unstable();
    }

    /// Learns from PGN text read from `r`; returns the number of games learned from.
    pub fn learn_pgn(&mut self, r: impl io::Read) -> io::Result<u64> {
        let mut games = Vec::new();
        for item in tabiya_pgn::read_all(r) {
            if let (_, Ok(g)) = item? {
                games.push(g);
            }
        }
        let before = self.games;
        self.learn(&games);
        Ok(self.games - before)
    }

    pub fn games_learned(&self) -> u64 {
        self.games
    }

    pub fn tree_positions(&self) -> usize {
        self.tree.len()
    }
}

/// Picks a move weighted by count.
fn weighted(rng: &mut Rng, moves: &[(Move, u32)]) -> Move {
    let total: u64 = moves.iter().map(|(_, c)| *c as u64).sum();
    let mut x = rng.below(total.max(1));
    for (m, c) in moves {
        if x < *c as u64 {
            return *m;
        }
        x -= *c as u64;
    }
    moves[0].0
}

fn pick<'a, T>(rng: &mut Rng, v: &'a [T]) -> Option<&'a T> {
    (!v.is_empty()).then(|| &v[rng.below(v.len() as u64) as usize])
}

/// Writes `n` games made from `model` with `seed` as PGN.
pub fn generate(model: &Model, n: u64, seed: u64, out: impl Write) -> io::Result<()> {
    generate_with_progress(model, n, seed, out, |_| {})
}

/// Games made by one task: the games of a block come from their own random sequence (the
/// seed mixed with the block's number), so blocks are made on every core and the output
/// does not depend on how many there are.
pub const BLOCK: u64 = 1024;

/// The random sequence of block `b` for `seed`.
fn block_rng(seed: u64, b: u64) -> Rng {
    let mut mix = Rng::new(seed ^ b.wrapping_mul(0xD6E8_FEB8_6659_FD93));
    Rng::new(mix.next_u64())
}

/// The PGN text of games `first..first + n` (a whole block, or the last one's start).
fn block_text(model: &Model, seed: u64, b: u64, n: u64) -> String {
    let mut rng = block_rng(seed, b);
    let mut text = String::with_capacity(n as usize * 1024);
    for i in 0..n {
        game_text(model, &mut rng, b * BLOCK + i, &mut text);
    }
    text
}

/// [`generate`], calling `progress` with the number of games written so far (after each
/// round of blocks, and at the end). Blocks of [`BLOCK`] games are made on every core (as
/// `std::thread::available_parallelism` says) and written in order: the output is the same
/// whatever the number of cores.
pub fn generate_with_progress(
    model: &Model,
    n: u64,
    seed: u64,
    out: impl Write,
    progress: impl FnMut(u64),
) -> io::Result<()> {
    let workers = std::thread::available_parallelism().map_or(1, |c| c.get());
    generate_on(model, n, seed, workers, out, progress)
}

/// [`generate_with_progress`] on `workers` threads.
pub fn generate_on(
    model: &Model,
    n: u64,
    seed: u64,
    workers: usize,
    mut out: impl Write,
    mut progress: impl FnMut(u64),
) -> io::Result<()> {
    let blocks = n.div_ceil(BLOCK);
    let workers = workers.max(1) as u64;
    // Each round makes a few blocks per worker, then writes them in order.
    let per_round = workers * 4;
    let mut b = 0;
    while b < blocks {
        let round: Vec<u64> = (b..blocks.min(b + per_round)).collect();
        let texts: Vec<String> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|w| {
                    let mine: Vec<u64> =
                        round.iter().copied().filter(|x| x % workers == w).collect();
                    scope.spawn(move || {
                        mine.into_iter()
                            .map(|x| (x, block_text(model, seed, x, BLOCK.min(n - x * BLOCK))))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            let mut made: Vec<(u64, String)> = handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_default())
                .collect();
            made.sort_by_key(|(x, _)| *x);
            made.into_iter().map(|(_, t)| t).collect()
        });
        if texts.len() != round.len() {
            return Err(io::Error::other("a generating thread failed"));
        }
        for t in &texts {
            out.write_all(t.as_bytes())?;
        }
        b += round.len() as u64;
        progress((b * BLOCK).min(n));
    }
    progress(n);
    out.flush()
}

/// One game's PGN, appended to `out`. Each position's legal moves are generated at most
/// once: they choose the next move off the book, say whether the move before gave mate (its
/// SAN's `#`) and end the game in mate or stalemate; the SAN is written as the game is played.
fn game_text(model: &Model, rng: &mut Rng, index: u64, out: &mut String) {
    let target = pick(rng, &model.lengths).copied().unwrap_or(80).max(1) as usize;
    let mut pos = Chess::default();
    let mut movetext = MoveText::default();
    let mut plies = 0;
    // The legal moves of `pos`, when they have been needed.
    let mut legal: Option<MoveList> = None;
    let mut in_tree = true;
    while plies < target {
        let book = in_tree.then(|| model.tree.get(&key(&pos))).flatten();
        let m = match book {
            // Leave the book now and then, as players do.
            Some(book) if rng.below(100) >= 3 => weighted(rng, book),
            _ => {
                in_tree = false;
                let legal = legal.get_or_insert_with(|| pos.legal_moves());
                if legal.is_empty() {
                    break;
                }
                // Prefer captures and checks a little.
                let mut best = legal[rng.below(legal.len() as u64) as usize];
                for _ in 0..2 {
                    let c = legal[rng.below(legal.len() as u64) as usize];
                    if c.is_capture() && !best.is_capture() {
                        best = c;
                    }
                }
                best
            }
        };
        if plies % 2 == 0 {
            movetext.number(plies / 2 + 1);
        }
        let san = San::from_move(&pos, m);
        pos.play_unchecked(m);
        plies += 1;
        // Only a check can be mate: the moves of a position in check are generated now (they
        // are needed next anyway), the others' when the next move leaves the book.
        let suffix = if pos.is_check() {
            let replies = pos.legal_moves();
            let mate = replies.is_empty();
            legal = Some(replies);
            Some(if mate {
                Suffix::Checkmate
            } else {
                Suffix::Check
            })
        } else {
            legal = None;
            None
        };
        movetext.san(SanPlus { san, suffix });
    }
    let no_moves = legal.unwrap_or_else(|| pos.legal_moves()).is_empty();
    let result = if no_moves && pos.is_check() {
        if pos.turn() == Color::White {
            "0-1"
        } else {
            "1-0"
        }
    } else if no_moves || pos.is_insufficient_material() {
        "1/2-1/2"
    } else {
        let total: u32 = model.results.iter().sum();
        let mut x = rng.below(total.max(1) as u64) as u32;
        let mut r = "1/2-1/2";
        for (i, c) in model.results.iter().enumerate() {
            if x < *c {
                r = ["1-0", "1/2-1/2", "0-1"][i];
                break;
            }
            x -= c;
        }
        r
    };
    let white = player(model, rng);
    let black = player(model, rng);
    let (event, site) =
        pick(rng, &model.events).map_or(("?", "?"), |(e, s)| (e.as_str(), s.as_str()));
    let year = pick(rng, &model.years).copied().unwrap_or(2000);
    let month = 1 + rng.below(12);
    let day = 1 + rng.below(28);
    tag(out, "Event", event);
    tag(out, "Site", site);
    let _ = writeln!(out, "[Date \"{year:04}.{month:02}.{day:02}\"]");
    let _ = writeln!(out, "[Round \"{}\"]", 1 + index % 13);
    tag(out, "White", &white);
    tag(out, "Black", &black);
    tag(out, "Result", result);
    // Most real games carry ratings; some do not.
    if rng.below(10) < 9
        && let (Some(w), Some(b)) = (
            pick(rng, &model.ratings).copied(),
            pick(rng, &model.ratings).copied(),
        )
    {
        let _ = writeln!(out, "[WhiteElo \"{w}\"]");
        let _ = writeln!(out, "[BlackElo \"{b}\"]");
    }
    out.push('\n');
    movetext.token(result);
    out.push_str(&movetext.text);
    out.push_str("\n\n");
}

/// A player's name drawn from the model's, or a made-up one when it learned none.
fn player<'a>(model: &'a Model, rng: &mut Rng) -> Cow<'a, str> {
    match pick(rng, &model.players) {
        Some(p) => Cow::Borrowed(p),
        None => Cow::Owned(format!("Player {}", rng.below(10_000))),
    }
}

/// A tag pair on its line, its value's double quotes made single.
fn tag(out: &mut String, name: &str, value: &str) {
    out.push('[');
    out.push_str(name);
    out.push_str(" \"");
    if value.contains('"') {
        out.push_str(&value.replace('"', "'"));
    } else {
        out.push_str(value);
    }
    out.push_str("\"]\n");
}

/// A game's moves as PGN movetext: tokens separated by a space, lines of at most 80 characters.
#[derive(Default)]
struct MoveText {
    text: String,
    line_len: usize,
    /// The token being written (a move number or a SAN), before it is placed on a line.
    token: String,
}

impl MoveText {
    fn number(&mut self, n: usize) {
        self.written(|t| {
            let _ = write!(t, "{n}.");
        });
    }

    fn san(&mut self, san: SanPlus) {
        self.written(|t| san.append_to_string(t));
    }

    /// Places the token that `write` writes (into a buffer kept between tokens).
    fn written(&mut self, write: impl FnOnce(&mut String)) {
        let mut token = std::mem::take(&mut self.token);
        token.clear();
        write(&mut token);
        self.token(&token);
        self.token = token;
    }

    fn token(&mut self, tok: &str) {
        if self.line_len + tok.len() + 1 > 80 {
            self.text.push('\n');
            self.line_len = 0;
        } else if self.line_len > 0 {
            self.text.push(' ');
            self.line_len += 1;
        }
        self.text.push_str(tok);
        self.line_len += tok.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "[Event \"E\"]\n[Site \"S\"]\n[Date \"2001.01.01\"]\n[Round \"1\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n[WhiteElo \"2500\"]\n[BlackElo \"2400\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n\n[Event \"E\"]\n[Site \"S\"]\n[Date \"2002.01.01\"]\n[Round \"2\"]\n[White \"B\"]\n[Black \"A\"]\n[Result \"1/2-1/2\"]\n\n1. d4 d5 2. c4 e6 1/2-1/2\n\n";

    #[test]
    fn same_seed_same_bytes_and_games_parse() {
        let mut m = Model::default();
        assert_eq!(m.learn_pgn(SAMPLE.as_bytes()).unwrap(), 2);
        let mut a = Vec::new();
        let mut b = Vec::new();
        generate(&m, 50, 7, &mut a).unwrap();
        generate(&m, 50, 7, &mut b).unwrap();
        assert_eq!(a, b);
        let mut c = Vec::new();
        generate(&m, 50, 8, &mut c).unwrap();
        assert_ne!(a, c);
        // The same bytes on one core as on several (blocks of their own sequence).
        let mut one = Vec::new();
        let mut three = Vec::new();
        generate_on(&m, 2 * BLOCK + 17, 7, 1, &mut one, |_| {}).unwrap();
        generate_on(&m, 2 * BLOCK + 17, 7, 3, &mut three, |_| {}).unwrap();
        assert_eq!(one, three);
        assert_eq!(
            tabiya_pgn::read_all(one.as_slice()).count() as u64,
            2 * BLOCK + 17
        );
        let games: Vec<_> = tabiya_pgn::read_all(a.as_slice())
            .map(|r| r.unwrap().1.unwrap())
            .collect();
        assert_eq!(games.len(), 50);
        // Games follow the sample's tree (1. e4 or 1. d4) but for the 3 % that leave it.
        let book = games
            .iter()
            .filter(|g| {
                ["e2e4", "d2d4"].contains(
                    &g.moves[0]
                        .mv
                        .to_uci(shakmaty::CastlingMode::Standard)
                        .to_string()
                        .as_str(),
                )
            })
            .count();
        assert!(book >= 45, "{book} of 50 games start with a book move");
    }

    /// The SAN suffixes and results the generator writes agree with the board: replaying each
    /// game's movetext with shakmaty's SAN reader, `+` follows exactly the moves that give
    /// check, `#` exactly those that give mate, and a game that ends in mate or stalemate has
    /// the board's result. Long games of mostly random moves reach mates and stalemates.
    #[test]
    fn suffixes_and_results_agree_with_the_board() {
        let mut m = Model::default();
        m.learn_pgn(SAMPLE.as_bytes()).unwrap();
        m.lengths = vec![400];
        let mut text = Vec::new();
        generate(&m, 400, 3, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let (mut mates, mut stalemates, mut checks) = (0, 0, 0);
        for game in text.split("\n\n[Event").map(|g| g.trim()) {
            let (tags, movetext) = game.split_once("\n\n").unwrap();
            let result = tags
                .lines()
                .find_map(|l| l.strip_prefix("[Result \""))
                .unwrap()
                .trim_end_matches("\"]");
            let mut tokens: Vec<&str> = movetext.split_whitespace().collect();
            assert_eq!(tokens.pop(), Some(result), "{movetext}");
            let mut pos = Chess::default();
            for tok in tokens.into_iter().filter(|t| !t.ends_with('.')) {
                let san: SanPlus = tok.parse().unwrap();
                pos.play_unchecked(san.san.to_move(&pos).unwrap());
                let expected = if pos.is_checkmate() {
                    Some(Suffix::Checkmate)
                } else if pos.is_check() {
                    Some(Suffix::Check)
                } else {
                    None
                };
                assert_eq!(san.suffix, expected, "{tok} in {movetext}");
                checks += usize::from(expected.is_some());
            }
            if pos.is_checkmate() {
                mates += 1;
                let winner = if pos.turn() == Color::White {
                    "0-1"
                } else {
                    "1-0"
                };
                assert_eq!(result, winner, "{movetext}");
            } else if pos.is_stalemate() {
                stalemates += 1;
                assert_eq!(result, "1/2-1/2", "{movetext}");
            }
        }
        assert!(
            mates > 0 && stalemates > 0 && checks > 0,
            "{mates} mates, {stalemates} stalemates, {checks} checks"
        );
    }
}
