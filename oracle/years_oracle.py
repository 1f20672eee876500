#!/usr/bin/env python3
"""Independent oracle for `tabiya explore --by-year`, on python-chess: for a position given
as UCI moves from the start, every game of the PGN files reaching it (any move order, once,
at its first occurrence, with the move played there; none when it ends there), counted by
year — the Date tag's year, else the EventDate's; games without a year apart — and by
result. A game equal to one read before (the same Seven Tag Roster and main line) counts
once, as Tabiya imports it once.

Usage: years_oracle.py PGN [PGN...] -- MOVES
Prints {"years": {year: [white, draws, black, unknown]}, "noYear": n,
        "moves": {uci: {year: [white, draws, black, unknown]}}}.
"""
import json
import sys

import chess
import chess.pgn


def key(board):
    ep = board.ep_square if board.has_legal_en_passant() else None
    return (board.board_fen(), board.turn, board.castling_rights, ep)


def year_of(s):
    try:
        y = int(s.strip()[:4])
    except ValueError:
        return 0
    return y if y > 0 else 0


def main():
    sep = sys.argv.index("--")
    files, moves = sys.argv[1:sep], sys.argv[sep + 1]
    b = chess.Board()
    for u in filter(None, moves.split(",")):
        b.push_uci(u)
    want = key(b)
    years, no_year, per_move, seen = {}, 0, {}, set()
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            while True:
                g = chess.pgn.read_game(f)
                if g is None:
                    break
                h = g.headers
                ident = tuple(h.get(t, "") for t in ("Event", "Site", "Date", "Round", "White", "Black", "Result")) \
                    + tuple(m.uci() for m in g.mainline_moves())
                if ident in seen:
                    continue
                seen.add(ident)
                board = g.board()
                line = list(g.mainline_moves())
                at = 0 if key(board) == want else None
                if at is None:
                    for i, mv in enumerate(line):
                        board.push(mv)
                        if key(board) == want:
                            at = i + 1
                            break
                if at is None:
                    continue
                played = line[at].uci() if at < len(line) else None
                y = year_of(h.get("Date", "")) or year_of(h.get("EventDate", ""))
                r = {"1-0": 0, "1/2-1/2": 1, "0-1": 2}.get(h.get("Result", "*"), 3)
                if not y:
                    no_year += 1
                    continue
                years.setdefault(str(y), [0, 0, 0, 0])[r] += 1
                if played:
                    per_move.setdefault(played, {}).setdefault(str(y), [0, 0, 0, 0])[r] += 1
    print(json.dumps({"years": years, "noYear": no_year, "moves": per_move}))


if __name__ == "__main__":
    main()
