#!/usr/bin/env python3
"""Independent oracle for Tabiya's player card (`names show`, `/api/player`), on python-chess.

Reads PGN files and, for one player's name, counts what the card states, as Tabiya's
documentation states it:

- a game is the player's when its White or Black tag equals the name once case, accents,
  punctuation and spacing are ignored (`Kasparov, G.` is `Kasparov,G`);
- results from the player's side, by colour: wins, draws, losses, and games without a
  result (`*` or anything else);
- years from the Date tag (the first four characters, a number above 0);
- the player's own ratings (WhiteElo or BlackElo, a whole number 1..4000), lowest and highest;
- openings: the name of the Lichess openings table (data/eco/*.tsv, matched by position, the
  shorter line naming a position two lines reach) at the last named position among the first
  60 plies of the game; most played first, then by ECO and name; at most 10. Each with
  `uci`, the table's line (UCI moves joined by commas) of the named position most of these
  games reached under that name (among equals the shorter text, then the first in text order).

A game equal to one read before (the Seven Tag Roster and the main line) is a duplicate and
counted once, and a game with an illegal move is left out, as Tabiya imports them.

Prints one JSON object: {"games", "white": {games, wins, draws, losses, unknown}, "black":
{...}, "firstYear", "lastYear", "ratingMin", "ratingMax", "openings": [{eco, name, uci, games}]}.

Usage: player_card.py NAME ECO_DIR PGN [PGN...]
"""
import json
import os
import sys
import unicodedata

import chess
import chess.pgn


def fold(s):
    s = "".join(c for c in unicodedata.normalize("NFD", s) if not unicodedata.combining(c)).lower()
    return " ".join("".join(c if c.isalnum() else " " for c in s).split())


def key(board):
    ep = board.ep_square if board.has_legal_en_passant() else None
    return (board.board_fen(), board.turn, board.castling_rights, ep)


def opening_table(eco_dir):
    table = {}  # position key -> (plies, eco, name, uci)
    for letter in "abcde":
        with open(os.path.join(eco_dir, f"{letter}.tsv"), encoding="utf-8") as f:
            next(f)
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if len(cols) < 3:
                    continue
                eco, name, pgn = cols[:3]
                board = chess.Board()
                plies = 0
                line = []
                try:
                    for tok in pgn.split():
                        if tok.endswith("."):
                            continue
                        line.append(board.push_san(tok).uci())
                        plies += 1
                except ValueError:
                    continue
                k = key(board)
                if k not in table or plies < table[k][0]:
                    table[k] = (plies, eco, name, ",".join(line))
    return table


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    name = fold(sys.argv[1])
    table = opening_table(sys.argv[2])
    seen = set()
    card = {
        "games": 0,
        "white": {"games": 0, "wins": 0, "draws": 0, "losses": 0, "unknown": 0},
        "black": {"games": 0, "wins": 0, "draws": 0, "losses": 0, "unknown": 0},
    }
    years, ratings, openings = [], [], {}
    for path in sys.argv[3:]:
        with open(path, encoding="latin-1") as f:
            while True:
                g = chess.pgn.read_game(f)
                if g is None:
                    break
                if g.errors:
                    continue
                h = g.headers
                moves = [m.uci() for m in g.mainline_moves()]
                dup = tuple(h.get(t, "?") for t in ("Event", "Site", "Date", "Round", "White", "Black", "Result")) + tuple(moves)
                if dup in seen:
                    continue
                seen.add(dup)
                for colour in ("White", "Black"):
                    if fold(h.get(colour, "")) != name:
                        continue
                    card["games"] += 1
                    s = card[colour.lower()]
                    s["games"] += 1
                    r = h.get("Result", "*")
                    if r == "1/2-1/2":
                        s["draws"] += 1
                    elif r == ("1-0" if colour == "White" else "0-1"):
                        s["wins"] += 1
                    elif r in ("1-0", "0-1"):
                        s["losses"] += 1
                    else:
                        s["unknown"] += 1
                    y = h.get("Date", "????")[:4]
                    if y.isdigit() and int(y) > 0:
                        years.append(int(y))
                    e = h.get(colour + "Elo", "").strip()
                    if e.isdigit() and 0 < int(e) <= 4000:
                        ratings.append(int(e))
                    board = g.board()
                    last = table.get(key(board))
                    for i, m in enumerate(g.mainline_moves()):
                        if i >= 60:
                            break
                        board.push(m)
                        last = table.get(key(board)) or last
                    if last:
                        k = (last[1], last[2])
                        lines = openings.setdefault(k, {})
                        lines[last[3]] = lines.get(last[3], 0) + 1
    card["firstYear"] = min(years) if years else None
    card["lastYear"] = max(years) if years else None
    card["ratingMin"] = min(ratings) if ratings else None
    card["ratingMax"] = max(ratings) if ratings else None
    counted = [(k, sum(lines.values()), lines) for k, lines in openings.items()]
    ranked = sorted(counted, key=lambda x: (-x[1], x[0][0], x[0][1]))[:10]
    card["openings"] = [
        {"eco": e, "name": n, "games": c,
         "uci": min(lines.items(), key=lambda kv: (-kv[1], len(kv[0]), kv[0]))[0]}
        for (e, n), c, lines in ranked]
    print(json.dumps(card))
    return 0


if __name__ == "__main__":
    sys.exit(main())
