#!/usr/bin/env python3
"""Independent oracle for `tabiya search` (material signatures, pawn structures, bishops of
opposite colours), on python-chess, written from docs/search.md's rules, not from Tabiya.

    structure_oracle.py QUERIES.json SCENARIOS.json GAMES.pgn...

The games of every file, one file after the other.

QUERIES.json: a list of {"material": "KRPvKR" | null, "pawns": "8/pp3ppp/..." | null,
"either": bool, "hold": N, "ocb": bool, "ratingMin": N | null}.
SCENARIOS.json: a list of {"files": N, "drop": [game numbers], "results": {"number": "1-0"}}:
the games of the first N files, some deleted, some results edited — games
deleted, results edited (games are numbered from 1 in file order, on through the next files, as
Tabiya's ids are when no game is a duplicate).

For each scenario and each query, prints: the matching games (their number and the first ply at which the
query holds for N consecutive positions of the main line, 0 the start position), the
totals by result, the games that ended at that ply, per move played there (UCI) the
games by result, and for a pawn structure the next pawn structure each game reached (the first
later position whose pawns differ), by result.
"""
import json
import sys

import chess
import chess.pgn

KINDS = [(chess.QUEEN, "Q"), (chess.ROOK, "R"), (chess.BISHOP, "B"), (chess.KNIGHT, "N"), (chess.PAWN, "P")]


def side_rule(text):
    """Per letter: (min, max or None); 'M' the minor pieces beyond B and N named."""
    rule = {"Q": [0, 0], "R": [0, 0], "B": [0, 0], "N": [0, 0], "P": [0, 0]}
    minors = None
    i = 0
    while i < len(text):
        c = text[i].upper()
        nxt = text[i + 1] if i + 1 < len(text) else ""
        lo, hi = 1, 1
        if nxt == "*":
            lo, hi, i = 0, None, i + 1
        elif nxt == "+":
            lo, hi, i = 1, None, i + 1
        i += 1
        if c == "K":
            continue
        target = None
        if c == "M":
            if minors is None:
                minors = [0, 0]
            target = minors
        else:
            target = rule[c]
        target[0] += lo
        target[1] = None if (hi is None or target[1] is None) else target[1] + hi
    return rule, minors


def holds(count, rng):
    return count >= rng[0] and (rng[1] is None or count <= rng[1])


def side_holds(counts, rule):
    r, minors = rule
    n = counts
    if minors is None:
        ok = holds(n["B"], r["B"]) and holds(n["N"], r["N"])
    else:
        ok = n["B"] >= r["B"][0] and n["N"] >= r["N"][0] and holds(n["B"] - r["B"][0] + n["N"] - r["N"][0], minors)
    return ok and holds(n["Q"], r["Q"]) and holds(n["R"], r["R"]) and holds(n["P"], r["P"])


def material(sig):
    w, b = sig.replace(" ", "").split("v")
    return side_rule(w), side_rule(b)


def pawns(text):
    board = chess.BaseBoard(text)
    return (board.pieces_mask(chess.PAWN, chess.WHITE), board.pieces_mask(chess.PAWN, chess.BLACK))


def pawn_board(p):
    """Two pawn masks as a board of pawns (`8/pp3ppp/...`)."""
    rows = []
    for r in range(7, -1, -1):
        row, empty = "", 0
        for f in range(8):
            sq = chess.square(f, r)
            c = "P" if p[0] >> sq & 1 else "p" if p[1] >> sq & 1 else None
            if c:
                row += (str(empty) if empty else "") + c
                empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


def flip_pawns(p):
    w, b = p
    return (chess.flip_vertical(b), chess.flip_vertical(w))


def shape(board):
    """What the queries ask of a position: each side's counts, the pawns, opposite bishops."""
    counts = tuple({l: len(board.pieces(t, c)) for t, l in KINDS} for c in (chess.WHITE, chess.BLACK))
    pw = (board.pieces_mask(chess.PAWN, chess.WHITE), board.pieces_mask(chess.PAWN, chess.BLACK))
    return counts, pw, ocb(board)


def ocb(board):
    w, b = board.pieces(chess.BISHOP, chess.WHITE), board.pieces(chess.BISHOP, chess.BLACK)
    if len(w) != 1 or len(b) != 1:
        return False
    light = lambda sq: (chess.square_file(sq) + chess.square_rank(sq)) % 2 == 1
    return light(list(w)[0]) != light(list(b)[0])


def orientation_holds(sh, mat, pw, want_ocb):
    counts, pawns_of, is_ocb = sh
    if want_ocb and not is_ocb:
        return False
    if mat is not None:
        (wr, br) = mat
        if not (side_holds(counts[0], wr) and side_holds(counts[1], br)):
            return False
    if pw is not None and pawns_of != pw:
        return False
    return True


def rating_ok(headers, lo):
    if lo is None:
        return True
    try:
        a, b = int(headers.get("WhiteElo", "")), int(headers.get("BlackElo", ""))
    except ValueError:
        return False
    if a == 0 or b == 0:
        return False
    return (a + b) // 2 >= lo


def main():
    queries = json.load(open(sys.argv[1]))
    scenarios = json.load(open(sys.argv[2]))
    games = []
    n = 0
    for f_no, path in enumerate(sys.argv[3:]):
        with open(path, encoding="utf-8", errors="replace") as f:
            while True:
                g = chess.pgn.read_game(f)
                if g is None:
                    break
                n += 1
                board = g.board()
                shapes = [shape(board)]
                moves = list(g.mainline_moves())
                for m in moves:
                    board.push(m)
                    shapes.append(shape(board))
                games.append((n, f_no, g.headers, shapes, moves, g.headers.get("Result", "*")))
    print(json.dumps([answer(queries, games, sc) for sc in scenarios]))


def answer(queries, games, scenario):
    drop = set(scenario.get("drop", []))
    results = {int(k): v for k, v in scenario.get("results", {}).items()}
    files = scenario["files"]
    out = []
    for q in queries:
        given_m = material(q["material"]) if q.get("material") else None
        given_p = pawns(q["pawns"]) if q.get("pawns") else None
        swapped = None
        if q.get("either"):
            sm = None
            if q.get("material"):
                w, b = q["material"].replace(" ", "").split("v")
                sm = material(b + "v" + w)
            sp = flip_pawns(given_p) if given_p is not None else None
            swapped = (sm, sp)
        hold = max(1, q.get("hold", 1))
        found = {"games": [], "white": 0, "draws": 0, "black": 0, "unknown": 0, "ended": 0, "moves": {}}
        for n, f_no, headers, shapes, moves, result in games:
            if f_no >= files or n in drop:
                continue
            result = results.get(n, result)
            if not rating_ok(headers, q.get("ratingMin")):
                continue
            run_g = run_s = 0
            first = None
            for ply, sh in enumerate(shapes):
                g_ok = orientation_holds(sh, given_m, given_p, q.get("ocb"))
                s_ok = swapped is not None and orientation_holds(sh, swapped[0], swapped[1], q.get("ocb"))
                run_g = run_g + 1 if g_ok else 0
                run_s = run_s + 1 if s_ok else 0
                if run_g >= hold or run_s >= hold:
                    first = ply + 1 - hold
                    break
            if first is None:
                continue
            found["games"].append([n, first])
            key = {"1-0": "white", "1/2-1/2": "draws", "0-1": "black"}.get(result, "unknown")
            found[key] += 1
            if given_p is not None:
                # The first later position whose pawns differ from the match's: its pawns.
                now = shapes[first][1]
                later = next((sh[1] for sh in shapes[first + 1:] if sh[1] != now), None)
                if later is not None:
                    name = pawn_board(later)
                    row = found.setdefault("next", {}).setdefault(name, {"white": 0, "draws": 0, "black": 0, "unknown": 0})
                    row[key] += 1
            if first < len(moves):
                row = found["moves"].setdefault(moves[first].uci(), {"white": 0, "draws": 0, "black": 0, "unknown": 0})
                row[key] += 1
            else:
                found["ended"] += 1
        out.append(found)
    return out


if __name__ == "__main__":
    main()
