//! Criteria made ready to judge games: names resolved to what they mean in the database
//! (every spelling of the person, event or site), positions given their keys, repertoire
//! files read into trees of moves; conditions ordered cheapest first (facts and players
//! before tags, tags before moves) so that most games are judged without being decoded.

use std::collections::{HashMap, HashSet};

use shakmaty::{Chess, Color, Position, Role};

use super::criteria::{Cond, Expr, Material, NameField, Range, RatingField, TextOp};
use super::game_view::GameView;
use super::ids::IdSet;
use crate::chess::openings::named_key;
use crate::chess::position_key;
use crate::game::Dict;
use crate::persons::{Entries, Selector};
use crate::stats::GameOutcome;
use crate::{Error, Result};

/// A condition, ready.
pub(crate) enum Leaf {
    /// White (0), Black (1) or either (`None`) is the person.
    Player {
        side: Option<usize>,
        sel: Selector,
        folded: String,
    },
    PlayerContains {
        side: Option<usize>,
        folded: String,
    },
    /// The event or site is the one named (any spelling).
    NameIs {
        dict: Dict,
        tag: &'static str,
        sel: Selector,
        folded: String,
    },
    NameContains {
        tag: &'static str,
        folded: String,
    },
    Tag {
        tag: String,
        op: TextOp,
        folded: String,
    },
    Has(String),
    Result(Vec<GameOutcome>),
    Rating(RatingField, Range),
    Date(Range),
    Year(Range),
    Plies(Range),
    Opening {
        op: TextOp,
        lower: String,
    },
    /// The position's key; the games the index lists for it below `known_below`.
    Reaches {
        key: u128,
        known: Option<(u32, IdSet)>,
    },
    Material(Material),
    Structure(std::sync::Arc<tabiya_structure::Query>),
    Annotated,
    Follows {
        tree: HashMap<u128, HashSet<u128>>,
        plies: Option<u32>,
    },
}

/// Criteria, ready.
pub(crate) enum Node {
    And(Vec<Node>),
    Or(Vec<Node>),
    Not(Box<Node>),
    Leaf(Leaf),
}

/// What compiling needs from the database.
pub(crate) trait Resolver {
    /// The entries of a dictionary (players, events, sites).
    fn entries(&mut self, dict: Dict) -> Result<&Entries>;
    /// Every spelling of a dictionary.
    fn spellings(&mut self, dict: Dict) -> Result<&[(u32, String)]>;
    /// The games the index lists as reaching a position (`None`: judge each game by its
    /// moves), and the id from which games are not covered.
    fn reaching(&mut self, fen: &str) -> Result<Option<(u32, IdSet)>>;
    /// A repertoire file's text, by the name given in the criteria.
    fn file(&mut self, name: &str) -> Result<String>;
}

fn fold(s: &str) -> String {
    tabiya_names::fold(s)
}

fn selector(r: &mut dyn Resolver, dict: Dict, value: &str) -> Result<Selector> {
    let names = r.spellings(dict)?.to_vec();
    let entries = r.entries(dict)?;
    let ids = entries.resolve(&names, value);
    Ok(entries.selector(&ids))
}

/// Compiles a parsed criterion.
pub(crate) fn compile(e: &Expr, r: &mut dyn Resolver) -> Result<Node> {
    Ok(match e {
        Expr::And(parts) => {
            let mut nodes = parts
                .iter()
                .map(|p| compile(p, r))
                .collect::<Result<Vec<_>>>()?;
            nodes.sort_by_key(cost);
            Node::And(nodes)
        }
        Expr::Or(parts) => {
            let mut nodes = parts
                .iter()
                .map(|p| compile(p, r))
                .collect::<Result<Vec<_>>>()?;
            nodes.sort_by_key(cost);
            Node::Or(nodes)
        }
        Expr::Not(inner) => Node::Not(Box::new(compile(inner, r)?)),
        Expr::Cond(c) => Node::Leaf(leaf(c, r)?),
    })
}

fn leaf(c: &Cond, r: &mut dyn Resolver) -> Result<Leaf> {
    Ok(match c {
        Cond::Name { field, op, value } => {
            let side = match field {
                NameField::White => Some(Some(0)),
                NameField::Black => Some(Some(1)),
                NameField::Player => Some(None),
                _ => None,
            };
            let (dict, tag) = match field {
                NameField::Event => (Dict::Event, "Event"),
                NameField::Site => (Dict::Site, "Site"),
                _ => (Dict::Player, "White"),
            };
            match (side, op) {
                (Some(side), TextOp::Is) => Leaf::Player {
                    side,
                    sel: selector(r, dict, value)?,
                    folded: fold(value),
                },
                (Some(side), TextOp::Contains) => Leaf::PlayerContains {
                    side,
                    folded: fold(value),
                },
                (None, TextOp::Is) => Leaf::NameIs {
                    dict,
                    tag,
                    sel: selector(r, dict, value)?,
                    folded: fold(value),
                },
                (None, TextOp::Contains) => Leaf::NameContains {
                    tag,
                    folded: fold(value),
                },
            }
        }
        Cond::Tag { tag, op, value } => Leaf::Tag {
            tag: tag.clone(),
            op: *op,
            folded: fold(value),
        },
        Cond::Has(t) => Leaf::Has(t.clone()),
        Cond::Result(o) => Leaf::Result(o.clone()),
        Cond::Rating(f, range) => Leaf::Rating(*f, *range),
        Cond::Date(range) => Leaf::Date(*range),
        Cond::Year(range) => Leaf::Year(*range),
        Cond::Plies(range) => Leaf::Plies(*range),
        Cond::Opening { op, value } => Leaf::Opening {
            op: *op,
            lower: value.trim().to_lowercase(),
        },
        Cond::Reaches { key, fen } => Leaf::Reaches {
            key: *key,
            known: r.reaching(fen)?,
        },
        Cond::Material(m) => Leaf::Material(m.clone()),
        Cond::Structure(q) => Leaf::Structure(q.clone()),
        Cond::Annotated => Leaf::Annotated,
        Cond::Follows { file, plies } => Leaf::Follows {
            tree: tree(file, &r.file(file)?)?,
            plies: *plies,
        },
    })
}

/// The moves of every game and variation of a PGN text, as the positions each leads to
/// from each position (by key: transpositions inside the file join).
fn tree(name: &str, text: &str) -> Result<HashMap<u128, HashSet<u128>>> {
    let mut tree: HashMap<u128, HashSet<u128>> = HashMap::new();
    fn walk(pos: &Chess, moves: &[tabiya_pgn::Node], tree: &mut HashMap<u128, HashSet<u128>>) {
        let mut pos = pos.clone();
        for n in moves {
            for v in &n.variations {
                walk(&pos, &v.moves, tree);
            }
            let from = position_key(&pos);
            pos.play_unchecked(n.mv);
            tree.entry(from).or_default().insert(position_key(&pos));
        }
    }
    let mut games = 0;
    for item in tabiya_pgn::read_all(text.as_bytes()) {
        let (span, game) = item.map_err(|e| Error::Input(format!("{name}: {e}")))?;
        let game =
            game.map_err(|e| Error::Input(format!("{name}: the game at line {}: {e}", span.line)))?;
        walk(&game.start, &game.moves, &mut tree);
        games += 1;
    }
    if tree.is_empty() {
        return Err(Error::Input(format!(
            "{name}: no moves in {games} games: a repertoire file is PGN with moves"
        )));
    }
    Ok(tree)
}

/// How much judging a node may cost: facts and players, then names, tags, then moves.
fn cost(n: &Node) -> u8 {
    match n {
        Node::And(p) | Node::Or(p) => p.iter().map(cost).max().unwrap_or(0),
        Node::Not(p) => cost(p),
        Node::Leaf(l) => match l {
            Leaf::Result(_)
            | Leaf::Rating(..)
            | Leaf::Date(_)
            | Leaf::Year(_)
            | Leaf::Reaches { known: Some(_), .. } => 0,
            Leaf::Player { .. } | Leaf::PlayerContains { .. } => 1,
            Leaf::Annotated | Leaf::NameIs { .. } => 2,
            Leaf::NameContains { .. } | Leaf::Tag { .. } | Leaf::Has(_) => 3,
            Leaf::Plies(_) => 4,
            _ => 5,
        },
    }
}

impl Node {
    /// Whether the game meets the criteria.
    pub fn accepts(&self, g: &GameView<'_>) -> Result<bool> {
        match self {
            Node::And(parts) => {
                for p in parts {
                    if !p.accepts(g)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Node::Or(parts) => {
                for p in parts {
                    if p.accepts(g)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Node::Not(p) => Ok(!p.accepts(g)?),
            Node::Leaf(l) => l.accepts(g),
        }
    }

    /// Whether the criteria say anything of names (which then mean something else once
    /// the names' entries change).
    pub fn uses_names(&self) -> bool {
        match self {
            Node::And(p) | Node::Or(p) => p.iter().any(Node::uses_names),
            Node::Not(p) => p.uses_names(),
            Node::Leaf(l) => matches!(l, Leaf::Player { .. } | Leaf::NameIs { .. }),
        }
    }

    /// The games listed by the index for a `reaches` that every accepted game must meet
    /// (a condition of the top-level `and`): the only games worth judging.
    pub fn candidates(&self) -> Option<&IdSet> {
        match self {
            Node::Leaf(Leaf::Reaches {
                known: Some((_, set)),
                ..
            }) => Some(set),
            Node::And(parts) => parts
                .iter()
                .filter_map(Node::candidates)
                .min_by_key(|s| s.len()),
            _ => None,
        }
    }

    /// The selectors of the name conditions, in order (to tell whether they changed).
    pub fn selectors(&self, out: &mut Vec<Selector>) {
        match self {
            Node::And(p) | Node::Or(p) => p.iter().for_each(|n| n.selectors(out)),
            Node::Not(p) => p.selectors(out),
            Node::Leaf(Leaf::Player { sel, .. }) | Node::Leaf(Leaf::NameIs { sel, .. }) => {
                out.push(sel.clone())
            }
            Node::Leaf(_) => {}
        }
    }
}

fn text_matches(op: TextOp, have: &str, folded_want: &str) -> bool {
    let have = fold(have);
    match op {
        TextOp::Is => have == folded_want,
        TextOp::Contains => have.contains(folded_want),
    }
}

impl Leaf {
    fn accepts(&self, g: &GameView<'_>) -> Result<bool> {
        let f = &g.facts;
        Ok(match self {
            Leaf::Result(o) => o.contains(&f.outcome()),
            Leaf::Rating(which, range) => {
                let [w, b] = f.ratings;
                let ok = |r: Option<u16>| r.is_some_and(|r| range.contains(r as u32));
                match which {
                    RatingField::White => ok(w),
                    RatingField::Black => ok(b),
                    RatingField::Both => ok(w) && ok(b),
                    RatingField::Average => {
                        f.mean_rating().is_some_and(|m| range.contains(m as u32))
                    }
                }
            }
            Leaf::Date(range) => f.date / 10000 != 0 && range.contains(f.date),
            Leaf::Year(range) => f.date / 10000 != 0 && range.contains(f.date / 10000),
            Leaf::Plies(range) => range.contains(g.plies()?),
            Leaf::Player { side, sel, folded } => {
                let players = g.players()?;
                let one = |s: usize| -> Result<bool> {
                    Ok(players[s].is_some_and(|id| sel.matches(id, f.date))
                        || g.player_name(s)?.is_some_and(|n| fold(&n) == *folded))
                };
                match side {
                    Some(s) => one(*s)?,
                    None => one(0)? || one(1)?,
                }
            }
            Leaf::PlayerContains { side, folded } => {
                let one = |s: usize| -> Result<bool> {
                    Ok(g.player_name(s)?.is_some_and(|n| fold(&n).contains(folded)))
                };
                match side {
                    Some(s) => one(*s)?,
                    None => one(0)? || one(1)?,
                }
            }
            Leaf::NameIs {
                dict,
                tag,
                sel,
                folded,
            } => {
                g.name_id(*dict)?.is_some_and(|id| sel.matches(id, f.date))
                    || g.tag(tag)?.is_some_and(|v| fold(v) == *folded)
            }
            Leaf::NameContains { tag, folded } => {
                g.tag(tag)?.is_some_and(|v| fold(v).contains(folded))
            }
            Leaf::Tag { tag, op, folded } => {
                g.tag(tag)?.is_some_and(|v| text_matches(*op, v, folded))
            }
            Leaf::Has(tag) => g
                .tag(tag)?
                .is_some_and(|v| !v.trim().is_empty() && v.trim() != "?"),
            Leaf::Opening { op, lower } => {
                let name = g.keys()?.iter().rev().find_map(|k| named_key(*k));
                name.is_some_and(|o| {
                    let n = o.name.to_lowercase();
                    match op {
                        TextOp::Is => n.starts_with(lower.as_str()),
                        TextOp::Contains => n.contains(lower.as_str()),
                    }
                })
            }
            Leaf::Reaches { key, known } => match known {
                Some((below, set)) if g.id < *below => set.contains(g.id),
                _ => g.keys()?.contains(key),
            },
            Leaf::Annotated => g.annotated()?,
            Leaf::Material(m) => {
                let (start, _, moves) = g.line()?;
                let mut pos = start.clone();
                if material_is(&pos, m) {
                    return Ok(true);
                }
                for mv in moves {
                    pos.play_unchecked(*mv);
                    if material_is(&pos, m) {
                        return Ok(true);
                    }
                }
                false
            }
            Leaf::Structure(q) => {
                let (start, _, moves) = g.line()?;
                let mut pos = start.clone();
                let mut walk = q.walk();
                if walk.next(pos.board()).is_some() {
                    return Ok(true);
                }
                for mv in moves {
                    pos.play_unchecked(*mv);
                    if walk.next(pos.board()).is_some() {
                        return Ok(true);
                    }
                }
                false
            }
            Leaf::Follows { tree, plies } => {
                let (start, _, moves) = g.line()?;
                let mut pos = start.clone();
                let mut key = position_key(&pos);
                let limit = plies.map_or(moves.len(), |p| p as usize);
                for mv in moves.iter().take(limit) {
                    let Some(next) = tree.get(&key) else {
                        // The repertoire ends here: the game followed it to its end.
                        return Ok(true);
                    };
                    pos.play_unchecked(*mv);
                    key = position_key(&pos);
                    if !next.contains(&key) {
                        return Ok(false);
                    }
                }
                true
            }
        })
    }
}

fn material_is(pos: &Chess, m: &Material) -> bool {
    let board = pos.board();
    match m {
        Material::Queenless => board.queens().is_empty(),
        Material::Pawnless => board.pawns().is_empty(),
        Material::Exactly { white, black } => {
            let roles = [
                Role::Queen,
                Role::Rook,
                Role::Bishop,
                Role::Knight,
                Role::Pawn,
            ];
            [(Color::White, white), (Color::Black, black)]
                .iter()
                .all(|(c, want)| {
                    roles.iter().zip(want.iter()).all(|(r, n)| {
                        (board.by_role(*r) & board.by_color(*c)).count() == *n as usize
                    })
                })
        }
    }
}
