#!/usr/bin/env python3
"""Counts, with python-chess, the positions Tabiya's index holds for PGN files: every
main-line position of every game, once per game at its first occurrence (`positions`), and
how many of them are distinct (`distinct`); also the games read (`games`) and those
python-chess found errors in (`errors`, left out of the counts), and the games from the
standard start with at least one move (`standardWithMoves`). A position is placement, side to move, castling
rights and the en-passant square only when the capture is legal.

Usage: count_positions.py PGN [PGN...]
"""
import json
import sys

import chess
import chess.pgn


def key(board):
    ep = board.ep_square if board.has_legal_en_passant() else None
    return (board.board_fen(), board.turn, board.castling_rights, ep)


positions = 0
games = 0
errors = 0
standard_with_moves = 0
distinct = set()
for path in sys.argv[1:]:
    with open(path, encoding="utf-8", errors="replace") as f:
        while True:
            g = chess.pgn.read_game(f)
            if g is None:
                break
            games += 1
            if g.errors:
                errors += 1
                continue
            if "FEN" not in g.headers and next(iter(g.mainline_moves()), None) is not None:
                standard_with_moves += 1
            board = g.board()
            seen = {key(board)}
            for mv in g.mainline_moves():
                board.push(mv)
                seen.add(key(board))
            positions += len(seen)
            distinct |= seen
json.dump({"positions": positions, "distinct": len(distinct), "games": games, "errors": errors, "standardWithMoves": standard_with_moves}, sys.stdout)
