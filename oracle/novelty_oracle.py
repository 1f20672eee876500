#!/usr/bin/env python3
"""Independent oracle for `tabiya novelty`, on python-chess: for games of a PGN file, the
games of a database PGN reaching each position of their main line (any move order, each game
once) whose date is earlier, as docs/database.md states it: dates compared as yyyymmdd with
unknown parts 0; a game whose year is unknown is never earlier; when the judged game's year
is unknown, every other game is. A game of the database with the same place as the judged
game (`--self N`: the judged games are the database's own, N = their place) is left out.

Usage: novelty_oracle.py DB.pgn GAMES.pgn [--self]
Prints a JSON list, one per game of GAMES.pgn: {"start": n, "plies": [n, ...]}.
"""
import json
import sys

import chess
import chess.pgn


def key(board):
    ep = board.ep_square if board.has_legal_en_passant() else None
    return (board.board_fen(), board.turn, board.castling_rights, ep)


def date(h):
    parts = h.get("Date", "").split(".")
    out = 0
    for part, mul in zip(parts + ["", "", ""], (10000, 100, 1)):
        out += (int(part) if part.isdigit() else 0) * mul
    return out


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        while True:
            g = chess.pgn.read_game(f)
            if g is None:
                return
            yield g


def keys(game):
    b = game.board()
    out = [key(b)]
    for mv in game.mainline_moves():
        b.push(mv)
        out.append(key(b))
    return out


def main():
    db_path, games_path = sys.argv[1], sys.argv[2]
    own = "--self" in sys.argv[3:]
    index = {}
    for n, g in enumerate(read(db_path)):
        d = date(g.headers)
        for k in set(keys(g)):
            index.setdefault(k, []).append((n, d))
    out = []
    for n, g in enumerate(read(games_path)):
        d = date(g.headers)

        def earlier(k):
            c = 0
            for m, e in index.get(k, []):
                if own and m == n:
                    continue
                if d // 10000 == 0 or (e // 10000 != 0 and e < d):
                    c += 1
            return c

        ks = keys(g)
        out.append({"start": earlier(ks[0]), "plies": [earlier(k) for k in ks[1:]]})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
