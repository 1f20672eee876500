//! The vocabulary every game kind shares with the index: a counted position
//! ([`Occurrence`]), the move code of "no move", and the name dictionaries games refer to.

/// Move code of "no move": the game ended in this position.
pub const NO_MOVE: u16 = 0xFFFF;

/// One counted position of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occurrence {
    pub key: u128,
    /// The move played from this position ([`NO_MOVE`] at the end of the game or the ply cap).
    pub code: u16,
    /// Side to move: 0 White, 1 Black.
    pub mover: u8,
}

/// Dictionaries of the stored game form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Dict {
    Player = 0,
    Event = 1,
    Site = 2,
    Round = 3,
    TagName = 4,
    /// Annotators (`Annotator` tags): a game keeps the tag as written among its other tags;
    /// the dictionary holds each spelling once, for what it means (`crate::persons`).
    Annotator = 5,
}

impl Dict {
    pub const ALL: [Dict; 6] = [
        Dict::Player,
        Dict::Event,
        Dict::Site,
        Dict::Round,
        Dict::TagName,
        Dict::Annotator,
    ];
}

/// Assigns and resolves dictionary ids.
pub trait Names {
    fn id(&mut self, dict: Dict, name: &str) -> u32;
}

/// Resolves dictionary ids back to names.
pub trait NameLookup {
    fn name(&self, dict: Dict, id: u32) -> Option<String>;

    /// Why a name asked for since this lookup was made could not be read from the store (a
    /// damaged file: the error names it), when one could not: then a name not found may not
    /// be missing at all.
    fn failure(&self) -> Option<std::sync::Arc<str>> {
        None
    }

    /// [`NameLookup::name`], or the store's error when the name is not found because the
    /// store could not be read.
    fn name_checked(&self, dict: Dict, id: u32) -> Result<Option<String>, std::sync::Arc<str>> {
        match self.name(dict, id) {
            Some(n) => Ok(Some(n)),
            None => self.failure().map_or(Ok(None), Err),
        }
    }
}
