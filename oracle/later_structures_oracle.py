#!/usr/bin/env python3
"""Independent oracle for `tabiya explore --later-structures` on python-chess, written from
docs/search.md's rules, not from Tabiya.

    later_structures_oracle.py CASES.json SCENARIO.json GAMES.pgn...

The games of every file, one file after the other, numbered from 1 in file order.

CASES.json: a list of {"line": ["d2d4", ...] (UCI from the standard start), "held": N,
"ratingMin": N | null}. SCENARIO.json: {"files": N, "drop": [game numbers], "results":
{"number": "1-0"}}: the games of the first N files, some deleted, some results edited.

For each case, the games whose main line stands in the line's position (same pieces, side to
move, castling rights and en passant square when a capture there is legal: python-chess's
repetition key), at their first stand there: every pawn structure the game holds for at
least N consecutive positions afterwards, other than the position's own, once per game
(at its first such run), with the games by result, the plies from the position to that
run's first position (summed), and the mean rating (both players rated, result known).
Prints [{"games": G, "distinct": D, "structures": {pawns: {...}}}] per case.
"""
import json
import sys

import chess
import chess.pgn

from structure_oracle import pawn_board, rating_ok


def key(board):
    return board._transposition_key()


def pawns_of(board):
    return (board.pieces_mask(chess.PAWN, chess.WHITE), board.pieces_mask(chess.PAWN, chess.BLACK))


def rating(headers):
    try:
        a, b = int(headers.get("WhiteElo", "")), int(headers.get("BlackElo", ""))
    except ValueError:
        return None
    return (a, b) if a > 0 and b > 0 else None


def main():
    cases = json.load(open(sys.argv[1]))
    scenario = json.load(open(sys.argv[2]))
    drop = set(scenario.get("drop", []))
    results = {int(k): v for k, v in scenario.get("results", {}).items()}
    games = []
    n = 0
    for f_no, path in enumerate(sys.argv[3:]):
        with open(path, encoding="utf-8", errors="replace") as f:
            while True:
                g = chess.pgn.read_game(f)
                if g is None:
                    break
                n += 1
                if f_no >= scenario["files"] or n in drop:
                    continue
                board = g.board()
                seen = [(key(board), pawns_of(board))]
                for m in g.mainline_moves():
                    board.push(m)
                    seen.append((key(board), pawns_of(board)))
                games.append((g.headers, results.get(n, g.headers.get("Result", "*")), seen))
    out = []
    for case in cases:
        target = chess.Board()
        for u in case["line"]:
            target.push_uci(u)
        want = key(target)
        held = max(1, case["held"])
        found = {"games": 0, "structures": {}}
        for headers, result, seen in games:
            if not rating_ok(headers, case.get("ratingMin")):
                continue
            at = next((i for i, (k, _) in enumerate(seen) if k == want), None)
            if at is None:
                continue
            found["games"] += 1
            own = seen[at][1]
            counted = set()
            i = at + 1
            while i < len(seen):
                s = seen[i][1]
                j = i
                while j < len(seen) and seen[j][1] == s:
                    j += 1
                if s != own and j - i >= held and s not in counted:
                    counted.add(s)
                    row = found["structures"].setdefault(pawn_board(s), {
                        "games": 0, "white": 0, "draws": 0, "black": 0, "unknown": 0,
                        "plies": 0, "rated": 0, "ratingSum": 0})
                    row["games"] += 1
                    row[{"1-0": "white", "1/2-1/2": "draws", "0-1": "black"}.get(result, "unknown")] += 1
                    row["plies"] += i - at
                    r = rating(headers)
                    if r is not None and result in ("1-0", "0-1", "1/2-1/2"):
                        row["rated"] += 1
                        row["ratingSum"] += r[0] + r[1]
                i = j
        found["distinct"] = len(found["structures"])
        out.append(found)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
