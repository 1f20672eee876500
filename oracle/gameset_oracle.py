#!/usr/bin/env python3
"""Independent oracle for Tabiya's gamesets, written on python-chess: which games of PGN
files meet each test criterion, as docs/gamesets.md states the conditions. The criteria are
coded here by hand, one Python predicate per case name (this does not read Tabiya's query
language):

- strong:      avgelo >= 2500 and result = '1-0'
               (mean of WhiteElo and BlackElo, floored, both known)
- sicilian:    reaches e4 c5 (any position of the main line is the one after 1. e4 c5:
               placement, side to move, castling rights, en passant only when legal)
- sicstrong:   sicilian's games, and avgelo >= 2600 or annotated
- endings:     material queenless and result = draw and plies >= 60
- eco:         not event ~ 'ch-RUS' and (eco = B90 or eco ~ e)
               (event contains "ch-RUS" ignoring case; ECO equal ignoring case, or
               containing "e" ignoring case)
- dated:       date = 2012.06.16..2012.06.18 and whiteelo > 2600
- opening:     opening = 'Sicilian Defense' (the last position along the main line that
               the Lichess opening table, data/eco/*.tsv, names: its name starts with it)
- repertoire:  follows REPERTOIRE 8 (each of the first 8 moves, from a position the file's
               games and variations continue from, is one of the file's moves there;
               a game leaving the file's tree where it ends still counts)
- annotated:   annotated (a comment, a NAG or a variation anywhere in the main line)

Usage:
  gameset_oracle.py select REPERTOIRE PGN [PGN...]   -> {case: sorted fingerprints} of every case
  gameset_oracle.py write CASE REPERTOIRE OUT.pgn PGN [PGN...] -> writes the games, JSON count
  gameset_oracle.py fingerprints PGN [PGN...]        -> {file: sorted fingerprints}
A fingerprint is White|Black|Event|Round|Date|the main line in UCI.
"""
import glob
import json
import os
import sys

import chess
import chess.pgn

HERE = os.path.dirname(os.path.abspath(__file__))


def key(board):
    ep = board.ep_square if board.has_legal_en_passant() else None
    return (board.board_fen(), board.turn, board.castling_rights, ep)


def elo(h, name):
    try:
        v = int(h.get(name, ""))
    except ValueError:
        return None
    return v if 1 <= v <= 4000 else None


def avg(h):
    w, b = elo(h, "WhiteElo"), elo(h, "BlackElo")
    if w is None or b is None:
        return None
    return (w + b) // 2


_LINE = {}


def line(game):
    """(key, queenless) of every position of the main line, computed once per game."""
    got = _LINE.get(id(game))
    if got is None or got[0] is not game:
        board = game.board()
        out = []

        def note(b):
            out.append((key(b), not b.pieces(chess.QUEEN, chess.WHITE)
                        and not b.pieces(chess.QUEEN, chess.BLACK)))

        note(board)
        for mv in game.mainline_moves():
            board.push(mv)
            note(board)
        _LINE.clear()
        got = (game, out)
        _LINE[id(game)] = got
    return got[1]


def annotated(game):
    if game.comment.strip():
        return True
    node = game
    while node.variations:
        if len(node.variations) > 1:
            return True
        node = node.variations[0]
        if node.comment.strip() or node.nags:
            return True
    return False


def date_num(h):
    d = h.get("Date", "????.??.??").split(".")
    out = 0
    for part, mul in zip(d + ["??", "??"], (10000, 100, 1)):
        out += (int(part) if part.isdigit() else 0) * mul
    return out


_SIC = None


def sicilian_key():
    global _SIC
    if _SIC is None:
        b = chess.Board()
        b.push_san("e4")
        b.push_san("c5")
        _SIC = key(b)
    return _SIC


_OPENINGS = None


def openings():
    global _OPENINGS
    if _OPENINGS is None:
        _OPENINGS = {}
        for tsv in sorted(glob.glob(os.path.join(HERE, "..", "data", "eco", "*.tsv"))):
            with open(tsv, encoding="utf-8") as f:
                next(f)
                for line in f:
                    eco, name, pgn = line.rstrip("\n").split("\t")
                    b = chess.Board()
                    for tok in pgn.split():
                        if tok.endswith("."):
                            continue
                        b.push_san(tok)
                    _OPENINGS[key(b)] = name
    return _OPENINGS


def opening_of(game):
    names = openings()
    last = None
    for k, _ in line(game):
        n = names.get(k)
        if n is not None:
            last = n
    return last


_TREE = None


def tree(path):
    global _TREE
    if _TREE is None:
        _TREE = {}

        def walk(node):
            board = node.board()
            for child in node.variations:
                _TREE.setdefault(key(board), set()).add(key(child.board()))
                walk(child)

        with open(path, encoding="utf-8") as f:
            while True:
                g = chess.pgn.read_game(f)
                if g is None:
                    break
                walk(g)
    return _TREE


def follows(game, path, plies):
    t = tree(path)
    board = game.board()
    for i, mv in enumerate(game.mainline_moves()):
        if i >= plies:
            break
        nxt = t.get(key(board))
        if nxt is None:
            return True
        board.push(mv)
        if key(board) not in nxt:
            return False
    return True


def meets(case, game, rep):
    h = game.headers
    a = avg(h)
    res = h.get("Result", "*")
    plies = len(list(game.mainline_moves()))
    if case == "strong":
        return a is not None and a >= 2500 and res == "1-0"
    if case == "sicilian":
        return any(k == sicilian_key() for k, _ in line(game))
    if case == "sicstrong":
        return meets("sicilian", game, rep) and ((a is not None and a >= 2600) or annotated(game))
    if case == "endings":
        if res != "1/2-1/2" or plies < 60:
            return False
        return any(q for _, q in line(game))
    if case == "eco":
        eco = h.get("ECO", "").lower()
        return "ch-rus" not in h.get("Event", "").lower() and (eco == "b90" or "e" in eco)
    if case == "dated":
        w = elo(h, "WhiteElo")
        return 20120616 <= date_num(h) <= 20120618 and w is not None and w > 2600
    if case == "opening":
        o = opening_of(game)
        return o is not None and o.lower().startswith("sicilian defense")
    if case == "repertoire":
        return follows(game, rep, 8)
    if case == "annotated":
        return annotated(game)
    raise SystemExit(f"unknown case {case}")


CASES = ["strong", "sicilian", "sicstrong", "endings", "eco", "dated", "opening", "repertoire",
         "annotated"]


def fingerprint(game):
    h = game.headers
    line = " ".join(m.uci() for m in game.mainline_moves())
    return "|".join([h.get("White", ""), h.get("Black", ""), h.get("Event", ""),
                     h.get("Round", ""), h.get("Date", ""), line])


def games(paths):
    for p in paths:
        with open(p, encoding="utf-8", errors="replace") as f:
            while True:
                g = chess.pgn.read_game(f)
                if g is None:
                    break
                yield g


def main():
    mode = sys.argv[1]
    if mode == "fingerprints":
        print(json.dumps({p: sorted(fingerprint(g) for g in games([p])) for p in sys.argv[2:]}))
    elif mode == "select":
        rep = sys.argv[2]
        out = {c: [] for c in CASES}
        for g in games(sys.argv[3:]):
            for c in CASES:
                if meets(c, g, rep):
                    out[c].append(fingerprint(g))
        print(json.dumps({c: sorted(v) for c, v in out.items()}))
    elif mode == "write":
        case, rep, out = sys.argv[2], sys.argv[3], sys.argv[4]
        n = 0
        with open(out, "w") as f:
            for g in games(sys.argv[5:]):
                if meets(case, g, rep):
                    print(g, file=f, end="\n\n")
                    n += 1
        print(json.dumps({"written": n}))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
