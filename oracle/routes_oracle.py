#!/usr/bin/env python3
"""Independent oracle for `tabiya explore --transpositions`, on python-chess: every game of
the PGN files reaching the position (the UCI moves given, from the start) — any move order,
once — with the moves from its start to the first time it stood there; counted by that
sequence. A game equal to one read before (Seven Tag Roster and main line) counts once.

Usage: routes_oracle.py PGN [PGN...] -- MOVES
Prints {"games": n, "routes": {"e2e4 c7c5 ...": count, ...}}.
"""
import json
import sys

import chess
import chess.pgn


def key(board):
    ep = board.ep_square if board.has_legal_en_passant() else None
    return (board.board_fen(), board.turn, board.castling_rights, ep)


def main():
    sep = sys.argv.index("--")
    files, moves = sys.argv[1:sep], sys.argv[sep + 1]
    b = chess.Board()
    for u in filter(None, moves.split(",")):
        b.push_uci(u)
    want = key(b)
    routes, games, seen = {}, 0, set()
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            while True:
                g = chess.pgn.read_game(f)
                if g is None:
                    break
                h = g.headers
                line = list(g.mainline_moves())
                ident = tuple(h.get(t, "") for t in ("Event", "Site", "Date", "Round", "White", "Black", "Result")) \
                    + tuple(m.uci() for m in line)
                if ident in seen:
                    continue
                seen.add(ident)
                board = g.board()
                at = 0 if key(board) == want else None
                if at is None:
                    for i, mv in enumerate(line):
                        board.push(mv)
                        if key(board) == want:
                            at = i + 1
                            break
                if at is None:
                    continue
                games += 1
                r = " ".join(m.uci() for m in line[:at])
                routes[r] = routes.get(r, 0) + 1
    print(json.dumps({"games": games, "routes": routes}))


if __name__ == "__main__":
    main()
