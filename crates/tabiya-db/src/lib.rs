//! The positional database: game kinds, the position index, import and queries.
