//! Patterns judged against pgn-extract's own `FENPattern` (and `FENPatternI`, either colour)
//! on real games: the games it selects from a file are exactly those in which one of the
//! positions of the main line matches here (the games read and replayed with pgn-reader and
//! shakmaty, independently of Tabiya's PGN reading). Needs Debian's `pgn-extract`, which
//! `scripts/test` installs.

#[path = "../../tabiya-compact/tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use shakmaty::{Chess, Position};
use tabiya_structure::Pattern;

/// Games as (White, Black, plies): enough to tell the selected sequence from another.
fn identities(games: &[common::RawGame]) -> Vec<(String, String, usize)> {
    games
        .iter()
        .map(|g| {
            (
                g.white.clone().unwrap_or_default(),
                g.black.clone().unwrap_or_default(),
                g.sans.len(),
            )
        })
        .collect()
}

/// The games of `file` pgn-extract selects with this tag criterion.
fn pgn_extract(file: &Path, tag: &str, pattern: &str, dir: &Path) -> Vec<(String, String, usize)> {
    let criteria = dir.join("criteria");
    std::fs::write(&criteria, format!("{tag} \"{pattern}\"\n")).unwrap();
    let out = dir.join("out.pgn");
    let _ = std::fs::remove_file(&out);
    let o = Command::new("/usr/games/pgn-extract")
        .arg("-s")
        .arg("-t")
        .arg(&criteria)
        .arg("-o")
        .arg(&out)
        .arg(file)
        .output()
        .expect("pgn-extract (Debian's pgn-extract) runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    identities(&common::read_games(
        &std::fs::read(&out).unwrap_or_default(),
    ))
}

/// The games of `games` in which a position of the main line (the first included) matches.
fn ours(games: &[common::RawGame], p: &Pattern, either: bool) -> Vec<(String, String, usize)> {
    let q = either.then(|| p.flipped());
    let hit =
        |pos: &Chess| p.matches(pos.board()) || q.as_ref().is_some_and(|q| q.matches(pos.board()));
    let selected: Vec<common::RawGame> = games
        .iter()
        .filter(|g| {
            let mut pos = Chess::default();
            if hit(&pos) {
                return true;
            }
            for san in &g.sans {
                let Ok(m) = san.san.to_move(&pos) else {
                    return false;
                };
                pos.play_unchecked(m);
                if hit(&pos) {
                    return true;
                }
            }
            false
        })
        .map(|g| common::RawGame {
            white: g.white.clone(),
            black: g.black.clone(),
            sans: g.sans.clone(),
            ..Default::default()
        })
        .collect();
    identities(&selected)
}

#[test]
fn the_games_pgn_extract_selects_and_no_other() {
    let file = PathBuf::from(common::DATA).join("pgn/pgnmentor/Kasparov.pgn");
    let games: Vec<common::RawGame> = common::read_games(&std::fs::read(&file).unwrap())
        .into_iter()
        .filter(|g| g.fen.is_none())
        .collect();
    assert!(games.len() > 1900);
    let dir = std::env::temp_dir().join(format!("tabiya-structure-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut tried, mut telling) = (0, 0);
    for pattern in [
        // An isolated queen's pawn (White): d4, no pawn on c- or e-files, anywhere on them.
        "*/*/*/*/3P4/*/*/*",
        // Carlsbad-like pawns: c6, d5 against d4 (pieces anywhere).
        "*/*/??p?????/???p????/???P????/*/*/*",
        // A white knight on d5 before a black pawn on d6.
        "*/*/???p????/???N????/*/*/*/*",
        // A rook on the seventh.
        "*/R*/*/*/*/*/*/*",
        // Kings on opposite wings: white king on g1, black king on b8.
        "1[k]*/*/*/*/*/*/*/6K1",
        "?[^k]k*/*/*/*/*/*/*/*",
        // White pawns on d5 and e5; on c4 and d4.
        "*/*/*/???PP???/*/*/*/*",
        "*/*/*/*/??PP????/*/*/*",
        // A black piece on c6 and a white one on c3; an occupied d4 and e5, d5 and e4 empty.
        "*/*/2a*/*/*/2A*/*/*",
        "*/*/*/???1!???/???!1???/*/*/*",
    ] {
        let p = Pattern::parse(pattern).unwrap();
        for (tag, either) in [("FENPattern", false), ("FENPatternI", true)] {
            let theirs = pgn_extract(&file, tag, pattern, &dir);
            let mine = ours(&games, &p, either);
            assert_eq!(
                mine.len(),
                theirs.len(),
                "{tag} {pattern}: {} games here, {} by pgn-extract",
                mine.len(),
                theirs.len()
            );
            assert_eq!(mine, theirs, "{tag} {pattern}");
            eprintln!("{tag} {pattern}: {} games", mine.len());
            if !mine.is_empty() && mine.len() < games.len() {
                telling += 1;
            }
            tried += 1;
        }
    }
    assert_eq!(tried, 20);
    // Not vacuous: most criteria select some games and leave others.
    assert!(
        telling >= 18,
        "only {telling} of 20 criteria told games apart"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
