//! Scid's spelling file (`.ssp`), read and matched as Scid 4.7 / 5.x (`spellchk.h`,
//! `spellchk.cpp`, `sc_name spellcheck`) reads and matches it. The format is described in
//! `docs/formats/ssp.md`.

mod info;
mod load;
mod rules;

use std::io::BufRead;

pub use info::{PartialDate, PersonInfo};
use rules::{Rules, apply_rules, is_surname_only, strip_country};

/// Most correct names a prefix match lists, as Scid's `find` (`nMaxRes = 10`).
const MAX_MATCHES: usize = 10;

/// The four name sections of a spelling file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Section {
    /// `@PLAYER`: player names, with player data.
    Player,
    /// `@EVENT`.
    Event,
    /// `@SITE`.
    Site,
    /// `@ROUND`.
    Round,
}

impl Section {
    /// All sections, in Scid's order.
    pub const ALL: [Section; 4] = [
        Section::Player,
        Section::Event,
        Section::Site,
        Section::Round,
    ];
}

/// A player of the `@PLAYER` section: its position among the section's correct names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PersonId(pub u32);

/// A line the reader skipped or read only in part, and why. Scid would stop at some of these
/// (a name outside a section, a malformed `%Prefix`); Tabiya reports them and goes on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SspWarning {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong.
    pub message: String,
}

/// An error that stops reading.
#[derive(Debug, thiserror::Error)]
pub enum SspError {
    /// The input could not be read.
    #[error("line {line}: read error: {source}")]
    Io {
        /// The line being read.
        line: usize,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// What the spelling file says about a name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Correction<'a> {
    /// No correction: not found, already correct, or a player's surname alone.
    Unchanged,
    /// The correct spelling, and the player when the section is `@PLAYER`.
    Corrected {
        /// The correct name as the file writes it.
        canonical: &'a str,
        /// The player (section `@PLAYER` only).
        person: Option<PersonId>,
    },
    /// Only a general `%Prefix`/`%Infix`/`%Suffix` rule applied: the rewritten name.
    Rewritten(String),
    /// The name fits several correct names (the same spelling after normalisation listed under
    /// two names, or the beginning of several). Tabiya leaves such a name alone.
    Ambiguous(Vec<&'a str>),
    /// [`Spelling::correct_dated`]: the name would be corrected to this player, but the game
    /// is dated before the player's birth or after the death, so it is left alone.
    OutsideLifetime {
        /// The correct name the date ruled out.
        canonical: &'a str,
        /// The player.
        person: PersonId,
    },
}

/// A span of one of the arenas.
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    start: u32,
    len: u32,
}

/// Where the reader is: the section and its last correct name.
#[derive(Clone, Copy, Debug, Default)]
struct SpellChkState {
    section: Option<Section>,
    current: Option<u32>,
    /// Inside a section whose name is unknown: its lines are skipped.
    bad_section: bool,
}

#[derive(Clone, Debug, Default)]
struct SectionData {
    /// Characters dropped before comparing (`@PLAYER "., -_*"`).
    exclude: String,
    /// Correct names (spans of `Spelling::text`).
    names: Vec<Span>,
    /// (normalised spelling in `Spelling::keys`, correct name), sorted by spelling then name.
    index: Vec<(Span, u32)>,
    rules: Rules,
}

/// A spelling file in memory: correct names, their spellings, general corrections and
/// player data, kept in two string arenas.
#[derive(Clone, Debug, Default)]
pub struct Spelling {
    /// Names, comments, `%Bio` and `%Elo` texts.
    text: String,
    /// Normalised spellings.
    keys: String,
    sections: [SectionData; 4],
    /// Per player: `#` comment, first `%Bio` line, first `%Elo` line.
    comments: Vec<Span>,
    bio_start: Vec<u32>,
    bios: Vec<Span>,
    elo_start: Vec<u32>,
    elos: Vec<Span>,
    warnings: Vec<SspWarning>,
}

impl Spelling {
    /// Reads a spelling file (UTF-8; a line that is not is read as Latin-1, with a warning).
    /// Malformed lines are reported in [`Spelling::warnings`]; only a read error stops.
    pub fn read(r: impl BufRead) -> Result<Spelling, SspError> {
        load::read(r)
    }

    /// The lines skipped or read in part, in file order.
    pub fn warnings(&self) -> &[SspWarning] {
        &self.warnings
    }

    /// The number of correct names of a section (players for [`Section::Player`]).
    pub fn len(&self, section: Section) -> usize {
        self.sections[section as usize].names.len()
    }

    /// Whether the file had no correct name at all.
    pub fn is_empty(&self) -> bool {
        self.sections.iter().all(|s| s.names.is_empty())
    }

    /// The number of spellings (correct names and aliases) of a section.
    pub fn spellings(&self, section: Section) -> usize {
        self.sections[section as usize].index.len()
    }

    /// The correct names of a section, in file order.
    pub fn correct_names(&self, section: Section) -> impl Iterator<Item = &str> {
        self.sections[section as usize]
            .names
            .iter()
            .map(|&s| self.str(s))
    }

    /// The characters a section ignores when comparing names.
    pub fn ignored_chars(&self, section: Section) -> &str {
        &self.sections[section as usize].exclude
    }

    /// Scid's normalisation of a name for a section: the ignored characters removed. Case is
    /// kept: Scid compares bytes.
    pub fn normalise(&self, section: Section, name: &str) -> String {
        let ex = &self.sections[section as usize].exclude;
        name.chars().filter(|c| !ex.contains(*c)).collect()
    }

    /// The correct names a name may stand for, as Scid's `SpellChecker::find`: every correct
    /// name listing exactly this normalised spelling; if none, those with a spelling that
    /// begins with it (at most 10). For players, when nothing is found, the text after the
    /// last space is moved to the front and tried again ("Judit Polgar" → " PolgarJudit").
    pub fn find(&self, section: Section, name: &str) -> Vec<&str> {
        self.find_idx(section, name)
            .into_iter()
            .map(|i| self.name(section, i))
            .collect()
    }

    fn find_idx(&self, section: Section, name: &str) -> Vec<u32> {
        let found = self.find_key(section, &self.normalise(section, name));
        if let Some(pos) = name
            .rfind(' ')
            .filter(|_| found.is_empty() && section == Section::Player)
        {
            let rotated = format!("{}{}", &name[pos..], &name[..pos]);
            return self.find_key(section, &self.normalise(section, &rotated));
        }
        found
    }

    fn find_key(&self, section: Section, key: &str) -> Vec<u32> {
        let index = &self.sections[section as usize].index;
        let mut out: Vec<u32> = Vec::new();
        if key.is_empty() {
            return out;
        }
        let mut i = index.partition_point(|e| self.key(e.0) < key);
        while i < index.len() && self.key(index[i].0) == key {
            if !out.contains(&index[i].1) {
                out.push(index[i].1);
            }
            i += 1;
        }
        if !out.is_empty() {
            return out;
        }
        while i < index.len() && out.len() < MAX_MATCHES && self.key(index[i].0).starts_with(key) {
            if !out.contains(&index[i].1) {
                out.push(index[i].1);
            }
            i += 1;
        }
        out
    }

    /// Corrects a name as Scid's spellcheck does, then decides as Tabiya does:
    ///
    /// 1. a player name that is a surname alone (ASCII letters, at most one capital:
    ///    `Kramnik`) is left alone, Scid's default;
    /// 2. the section's general rules apply: the first matching `%Prefix`, every `%Infix`
    ///    (each occurrence), the first matching `%Suffix`;
    /// 3. a player's trailing country code in parentheses (` (USA)`) is removed;
    /// 4. [`Spelling::find`]: one correct name → [`Correction::Corrected`] (or `Unchanged`
    ///    when it is the name itself); several → [`Correction::Ambiguous`]; none →
    ///    [`Correction::Rewritten`] if a general rule applied, else `Unchanged`.
    pub fn correct(&self, section: Section, name: &str) -> Correction<'_> {
        if section == Section::Player && is_surname_only(name) {
            return Correction::Unchanged;
        }
        let data = &self.sections[section as usize];
        let mut fixed = name.to_string();
        let general = apply_rules(&data.rules, &mut fixed);
        if section == Section::Player {
            strip_country(&mut fixed);
        }
        let found = self.find_idx(section, &fixed);
        match found[..] {
            [] if general > 0 && fixed != name => Correction::Rewritten(fixed),
            [] => Correction::Unchanged,
            [i] => {
                let canonical = self.name(section, i);
                if canonical == name {
                    Correction::Unchanged
                } else {
                    let person = (section == Section::Player).then_some(PersonId(i));
                    Correction::Corrected { canonical, person }
                }
            }
            _ => Correction::Ambiguous(found.iter().map(|&i| self.name(section, i)).collect()),
        }
    }

    /// [`Spelling::correct`] for a game played on `date` (year, month, day; `None` or year 0
    /// when unknown): a player correction is refused ([`Correction::OutsideLifetime`]) when
    /// the game is dated before the birth date or after the death date the file gives, dates
    /// compared as Scid packs them (unknown month or day = 0, so a game of `1943.??.??` is
    /// before a birth on `1943.03.09`, and one of `2008.05.??` after a death in `2008`).
    pub fn correct_dated(
        &self,
        section: Section,
        name: &str,
        date: Option<(u16, Option<u8>, Option<u8>)>,
    ) -> Correction<'_> {
        let c = self.correct(section, name);
        if let (
            Correction::Corrected {
                canonical,
                person: Some(id),
            },
            Some((y, m, d)),
        ) = (&c, date)
        {
            let game = info::pack(y, m, d);
            let p = self.person(*id);
            let born = p.birth.map_or(0, PartialDate::packed);
            let died = p.death.map_or(0, PartialDate::packed);
            if game != 0 && (game < born || (died != 0 && game > died)) {
                return Correction::OutsideLifetime {
                    canonical,
                    person: *id,
                };
            }
        }
        c
    }

    /// The player data of a player.
    ///
    /// # Panics
    /// If `id` is not a player of this file.
    pub fn person(&self, id: PersonId) -> PersonInfo<'_> {
        let i = id.0 as usize;
        let bio = (self.bio_start[i]
            ..self
                .bio_start
                .get(i + 1)
                .copied()
                .unwrap_or(self.bios.len() as u32))
            .map(|b| self.str(self.bios[b as usize]))
            .collect();
        PersonInfo::new(
            self.name(Section::Player, id.0),
            self.str(self.comments[i]),
            bio,
        )
    }

    /// The player whose correct name is exactly `name`, if any.
    pub fn person_id(&self, name: &str) -> Option<PersonId> {
        let idx = self.find_key(Section::Player, &self.normalise(Section::Player, name));
        idx.into_iter()
            .find(|&i| self.name(Section::Player, i) == name)
            .map(PersonId)
    }

    /// A player's rating in a month from the `%Elo` lines, as Scid's `getElo` ([`None`] when
    /// the file has no rating for that period, or `?`). See `docs/formats/ssp.md`.
    pub fn elo_at(&self, id: PersonId, year: u16, month: Option<u8>) -> Option<u16> {
        let i = id.0 as usize;
        let end = self
            .elo_start
            .get(i + 1)
            .copied()
            .unwrap_or(self.elos.len() as u32);
        let mut history = Vec::new();
        for e in self.elo_start[i]..end {
            info::parse_elo(self.str(self.elos[e as usize]), &mut history);
        }
        info::elo_at(&history, year, month)
    }

    fn name(&self, section: Section, i: u32) -> &str {
        self.str(self.sections[section as usize].names[i as usize])
    }

    fn str(&self, s: Span) -> &str {
        &self.text[s.start as usize..(s.start + s.len) as usize]
    }

    fn key(&self, s: Span) -> &str {
        &self.keys[s.start as usize..(s.start + s.len) as usize]
    }
}
