//! The tree as an opening book: every position shown with its moves shown (the player's
//! and the opponents' replies), written by `tabiya-books`' writers — the ones `book build`
//! and `book convert` use — from the shared [`BookPosition`] model. Polyglot: each move
//! weighted by its games (at most 65,535); CTG: positions and moves with their results
//! from the side to move (a CTG move shows the games of the position it leads to).

use std::path::Path;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess};
use tabiya_books::convert::{BookFormat, polyglot_from_positions, write_polyglot};
use tabiya_books::ctg::{self, CtgWriteOptions};
use tabiya_books::{BookMove, BookPosition, BookStats};

use super::{Preparation, Score, Written};
use crate::books::open::book_error_kind;
use crate::books::paths::create_parent;
use crate::error::{Context, Error, ErrorKind, Result};

/// A score from the player's side as a book's, from the side to move (`player` to move or
/// not).
fn book_stats(s: &Score, player: bool) -> BookStats {
    let (wins, losses) = if player {
        (s.wins, s.losses)
    } else {
        (s.losses, s.wins)
    };
    BookStats {
        games: s.games,
        wins,
        draws: s.draws,
        losses,
        ..BookStats::default()
    }
}

/// The positions of the tree in the books' model.
fn positions(prep: &Preparation) -> Result<Vec<BookPosition>> {
    let mut out = Vec::with_capacity(prep.positions.len());
    for p in &prep.positions {
        let pos: Chess = Fen::from_ascii(p.fen.as_bytes())
            .ok()
            .and_then(|f| f.into_position(CastlingMode::Standard).ok())
            .ok_or_else(|| Error::bad_input(format!("position {} cannot be read", p.fen)))?;
        let mut moves = Vec::with_capacity(p.moves.len());
        for m in &p.moves {
            let mv = UciMove::from_ascii(m.uci.as_bytes())
                .ok()
                .and_then(|u| u.to_move(&pos).ok())
                .ok_or_else(|| Error::bad_input(format!("move {} is not legal", m.uci)))?;
            moves.push(BookMove {
                mv,
                annotation: None,
                weight: Some(m.score.games.min(u64::from(u16::MAX)) as u16),
                learn: None,
                stats: Some(book_stats(&m.score, p.player_to_move)),
                green: None,
                red: None,
                commentary: None,
            });
        }
        out.push(BookPosition {
            position: pos,
            stats: Some(book_stats(&p.score, p.player_to_move)),
            recommendation: None,
            commentary: None,
            moves,
        });
    }
    Ok(out)
}

/// Writes the tree as a Polyglot (`.bin`) or CTG book (`out` a stem or `.ctg`: writes
/// `.ctg/.cto/.ctb/.ini`).
pub fn write_book(prep: &Preparation, format: BookFormat, out: &Path) -> Result<Written> {
    let positions = positions(prep)?;
    create_parent(out)?;
    match format {
        BookFormat::Polyglot => {
            let (book, report) = polyglot_from_positions(&positions, 1);
            write_polyglot(&book, out).map_err(|e| Error::transparent(book_error_kind(&e), e))?;
            Ok(Written {
                format: format.name(),
                files: vec![out.to_path_buf()],
                positions: report.positions,
                moves: book.entries().len() as u64,
            })
        }
        BookFormat::Ctg => {
            let name = ctg::book_stem(out)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned());
            let w = ctg::write_book(
                out,
                positions,
                &CtgWriteOptions {
                    games: Some(prep.score.games.min(u64::from(u32::MAX)) as u32),
                    name,
                    ..CtgWriteOptions::default()
                },
            )
            .context(ErrorKind::Io, || format!("cannot write {}", out.display()))?;
            Ok(Written {
                format: format.name(),
                files: w.files.clone(),
                positions: w.records_written,
                moves: w.moves_written,
            })
        }
        BookFormat::Kvetka => Err(Error::bad_request(
            "a preparation is written as a polyglot or ctg book (or PGN)",
        )),
    }
}
