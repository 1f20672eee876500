//! A repertoire read from a PGN file with variations (every game of the file, merged) or from
//! any book Tabiya reads, keyed by position: wherever a position stands in the file, by
//! whatever move order, it is one entry with every move the file gives there. Each place
//! that gives moves is kept too, so that two places answering one position differently can
//! be told apart (`check`).

use std::collections::{HashMap, VecDeque};
use std::path::Path;

use shakmaty::{Chess, Move, Position};
use tabiya_books::convert::BookFormat;
use tabiya_db::chess::position_key;
use tabiya_pgn::{Game, Node};

use crate::books::{BookFile, open};
use crate::cards::not_to_play;
use crate::error::{Context, Error, ErrorKind, Result};
use crate::inputs::Whole;

/// How far a book is walked from its start, in plies, and how many positions at most.
pub const BOOK_DEPTH: u32 = 60;
pub const BOOK_POSITIONS: usize = 200_000;
/// Places kept per position (the first, and those whose main move is another).
const PLACES: usize = 16;

/// A place of the file where a position stands and the moves given there (the main line's
/// move first).
#[derive(Debug, Clone)]
pub struct Place {
    /// Which root (start position) the path starts from.
    pub root: usize,
    pub path: Vec<Move>,
    pub moves: Vec<Move>,
}

/// One position of the repertoire.
#[derive(Debug, Clone)]
pub struct Entry {
    pub pos: Chess,
    /// Every move given in the position, in the order first met (a PGN's main line first).
    pub moves: Vec<Move>,
    /// The first way to the position met in the file, from root `root`.
    pub root: usize,
    pub path: Vec<Move>,
    /// Where moves are given for the position (see [`Place`]).
    pub places: Vec<Place>,
}

/// A repertoire keyed by position.
#[derive(Debug, Clone, Default)]
pub struct Repertoire {
    /// The file it was read from (for messages).
    pub name: String,
    /// The positions its lines start from (the standard start, unless a game has a FEN).
    pub roots: Vec<Chess>,
    entries: HashMap<u128, Entry>,
    /// Keys in the order first met, so that answers repeat.
    order: Vec<u128>,
    /// Things that were wrong in the file but did not stop it from being read.
    pub warnings: Vec<String>,
}

impl Repertoire {
    /// Reads a repertoire: a book when the file is one (by its extension), else PGN, plain
    /// or compressed: a regular file, it and its text each at most 64 MiB
    /// ([`Whole::Repertoire`]).
    pub fn open(path: &Path) -> Result<Repertoire> {
        if BookFormat::from_extension(path).is_some() {
            return Repertoire::from_book(&BookFile::new(path));
        }
        let bytes = crate::inputs::read_whole_unpacked(path, Whole::Repertoire)?;
        Repertoire::from_pgn(&path.display().to_string(), &bytes)
    }

    /// A repertoire from PGN text (all its games; their variations are lines too).
    pub fn from_pgn(name: &str, bytes: &[u8]) -> Result<Repertoire> {
        let mut rep = Repertoire {
            name: name.to_string(),
            ..Repertoire::default()
        };
        for item in tabiya_pgn::read_all(bytes) {
            crate::deadline::check()?;
            let (span, game) =
                item.context(ErrorKind::BadInput, || format!("cannot read {name}"))?;
            match game {
                Ok(game) => {
                    for w in &game.warnings {
                        rep.warnings
                            .push(format!("{name}: the game at line {}: {w}", span.line));
                    }
                    rep.add_game(&game);
                }
                Err(e) => rep.warnings.push(format!(
                    "{name}: the game at line {} was left out: {e}",
                    span.line
                )),
            }
        }
        rep.check_not_empty()
    }

    /// A repertoire from a book: every position reached from the standard start by the
    /// book's moves (to [`BOOK_DEPTH`] plies, at most [`BOOK_POSITIONS`] positions); the
    /// moves the book marks as not to play (CTG's red, `?`, `??`, `?!`, a Polyglot weight of
    /// 0) are left out.
    pub fn from_book(book: &BookFile) -> Result<Repertoire> {
        let name = book.name();
        let any = open(book)?;
        let mut rep = Repertoire {
            name: name.clone(),
            roots: vec![Chess::default()],
            ..Repertoire::default()
        };
        let mut queue = VecDeque::from([(Chess::default(), Vec::<Move>::new())]);
        let mut seen = std::collections::HashSet::from([position_key(&Chess::default())]);
        while let Some((pos, path)) = queue.pop_front() {
            let (found, _) = any
                .position_at(&pos)
                .context(ErrorKind::BadInput, || format!("cannot probe book {name}"))?;
            let moves: Vec<Move> = found
                .map(|f| {
                    f.moves
                        .iter()
                        .filter(|m| !not_to_play(m))
                        .map(|m| m.mv)
                        .collect()
                })
                .unwrap_or_default();
            rep.add_place(0, &pos, &path, &moves);
            if path.len() as u32 >= BOOK_DEPTH {
                continue;
            }
            for &m in &moves {
                let mut child = pos.clone();
                child.play_unchecked(m);
                if seen.len() < BOOK_POSITIONS && seen.insert(position_key(&child)) {
                    let mut line = path.clone();
                    line.push(m);
                    queue.push_back((child, line));
                }
            }
        }
        if seen.len() >= BOOK_POSITIONS {
            rep.warnings.push(format!(
                "{name}: only the first {BOOK_POSITIONS} positions of the book were read"
            ));
        }
        rep.check_not_empty()
    }

    fn check_not_empty(self) -> Result<Repertoire> {
        if self.entries.values().all(|e| e.moves.is_empty()) {
            let why = match self.warnings.first() {
                Some(w) => format!(" ({w})"),
                None => String::new(),
            };
            return Err(Error::new(
                ErrorKind::BadInput,
                format!(
                    "no moves could be read from the repertoire {}{why}",
                    self.name
                ),
            ));
        }
        Ok(self)
    }

    fn add_game(&mut self, game: &Game) {
        let root = match self.roots.iter().position(|r| same(r, &game.start)) {
            Some(i) => i,
            None => {
                self.roots.push(game.start.clone());
                self.roots.len() - 1
            }
        };
        self.add_line(root, &game.start, &mut Vec::new(), &game.moves, false);
    }

    /// The moves of `line` from `start` (reached by `path`), then its variations, each
    /// after the main line (so the first way met to a position is the main line's). With
    /// `first_given`, the line's first move was given already (with its alternatives) at
    /// the place the line branches from.
    fn add_line(
        &mut self,
        root: usize,
        start: &Chess,
        path: &mut Vec<Move>,
        line: &[Node],
        first_given: bool,
    ) {
        let depth = path.len();
        let mut pos = start.clone();
        let mut branches = Vec::new();
        for (i, node) in line.iter().enumerate() {
            if !(first_given && i == 0) {
                let mut here = Vec::new();
                alternatives(node, &mut here);
                self.add_place(root, &pos, path, &here);
            }
            if !node.variations.is_empty() {
                branches.push((pos.clone(), path.clone(), node));
            }
            pos.play_unchecked(node.mv);
            path.push(node.mv);
        }
        self.add_place(root, &pos, path, &[]);
        for (at, mut way, node) in branches {
            for v in &node.variations {
                self.add_line(root, &at, &mut way, &v.moves, true);
            }
        }
        path.truncate(depth);
    }

    fn add_place(&mut self, root: usize, pos: &Chess, path: &[Move], moves: &[Move]) {
        let key = position_key(pos);
        let entry = self.entries.entry(key).or_insert_with(|| {
            self.order.push(key);
            Entry {
                pos: pos.clone(),
                moves: Vec::new(),
                root,
                path: path.to_vec(),
                places: Vec::new(),
            }
        });
        if moves.is_empty() {
            return;
        }
        for m in moves {
            if !entry.moves.contains(m) {
                entry.moves.push(*m);
            }
        }
        let differs = entry.places.iter().all(|p| p.moves[0] != moves[0]);
        if entry.places.is_empty() || (differs && entry.places.len() < PLACES) {
            entry.places.push(Place {
                root,
                path: path.to_vec(),
                moves: moves.to_vec(),
            });
        }
    }

    /// The entry of a position, if the repertoire has it.
    pub fn get(&self, pos: &Chess) -> Option<&Entry> {
        self.entries.get(&position_key(pos))
    }

    /// The entry of a position key.
    pub fn get_key(&self, key: u128) -> Option<&Entry> {
        self.entries.get(&key)
    }

    /// The moves the repertoire gives in a position (none when it has none there).
    pub fn moves_at(&self, pos: &Chess) -> &[Move] {
        self.get(pos).map_or(&[], |e| &e.moves)
    }

    /// Every position, in the order first met.
    pub fn entries(&self) -> impl Iterator<Item = (u128, &Entry)> {
        self.order.iter().map(|k| (*k, &self.entries[k]))
    }

    /// How many positions it holds (with moves or not).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A move and its alternatives (its variations' first moves, and theirs), main first.
fn alternatives(node: &Node, out: &mut Vec<Move>) {
    out.push(node.mv);
    for v in &node.variations {
        if let Some(first) = v.moves.first() {
            alternatives(first, out);
        }
    }
}

fn same(a: &Chess, b: &Chess) -> bool {
    position_key(a) == position_key(b)
}
