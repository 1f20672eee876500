//! Walking a book from the start position: `dump-book`, `info-book` and conversion.
//!
//! A Polyglot book stores only hashes, so its positions can be found only by playing book
//! moves from a known position.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt::Write as _;

use shakmaty::san::SanPlus;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, Color, EnPassantMode, Move, Position};

use super::{EntrySource, decode_among, key};
use crate::{BookMove, BookPosition};

/// Legal book moves of `pos` with a weight above zero, in stored order (duplicates kept):
/// `gen_book_moves()` of polyglot.
fn weighted_book_moves(src: &impl EntrySource, pos: &Chess) -> Vec<(Move, u16)> {
    let entries = src.entries_for_key(key(pos));
    if entries.iter().all(|e| e.weight == 0) {
        return Vec::new();
    }
    let legal = pos.legal_moves();
    entries
        .into_iter()
        .filter(|e| e.weight > 0)
        .filter_map(|e| {
            decode_among(pos, &legal, e.raw_move)
                .ok()
                .map(|m| (m, e.weight))
        })
        .collect()
}

/// Key of the position after `m` (legal in `pos`, whose key is `k`), without playing the move
/// where shakmaty can update the hash incrementally.
fn child_key(pos: &Chess, k: u64, m: Move) -> u64 {
    match pos.update_zobrist_hash::<Zobrist64>(Zobrist64(k), m, EnPassantMode::PseudoLegal) {
        Some(z) => z.0,
        None => {
            let mut child = pos.clone();
            child.play_unchecked(m);
            key(&child)
        }
    }
}

/// Whether the position with key `k` (`pos`) has at least one legal book move with a weight
/// above zero.
fn has_weighted_book_move(src: &impl EntrySource, pos: &Chess, k: u64) -> bool {
    let entries = src.entries_for_key(k);
    if entries.iter().all(|e| e.weight == 0) {
        return false;
    }
    let legal = pos.legal_moves();
    entries
        .iter()
        .any(|e| e.weight > 0 && decode_among(pos, &legal, e.raw_move).is_ok())
}

/// One move of a dumped line.
#[derive(Debug, Clone, PartialEq)]
pub struct DumpMove {
    pub mv: Move,
    /// SAN with check marks, as `dump-book` prints it.
    pub san: String,
    /// For moves of the dumped colour: weight / sum of the weights of the position's book
    /// moves. `None` for the opponent's moves.
    pub probability: Option<f64>,
    /// For moves of the dumped colour: the entry's weight. `None` for the opponent's moves.
    pub weight: Option<u16>,
}

/// How a dumped line ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnd {
    /// The book has nothing more.
    Leaf,
    /// The position was reached before, on line `line` at ply `ply`.
    Transposition { line: usize, ply: usize },
    /// The position already occurs on this line at ply `ply`.
    Cycle { ply: usize },
}

/// One line of a dump.
#[derive(Debug, Clone, PartialEq)]
pub struct DumpLine {
    /// 1-based line number.
    pub number: usize,
    pub moves: Vec<DumpMove>,
    pub end: LineEnd,
}

/// The lines a book gives one colour, as `polyglot dump-book -color C` walks them.
#[derive(Debug, Clone, PartialEq)]
pub struct Dump {
    pub colour: Color,
    pub lines: Vec<DumpLine>,
    /// Distinct positions with book entries where the dumped colour was to move and the walk
    /// looked at its book moves (`info-book`'s "positions on lines").
    pub positions_on_lines: usize,
}

impl Dump {
    /// The dump as `polyglot dump-book` writes it (`book_name` goes into the first line).
    /// The order of lines can differ from polyglot's where the opponent has several moves:
    /// polyglot tries them in its own move-generation order, Tabiya in shakmaty's.
    pub fn to_text(&self, book_name: &str) -> String {
        let mut s = String::new();
        let colour = match self.colour {
            Color::White => "white",
            Color::Black => "black",
        };
        let _ = writeln!(s, "Dump of \"{book_name}\" for {colour}.");
        for line in &self.lines {
            let _ = write!(s, "{}: ", line.number);
            for (i, m) in line.moves.iter().enumerate() {
                if i % 2 == 0 {
                    let _ = write!(s, "{}. ", i / 2 + 1);
                }
                s.push_str(&m.san);
                match m.probability {
                    Some(p) => {
                        let _ = write!(s, "{{{:.0}%}} ", 100.0 * p);
                    }
                    None => s.push(' '),
                }
            }
            match line.end {
                LineEnd::Leaf => {}
                LineEnd::Transposition { line, ply } => {
                    let _ = write!(s, "{{trans: line={line}, ply={ply}}}");
                }
                LineEnd::Cycle { ply } => {
                    let _ = write!(s, "{{cycle: ply={ply}}}");
                }
            }
            s.push('\n');
        }
        s
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The dumped colour moves: follow book moves.
    Book,
    /// The opponent moves: follow every legal move that leads to a position with book moves.
    All,
}

struct Frame {
    pos: Chess,
    kind: Kind,
    children: Vec<(Move, Option<(f64, u16)>)>,
    next: usize,
    count: usize,
}

struct Search {
    colour: Color,
    record: bool,
    lines: Vec<DumpLine>,
    line: usize,
    path: Vec<DumpMove>,
    path_keys: Vec<u64>,
    visited: HashMap<u64, (usize, usize)>,
    book_positions: HashSet<u64>,
}

impl Search {
    fn end_line(&mut self, end: LineEnd) {
        if self.record {
            self.lines.push(DumpLine {
                number: self.line,
                moves: self.path.clone(),
                end,
            });
        }
        self.line += 1;
    }

    /// Enters `pos`: `Err(1)` when the line ends here (cycle or transposition), `Ok(frame)`
    /// otherwise.
    fn enter(&mut self, src: &impl EntrySource, pos: Chess, kind: Kind) -> Result<Frame, usize> {
        let k = key(&pos);
        let height = self.path.len();
        if let Some(ply) = self.path_keys[..height].iter().position(|&x| x == k) {
            self.end_line(LineEnd::Cycle { ply });
            return Err(1);
        }
        self.path_keys.truncate(height);
        self.path_keys.push(k);
        if let Some(&(ply, line)) = self.visited.get(&k) {
            self.end_line(LineEnd::Transposition { line, ply });
            return Err(1);
        }
        self.visited.insert(k, (height, self.line));
        let children = match kind {
            Kind::Book => {
                if !src.key_range(k).is_empty() {
                    self.book_positions.insert(k);
                }
                let moves = weighted_book_moves(src, &pos);
                let total: u64 = moves.iter().map(|&(_, w)| u64::from(w)).sum();
                moves
                    .into_iter()
                    .map(|(m, w)| (m, Some((f64::from(w) / total as f64, w))))
                    .collect()
            }
            Kind::All => pos
                .legal_moves()
                .into_iter()
                .filter(|&m| {
                    let ck = child_key(&pos, k, m);
                    if src.key_range(ck).is_empty() {
                        return false;
                    }
                    let mut child = pos.clone();
                    child.play_unchecked(m);
                    has_weighted_book_move(src, &child, ck)
                })
                .map(|m| (m, None))
                .collect(),
        };
        Ok(Frame {
            pos,
            kind,
            children,
            next: 0,
            count: 0,
        })
    }

    fn run(&mut self, src: &impl EntrySource) {
        let start = Chess::default();
        let root_kind = if self.colour == Color::White {
            Kind::Book
        } else {
            Kind::All
        };
        let mut stack = match self.enter(src, start, root_kind) {
            Ok(frame) => vec![frame],
            Err(_) => return,
        };
        while let Some(top) = stack.last_mut() {
            if top.next < top.children.len() {
                let (m, share) = top.children[top.next];
                top.next += 1;
                let mut child = top.pos.clone();
                let san = SanPlus::from_move_and_play_unchecked(&mut child, m).to_string();
                let kind = if top.kind == Kind::Book {
                    Kind::All
                } else {
                    Kind::Book
                };
                self.path.push(DumpMove {
                    mv: m,
                    san,
                    probability: share.map(|(p, _)| p),
                    weight: share.map(|(_, w)| w),
                });
                match self.enter(src, child, kind) {
                    Ok(frame) => stack.push(frame),
                    Err(ret) => self.finish_child(&mut stack, ret),
                }
            } else {
                let count = top.count;
                stack.pop();
                if !stack.is_empty() {
                    self.finish_child(&mut stack, count);
                }
            }
        }
    }

    /// A child of the top frame returned `ret`.
    fn finish_child(&mut self, stack: &mut [Frame], ret: usize) {
        let Some(parent) = stack.last_mut() else {
            return;
        };
        let mut ret = ret;
        if ret == 0 && parent.kind == Kind::Book {
            let end = LineEnd::Leaf;
            if self.record {
                self.lines.push(DumpLine {
                    number: self.line,
                    moves: self.path.clone(),
                    end,
                });
            }
            self.line += 1;
            ret = 1;
        }
        parent.count += ret;
        self.path.pop();
    }
}

fn search(src: &impl EntrySource, colour: Color, record: bool) -> Search {
    let mut s = Search {
        colour,
        record,
        lines: Vec::new(),
        line: 1,
        path: Vec::new(),
        path_keys: Vec::new(),
        visited: HashMap::new(),
        book_positions: HashSet::new(),
    };
    s.run(src);
    s
}

/// The lines the book gives `colour`, as `polyglot dump-book -color` computes them: from the
/// start position, the colour's moves follow the book (legal moves with weight above zero,
/// in stored order, with their share of the position's weight), the opponent's moves are
/// every legal move after which the book has a move; a line ends where the book has
/// nothing more, at a position seen before (transposition) or at a repetition (cycle).
pub fn dump(src: &impl EntrySource, colour: Color) -> Dump {
    let s = search(src, colour, true);
    Dump {
        colour,
        positions_on_lines: s.book_positions.len(),
        lines: s.lines,
    }
}

/// Summary of a book (`polyglot info-book` and more).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BookInfo {
    /// Entries in the file.
    pub entries: u64,
    /// Distinct keys (positions, up to hash collisions).
    pub distinct_keys: u64,
    /// Entries with weight 0 (never played by engines).
    pub zero_weight_entries: u64,
    /// Entries whose learn field is not 0.
    pub nonzero_learn_entries: u64,
    /// Sum and maximum of the weights.
    pub weight_total: u64,
    pub weight_max: u16,
    /// Positions with entries reached from the start position by [`read_positions`].
    pub reachable_positions: u64,
    /// Entries of those positions, and the rest.
    pub reachable_entries: u64,
    pub unreachable_entries: u64,
    /// Entries of reachable positions whose move is not legal there (or malformed).
    pub illegal_moves: u64,
    /// `info-book`'s "Lines for white" / "Lines for black": lines of [`dump`].
    pub lines_for_white: u64,
    pub lines_for_black: u64,
    /// `info-book`'s "Positions on lines for white" / "... for black".
    pub positions_on_lines_white: u64,
    pub positions_on_lines_black: u64,
    /// `info-book`'s "Isolated positions": distinct non-zero keys on no line of either colour.
    pub isolated_positions: u64,
}

/// Counts what [`BookInfo`] describes.
pub fn info(src: &impl EntrySource) -> BookInfo {
    let mut info = BookInfo {
        entries: src.len() as u64,
        ..BookInfo::default()
    };
    let mut last: Option<u64> = None;
    let mut nonzero_keys = 0u64;
    for i in 0..src.len() {
        let Some(e) = src.entry(i) else { break };
        if last != Some(e.key) {
            info.distinct_keys += 1;
            if e.key != 0 {
                nonzero_keys += 1;
            }
            last = Some(e.key);
        }
        if e.weight == 0 {
            info.zero_weight_entries += 1;
        }
        if e.learn != 0 {
            info.nonzero_learn_entries += 1;
        }
        info.weight_total += u64::from(e.weight);
        info.weight_max = info.weight_max.max(e.weight);
    }
    let mut walk = read_positions(src, &[Chess::default()]);
    for _ in walk.by_ref() {}
    let r = walk.report();
    info.reachable_positions = r.positions;
    info.reachable_entries = r.entries_reached;
    info.unreachable_entries = r.entries_unreached;
    info.illegal_moves = r.illegal_entries;

    let white = search(src, Color::White, false);
    let black = search(src, Color::Black, false);
    info.lines_for_white = (white.line - 1) as u64;
    info.lines_for_black = (black.line - 1) as u64;
    info.positions_on_lines_white = white.book_positions.len() as u64;
    info.positions_on_lines_black = black.book_positions.len() as u64;
    let on_lines = white
        .book_positions
        .union(&black.book_positions)
        .filter(|&&k| k != 0)
        .count();
    info.isolated_positions = nonzero_keys.saturating_sub(on_lines as u64);
    info
}

/// What a [`PositionWalk`] found (final once the walk is exhausted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WalkReport {
    /// Positions yielded.
    pub positions: u64,
    /// Entries of the yielded positions.
    pub entries_reached: u64,
    /// Entries of the book not reached: `len - entries_reached`.
    pub entries_unreached: u64,
    /// Entries of yielded positions whose move is not legal there; they are left out of the
    /// yielded [`BookPosition`]s.
    pub illegal_entries: u64,
}

/// Iterator over the positions of a book reachable from some roots; see [`read_positions`].
pub struct PositionWalk<'a, S: EntrySource> {
    src: &'a S,
    queue: VecDeque<(Chess, u64)>,
    seen: HashSet<u64>,
    report: WalkReport,
}

impl<S: EntrySource> PositionWalk<'_, S> {
    /// Counts so far; final once the iterator has returned `None`.
    pub fn report(&self) -> WalkReport {
        let mut r = self.report.clone();
        r.entries_unreached = (self.src.len() as u64).saturating_sub(r.entries_reached);
        r
    }
}

impl<S: EntrySource> PositionWalk<'_, S> {
    fn has_entries(&self, k: u64) -> bool {
        !self.src.key_range(k).is_empty()
    }
}

impl<S: EntrySource> Iterator for PositionWalk<'_, S> {
    type Item = BookPosition;

    fn next(&mut self) -> Option<BookPosition> {
        loop {
            let (pos, k) = self.queue.pop_front()?;
            let entries = self.src.entries_for_key(k);
            let legal = pos.legal_moves();
            // Book moves lead on even into positions without entries (which then only
            // bridge one ply, below).
            let mut moves = Vec::with_capacity(entries.len());
            for e in &entries {
                let Ok(m) = decode_among(&pos, &legal, e.raw_move) else {
                    self.report.illegal_entries += 1;
                    continue;
                };
                let mut child = pos.clone();
                child.play_unchecked(m);
                let ck = key(&child);
                if self.seen.insert(ck) {
                    self.queue.push_back((child, ck));
                }
                moves.push(BookMove {
                    mv: m,
                    annotation: None,
                    weight: Some(e.weight),
                    learn: Some(e.learn),
                    stats: None,
                    green: None,
                    red: None,
                    commentary: None,
                });
            }
            // Every legal move into a position that has entries (transpositions, the other
            // colour's positions of a book built for one colour).
            for &m in legal.iter() {
                let ck = child_key(&pos, k, m);
                if !self.seen.contains(&ck) && self.has_entries(ck) {
                    self.seen.insert(ck);
                    let mut child = pos.clone();
                    child.play_unchecked(m);
                    self.queue.push_back((child, ck));
                }
            }
            if entries.is_empty() {
                continue;
            }
            self.report.positions += 1;
            self.report.entries_reached += entries.len() as u64;
            return Some(BookPosition {
                position: pos,
                stats: None,
                recommendation: None,
                commentary: None,
                moves,
            });
        }
    }
}

/// The positions of a book reachable from `roots` (usually just the start position),
/// breadth first, each position once (by key). From every position reached the walk plays
/// (1) its legal book moves, continuing even into positions without entries, and (2) every
/// other legal move that leads into a position with entries. Positions without entries
/// therefore bridge exactly one ply. This reaches every position `polyglot dump-book` reaches
/// for either colour (its opponent rule is (2)), transpositions included, and reads
/// one-colour books (built with `-only-white`/`-only-black`).
///
/// Every yielded position has at least one entry; its legal entries become [`BookMove`]s in
/// stored order with weight and learn. [`PositionWalk::report`] tells how many entries were
/// not reached and how many were illegal.
pub fn read_positions<'a, S: EntrySource>(src: &'a S, roots: &[Chess]) -> PositionWalk<'a, S> {
    let mut seen = HashSet::new();
    let mut queue = VecDeque::new();
    for root in roots {
        let k = key(root);
        if seen.insert(k) {
            queue.push_back((root.clone(), k));
        }
    }
    PositionWalk {
        src,
        queue,
        seen,
        report: WalkReport::default(),
    }
}
