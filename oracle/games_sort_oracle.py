#!/usr/bin/env python3
"""Independent oracle for the order of Tabiya's game lists (`tabiya games --sort`,
`/api/games?sort=`), on python-chess.

Reads PGN files, numbers the games 1, 2, … in file order as an import does (a game with an
illegal move left out; a tag line right after a game's moves the start of the next game; a
game equal to one read before — the same Event, Site, Date, Round,
White and Black tags, result and main line — counted once), and for each position given as
UCI moves from the start ("" = the start) lists the games reaching it by any move order (the
same board, side to move, castling rights and en-passant square at some ply) in each order,
as Tabiya's documentation states them:

- eco: the ECO tag (empty or `?` is none) in text order, games without one last;
- length: the main line's plies, most first;
- result: 1-0, then 1/2-1/2, then 0-1, then any other (`*`);
- id: file order;

ties in file order. With `--since YEAR`, only the games of that year or later (the year of
the Date tag, else of EventDate; a game without one is left out).

Prints {MOVES: {"eco": [ids], "length": [...], "result": [...], "id": [...]}}.

Usage: games_sort_oracle.py [--since YEAR] PGN [PGN...] -- MOVES [MOVES...]
"""
import io
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


RESULTS = {"1-0": 0, "1/2-1/2": 1, "0-1": 2}


def main():
    args = sys.argv[1:]
    since = None
    if args[:1] == ["--since"]:
        since = int(args[1])
        args = args[2:]
    cut = args.index("--")
    files, lines = args[:cut], args[cut + 1:]
    wanted = {}
    for line in lines:
        b = chess.Board()
        for m in filter(None, line.split(",")):
            b.push_uci(m)
        wanted.setdefault(key(b), []).append(line)
    found = {line: [] for line in lines}  # line -> [(id, eco, plies, result)]
    seen = set()
    next_id = 0
    for path in files:
        with open(path, encoding="latin-1") as raw:
            # A tag line right after a game's moves begins the next game, as an import reads
            # it (python-chess would take the tags for a comment-less game's junk).
            lines_in, prev = [], ""
            for text in raw:
                if text.startswith("[") and prev.strip() and not prev.startswith("["):
                    lines_in.append("\n")
                lines_in.append(text)
                prev = text
            f = io.StringIO("".join(lines_in))
            while True:
                g = chess.pgn.read_game(f)
                if g is None:
                    break
                if g.errors:
                    continue
                h = g.headers
                moves = list(g.mainline_moves())
                dup = tuple(h.get(t, "?") for t in ("Event", "Site", "Date", "Round", "White", "Black", "Result")) \
                    + tuple(m.uci() for m in moves)
                if dup in seen:
                    continue
                seen.add(dup)
                next_id += 1
                if since is not None:
                    y = year_of(h.get("Date", "")) or year_of(h.get("EventDate", ""))
                    if not y or y < since:
                        continue
                eco = h.get("ECO", "")
                eco = eco if eco not in ("", "?") else None
                result = RESULTS.get(h.get("Result", "*"), 3)
                board = g.board()
                reached = {key(board)}
                for m in moves:
                    board.push(m)
                    reached.add(key(board))
                for k in reached & wanted.keys():
                    for line in wanted[k]:
                        found[line].append((next_id, eco, len(moves), result))
    out = {}
    for line, games in found.items():
        out[line] = {
            "eco": [g[0] for g in sorted(games, key=lambda g: (g[1] is None, g[1] or "", g[0]))],
            "length": [g[0] for g in sorted(games, key=lambda g: (-g[2], g[0]))],
            "result": [g[0] for g in sorted(games, key=lambda g: (g[3], g[0]))],
            "id": [g[0] for g in sorted(games)],
        }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
