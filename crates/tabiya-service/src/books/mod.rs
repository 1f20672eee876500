//! Opening books: ChessBase CTG, Polyglot and Kvetka — probe, dump, check, info, convert,
//! merge, build (from PGN files or a database), and the games a Kvetka book links.
