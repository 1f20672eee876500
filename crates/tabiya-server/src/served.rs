//! What a server serves: its databases and books, each opened once at start and named.

use std::path::PathBuf;

use tabiya_service::books::{AnyBook, BookFile, BookFormat};
use tabiya_service::{Db, Kind};

/// A served database.
pub struct Served {
    pub name: String,
    pub dir: PathBuf,
    pub db: Db,
    pub kind: Kind,
    /// One import at a time into this database.
    pub importing: tokio::sync::Mutex<()>,
}

/// A served book, kept open.
pub struct ServedBook {
    pub name: String,
    pub path: PathBuf,
    pub format: BookFormat,
    pub book: AnyBook,
}

/// Opens a book to serve (errors name the file).
pub fn open_book(name: String, path: PathBuf) -> tabiya_service::Result<ServedBook> {
    let file = BookFile::new(path.clone());
    let book = tabiya_service::books::open(&file)?;
    Ok(ServedBook {
        name,
        format: book.format(),
        path,
        book,
    })
}
