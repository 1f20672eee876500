#!/usr/bin/env python3
"""Independent oracle for Tabiya's Othello positional database (tests/othello_db.rs).

It shares no code with Tabiya: the .wtb/.jou/.trn bytes are read with struct, the board is a
plain dict of (column, row) -> colour, and the 8 symmetries are coordinate maps. It does not
use canonical keys at all: to find the games reaching a position it compares every game's
board with the 8 images of the asked board, so it checks Tabiya's canonical keys rather than
repeating them.

Usage:
  othello_positions.py explore --moves LINE WTB... [--list]
      Statistics of the position reached by LINE (like f5d6c3, passes implicit) over every
      game of the files: games, black/draws/white (from the stored black score: > 32 black
      wins, 32 draw, < 32 white wins), sums of the stored black scores and theoretical
      scores, games ending there, and the next moves: each entry is the set of squares, in
      the orientation of LINE, that the move played maps back to (several when the asked
      position has symmetries of its own), with its counts. "sideToMove" is black, white, or
      none when the game is over.
      --list adds "matches": [file, 0-based game index] of every game reaching it.
  othello_positions.py rows WTB... [--jou F] [--trn F]
      Every game as {file, index, year, tournament, black, white, blackScore,
      theoreticalScore, moves}, names decoded as ISO-8859-1 (WTHOR.JOU/.TRN beside the file
      unless given), "?" for an id beyond the names.

A position is "reached" by a game when, after the same number of moves (a position with
k + 4 discs comes after exactly k moves), the game's board equals an image of the asked board
with the same side to move. The side to move is the one that plays next: when it has no
legal move and the other side has one, the other side (the pass is implicit); when neither
can move (game over), it is taken as black.
"""

import json
import os
import struct
import sys

DIRS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
BLACK, WHITE = "B", "W"


def other(c):
    return WHITE if c == BLACK else BLACK


def start_board():
    # (column, row) from 0: d4 = (3, 3) white, e5 = (4, 4) white, e4 = (4, 3) black, d5 = (3, 4) black.
    return {(3, 3): WHITE, (4, 4): WHITE, (4, 3): BLACK, (3, 4): BLACK}


def flips(board, sq, me):
    if sq in board:
        return []
    out = []
    for dc, dr in DIRS:
        c, r = sq[0] + dc, sq[1] + dr
        run = []
        while 0 <= c < 8 and 0 <= r < 8 and board.get((c, r)) == other(me):
            run.append((c, r))
            c += dc
            r += dr
        if run and 0 <= c < 8 and 0 <= r < 8 and board.get((c, r)) == me:
            out.extend(run)
    return out


def can_move(board, me):
    return any(flips(board, (c, r), me) for c in range(8) for r in range(8) if (c, r) not in board)


def play(board, side, sq):
    """Plays sq for side, passing first when side has no move. Returns the new side to move."""
    f = flips(board, sq, side)
    if not f:
        if can_move(board, side):
            raise ValueError(f"illegal move {name(sq)}")
        side = other(side)
        f = flips(board, sq, side)
        if not f:
            raise ValueError(f"illegal move {name(sq)}")
    board[sq] = side
    for x in f:
        board[x] = side
    return other(side)


def normalized_side(board, side):
    if can_move(board, side):
        return side
    if can_move(board, other(side)):
        return other(side)
    return BLACK


def name(sq):
    return "abcdefgh"[sq[0]] + str(sq[1] + 1)


def parse_line(text):
    text = text.strip().lower()
    if len(text) % 2:
        raise ValueError(f"odd length line {text!r}")
    out = []
    for i in range(0, len(text), 2):
        c = "abcdefgh".index(text[i])
        r = int(text[i + 1]) - 1
        if not 0 <= r < 8:
            raise ValueError(f"bad square {text[i:i + 2]}")
        out.append((c, r))
    return out


def make_sym(t, m, f):
    def s(sq):
        c, r = sq
        if t:
            c, r = r, c
        if m:
            c = 7 - c
        if f:
            r = 7 - r
        return (c, r)

    return s


SYMS = [make_sym(t, m, f) for t in (0, 1) for m in (0, 1) for f in (0, 1)]
ALL = [(c, r) for c in range(8) for r in range(8)]


def inverse(s):
    for h in SYMS:
        if all(h(s(x)) == x for x in ALL):
            return h
    raise AssertionError("no inverse")


INV = [inverse(s) for s in SYMS]


def image(board, s):
    return {s(sq): col for sq, col in board.items()}


def read_games(path):
    data = open(path, "rb").read()
    n = struct.unpack_from("<I", data, 4)[0]
    year = struct.unpack_from("<H", data, 10)[0]
    for i in range(n):
        off = 16 + 68 * i
        rec = data[off:off + 68]
        if len(rec) < 68:
            break
        t, b, w, bs, ts = struct.unpack_from("<HHHBB", rec, 0)
        moves = []
        for byte in rec[8:]:
            if byte == 0:
                break
            moves.append((byte % 10 - 1, byte // 10 - 1))
        yield i, year, t, b, w, bs, ts, moves


def explore(line, files, want_list):
    target = start_board()
    side = BLACK
    for sq in line:
        side = play(target, side, sq)
    side = normalized_side(target, side)
    n = len(line)
    placed = frozenset(sq for sq in target if sq not in ((3, 3), (4, 4), (4, 3), (3, 4)))
    images = [(k, image(target, s), frozenset(s(x) for x in placed)) for k, s in enumerate(SYMS)]
    out = {"games": 0, "black": 0, "draws": 0, "white": 0, "sumBlackScore": 0,
           "sumTheoreticalScore": 0, "ended": 0}
    moves = {}
    matches = []
    for path in files:
        for i, year, t, b, w, bs, ts, mv in read_games(path):
            if len(mv) < n:
                continue
            first = frozenset(mv[:n])
            cands = [(k, img) for k, img, sset in images if sset == first]
            if not cands:
                continue
            board = start_board()
            s = BLACK
            try:
                for sq in mv[:n]:
                    s = play(board, s, sq)
            except ValueError:
                continue
            s = normalized_side(board, s)
            if s != side:
                continue
            ks = [k for k, img in cands if img == board]
            if not ks:
                continue
            out["games"] += 1
            if bs > 32:
                out["black"] += 1
                res = "black"
            elif bs == 32:
                out["draws"] += 1
                res = "draws"
            else:
                out["white"] += 1
                res = "white"
            out["sumBlackScore"] += bs
            out["sumTheoreticalScore"] += ts
            if want_list:
                matches.append([path, i])
            if len(mv) == n:
                out["ended"] += 1
                continue
            nxt = mv[n]
            user = frozenset(name(INV[k](nxt)) for k in ks)
            e = moves.setdefault(user, {"games": 0, "black": 0, "draws": 0, "white": 0})
            e["games"] += 1
            e[res] += 1
    over = not can_move(target, BLACK) and not can_move(target, WHITE)
    out["sideToMove"] = "none" if over else ("black" if side == BLACK else "white")
    out["moves"] = sorted(
        ({"squares": sorted(k), **v} for k, v in moves.items()),
        key=lambda e: (-e["games"], e["squares"]),
    )
    if want_list:
        out["matches"] = matches
    return out


def names_file(path, size):
    data = open(path, "rb").read()
    n = struct.unpack_from("<H", data, 8)[0]
    out = []
    for i in range(n):
        raw = data[16 + size * i:16 + size * (i + 1)]
        out.append(raw.split(b"\0", 1)[0].decode("latin-1"))
    return out


def beside(path, want):
    d = os.path.dirname(path) or "."
    for f in os.listdir(d):
        if f.lower() == want:
            return os.path.join(d, f)
    raise SystemExit(f"no {want} beside {path}")


def rows(files, jou, trn):
    out = []
    for path in files:
        players = names_file(jou or beside(path, "wthor.jou"), 20)
        tournaments = names_file(trn or beside(path, "wthor.trn"), 26)
        for i, year, t, b, w, bs, ts, mv in read_games(path):
            pick = lambda names, k: names[k] if k < len(names) else "?"
            out.append({"file": path, "index": i, "year": year, "tournament": pick(tournaments, t),
                        "black": pick(players, b), "white": pick(players, w), "blackScore": bs,
                        "theoreticalScore": ts, "moves": "".join(name(m) for m in mv)})
    return out


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    mode, rest = argv[1], argv[2:]
    opts = {}
    files = []
    flags = set()
    i = 0
    while i < len(rest):
        a = rest[i]
        if a in ("--moves", "--jou", "--trn"):
            opts[a] = rest[i + 1]
            i += 2
        elif a == "--list":
            flags.add(a)
            i += 1
        else:
            files.append(a)
            i += 1
    if mode == "explore":
        result = explore(parse_line(opts.get("--moves", "")), files, "--list" in flags)
    elif mode == "rows":
        result = rows(files, opts.get("--jou"), opts.get("--trn"))
    else:
        raise SystemExit(__doc__)
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv)
