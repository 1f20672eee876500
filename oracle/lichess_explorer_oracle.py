#!/usr/bin/env python3
"""Independent oracle for the Lichess explorer's endpoints of `tabiya serve`, on python-chess:
month-by-month history, modes, each move's `reached`, Chess960 start positions.

SPEC_JSON is {"files": [PGN...], "start_fen": FEN or null (only the games whose FEN tag is
exactly this start, read as Chess960 when their Variant tag says so; null: every game),
"queries": [{"fen": FEN or null, "play": [UCI...], "chess960": bool, "since": yyyymm or
null, "until": yyyymm or null, "mode": "rated" | "casual" | null, "player": NAME or null,
"color": "white" | "black" | null}]}.

For each query, every game (read once; a game equal to one read before — the same Event,
Site, Date, Round, White and Black, result, start and main line — counted once, as Tabiya
imports it once) that passes the query's filter and reaches the position (any move order,
once) is counted:

- "total": by result (white, draws, black, unknown);
- "moves": by the move played at the game's first visit of the position (UCI; Chess960
  castling as the king taking its rook when the query says chess960), each with "reached":
  the games passing the filter that reach the position after the move, by any move order;
- "history": {yyyymm: {white, draws, black, unknown}} over the games whose Date tag names
  a month (the year from Date, else EventDate; a game with no month is in no month);
- "modes": {rated, casual, none}: the games by the mode their Event tag gives: casual when it
  holds "casual" (any case), else rated when it holds "rated" but not "unrated", else none.

Filters: since/until compare yyyymm (year from Date, else EventDate; the month from Date, 0
when unknown; a game with no year fails either); mode as above; player: the White (color
white) or Black (black) name equal to it, case ignored.

Usage: lichess_explorer_oracle.py SPEC_JSON (prints a JSON list, one object a query)
"""
import json
import sys

import chess
import chess.pgn


def key(board):
    ep = board.ep_square if board.has_legal_en_passant() else None
    return (board.board_fen(), board.turn, board.clean_castling_rights(), ep)


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


def mode_of(event):
    e = event.lower()
    if "casual" in e:
        return "casual"
    if "rated" in e and "unrated" not in e:
        return "rated"
    return None


def yyyymm(h):
    date = h.get("Date", "")
    y = year_of(date) or year_of(h.get("EventDate", ""))
    m = month_of(date) if year_of(date) else 0
    return y, m


def passes(q, h):
    y, m = yyyymm(h)
    if q.get("since") is not None or q.get("until") is not None:
        if not y:
            return False
        month = y * 100 + m
        if q.get("since") is not None and month < q["since"]:
            return False
        if q.get("until") is not None and month > q["until"]:
            return False
    if q.get("mode") and mode_of(h.get("Event", "")) != q["mode"]:
        return False
    if q.get("player"):
        want = q["player"].strip().lower()
        side = "White" if q.get("color") == "white" else "Black"
        if h.get(side, "").strip().lower() != want:
            return False
    return True


def new():
    return {"white": 0, "draws": 0, "black": 0, "unknown": 0}


def add(st, result):
    st[{"1-0": "white", "0-1": "black", "1/2-1/2": "draws"}.get(result, "unknown")] += 1


def main():
    spec = json.loads(sys.argv[1])
    start_fen = spec.get("start_fen")
    queries = spec["queries"]
    targets = []
    for q in queries:
        fen = q.get("fen")
        b = chess.Board(fen, chess960=bool(q.get("chess960"))) if fen else chess.Board()
        for u in q.get("play", []):
            b.push(b.parse_uci(u))
        children = {}
        for m in b.legal_moves:
            c = b.copy()
            c.push(m)
            children[b.uci(m, chess960=bool(q.get("chess960")) or None)] = key(c)
        targets.append((key(b), children))
    outs = [{"total": new(), "moves": {}, "history": {}, "modes": {"rated": 0, "casual": 0, "none": 0}}
            for _ in queries]
    seen_games = set()
    for path in spec["files"]:
        with open(path, encoding="utf-8", errors="replace") as fh:
            while True:
                offset = fh.tell()
                h = chess.pgn.read_headers(fh)
                if h is None:
                    break
                if start_fen is not None and h.get("FEN") != start_fen:
                    continue
                fh.seek(offset)
                g = chess.pgn.read_game(fh)
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
                board = g.board()
                chess960 = board.chess960
                keys = {}
                for i in range(len(moves) + 1):
                    k = key(board)
                    if k not in keys:
                        keys[k] = board.uci(moves[i], chess960=chess960 or None) if i < len(moves) else None
                    if i < len(moves):
                        board.push(moves[i])
                y, m = yyyymm(h)
                for q, (target, children), out in zip(queries, targets, outs):
                    if not passes(q, h):
                        continue
                    for uci, ck in children.items():
                        if ck in keys:
                            row = out["moves"].setdefault(uci, {"played": new(), "reached": new()})
                            add(row["reached"], result)
                    if target not in keys:
                        continue
                    add(out["total"], result)
                    out["modes"][mode_of(h.get("Event", "")) or "none"] += 1
                    if y and m:
                        add(out["history"].setdefault(str(y * 100 + m), new()), result)
                    played = keys[target]
                    if played is not None:
                        row = out["moves"].setdefault(played, {"played": new(), "reached": new()})
                        add(row["played"], result)
    for out in outs:
        # Moves no game played here are not rows of the answer.
        out["moves"] = {u: r for u, r in out["moves"].items() if sum(r["played"].values())}
    json.dump(outs, sys.stdout, indent=1, sort_keys=True)


main()
