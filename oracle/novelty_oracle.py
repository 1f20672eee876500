#!/usr/bin/env python3
"""Independent oracle for `tabiya novelty`, on python-chess: for games of a PGN file, the
games of a database PGN reaching each position of their main line (any move order, each game
once) whose date is earlier, as docs/database.md states it: dates compared as yyyymmdd with
unknown parts 0; a game whose year is unknown is never earlier; when the judged game's year
is unknown, every other game is. A game of the database with the same place as the judged
game is left out: with `--self` the judged games are the database's own in the same order
(game n of GAMES.pgn is game n of DB.pgn); with `--places 3,17,...` game n of GAMES.pgn is
the database's game at that place (1 = the first).

Usage: novelty_oracle.py DB.pgn GAMES.pgn [--self | --places P1,P2,...]
Prints a JSON list, one per game of GAMES.pgn: {"start": n, "plies": [n, ...]}.

       novelty_oracle.py --nags ANNOTATED.pgn
Reads a PGN as python-chess does and prints, for each game, the plies of its main line that
carry NAG $146 (a novelty) and their comments: [{"plies": [11], "comments": ["..."]}, ...].
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


def nags(path):
    out = []
    for g in read(path):
        plies, comments = [], []
        for ply, node in enumerate(g.mainline(), start=1):
            if 146 in node.nags:
                plies.append(ply)
                comments.append(node.comment)
        out.append({"plies": plies, "comments": comments})
    print(json.dumps(out))


def main():
    if sys.argv[1] == "--nags":
        nags(sys.argv[2])
        return
    db_path, games_path = sys.argv[1], sys.argv[2]
    rest = sys.argv[3:]
    places = None
    if "--places" in rest:
        places = [int(p) - 1 for p in rest[rest.index("--places") + 1].split(",")]
    own = "--self" in rest
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
                if places is not None and m == places[n]:
                    continue
                if d // 10000 == 0 or (e // 10000 != 0 and e < d):
                    c += 1
            return c

        ks = keys(g)
        out.append({"start": earlier(ks[0]), "plies": [earlier(k) for k in ks[1:]]})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
