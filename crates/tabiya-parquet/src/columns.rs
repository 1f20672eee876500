//! The columns Tabiya knows: the Lichess database's (`Lichess/standard-chess-games`) and the
//! ones Tabiya adds when it writes games (`GameId`, `Date`, `Round`, `tags`), what each
//! holds, and the order their tags take in a game.

/// What a known column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holds {
    /// A tag's text.
    Text,
    /// A rating (`WhiteElo`): a whole number, written as it is.
    Rating,
    /// A rating change (`WhiteRatingDiff`): a whole number, written with a `+` when above
    /// zero, as Lichess writes it.
    Diff,
    /// A day (`UTCDate`): written `YYYY.MM.DD`.
    Day,
    /// The game's `Date`: a day (`date32`) when the tag is a whole day `YYYY.MM.DD`, else
    /// null and the tag's text in the tags column (`1990.??.??`); read from dates or text
    /// (or numbers), as a text column is.
    Date,
    /// Tabiya's id of the game (`GameId`): written, never read (an import numbers the games
    /// it adds anew).
    Id,
    /// A time of day (`UTCTime`): written `HH:MM:SS`.
    Time,
    /// The other tags: a map of names to values (or a list of name/value pairs).
    Tags,
    /// The game's PGN movetext.
    Movetext,
}

/// The name of the column of Tabiya's game ids.
pub const GAME_ID: &str = "GameId";
/// The name of the column of the other tags.
pub const TAGS: &str = "tags";
/// The name of the movetext column.
pub const MOVETEXT: &str = "movetext";

/// The known columns in the order Tabiya writes them (Lichess's order, with `GameId`,
/// `Date`, `Round` and `tags` added).
pub const COLUMNS: [(&str, Holds); 22] = [
    (GAME_ID, Holds::Id),
    ("Event", Holds::Text),
    ("Site", Holds::Text),
    ("Date", Holds::Date),
    ("Round", Holds::Text),
    ("White", Holds::Text),
    ("Black", Holds::Text),
    ("Result", Holds::Text),
    ("WhiteTitle", Holds::Text),
    ("BlackTitle", Holds::Text),
    ("WhiteElo", Holds::Rating),
    ("BlackElo", Holds::Rating),
    ("WhiteRatingDiff", Holds::Diff),
    ("BlackRatingDiff", Holds::Diff),
    ("UTCDate", Holds::Day),
    ("UTCTime", Holds::Time),
    ("ECO", Holds::Text),
    ("Opening", Holds::Text),
    ("Termination", Holds::Text),
    ("TimeControl", Holds::Text),
    (TAGS, Holds::Tags),
    (MOVETEXT, Holds::Movetext),
];

/// The tags of the columns beyond the Seven Tag Roster, in the order an imported game gets
/// them: Lichess's PGN order (ratings first, as a database stores them).
pub const TAG_ORDER: [&str; 12] = [
    "WhiteElo",
    "BlackElo",
    "UTCDate",
    "UTCTime",
    "WhiteRatingDiff",
    "BlackRatingDiff",
    "WhiteTitle",
    "BlackTitle",
    "ECO",
    "Opening",
    "TimeControl",
    "Termination",
];

/// The known column named `name`, any case: its index in [`COLUMNS`].
pub fn known(name: &str) -> Option<usize> {
    COLUMNS
        .iter()
        .position(|(n, _)| n.eq_ignore_ascii_case(name))
}

/// The index in [`COLUMNS`] of a known column's tag.
pub fn column_of(tag: &str) -> Option<usize> {
    COLUMNS.iter().position(|(n, _)| *n == tag)
}

/// Words for what a column holds, for messages.
pub fn describe(holds: Holds) -> &'static str {
    match holds {
        Holds::Text | Holds::Date => "text (or numbers, dates, times)",
        Holds::Movetext => "text",
        Holds::Rating | Holds::Diff => "whole numbers (or text)",
        Holds::Day => "dates (date32, or text YYYY.MM.DD)",
        Holds::Time => "times of day (time32/time64, or text HH:MM:SS)",
        Holds::Tags => "a map of text to text (or a list of key/value structs)",
        Holds::Id => "anything (the column is not read)",
    }
}
