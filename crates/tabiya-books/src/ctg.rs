//! ChessBase CTG opening books (`.ctg/.cto/.ctb`): key codec, reader, walker and writer.
//!
//! The layout as implemented is described in `docs/formats/ctg.md`. In short:
//!
//! * [`encode_key`] / [`decode_key`] turn a position into the stored key bytes and back.
//!   Books hold White-to-move positions only: Black to move is colour-flipped, and a
//!   position without castling rights whose king (of the side to move) stands on files a–d
//!   is mirrored a↔h. [`Transform`] says which was done; [`Transform::undo`] gives the real
//!   position back from a decoded one when the caller knows both facts.
//! * [`CtgBook`] opens a book (memory-mapped), [`CtgBook::probe`] answers for any real
//!   position with moves in SAN/UCI on the real board and each move's statistics from its
//!   child record, [`CtgBook::walk`] checks every record, [`CtgBook::positions`] reads every
//!   record as a shared [`crate::BookPosition`].
//! * [`write_book`] writes a book from [`crate::BookPosition`]s that this reader (and the
//!   lookup of the format notes) finds in full.
//!
//! Nothing here panics on bad input: malformed files give [`CtgError`]s naming the file,
//! data page and byte offset; unknown move codes and unknown bytes are kept raw.

mod error;
mod key;
mod moves;
mod reader;
mod writer;

pub use error::{CtgError, Result};
pub use key::{
    CtgKey, DecodedKey, KEY_FLAG_CASTLING, KEY_FLAG_EN_PASSANT, MAX_KEY_LEN, Normalised, Transform,
    ctg_hash, decode_key, encode_key, encode_key_with_transform, normalise,
};
pub use moves::{
    CODE_CASTLE_LONG, CODE_CASTLE_SHORT, CodeMeaning, MoveCodeError, SWAPPABLE_QUEEN_CODES,
    annotation_nag, code_meaning, decode_move, encode_move, step_code,
};
pub use reader::{
    ChildRecord, CtgBook, CtgEntry, CtgHeader, CtgMove, CtgProbe, EMPTY_SLOT, MAX_WALK_PROBLEMS,
    PAGE_SIZE, Page, PageRecords, RawRecord, RecordPosition, SlotProbe, TRAILER_LEN, Trailer,
    UnknownMove, WalkProblem, WalkReport, book_paths, book_stem,
};

pub use writer::{
    CtgWriteOptions, DroppedMove, DuplicatePolicy, MAX_REPORTED_EXAMPLES, SkippedPosition,
    WriteReport, write_book,
};
