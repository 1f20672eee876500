//! PGN games: a streaming reader that keeps every tag, variation, comment and NAG, a writer, and compressed inputs.
