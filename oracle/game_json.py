#!/usr/bin/env python3
"""One game as Tabiya's `/api/game/{id}` shows it, computed by python-chess alone.

    python3 game_json.py FILE.pgn [FILE.pgn ...]

Prints a JSON list, one object per game in file order (games python-chess cannot read as
standard chess or Chess960 are listed as null): its tags (the Seven Tag Roster first, then
the others in file order, as python-chess reads them), the start position's
FEN, the result, the comments before the first move, and every move of the main line and of
the variations with its ply (1 = the game's first move), SAN, UCI, the FEN after it
(en-passant square only when a capture there is legal), the comments after it, its NAGs
(sorted) and the alternatives to it, each with the comments before its first move.

Used by crates/tabiya-service/tests/api.rs (`one_game_as_json_equals_python_chess`).
"""

import json
import sys

import chess
import chess.pgn


def comments(text):
    # python-chess joins a move's comments with a space; Tabiya keeps them apart and the
    # test joins them the same way.
    return [text] if text else []


def unescape(value):
    """A tag value as the PGN standard (8.1.1) defines it: `\\"` is a quote, `\\\\` a
    backslash. (python-chess keeps the escapes in the values it reads.)"""
    out, i = [], 0
    while i < len(value):
        if value[i] == "\\" and i + 1 < len(value) and value[i + 1] in "\\\"":
            out.append(value[i + 1])
            i += 2
        else:
            out.append(value[i])
            i += 1
    return "".join(out)


def line(board, node, ply):
    """The moves from `node` (a child of the position `board`) down its main line."""
    out = []
    board = board.copy()
    while node is not None:
        parent_board = board.copy()
        san = board.san(node.move)
        uci = board.uci(node.move)
        board.push(node.move)
        move = {"ply": ply, "san": san, "uci": uci, "fen": board.fen()}
        if node.comment:
            move["comments"] = comments(node.comment)
        if node.nags:
            move["nags"] = sorted(node.nags)
        alternatives = node.parent.variations[1:] if node.parent.variations[0] is node else []
        if alternatives:
            move["variations"] = []
            for alt in alternatives:
                v = {"moves": line(parent_board, alt, ply)}
                if alt.starting_comment:
                    v["comments"] = comments(alt.starting_comment)
                move["variations"].append(v)
        out.append(move)
        node = node.variations[0] if node.variations else None
        ply += 1
    return out


def game_json(game, headers):
    """`headers`: the game's tags as read (a game's own headers are reordered when python-chess
    sets its board up from a FEN)."""
    board = game.board()
    out = {
        "tags": [{"name": k, "value": unescape(v)} for k, v in headers.items()],
        "startFen": board.fen(),
        "result": game.headers.get("Result", "*"),
    }
    if game.comment:
        out["comments"] = comments(game.comment)
    out["moves"] = line(board, game.variations[0], 1) if game.variations else []
    return out


def main():
    games = []
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8-sig") as f:
            while True:
                start = f.tell()
                headers = chess.pgn.read_headers(f)
                if headers is None:
                    break
                f.seek(start)
                game = chess.pgn.read_game(f)
                if game.errors or game.headers.get("Variant", "Standard").lower() not in ("standard", "chess960", "chess 960", "fischerandom", "fischer random"):
                    games.append(None)
                    continue
                games.append(game_json(game, headers))
    json.dump(games, sys.stdout)


if __name__ == "__main__":
    main()
