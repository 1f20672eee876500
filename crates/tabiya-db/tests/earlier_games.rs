//! The earlier games kept from game to game (`EarlierGames`) give the same counts as each
//! position looked up afresh, whatever the cache's room: with room for everything, with so
//! little that positions are dropped (the small ones first, then all) and the biggest never
//! kept, and with none. Several runs (imports in small batches), and games deleted after.

use std::path::PathBuf;

use shakmaty::{Chess, Position};
use tabiya_db::chess::EarlierGames;
use tabiya_db::{Database, ImportOptions, ImportProgress, Kind};

fn twic() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/pgn/twic/twic0920.pgn")
}

/// A game's main line as positions, its start first.
fn line(g: &tabiya_pgn::Game) -> Vec<Chess> {
    let mut pos = g.start.clone();
    let mut out = vec![pos.clone()];
    for n in &g.moves {
        pos.play_unchecked(n.mv);
        out.push(pos.clone());
    }
    out
}

#[test]
fn kept_counts_equal_fresh_lookups_whatever_the_room() {
    let tmp = tempfile::tempdir().unwrap();
    let db = Database::open_or_create(&tmp.path().join("db"), Kind::Chess, None).unwrap();
    let options = ImportOptions {
        batch_games: 300,
        ..ImportOptions::default()
    };
    db.import(&[twic()], &options, &ImportProgress::default())
        .unwrap();
    db.delete_games(&[3, 40, 41]).unwrap();
    let snap = db.snapshot().unwrap();
    let ids: Vec<u32> = (1..=120).filter(|id| ![3, 40, 41].contains(id)).collect();
    let mut roomy = EarlierGames::default();
    let mut tight = EarlierGames::with_budget(1500);
    let mut dates = [0u32, 20120615, 20120620, 20130101].into_iter().cycle();
    for &id in &ids {
        let game = snap.chess_game(id).unwrap().unwrap();
        let positions = line(&game);
        // The game's own date, and others: before, during and after the file's dates.
        for date in [snap.facts(id).unwrap().date, dates.next().unwrap()] {
            let fresh = snap
                .chess_earlier_games(&positions, date, Some(id))
                .unwrap();
            let a = snap
                .chess_earlier_games_kept(&mut roomy, &positions, date, Some(id))
                .unwrap();
            let b = snap
                .chess_earlier_games_kept(&mut tight, &positions, date, Some(id))
                .unwrap();
            assert_eq!(a, fresh, "game {id} at {date}: kept with room");
            assert_eq!(b, fresh, "game {id} at {date}: kept with little room");
            // Not stored: nothing left out.
            let free = snap.chess_earlier_games(&positions, date, None).unwrap();
            let c = snap
                .chess_earlier_games_kept(&mut roomy, &positions, date, None)
                .unwrap();
            assert_eq!(c, free, "game {id} at {date}, as if not stored");
        }
    }
    assert!(
        roomy.positions() > 1000,
        "{} positions kept",
        roomy.positions()
    );
    assert!(tight.positions() < roomy.positions());
}
