//! WTHOR: a `.wtb` game file, a `.jou` player file and a `.trn` tournament file together
//! (one input cut in three), parsed; every game's moves read and replayed, its names looked up.
#![no_main]
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use tabiya_othello::replay_game;
use tabiya_othello::wthor::{GameFile, NameFile, NameKind};

fuzz_target!(|data: &[u8]| {
    let p = tabiya_fuzz::parts(data, 3);
    let players = NameFile::parse(p[1], Path::new("fuzz.jou"), NameKind::Players).ok();
    let events = NameFile::parse(p[2], Path::new("fuzz.trn"), NameKind::Tournaments).ok();
    let Ok(file) = GameFile::parse(p[0], Path::new("fuzz.wtb")) else {
        return;
    };
    let _ = file.to_bytes();
    for (i, g) in file.games.iter().enumerate() {
        if let Ok(squares) = file.squares(i) {
            let _ = replay_game(&squares);
        }
        let _ = g.coords();
        if let Some(n) = &players {
            let _ = (n.name(g.black), n.name(g.white));
        }
        if let Some(n) = &events {
            let _ = n.name(g.tournament);
        }
    }
});
