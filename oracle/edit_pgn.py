#!/usr/bin/env python3
"""Independent editor for the edit/delete tests, written on python-chess: reads a PGN file,
applies edits to its games by their place in the file (1 = first), writes the edited PGN.

Usage: edit_pgn.py IN.pgn OUT.pgn EDITS.json
EDITS: {"delete": [n, ...], "set": [[n, tag, value], ...], "unset": [[n, tag], ...]}
"""
import json
import sys

import chess.pgn


def main():
    src, dst, edits_file = sys.argv[1:4]
    with open(edits_file) as f:
        edits = json.load(f)
    delete = set(edits.get("delete", []))
    sets = edits.get("set", [])
    unsets = edits.get("unset", [])
    n = 0
    written = 0
    with open(src, encoding="utf-8", errors="replace") as f, open(dst, "w") as out:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            n += 1
            if n in delete:
                continue
            for (i, tag, value) in sets:
                if i == n:
                    game.headers[tag] = value
            for (i, tag) in unsets:
                if i == n and tag in game.headers:
                    del game.headers[tag]
            print(game, file=out, end="\n\n")
            written += 1
    print(json.dumps({"read": n, "written": written}))


if __name__ == "__main__":
    main()
