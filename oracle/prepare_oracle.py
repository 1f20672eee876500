#!/usr/bin/env python3
"""Independent oracle for `tabiya prepare`, on python-chess: a player's repertoire with one
colour, by position, from a PGN file, as docs/database.md states it:

- a game is the player's with the colour when that colour's tag (White or Black) equals the
  name once case, accents, punctuation and spacing are ignored; with --since, its Date's year
  is known and not earlier; a game with a FEN tag (another start) is left out, counted apart;
- each game is replayed for its first DEPTH moves; every position at plies 0..=DEPTH is keyed
  by its FEN without the clocks (en passant only when a capture is legal) and counts the game
  once, at its first occurrence, whose move (below ply DEPTH) is the move counted there;
- results from the player's side (wins, draws, losses; `*` counts in games only);
- a move's latest game: the greatest (date as yyyymmdd with unknown parts 0, place in the
  file); its id is its place in the file (1 = first), its opponent the other colour's tag;
- shown: from the start, breadth first, the moves of at least MIN_GAMES games and the
  positions they lead to.

Prints JSON: {"games", "wins", "draws", "losses", "otherStarts",
 "positions": {fen: {"games", "wins", "draws", "losses", "incoming",
                     "moves": {uci: {"games", "wins", "draws", "losses", "to",
                                     "latest": {"id", "date", "opponent", "event"}}}}}}
where "incoming" counts the shown moves (position, move) leading to the position.

Usage: prepare_oracle.py PGN NAME white|black [--since YEAR] [--depth N] [--min-games N]
       prepare_oracle.py --read-pgn FILE      (the moves of a PGN with variations, each with
                                               the statistics of its comment)
       prepare_oracle.py --read-polyglot BOOK FEN...   (each position's moves and weights)
"""
import json
import re
import sys
import unicodedata
from collections import deque

import chess
import chess.pgn
import chess.polyglot


def fold(s):
    s = "".join(c for c in unicodedata.normalize("NFD", s) if not unicodedata.combining(c)).lower()
    return " ".join("".join(c if c.isalnum() else " " for c in s).split())


def key(board):
    return " ".join(board.fen(en_passant="legal").split()[:4])


def date_of(h):
    parts = h.get("Date", "").split(".")
    out = 0
    for part, mul in zip(parts + ["", "", ""], (10000, 100, 1)):
        out += (int(part) if part.isdigit() else 0) * mul
    return out


def date_text(d):
    y, m, dd = d // 10000, d // 100 % 100, d % 100
    return "%s.%s.%s" % (
        "%04d" % y if y else "????",
        "%02d" % m if m else "??",
        "%02d" % dd if dd else "??",
    )


def result_for(result, white):
    if result == "1/2-1/2":
        return "draws"
    if result == "1-0":
        return "wins" if white else "losses"
    if result == "0-1":
        return "losses" if white else "wins"
    return None


def tally():
    return {"games": 0, "wins": 0, "draws": 0, "losses": 0}


def add(t, r):
    t["games"] += 1
    if r:
        t[r] += 1


def prepare(path, name, colour, since, depth, min_games):
    white = colour == "white"
    tag = "White" if white else "Black"
    other = "Black" if white else "White"
    total = tally()
    other_starts = 0
    nodes = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        number = 0
        while True:
            g = chess.pgn.read_game(f)
            if g is None:
                break
            number += 1
            h = g.headers
            if fold(h.get(tag, "")) != fold(name):
                continue
            d = date_of(h)
            if since is not None and (d // 10000 == 0 or d // 10000 < since):
                continue
            if "FEN" in h and h["FEN"] != chess.STARTING_FEN:
                other_starts += 1
                continue
            r = result_for(h.get("Result", "*"), white)
            add(total, r)
            board = g.board()
            moves = list(g.mainline_moves())[:depth]
            keys = [key(board)]
            for mv in moves:
                board.push(mv)
                keys.append(key(board))
            seen = set()
            for ply, k in enumerate(keys):
                if k in seen:
                    continue
                seen.add(k)
                node = nodes.setdefault(k, {"tally": tally(), "moves": {}})
                add(node["tally"], r)
                if ply < len(moves):
                    uci = moves[ply].uci()
                    m = node["moves"].setdefault(
                        uci, {"tally": tally(), "to": keys[ply + 1], "latest": None})
                    add(m["tally"], r)
                    latest = (d, number, h.get(other, ""), h.get("Event", ""))
                    if m["latest"] is None or latest[:2] > m["latest"][:2]:
                        m["latest"] = latest
    root = key(chess.Board())
    nodes.setdefault(root, {"tally": tally(), "moves": {}})
    shown = {}
    incoming = {}
    queue = deque([root])
    listed = {root}
    while queue:
        k = queue.popleft()
        node = nodes[k]
        moves = {}
        for uci, m in node["moves"].items():
            if m["tally"]["games"] < min_games:
                continue
            d, number, opp, event = m["latest"]
            moves[uci] = dict(m["tally"], to=m["to"], latest={
                "id": number, "date": date_text(d), "opponent": opp, "event": event})
            incoming[m["to"]] = incoming.get(m["to"], 0) + 1
            if m["to"] not in listed:
                listed.add(m["to"])
                queue.append(m["to"])
        shown[k] = dict(node["tally"], moves=moves)
    for k, p in shown.items():
        p["incoming"] = incoming.get(k, 0)
    return dict(total, otherStarts=other_starts, positions=shown)


STATS = re.compile(r"^(\d+) games?, \+(\d+) =(\d+) -(\d+)")


def read_pgn(path):
    """Every move of the game's tree: the position before it, the move, its statistics."""
    with open(path, encoding="utf-8") as f:
        game = chess.pgn.read_game(f)
    if game is None or game.errors:
        raise SystemExit("cannot read %s: %s" % (path, game.errors if game else "no game"))
    out = []
    stack = [game]
    while stack:
        node = stack.pop()
        for child in node.variations:
            m = STATS.match(child.comment.strip())
            out.append({
                "fen": key(node.board()),
                "uci": child.move.uci(),
                "main": child is node.variations[0],
                "games": int(m.group(1)) if m else None,
                "wins": int(m.group(2)) if m else None,
                "draws": int(m.group(3)) if m else None,
                "losses": int(m.group(4)) if m else None,
                "comment": child.comment,
            })
            stack.append(child)
    return {"headers": dict(game.headers), "comment": game.comment, "moves": out}


def read_polyglot(path, fens):
    out = {}
    with chess.polyglot.open_reader(path) as book:
        for fen in fens:
            board = chess.Board(fen)
            out[fen] = {e.move.uci(): e.weight for e in book.find_all(board)}
    return out


def main():
    args = sys.argv[1:]
    if args and args[0] == "--read-pgn":
        print(json.dumps(read_pgn(args[1])))
        return
    if args and args[0] == "--read-polyglot":
        print(json.dumps(read_polyglot(args[1], args[2:])))
        return
    path, name, colour = args[:3]
    opts = {"--since": None, "--depth": 20, "--min-games": 2}
    rest = args[3:]
    for i in range(0, len(rest), 2):
        opts[rest[i]] = int(rest[i + 1])
    print(json.dumps(prepare(path, name, colour, opts["--since"], opts["--depth"],
                             opts["--min-games"])))


if __name__ == "__main__":
    main()
