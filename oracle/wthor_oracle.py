#!/usr/bin/env python3
"""Independent WTHOR reader and Othello referee, written for Tabiya's tests.

It shares no code with the Rust crate: a plain 8x8 list board (no bitboards), moves read
straight from the .wtb bytes with struct, names decoded as latin-1.

Usage:
  wthor_oracle.py summary WTB... [--jou F] [--trn F]   -> JSON summary on stdout
  wthor_oracle.py csvcheck CSV WTB... [--jou F] [--trn F] -> compares a CSV export with the files
  wthor_oracle.py rows WTB... [--jou F] [--trn F]      -> the CSV rows as a JSON array of objects

The summary lists, per file: the game count, and the 0-based indices of games that
 - contain a move byte that is not a square (bad), or a move that is illegal (illegal),
 - stop before neither side can move (unfinished),
 - are finished but whose stored black score differs from the board (score_mismatch),
   the board score giving empty squares to the winner,
 - have a tournament or player id beyond the .trn/.jou (unknown_ids),
 - contain at least one pass (with_pass).
When --jou/--trn are not given, WTHOR.JOU / WTHOR.TRN beside each .wtb are used.
"""

import csv
import json
import os
import struct
import sys

DIRS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
EMPTY, BLACK, WHITE = 0, 1, 2


def new_board():
    b = [[EMPTY] * 8 for _ in range(8)]  # b[row][col], row 0 = row 1
    b[3][3] = WHITE  # d4
    b[4][4] = WHITE  # e5
    b[3][4] = BLACK  # e4
    b[4][3] = BLACK  # d5
    return b


def flips(b, row, col, me):
    if b[row][col] != EMPTY:
        return []
    opp = 3 - me
    out = []
    for dr, dc in DIRS:
        r, c = row + dr, col + dc
        line = []
        while 0 <= r < 8 and 0 <= c < 8 and b[r][c] == opp:
            line.append((r, c))
            r += dr
            c += dc
        if line and 0 <= r < 8 and 0 <= c < 8 and b[r][c] == me:
            out.extend(line)
    return out


def has_move(b, me):
    for r in range(8):
        for c in range(8):
            if b[r][c] == EMPTY and flips(b, r, c, me):
                return True
    return False


def replay(moves):
    """moves: list of (row, col). Returns (status, board, passes, failed_index)."""
    b = new_board()
    me = BLACK
    passes = 0
    for i, (r, c) in enumerate(moves):
        f = flips(b, r, c, me)
        if not f:
            if has_move(b, me):
                return "illegal", b, passes, i
            me = 3 - me
            passes += 1
            f = flips(b, r, c, me)
            if not f:
                return "illegal", b, passes, i
        b[r][c] = me
        for rr, cc in f:
            b[rr][cc] = me
        me = 3 - me
    finished = not has_move(b, BLACK) and not has_move(b, WHITE)
    return ("finished" if finished else "unfinished"), b, passes, None


def score(b):
    nb = sum(row.count(BLACK) for row in b)
    nw = sum(row.count(WHITE) for row in b)
    empty = 64 - nb - nw
    if nb > nw:
        return nb + empty, nb, nw
    if nw > nb:
        return nb, nb, nw
    return nb + empty // 2, nb, nw


def read_names(path, size):
    data = open(path, "rb").read()
    count = struct.unpack_from("<H", data, 8)[0]
    names = []
    for i in range(count):
        raw = data[16 + i * size: 16 + (i + 1) * size]
        if len(raw) < size:
            break
        names.append(raw.split(b"\0", 1)[0].decode("latin-1"))
    return names


def read_games(path):
    data = open(path, "rb").read()
    count = struct.unpack_from("<I", data, 4)[0]
    year = struct.unpack_from("<H", data, 10)[0]
    games = []
    for i in range(count):
        off = 16 + 68 * i
        rec = data[off: off + 68]
        if len(rec) < 68:
            break
        t, bl, wh, bs, ts = struct.unpack_from("<HHHBB", rec, 0)
        raw = list(rec[8:68])
        moves = []
        bad = None
        for j, m in enumerate(raw):
            if m == 0:
                if any(raw[j:]):
                    bad = j
                break
            col, row = m % 10, m // 10
            if not (1 <= col <= 8 and 1 <= row <= 8):
                bad = j
                break
            moves.append((row - 1, col - 1))
        games.append({"t": t, "b": bl, "w": wh, "bs": bs, "ts": ts, "moves": moves, "bad": bad})
    return year, games


def names_for(wtb, opts):
    d = os.path.dirname(wtb) or "."
    jou = opts.get("jou") or os.path.join(d, "WTHOR.JOU")
    trn = opts.get("trn") or os.path.join(d, "WTHOR.TRN")
    return read_names(jou, 20), read_names(trn, 26)


def summary(files, opts):
    out = []
    for path in files:
        players, tournaments = names_for(path, opts)
        year, games = read_games(path)
        rec = {"file": os.path.basename(path), "year": year, "games": len(games), "bad": [],
               "illegal": [], "unfinished": [], "score_mismatch": [], "unknown_ids": [],
               "with_pass": 0}
        for i, g in enumerate(games):
            if g["t"] >= len(tournaments) or g["b"] >= len(players) or g["w"] >= len(players):
                rec["unknown_ids"].append(i)
            if g["bad"] is not None:
                rec["bad"].append(i)
                continue
            status, b, passes, failed = replay(g["moves"])
            if passes:
                rec["with_pass"] += 1
            if status == "illegal":
                rec["illegal"].append(i)
            elif status == "unfinished":
                rec["unfinished"].append(i)
            else:
                if score(b)[0] != g["bs"]:
                    rec["score_mismatch"].append(i)
        out.append(rec)
    return out


def transcript(moves):
    return "".join("abcdefgh"[c] + str(r + 1) for r, c in moves)


def rows(files, opts):
    out = []
    for path in files:
        players, tournaments = names_for(path, opts)
        year, games = read_games(path)
        for g in games:
            out.append({
                "tournamentId": g["t"],
                "tournamentName": tournaments[g["t"]] if g["t"] < len(tournaments) else "?",
                "blackPlayerId": g["b"],
                "blackPlayerName": players[g["b"]] if g["b"] < len(players) else "?",
                "whitePlayerId": g["w"],
                "whitePlayerName": players[g["w"]] if g["w"] < len(players) else "?",
                "blackScore": g["bs"],
                "blackTheoreticalScore": g["ts"],
                "transcript": transcript(g["moves"]),
                "year": year})
    return out


def csvcheck(csv_path, files, opts):
    raw = open(csv_path, "rb").read()
    if not raw.startswith(b"\xef\xbb\xbf"):
        print("no UTF-8 byte-order mark", file=sys.stderr)
        return 1
    text = raw[3:].decode("utf-8")
    rows = list(csv.reader(text.splitlines(keepends=True)))
    header = rows[0]
    want = ["tournamentId", "tournamentName", "blackPlayerId", "blackPlayerName", "whitePlayerId",
            "whitePlayerName", "blackScore", "blackTheoreticalScore", "transcript", "year"]
    if header != want:
        print("header %r != %r" % (header, want), file=sys.stderr)
        return 1
    expected = []
    for path in files:
        players, tournaments = names_for(path, opts)
        year, games = read_games(path)
        for g in games:
            expected.append([
                str(g["t"]), tournaments[g["t"]] if g["t"] < len(tournaments) else "?",
                str(g["b"]), players[g["b"]] if g["b"] < len(players) else "?",
                str(g["w"]), players[g["w"]] if g["w"] < len(players) else "?",
                str(g["bs"]), str(g["ts"]), transcript(g["moves"]), str(year)])
    got = rows[1:]
    if len(got) != len(expected):
        print("%d rows, expected %d" % (len(got), len(expected)), file=sys.stderr)
        return 1
    for i, (a, b) in enumerate(zip(got, expected)):
        if a != b:
            print("row %d: %r != %r" % (i, a, b), file=sys.stderr)
            return 1
    specials = sum(1 for r in expected if any(ch in f for f in r for ch in ',"\r\n'))
    nonascii = sum(1 for r in expected if any(ord(ch) > 127 for f in r for ch in f))
    print(json.dumps({"rows": len(got), "rowsNeedingQuotes": specials, "rowsWithNonAscii": nonascii}))
    return 0


def main(argv):
    opts = {}
    args = []
    i = 0
    while i < len(argv):
        if argv[i] in ("--jou", "--trn"):
            opts[argv[i][2:]] = argv[i + 1]
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    if args[0] == "summary":
        json.dump(summary(args[1:], opts), sys.stdout, indent=1)
        print()
        return 0
    if args[0] == "rows":
        json.dump(rows(args[1:], opts), sys.stdout, ensure_ascii=False)
        print()
        return 0
    if args[0] == "csvcheck":
        return csvcheck(args[1], args[2:], opts)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
