#!/usr/bin/env python3
"""Checks that two PGN files hold the same games, as python-chess reads them.

Games are compared in order: every header (name and value), the start position, and the
whole move tree — moves, comments, starting comments, NAGs and variations. Prints a JSON
summary {games_a, games_b, mismatches: [...]} and exits 0; the caller asserts on it.

Usage: compare_pgn.py ORIGINAL EXPORTED [--skip-errors]
"""
import json
import sys

import chess.pgn


def read_all(path, skip_errors):
    games = []
    with open(path, encoding="utf-8", errors="replace") as f:
        while True:
            g = chess.pgn.read_game(f)
            if g is None:
                break
            if skip_errors and (g.errors or g.headers.get("Variant", "Standard").lower()
                                not in ("standard", "chess960", "fischerandom", "from position")):
                continue
            games.append(g)
    return games


def tree(node):
    out = []
    for v in node.variations:
        out.append({
            "uci": v.move.uci(),
            "comment": " ".join(v.comment.split()),
            "starting_comment": " ".join(v.starting_comment.split()),
            "nags": sorted(v.nags),
            "children": tree(v),
        })
    return out


def describe(g):
    h = dict(g.headers)
    return {"headers": h, "fen": g.board().fen(), "comment": " ".join(g.comment.split()), "tree": tree(g)}


def main():
    a_path, b_path = sys.argv[1], sys.argv[2]
    skip = "--skip-errors" in sys.argv
    a = read_all(a_path, skip)
    b = read_all(b_path, False)
    mismatches = []
    for i, (ga, gb) in enumerate(zip(a, b)):
        da, db = describe(ga), describe(gb)
        for part in ("headers", "fen", "comment", "tree"):
            if da[part] != db[part]:
                mismatches.append({"game": i + 1, "part": part,
                                   "original": str(da[part])[:300], "exported": str(db[part])[:300]})
    json.dump({"games_a": len(a), "games_b": len(b), "mismatches": mismatches}, sys.stdout)


main()
