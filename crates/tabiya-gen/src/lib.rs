//! Deterministic generator of realistic PGN collections from real games, for scale benchmarks.
