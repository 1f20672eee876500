#!/usr/bin/env python3
"""Independent oracle for `tabiya stats`, written on python-chess: counts what the
statistics view shows of the games of some PGN files, as Tabiya's documentation states it.

- games by year: the year of the Date tag (its first four characters), else of EventDate;
  games with neither apart (`noYear`);
- games by result: the Result tag (`1-0`, `1/2-1/2`, `0-1`; anything else is unknown);
- ratings: WhiteElo and BlackElo, each a whole number 1..4000, each counted in its bin of
  100 (`2450` in 2400); games with both, one, no rating;
- time-control classes: the TimeControl tag by Lichess's rule (base + 40 x increment
  seconds: < 30 ultraBullet, < 180 bullet, < 480 blitz, < 1500 rapid, else classical; "-" or a
  period of a day or more a move: correspondence; the first period of "M/S:..." counts);
- positions: each game's distinct main-line positions (placement, side to move, castling
  rights, en passant only when a capture is legal), the start and the end included, up to a
  null move;
- openings: for every position the opening tables name (`data/eco/*.tsv`, the shortest line
  naming a position, the first in file order among equals), the games reaching it; the 20
  most reached (most first, then shorter lines, then ECO code and name);
- players and events: games per White, Black and Event tag as written.

Games are numbered by their place in the files, 1 first. Prints {"read", "errors",
"noResult": the places of the games without a result, "all": counts, "kept": counts}: "all"
over every game read without error, "kept" without the games `--delete 3,7` names.

Usage: db_stats.py [--delete N,N,...] PGN [PGN...]   -> JSON on standard output
"""
import json
import os
import sys

import chess
import chess.pgn

ECO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "eco")
SPEEDS = ["ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence"]
TOP = 20


def key(board):
    ep = board.ep_square if board.has_legal_en_passant() else None
    return (board.board_fen(), board.turn, board.castling_rights, ep)


def elo(headers, name):
    try:
        v = int(headers.get(name, "").strip())
    except ValueError:
        return None
    return v if 1 <= v <= 4000 else None


def year(s):
    try:
        y = int(s.strip()[:4])
    except ValueError:
        return None
    return y if y > 0 else None


def seconds(s):
    if not s or any(c not in "0123456789." for c in s):
        return None
    try:
        return float(s)
    except ValueError:
        return None


def clock(s):
    if "+" in s:
        b, i = s.split("+", 1)
        b, i = seconds(b), seconds(i)
        return None if b is None or i is None else (b, i)
    b = seconds(s)
    return None if b is None else (b, 0.0)


def by_clock(base, inc):
    est = base + 40 * inc
    for limit, name in ((30, "ultraBullet"), (180, "bullet"), (480, "blitz"), (1500, "rapid")):
        if est < limit:
            return name
    return "classical"


def speed(tc):
    tc = tc.strip()
    if tc == "-":
        return "correspondence"
    first = tc.split(":")[0]
    if first.startswith("*"):
        b = seconds(first[1:])
        return None if b is None else by_clock(b, 0.0)
    if "/" in first:
        moves, rest = first.split("/", 1)
        try:
            moves = int(moves)
        except ValueError:
            return None
        if moves <= 0:
            return None
        c = clock(rest)
        if c is None:
            return None
        if c[0] / moves >= 86400:
            return "correspondence"
        return by_clock(*c)
    c = clock(first)
    return None if c is None else by_clock(*c)


def openings():
    """Position key -> (eco, name, uci line, plies): the shortest line naming it."""
    named = {}
    for letter in "abcde":
        with open(os.path.join(ECO, f"{letter}.tsv"), encoding="utf-8") as f:
            next(f)
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if len(cols) < 3:
                    continue
                eco, name, pgn = cols[:3]
                board = chess.Board()
                ucis = []
                try:
                    for tok in pgn.split():
                        if tok.endswith("."):
                            continue
                        m = board.parse_san(tok)
                        ucis.append(m.uci())
                        board.push(m)
                except ValueError:
                    continue
                k = key(board)
                if k not in named or len(ucis) < named[k][3]:
                    named[k] = (eco, name, ",".join(ucis), len(ucis))
    return named


class Counts:
    """What the statistics view counts, over some games."""

    def __init__(self):
        self.reached = {}
        self.out = {
            "games": 0, "positions": 0, "years": {}, "noYear": 0,
            "results": {"white": 0, "draws": 0, "black": 0, "unknown": 0},
            "ratings": {"bins": {}, "ratings": 0, "lowest": None, "highest": None,
                        "gamesBothRated": 0, "gamesOneRated": 0, "gamesUnrated": 0},
            "speeds": {s: 0 for s in SPEEDS}, "speedUnknown": 0,
            "players": {}, "events": {},
        }

    def add(self, h, seen, named):
        out = self.out
        out["games"] += 1
        y = year(h.get("Date", "")) or year(h.get("EventDate", ""))
        if y:
            out["years"][str(y)] = out["years"].get(str(y), 0) + 1
        else:
            out["noYear"] += 1
        res = {"1-0": "white", "1/2-1/2": "draws", "0-1": "black"}.get(h.get("Result"), "unknown")
        out["results"][res] += 1
        r = out["ratings"]
        rated = [e for e in (elo(h, "WhiteElo"), elo(h, "BlackElo")) if e is not None]
        for e in rated:
            b = str(e // 100 * 100)
            r["bins"][b] = r["bins"].get(b, 0) + 1
            r["ratings"] += 1
            r["lowest"] = e if r["lowest"] is None else min(r["lowest"], e)
            r["highest"] = e if r["highest"] is None else max(r["highest"], e)
        r[["gamesUnrated", "gamesOneRated", "gamesBothRated"][len(rated)]] += 1
        s = speed(h["TimeControl"]) if "TimeControl" in h else None
        if s:
            out["speeds"][s] += 1
        else:
            out["speedUnknown"] += 1
        for tag, table in (("White", "players"), ("Black", "players"), ("Event", "events")):
            if tag in h:
                out[table][h[tag]] = out[table].get(h[tag], 0) + 1
        out["positions"] += len(seen)
        for k in seen:
            if k in named:
                self.reached[k] = self.reached.get(k, 0) + 1

    def finish(self, named):
        ranked = sorted(((games, named[k]) for k, games in self.reached.items()),
                        key=lambda x: (-x[0], x[1][3], x[1][0], x[1][1]))
        self.out["topOpenings"] = [{"eco": o[0], "name": o[1], "uci": o[2], "games": games}
                                   for games, o in ranked[:TOP]]
        return self.out


def main():
    args = sys.argv[1:]
    delete = set()
    if args and args[0] == "--delete":
        delete = {int(x) for x in args[1].split(",") if x}
        args = args[2:]
    named = openings()
    every, kept = Counts(), Counts()
    n = errors = 0
    no_result = []
    for path in args:
        with open(path, encoding="utf-8-sig", errors="replace") as fh:
            while True:
                g = chess.pgn.read_game(fh)
                if g is None:
                    break
                n += 1
                if g.errors:
                    errors += 1
                    continue
                board = g.board()
                seen = {key(board)}
                for m in g.mainline_moves():
                    if not m:  # a null move ends what is counted
                        break
                    board.push(m)
                    seen.add(key(board))
                every.add(g.headers, seen, named)
                if g.headers.get("Result") not in ("1-0", "0-1", "1/2-1/2"):
                    no_result.append(n)
                if n not in delete:
                    kept.add(g.headers, seen, named)
    json.dump({"read": n, "errors": errors, "noResult": no_result,
               "all": every.finish(named), "kept": kept.finish(named)}, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
