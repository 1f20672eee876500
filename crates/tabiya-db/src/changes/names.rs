//! What changes the entries of names, on a database: computing them again, the user's
//! rules, Scid's spelling file loaded or brought from another database (what they answer on
//! a snapshot is in `answers/persons.rs`).

use crate::game::Dict;
use crate::persons::rules::{NAME_RULES, NameRule};
use crate::persons::{
    ENTRY_DICTS, Entries, SPELLING, load_rules, load_spelling, read_entries, rebuild_into,
};
use crate::{Database, Error, Kind, Result};

impl Database {
    /// Computes the entries of every dictionary again (after an import; see the module).
    pub fn rebuild_names(&self) -> Result<()> {
        if self.kind() != Kind::Chess {
            return Ok(());
        }
        let _lock = self.lock_changes();
        let w = self.store.write()?;
        let read = self.store.read()?;
        let rules: Vec<NameRule> = load_rules(&read)?.into_iter().map(|(_, r)| r).collect();
        let ssp = load_spelling(&read)?;
        let all = rebuild_into(&read, &w, &rules, ssp.as_ref())?;
        crate::gamesets::names_changed(self, &read, &w, &all)?;
        w.commit()?;
        self.committed();
        Ok(())
    }

    /// The rules given so far, with their sequence numbers.
    pub fn name_rules(&self) -> Result<Vec<(u32, NameRule)>> {
        load_rules(&self.store.read()?)
    }

    /// Changes the rules — drops those numbered `drop`, then adds `add` — and computes the
    /// entries again, in one transaction. Returns the entries before and after, of the
    /// rules' dictionary.
    pub fn change_name_rules(
        &self,
        dict: Dict,
        drop: &[u32],
        add: Option<NameRule>,
    ) -> Result<(Entries, Entries)> {
        self.check_names_kind()?;
        if let Some(NameRule::Rename { display, .. }) = &add {
            check_display_name(dict, display)?;
        }
        let _lock = self.lock_changes();
        let w = self.store.write()?;
        let read = self.store.read()?;
        let before = match read_entries(&read, dict)? {
            Some(e) => e,
            None => {
                let rules: Vec<NameRule> = load_rules(&read)?.into_iter().map(|(_, r)| r).collect();
                let ssp = load_spelling(&read)?;
                let all = rebuild_into(&read, &w, &rules, ssp.as_ref())?;
                all.into_iter()
                    .find(|e| e.dict == dict)
                    .expect("every dictionary")
            }
        };
        let mut rules = load_rules(&read)?;
        let next = rules.last().map_or(0, |(k, _)| k + 1);
        w.with_table(NAME_RULES, |t| {
            for k in drop {
                t.remove(&k.to_be_bytes())?;
            }
            if let Some(r) = &add {
                t.put(&next.to_be_bytes(), &r.encode())?;
            }
            Ok(())
        })?;
        rules.retain(|(k, _)| !drop.contains(k));
        let mut rules: Vec<NameRule> = rules.into_iter().map(|(_, r)| r).collect();
        rules.extend(add);
        let ssp = load_spelling(&read)?;
        let all = rebuild_into(&read, &w, &rules, ssp.as_ref())?;
        crate::gamesets::names_changed(self, &read, &w, &all)?;
        w.commit()?;
        self.committed();
        let after = all
            .into_iter()
            .find(|e| e.dict == dict)
            .expect("every dictionary");
        Ok((before, after))
    }

    /// Loads Scid's spelling file (its bytes, plain or zstd) into the database and computes
    /// the entries again: its correct names win from then on, for the games stored and those
    /// imported later. Returns the file's warnings and the entries of every dictionary.
    pub fn load_spelling(
        &self,
        file_name: &str,
        bytes: &[u8],
    ) -> Result<(tabiya_names::ssp::Spelling, Vec<Entries>, Vec<Entries>)> {
        self.check_names_kind()?;
        let raw = if bytes.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
            unpack_spelling(file_name, bytes)?
        } else {
            bytes.to_vec()
        };
        let spelling = tabiya_names::ssp::Spelling::read(&raw[..])
            .map_err(|e| Error::Input(format!("{file_name}: {e}")))?;
        if spelling.is_empty() {
            return Err(Error::Input(format!(
                "{file_name}: no @PLAYER, @EVENT, @SITE or @ROUND section with names: not a Scid spelling file"
            )));
        }
        let packed =
            zstd::encode_all(&raw[..], 9).map_err(|e| Error::Input(format!("{file_name}: {e}")))?;
        let _lock = self.lock_changes();
        let w = self.store.write()?;
        let read = self.store.read()?;
        let before: Vec<Entries> = ENTRY_DICTS
            .iter()
            .filter_map(|&d| read_entries(&read, d).transpose())
            .collect::<Result<_>>()?;
        w.with_table(SPELLING, |t| {
            t.put(b"ssp", &packed)?;
            t.put(b"file", file_name.as_bytes())
        })?;
        let rules: Vec<NameRule> = load_rules(&read)?.into_iter().map(|(_, r)| r).collect();
        let after = rebuild_into(&read, &w, &rules, Some(&spelling))?;
        crate::gamesets::names_changed(self, &read, &w, &after)?;
        w.commit()?;
        self.committed();
        Ok((spelling, before, after))
    }

    fn check_names_kind(&self) -> Result<()> {
        if self.kind() != Kind::Chess {
            return Err(Error::Usage(format!(
                "{} is an Othello database: its names are WTHOR's (tabiya wthor)",
                self.dir().display()
            )));
        }
        Ok(())
    }
}

impl Database {
    /// Brings another database's corrections of names (those this one has not) and, when
    /// this one has none, its spelling file; computes the entries again if anything came.
    /// Returns the rules added and the spelling file's name if it came.
    pub fn adopt_names(&self, other: &Database) -> Result<(u64, Option<String>)> {
        self.check_names_kind()?;
        let theirs = other.store.read()?;
        let their_rules: Vec<NameRule> = load_rules(&theirs)?.into_iter().map(|(_, r)| r).collect();
        let their_spelling = theirs.table(SPELLING)?;
        let _lock = self.lock_changes();
        let w = self.store.write()?;
        let read = self.store.read()?;
        let mine = load_rules(&read)?;
        let mut next = mine.last().map_or(0, |(k, _)| k + 1);
        let mut rules: Vec<NameRule> = mine.into_iter().map(|(_, r)| r).collect();
        let mut added = 0;
        w.with_table(NAME_RULES, |t| {
            for r in their_rules {
                if !rules.contains(&r) {
                    t.put(&next.to_be_bytes(), &r.encode())?;
                    next += 1;
                    added += 1;
                    rules.push(r);
                }
            }
            Ok(())
        })?;
        let mut spelling = None;
        let mut ssp = load_spelling(&read)?;
        if ssp.is_none()
            && let (Some(bytes), file) = (their_spelling.get(b"ssp")?, their_spelling.get(b"file")?)
        {
            let name = file.map_or_else(
                || "spelling file".to_string(),
                |f| String::from_utf8_lossy(&f).into_owned(),
            );
            w.with_table(SPELLING, |t| {
                t.put(b"ssp", &bytes)?;
                t.put(b"file", name.as_bytes())
            })?;
            let raw = zstd::decode_all(&bytes[..])
                .map_err(|e| Error::Corrupt(format!("the stored spelling file: {e}")))?;
            ssp = Some(
                tabiya_names::ssp::Spelling::read(&raw[..])
                    .map_err(|e| Error::Corrupt(format!("the stored spelling file: {e}")))?,
            );
            spelling = Some(name);
        }
        if added > 0 || spelling.is_some() {
            let all = rebuild_into(&read, &w, &rules, ssp.as_ref())?;
            crate::gamesets::names_changed(self, &read, &w, &all)?;
            w.commit()?;
            self.committed();
        }
        Ok((added, spelling))
    }
}

/// Refuses a name to show for an entry that its games could not carry: `export
/// --canonical-names` writes it as the value of the entry's tag (White and Black, Event,
/// Site, Annotator, Round), and a tag the import would refuse (a line end, a NUL byte, a
/// line past the bound, `tabiya_pgn::bounds::tag_refusal`) would lose the game to any
/// database made from the export.
fn check_display_name(dict: Dict, display: &str) -> Result<()> {
    let tag = match dict {
        Dict::Player => "White",
        Dict::Event => "Event",
        Dict::Site => "Site",
        Dict::Round => "Round",
        Dict::Annotator => "Annotator",
        Dict::TagName => return Ok(()),
    };
    match tabiya_pgn::bounds::tag_refusal(tag, display) {
        None => Ok(()),
        Some(why) => Err(Error::Usage(format!(
            "the name {:?} cannot be shown: games are exported under it (--canonical-names), and {why}",
            shortened(display)
        ))),
    }
}

/// The first 40 characters of a long text, for a message.
fn shortened(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// Most bytes a compressed spelling file may unpack to (Scid's own is some 30 MB): past it,
/// the file is refused rather than filling the memory (a decompression bomb).
const MAX_SPELLING_BYTES: u64 = 256 << 20;

/// A zstd-compressed spelling file unpacked, within [`MAX_SPELLING_BYTES`]; a truncated or
/// damaged one refused, saying how far it read.
fn unpack_spelling(file_name: &str, bytes: &[u8]) -> Result<Vec<u8>> {
    let mut raw = Vec::new();
    let within = zstd::stream::read::Decoder::new(bytes)
        .and_then(|mut d| tabiya_files::read_within(&mut d, MAX_SPELLING_BYTES, &mut raw));
    let within = within.map_err(|e| {
        Error::Input(format!(
            "{file_name}: zstd data truncated or damaged after {} bytes unpacked ({e})",
            raw.len()
        ))
    })?;
    if !within {
        return Err(Error::Input(format!(
            "{file_name}: unpacks to more than {} MiB: not a spelling file",
            MAX_SPELLING_BYTES >> 20
        )));
    }
    Ok(raw)
}
