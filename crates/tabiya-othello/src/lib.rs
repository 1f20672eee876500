//! Othello rules on bitboards, board symmetries, opening names, and the WTHOR database format.
