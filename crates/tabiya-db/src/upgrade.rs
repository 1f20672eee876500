//! Bringing a database of an earlier format up to this one, once, when it is opened.
//!
//! Format 2 (Tabiya after the server came) adds what the explorer's filters need without
//! decoding games: each chess game's time-control class (in its facts' last byte, 0 until
//! then) and its players' name ids (the `players` table). A format-1 database gets them from
//! its stored games in one transaction (about 5 µs a game), then says format 2.

use tabiya_store::Store;

use crate::chess::stored::time_control_and_players;
use crate::facts::set_speeds;
use crate::game::Dict;
use crate::names::NameCache;
use crate::players::{Players, write_players};
use crate::records::Records;
use crate::schema::{Kind, META};
use crate::speed::Speed;
use crate::trace::trace;
use crate::{Error, Result};

/// Upgrades a database of format `from` to the current format, in one transaction.
pub(crate) fn upgrade(store: &Store, kind: Kind, from: u32) -> Result<()> {
    if from != 1 {
        return Err(Error::Usage(format!(
            "this database was written in format {from}; this Tabiya reads formats 1 and {}",
            crate::FORMAT_VERSION
        )));
    }
    let t0 = std::time::Instant::now();
    let w = store.write()?;
    if kind == Kind::Chess {
        let read = store.read()?;
        let games = Records::new(&read)?;
        let names = NameCache::load(&read)?;
        let tc = names.get(Dict::TagName, "TimeControl");
        let ids = games.ids()?;
        let mut speeds: Vec<(u32, Option<Speed>)> = Vec::with_capacity(ids.len());
        let mut players: Vec<Players> = Vec::with_capacity(ids.len());
        let first = ids.first().copied().unwrap_or(1);
        for &id in &ids {
            let data = games
                .get(id)?
                .ok_or_else(|| Error::Corrupt(format!("game {id} is missing")))?;
            let (speed, p) = time_control_and_players(&data, tc)?;
            speeds.push((id, speed));
            // Game ids are dense from the first; a gap (never made by an import) keeps none.
            let at = (id - first) as usize;
            if players.len() < at {
                players.resize(at, [None, None]);
            }
            players.push(p);
        }
        set_speeds(&w, &speeds)?;
        write_players(&w, first, &players)?;
        trace(&format!("upgrade: {} games to format 2", ids.len()), t0);
    }
    w.with_table(META, |t| {
        t.put(b"version", crate::FORMAT_VERSION.to_string().as_bytes())
    })?;
    w.commit()?;
    Ok(())
}
