#!/usr/bin/env python3
"""Independent oracle for `tabiya explore`, written on python-chess.

Reads PGN files, applies Tabiya's counting contract as the issue states it, and prints
JSON statistics for the positions given as UCI move lists (one per argument, "" = start):

- a position is piece placement, side to move, castling rights, and the en-passant square
  only when an en-passant capture is legal (python-chess's `_transposition_key` with
  `ep_square` only if legal: we use board.fen-like key with legal ep);
- a position counts once per game, at its first occurrence; the move counted is the one
  played there; the final position counts too;
- white / draws / black from the Result; `*` games are counted apart (unknown);
- averageRating = floor(mean of (WhiteElo + BlackElo) / 2) over the move's games where both
  are known and the result too (a `*` game counts in neither its results nor its ratings); performance = FIDE performance of the mover over those games (score known):
  mean opponent rating rounded half up + dp(p), p rounded half up to hundredths, dp from
  FIDE table 8.1(a) with +-800 at 100 % / 0 %.

Usage: explore_oracle.py PGN [PGN...] -- MOVES|FEN [MOVES|FEN...]
"""
import json
import sys

import chess
import chess.pgn

DP = [0, 7, 14, 21, 29, 36, 43, 50, 57, 65, 72, 80, 87, 95, 102, 110, 117, 125, 133, 141, 149,
      158, 166, 175, 184, 193, 202, 211, 220, 230, 240, 251, 262, 273, 284, 296, 309, 322, 336,
      351, 366, 383, 401, 422, 444, 470, 501, 538, 589, 677, 800]


def dp(p):
    return DP[p - 50] if p >= 50 else -DP[50 - p]


def key(board):
    ep = board.ep_square if board.has_legal_en_passant() else None
    return (board.board_fen(), board.turn, board.castling_rights, ep)


def elo(headers, name):
    try:
        v = int(headers.get(name, ""))
    except ValueError:
        return None
    return v if 1 <= v <= 4000 else None


def new_stats():
    return {"white": 0, "draws": 0, "black": 0, "unknown": 0, "rsum": 0, "rn": 0,
            "popp": 0, "pscore2": 0, "pn": 0, "years": []}


def add(st, result, we, be, mover_white, year):
    if result == "1-0":
        st["white"] += 1
    elif result == "0-1":
        st["black"] += 1
    elif result == "1/2-1/2":
        st["draws"] += 1
    else:
        st["unknown"] += 1
    # Ratings count over the games whose result counts (not `*`), as the results do.
    if we is not None and be is not None and result in ("1-0", "0-1", "1/2-1/2"):
        st["rsum"] += we + be
        st["rn"] += 1
        opp = be if mover_white else we
        score2 = {"1-0": 2, "1/2-1/2": 1, "0-1": 0}[result]
        if not mover_white:
            score2 = 2 - score2
        st["popp"] += opp
        st["pscore2"] += score2
        st["pn"] += 1
    if year:
        st["years"].append(year)


def finish(st):
    out = {"white": st["white"], "draws": st["draws"], "black": st["black"], "unknown": st["unknown"]}
    out["averageRating"] = st["rsum"] // (2 * st["rn"]) if st["rn"] else None
    if st["pn"]:
        n = st["pn"]
        ra = (2 * st["popp"] + n) // (2 * n)
        p = (st["pscore2"] * 100 + n) // (2 * n)
        out["performance"] = ra + dp(p)
    else:
        out["performance"] = None
    out["firstYear"] = min(st["years"]) if st["years"] else None
    out["lastYear"] = max(st["years"]) if st["years"] else None
    return out


def main():
    args = sys.argv[1:]
    sep = args.index("--")
    files, queries = args[:sep], args[sep + 1:]
    targets = {}
    for q in queries:
        if "/" in q:
            # A FEN instead of moves from the start.
            b = chess.Board(q)
        else:
            b = chess.Board()
            for u in [m for m in q.replace(",", " ").split() if m]:
                b.push_uci(u)
        targets.setdefault(key(b), []).append(q)
    per = {q: {"moves": {}, "total": new_stats(), "games": 0} for q in queries}
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            while True:
                g = chess.pgn.read_game(fh)
                if g is None:
                    break
                if g.errors:
                    continue
                h = g.headers
                result = h.get("Result", "*")
                we, be = elo(h, "WhiteElo"), elo(h, "BlackElo")
                year = None
                for tag in ("Date", "EventDate"):
                    try:
                        y = int(h.get(tag, "")[:4])
                        if y > 0:
                            year = y
                            break
                    except ValueError:
                        pass
                board = g.board()
                seen = set()
                moves = list(g.mainline_moves())
                for i in range(len(moves) + 1):
                    k = key(board)
                    if k not in seen:
                        seen.add(k)
                        for q in targets.get(k, []):
                            mv = moves[i].uci() if i < len(moves) else None
                            d = per[q]
                            d["games"] += 1
                            add(d["total"], result, we, be, board.turn == chess.WHITE, year)
                            if mv is not None:
                                st = d["moves"].setdefault(mv, new_stats())
                                add(st, result, we, be, board.turn == chess.WHITE, year)
                    if i < len(moves):
                        board.push(moves[i])
    out = {}
    for q, d in per.items():
        out[q] = {"games": d["games"], "total": finish(d["total"]),
                  "moves": {m: finish(s) for m, s in d["moves"].items()}}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


main()
