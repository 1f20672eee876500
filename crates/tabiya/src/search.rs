//! `tabiya search`: the games in which a pattern, a material signature or a pawn structure
//! holds, answered as the explorer answers a position (docs/search.md).

use std::io::Write;

use clap::Args;
use tabiya_service::search::{SearchPage, StructureSearch, StructureText};

use crate::args::{ChessFilterArgs, DbSetArg, SortArg};
use crate::output::print_json;

#[derive(Args)]
pub struct SearchArgs {
    #[command(flatten)]
    pub db: DbSetArg,
    /// A pattern in pgn-extract's FENPattern syntax: ranks 8 to 1 separated by /; a piece
    /// letter, a digit (that many empty squares), ? (any square), ! (any occupied square),
    /// A / a (any white / black piece), * (any run of squares), [..] and [^..] (sets)
    #[arg(long, value_name = "PATTERN")]
    pub pattern: Option<String>,
    /// A material signature: White's pieces, v, Black's (KRPvKR); P* any number of pawns,
    /// P+ one or more, m a minor piece (KRvKmm: a rook against two minor pieces)
    #[arg(long, value_name = "SIGNATURE")]
    pub material: Option<String>,
    /// A pawn structure: a board of pawns only (8/pp3ppp/2p5/3p4/3P4/4P3/PP3PPP/8), matched
    /// by exactly these pawns
    #[arg(long, value_name = "BOARD")]
    pub pawns: Option<String>,
    /// Also match with colours swapped (ranks reversed, White's pieces Black's)
    #[arg(long, visible_alias = "either-color")]
    pub either_colour: bool,
    /// The query must hold in N consecutive positions (plies), the first of them counted
    #[arg(long = "for", value_name = "N", default_value_t = 1)]
    pub hold: u32,
    /// Each side has one bishop, on squares of opposite colours
    #[arg(long)]
    pub opposite_bishops: bool,
    /// Games of this player only (any spelling of theirs, any case)
    #[arg(long, value_name = "NAME")]
    pub player: Option<String>,
    #[command(flatten)]
    pub chess: ChessFilterArgs,
    /// Order of the game list
    #[arg(long, value_enum, default_value = "rating")]
    pub sort: SortArg,
    /// Games listed
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Games skipped before the list
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// Pawn structures reached next to list (with --pawns)
    #[arg(long, default_value_t = 10)]
    pub next: usize,
    /// Moves from the first matching position to list, the most played first (all when
    /// not given)
    #[arg(long)]
    pub moves: Option<usize>,
    /// Print the answer as JSON (the same as GET /api/search)
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: SearchArgs) -> anyhow::Result<()> {
    let db = crate::source::open_set(&args.db)?;
    let text = StructureText {
        pattern: args.pattern.clone(),
        material: args.material.clone(),
        pawns: args.pawns.clone(),
        either_colour: args.either_colour,
        hold: args.hold,
        opposite_bishops: args.opposite_bishops,
    };
    let filter = args.chess.filter(args.player.as_deref())?;
    let page = SearchPage {
        sort: args.sort.into(),
        offset: args.offset,
        limit: args.limit,
        next: args.next,
        moves: args.moves.unwrap_or(usize::MAX),
    };
    let answer = db.ask(&tabiya_service::reads::Search { text, filter, page })?;
    if args.json {
        return print_json(&answer);
    }
    print(&answer, args.offset)?;
    if answer.unindexed >= UNINDEXED_HINT {
        eprintln!(
            "note: {} games are not in the structure index and were read one by one; `tabiya db structures --db {}` indexes them (see docs/search.md)",
            answer.unindexed,
            args.db.dir().display()
        );
    }
    Ok(())
}

/// Games read one by one from which a search says how to index them.
const UNINDEXED_HINT: u64 = 10_000;

fn share(n: u64, of: u64) -> String {
    if of == 0 {
        return "-".into();
    }
    format!("{:.0}%", n as f64 * 100.0 / of as f64)
}

fn print(a: &StructureSearch, offset: usize) -> anyhow::Result<()> {
    let mut w = std::io::stdout().lock();
    let known = a.white + a.draws + a.black;
    writeln!(
        w,
        "{} games match: white wins {} ({}), draws {} ({}), black wins {} ({}){}",
        a.games,
        a.white,
        share(a.white, known),
        a.draws,
        share(a.draws, known),
        a.black,
        share(a.black, known),
        if a.unknown > 0 {
            format!(", {} without a result", a.unknown)
        } else {
            String::new()
        }
    )?;
    if let Some(r) = a.average_rating {
        writeln!(w, "average rating {r}")?;
    }
    if !a.moves.is_empty() {
        writeln!(w, "\nmoves from the first matching position:")?;
        writeln!(
            w,
            "{:<10} {:>7} {:>6} {:>6} {:>6} {:>6} {:>6}",
            "move", "games", "white", "draws", "black", "avg", "perf"
        )?;
        let keys: Vec<(&str, &str)> = a.moves.iter().map(|m| (&*m.san, &*m.uci)).collect();
        for m in &a.moves {
            let k = m.white + m.draws + m.black;
            let name = told_apart(&keys, &m.san, &m.uci);
            writeln!(
                w,
                "{:<10} {:>7} {:>6} {:>6} {:>6} {:>6} {:>6}",
                name,
                m.games(),
                share(m.white, k),
                share(m.draws, k),
                share(m.black, k),
                m.average_rating.map_or("-".into(), |r| r.to_string()),
                m.performance.map_or("-".into(), |r| r.to_string()),
            )?;
        }
        let more = a.distinct_moves.saturating_sub(a.moves.len() as u64);
        if more > 0 {
            writeln!(w, "({more} more moves: --moves {})", a.distinct_moves)?;
        }
        if a.ended > 0 {
            writeln!(w, "(ended there: {})", a.ended)?;
        }
    }
    if let Some(next) = a.next.as_ref().filter(|n| !n.is_empty()) {
        writeln!(w, "\npawn structures reached next:")?;
        for s in next {
            let k = s.white + s.draws + s.black;
            writeln!(
                w,
                "{:<40} {:>7} games  white {} draws {} black {}",
                s.pawns,
                s.games,
                share(s.white, k),
                share(s.draws, k),
                share(s.black, k)
            )?;
        }
    }
    if !a.list.is_empty() {
        writeln!(
            w,
            "\ngames {}–{} of {}:",
            offset + 1,
            offset + a.list.len(),
            a.games
        )?;
        writeln!(
            w,
            "{:<9} {:<28} {:<28} {:<8} {:<10} {:>5} {:<7} event",
            "id", "white", "black", "result", "date", "ply", "move"
        )?;
        for g in &a.list {
            let who = |p: &tabiya_service::explore::Player| match p.rating {
                Some(r) => format!("{} ({r})", p.name),
                None => p.name.clone(),
            };
            writeln!(
                w,
                "#{:<8} {:<28} {:<28} {:<8} {:<10} {:>5} {:<7} {}",
                g.id,
                who(&g.white),
                who(&g.black),
                g.result,
                g.date,
                g.ply,
                g.san.as_deref().unwrap_or("-"),
                g.event
            )?;
        }
    }
    Ok(())
}

/// A move's name among `moves` (SAN, UCI): moves of one SAN from different games' positions
/// are told apart by their from square, or by their UCI when that is shared too, as the
/// page tells them (`sanApart` in `search-view.js`).
fn told_apart(moves: &[(&str, &str)], san: &str, uci: &str) -> String {
    let from = |u: &str| u.get(..2).map(str::to_owned);
    let same_san = moves.iter().filter(|(s, _)| *s == san).count();
    let same_from = moves
        .iter()
        .filter(|(s, u)| *s == san && from(u) == from(uci))
        .count();
    match (same_san, same_from, from(uci)) {
        (0 | 1, _, _) | (_, _, None) => san.to_string(),
        (_, 0 | 1, Some(f)) => format!("{san} {f}"),
        _ => format!("{san} {uci}"),
    }
}

#[cfg(test)]
mod tests {
    use super::told_apart;

    #[test]
    fn moves_of_one_san_are_told_apart() {
        let moves = [
            ("...Nxd5", "f6d5"),
            ("...exd5", "e6d5"),
            ("...Nxd5", "b6d5"),
            ("O-O", "e1g1"),
            ("O-O", "e1h1"),
        ];
        let names: Vec<String> = moves
            .iter()
            .map(|(s, u)| told_apart(&moves, s, u))
            .collect();
        assert_eq!(
            names,
            [
                "...Nxd5 f6",
                "...exd5",
                "...Nxd5 b6",
                "O-O e1g1",
                "O-O e1h1"
            ]
        );
    }
}
