#!/usr/bin/env python3
"""Independent oracle for Tabiya's filtered explorer, on python-chess.

Reads PGN files and, for the positions given as UCI move lists ("" = start), counts the
games reaching each position (any move order, once per game at its first occurrence) that
pass a filter, with the moves played there, as Tabiya's documentation states the filters:

- period: a game's month is yyyymm with the year from its Date tag (else its EventDate) and
  the month from its Date (0 when unknown); `since` and `until` are yyyymm bounds,
  inclusive; a game with no year fails any period;
- ratings: the floor of the mean of WhiteElo and BlackElo (each a whole number 1..4000)
  falls in one of the [lo, hi] ranges; a game without both fails;
- speeds: the class of the TimeControl tag by Lichess's rule (base + 40 x increment seconds:
  < 30 ultraBullet, < 180 bullet, < 480 blitz, < 1500 rapid, else classical; "-" or a
  period of a day or more a move: correspondence; the first period of "M/S:..." counts);
  a game of unknown class fails;
- player: the White (color white), Black (black) or either name equals the given one, case
  ignored, spaces around ignored.

A game equal to one read before (the same Event, Site, Date, Round, White and Black tags,
result, start position and main line) is a duplicate and counted once, as Tabiya imports it
once.

Prints, for each filter of FILTERS_JSON (a list), {position: {"games": n, "total": {white,
draws, black, unknown}, "moves": {uci: {white, draws, black, unknown}}}}: a JSON list. The
files are read once for all filters.

Usage: filtered_oracle.py FILTERS_JSON PGN [PGN...] -- MOVES [MOVES...]
"""
import json
import sys

import chess
import chess.pgn


def key(board):
    ep = board.ep_square if board.has_legal_en_passant() else None
    return (board.board_fen(), board.turn, board.castling_rights, ep)


def elo(headers, name):
    try:
        v = int(headers.get(name, "").strip())
    except ValueError:
        return None
    return v if 1 <= v <= 4000 else None


def year_of(s):
    try:
        y = int(s.strip()[:4])
    except ValueError:
        return 0
    return y if y > 0 else 0


def month_of(date):
    parts = date.strip().replace("-", ".").replace("/", ".").split(".")
    if len(parts) < 2:
        return 0
    try:
        m = int(parts[1])
    except ValueError:
        return 0
    return m if 1 <= m <= 12 else 0


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


def by_clock(base, inc):
    est = base + 40 * inc
    if est < 30:
        return "ultraBullet"
    if est < 180:
        return "bullet"
    if est < 480:
        return "blitz"
    if est < 1500:
        return "rapid"
    return "classical"


def passes(f, h):
    date = h.get("Date", "")
    y = year_of(date) or year_of(h.get("EventDate", ""))
    m = month_of(date) if year_of(date) else 0
    if f.get("since") is not None or f.get("until") is not None:
        if not y:
            return False
        month = y * 100 + m
        if f.get("since") is not None and month < f["since"]:
            return False
        if f.get("until") is not None and month > f["until"]:
            return False
    if f.get("ratings"):
        we, be = elo(h, "WhiteElo"), elo(h, "BlackElo")
        if we is None or be is None:
            return False
        mean = (we + be) // 2
        if not any(lo <= mean <= hi for lo, hi in f["ratings"]):
            return False
    if f.get("speeds"):
        s = speed(h.get("TimeControl", ""))
        if s is None or s not in f["speeds"]:
            return False
    if f.get("player"):
        want = f["player"].strip().lower()
        w = h.get("White", "").strip().lower() == want
        b = h.get("Black", "").strip().lower() == want
        c = f.get("color")
        if c == "white" and not w or c == "black" and not b or c is None and not (w or b):
            return False
    return True


def add(st, result):
    k = {"1-0": "white", "0-1": "black", "1/2-1/2": "draws"}.get(result, "unknown")
    st[k] += 1


def new():
    return {"white": 0, "draws": 0, "black": 0, "unknown": 0}


def main():
    args = sys.argv[1:]
    filters = json.loads(args[0])
    sep = args.index("--")
    files, queries = args[1:sep], args[sep + 1:]
    targets = {}
    for q in queries:
        b = chess.Board()
        for u in [m for m in q.replace(",", " ").split() if m]:
            b.push_uci(u)
        targets.setdefault(key(b), []).append(q)
    outs = [{q: {"games": 0, "total": new(), "moves": {}} for q in queries} for _ in filters]
    seen_games = set()
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as fh:
            while True:
                g = chess.pgn.read_game(fh)
                if g is None:
                    break
                if g.errors:
                    continue
                h = g.headers
                result = h.get("Result", "*").strip()
                moves = list(g.mainline_moves())
                identity = (tuple(h.get(t, "?") for t in ("Event", "Site", "Date", "Round", "White", "Black")),
                            result, g.board().fen(), tuple(m.uci() for m in moves))
                if identity in seen_games:
                    continue
                seen_games.add(identity)
                kept = [out for f, out in zip(filters, outs) if passes(f, h)]
                if not kept:
                    continue
                board = g.board()
                seen = set()
                for i in range(len(moves) + 1):
                    k = key(board)
                    if k not in seen:
                        seen.add(k)
                        for q in targets.get(k, []):
                            for out in kept:
                                d = out[q]
                                d["games"] += 1
                                add(d["total"], result)
                                if i < len(moves):
                                    add(d["moves"].setdefault(moves[i].uci(), new()), result)
                    if i < len(moves):
                        board.push(moves[i])
    json.dump(outs, sys.stdout, indent=1, sort_keys=True)


main()
