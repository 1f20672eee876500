//! What the entries of names answer on a snapshot: a dictionary's entries, the spelling
//! file loaded, the games naming some spellings (moved from `persons/commands.rs`; what
//! changes them is in `changes/names.rs`).

use crate::Result;
use crate::codec::Reader;
use crate::game::Dict;
use crate::persons::rules::NameRule;
use crate::persons::{Entries, SPELLING, compute, load_rules, load_spelling, read_entries};
use crate::players::scan_players;

impl crate::Snapshot<'_> {
    /// The entries of a dictionary (computed here, not kept, for a database whose entries
    /// were never computed).
    pub fn entries(&self, dict: Dict) -> Result<Entries> {
        if let Some(e) = read_entries(self.read_tx(), dict)? {
            return Ok(e);
        }
        let rules: Vec<NameRule> = load_rules(self.read_tx())?
            .into_iter()
            .map(|(_, r)| r)
            .collect();
        let ssp = load_spelling(self.read_tx())?;
        Ok(compute(self.read_tx(), &rules, ssp.as_ref())?
            .into_iter()
            .find(|e| e.dict == dict)
            .expect("every dictionary"))
    }

    /// The name of the spelling file loaded, if any.
    pub fn spelling_file(&self) -> Result<Option<String>> {
        Ok(self
            .read_tx()
            .table(SPELLING)?
            .get(b"file")?
            .map(|v| String::from_utf8_lossy(&v).into_owned()))
    }
}

impl crate::Snapshot<'_> {
    /// Games naming any of these spellings (players: games played, each side once; events,
    /// sites and annotators: read from each game's tags).
    pub fn games_with_spellings(&self, dict: Dict, spellings: &[u32]) -> Result<u64> {
        if spellings.is_empty() {
            return Ok(0);
        }
        let mut sorted = spellings.to_vec();
        sorted.sort_unstable();
        let has = |id: u32| sorted.binary_search(&id).is_ok();
        let mut n = 0u64;
        if dict == Dict::Player {
            scan_players(self.read_tx(), |_, p| {
                n += p.into_iter().flatten().filter(|&id| has(id)).count() as u64;
            })?;
            return Ok(n);
        }
        // Annotators are kept as written among a game's other tags: by their spellings.
        let annotator_tag = match dict {
            Dict::Annotator => {
                let tags = self.names().all(Dict::TagName)?;
                tags.into_iter()
                    .find(|(_, n)| n == "Annotator")
                    .map(|(i, _)| i)
            }
            _ => None,
        };
        let annotators: Vec<String> = if dict == Dict::Annotator {
            let all: std::collections::HashMap<u32, String> =
                self.names().all(Dict::Annotator)?.into_iter().collect();
            sorted.iter().filter_map(|i| all.get(i).cloned()).collect()
        } else {
            Vec::new()
        };
        for id in self.all_game_ids()? {
            let Some(data) = self.game_record(id)? else {
                continue;
            };
            let mut r = Reader::new(&data);
            let tags = crate::chess::stored::skip_tags(&mut r)?;
            let names_it = if dict == Dict::Annotator {
                crate::chess::tags::extra_tags(tags)?
                    .into_iter()
                    .any(|(t, v)| Some(t) == annotator_tag && annotators.contains(&v))
            } else {
                crate::chess::tags::tag_part_ids(tags)?
                    .into_iter()
                    .any(|(d, i)| d == dict && has(i))
            };
            n += u64::from(names_it);
        }
        Ok(n)
    }
}

impl crate::Snapshot<'_> {
    /// The spelling file loaded into the database, read, if any.
    pub fn spelling(&self) -> Result<Option<tabiya_names::ssp::Spelling>> {
        load_spelling(self.read_tx())
    }
}
