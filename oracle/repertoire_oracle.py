#!/usr/bin/env python3
"""Independent oracle for `tabiya repertoire check` and `repertoire games`, on python-chess.

It applies the contract docs/database.md states ("Repertoires"), written again from the
words, not from Tabiya's code:

- positions are keyed by placement, side to move, castling rights and the en-passant
  square only when a capture there is legal; a game counts once in a position, at its first
  occurrence, with the move it played there (the explorer's contract);
- a repertoire is every game of a PGN file with all its variations, keyed by position: the
  moves of a position are every move given there, wherever it stands in the file;
- the gap walk goes ply by ply from the start: at your positions the repertoire's k moves
  each carry 1/k; at the opponent's every move the database knows carries its share of the
  games that went on from the position; positions are merged by key at each ply (their
  probabilities summed); a position under min-share is not followed; your position without
  a repertoire move at least min-share likely (summed over the plies) is a gap;
- a repertoire move of yours scores badly when over at least min-games games with a result
  it scores (for the mover: wins + draws/2) at least margin below all the games going on
  from the position;
- the repertoire walked alone (your moves 1/k, its opponent moves their share, 0 unplayed):
  an opponent move leading to a position less likely than `rare` from one at least that
  likely is a rare line;
- a position of yours given different main moves in two places is answered differently;
- a game leaves the repertoire with the move after its last position in the repertoire
  (when the game goes on): `you` (yours, other than the repertoire's), `opponent`, or `end`
  (the repertoire has no move there); else it stayed.

Usage:
  repertoire_oracle.py check REP.pgn SIDE DEPTH MIN_SHARE MIN_GAMES MARGIN RARE DB.pgn...
  repertoire_oracle.py games REP.pgn SIDE DB.pgn...
Prints JSON.
"""
import json
import sys

import chess
import chess.pgn


def key(board):
    ep = board.ep_square if board.has_legal_en_passant() else None
    return (board.board_fen(), board.turn, board.castling_rights, ep)


def fen(board):
    return board.fen(en_passant="legal")


def read_games(files):
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            while True:
                g = chess.pgn.read_game(fh)
                if g is None:
                    break
                if g.errors:
                    continue
                yield g


def points(result, white):
    """The score x2 of a side: 2 win, 1 draw, 0 loss, None unknown."""
    s = {"1-0": 2, "1/2-1/2": 1, "0-1": 0}.get(result)
    if s is None:
        return None
    return s if white else 2 - s


def database(files):
    """Position key -> {uci: [white, draws, black, unknown]}, and key -> games reaching it."""
    moves, totals = {}, {}
    for g in read_games(files):
        result = g.headers.get("Result", "*")
        board = g.board()
        ms = list(g.mainline_moves())
        seen = set()
        for i in range(len(ms) + 1):
            k = key(board)
            if k not in seen:
                seen.add(k)
                totals[k] = totals.get(k, 0) + 1
                if i < len(ms):
                    st = moves.setdefault(k, {}).setdefault(ms[i].uci(), [0, 0, 0, 0])
                    st[{"1-0": 0, "1/2-1/2": 1, "0-1": 2}.get(result, 3)] += 1
            if i < len(ms):
                board.push(ms[i])
    return moves, totals


def repertoire(path):
    """Position key -> (board, moves in first-met order, [main moves of each place])."""
    rep = {}

    def place(board, here):
        k = key(board)
        e = rep.setdefault(k, [board.copy(stack=False), [], []])
        for m in here:
            if m not in e[1]:
                e[1].append(m)
        if here and here[0] not in e[2]:
            e[2].append(here[0])

    def walk(node, board):
        # node: a GameNode whose children are the moves given at `board`.
        if not node.variations:
            place(board, [])
            return
        place(board, [v.move.uci() for v in node.variations])
        for v in node.variations:
            b = board.copy(stack=False)
            b.push(v.move)
            walk(v, b)

    with open(path, encoding="utf-8") as fh:
        while True:
            g = chess.pgn.read_game(fh)
            if g is None:
                break
            walk(g, g.board())
    return rep


def counts(db, k):
    ms = db.get(k, {})
    cont = sum(sum(v) for v in ms.values())
    return ms, cont


def score(st, white):
    w, d, b, _ = st
    n = w + d + b
    if n == 0:
        return None
    return ((w if white else b) + d / 2) / n


def check(rep_path, side, depth, min_share, min_games, margin, rare, files):
    side = chess.WHITE if side == "white" else chess.BLACK
    db, totals = database(files)
    rep = repertoire(rep_path)
    # Gaps.
    level = {key(chess.Board()): (chess.Board(), 1.0, 1)}
    own = {}
    for ply in range(depth + 1):
        nxt = {}
        for k, (board, p, paths) in level.items():
            if p < min_share:
                continue
            ours = board.turn == side
            if ours:
                o = own.setdefault(k, [board, 0.0, 0])
                o[1] += p
                o[2] += paths
            if ply == depth:
                continue
            if ours:
                mine = rep[k][1] if k in rep else []
                steps = [(m, 1 / len(mine)) for m in mine]
            else:
                ms, cont = counts(db, k)
                steps = [(m, sum(st) / cont) for m, st in ms.items()] if cont else []
            for m, share in steps:
                b = board.copy(stack=False)
                b.push_uci(m)
                ck = key(b)
                if ck in nxt:
                    nxt[ck] = (nxt[ck][0], nxt[ck][1] + p * share, nxt[ck][2] + paths)
                else:
                    nxt[ck] = (b, p * share, paths)
        level = nxt
    gaps = []
    for k, (board, p, paths) in own.items():
        if p < min_share or (k in rep and rep[k][1]):
            continue
        ms, cont = counts(db, k)
        gaps.append({"fen": fen(board), "probability": p, "games": totals.get(k, 0),
                     "paths": paths,
                     "candidates": sorted(((m, sum(st), sum(st) / cont) for m, st in ms.items()),
                                          key=lambda c: -c[1])})
    # Bad moves.
    bad = []
    for k, (board, mine, _) in rep.items():
        if board.turn != side or not mine:
            continue
        ms, _ = counts(db, k)
        allst = [sum(st[i] for st in ms.values()) for i in range(4)]
        ps = score(allst, board.turn == chess.WHITE)
        if ps is None:
            continue
        for m in mine:
            st = ms.get(m)
            if not st or st[0] + st[1] + st[2] < min_games:
                continue
            s = score(st, board.turn == chess.WHITE)
            if s <= ps - margin:
                bad.append({"fen": fen(board), "uci": m, "score": s, "positionScore": ps,
                            "games": sum(st)})
    # Rare lines.
    total = {}
    level = {key(chess.Board()): (chess.Board(), 1.0)}
    for ply in range(depth + 1):
        nxt = {}
        for k, (board, p) in level.items():
            total[k] = total.get(k, 0.0) + p
            mine = rep[k][1] if k in rep else []
            if ply == depth or not mine:
                continue
            if board.turn == side:
                steps = [(m, 1 / len(mine)) for m in mine]
            else:
                ms, cont = counts(db, k)
                steps = [(m, sum(ms.get(m, [0])) / max(cont, 1)) for m in mine]
            for m, share in steps:
                b = board.copy(stack=False)
                b.push_uci(m)
                ck = key(b)
                nxt[ck] = (b, nxt.get(ck, (b, 0.0))[1] + p * share)
        level = nxt
    rare_lines = []
    for k, (board, mine, _) in rep.items():
        if board.turn == side or k not in total or total[k] < rare:
            continue
        for m in mine:
            b = board.copy(stack=False)
            b.push_uci(m)
            q = total.get(key(b), 0.0)
            if q < rare:
                rare_lines.append({"fen": fen(b), "uci": m, "probability": q,
                                   "games": totals.get(key(b), 0)})
    inconsistent = [fen(board) for k, (board, _, mains) in rep.items()
                    if board.turn == side and len(mains) > 1]
    return {"gaps": gaps, "badMoves": bad, "rareLines": rare_lines, "inconsistent": inconsistent}


def games(rep_path, side, files):
    side = chess.WHITE if side == "white" else chess.BLACK
    rep = repertoire(rep_path)
    out = {k: [0, 0, 0, 0, 0] for k in ("all", "you", "opponent", "end", "stayed")}
    departures = {}

    def add(row, pts):
        row[0] += 1
        row[{2: 1, 1: 2, 0: 3, None: 4}[pts]] += 1

    for g in read_games(files):
        pts = points(g.headers.get("Result", "*"), side == chess.WHITE)
        board = g.board()
        boards = [board.copy(stack=False)]
        ms = list(g.mainline_moves())
        for m in ms:
            board.push(m)
            boards.append(board.copy(stack=False))
        add(out["all"], pts)
        inside = [key(b) in rep for b in boards]
        last = max((i for i, x in enumerate(inside) if x), default=None)
        if last is None or last + 1 >= len(boards):
            add(out["stayed"], pts)
            continue
        b = boards[last]
        mine = rep[key(b)][1]
        who = "end" if not mine else ("you" if b.turn == side else "opponent")
        add(out[who], pts)
        d = departures.setdefault(" ".join(fen(b).split()[:4]) + " " + ms[last].uci(),
                                  [0, 0, 0, 0, 0, who])
        add(d, pts)
    return {"counts": out, "departures": departures}


def main():
    a = sys.argv[1:]
    if a[0] == "check":
        r = check(a[1], a[2], int(a[3]), float(a[4]), int(a[5]), float(a[6]), float(a[7]), a[8:])
    else:
        r = games(a[1], a[2], a[3:])
    json.dump(r, sys.stdout)


if __name__ == "__main__":
    main()
