#!/usr/bin/env python3
"""The Python Lichess client `berserk` (PyPI, by the Lichess project; not Tabiya's) pointed at
a Tabiya server with `explorer_url`: its opening-explorer calls must give what
`tabiya explore --json` and `tabiya export` say for the same positions and games.

Usage: berserk_client.py SERVER_URL EXPECTED.json
EXPECTED.json: {"e4": <explore --json --play e2e4 --top 15>, "sicilian": <... e2e4,c7c5>,
                "player": NAME, "player_white": <explore of the start for NAME as White: the
                totals>, "game": ID, "game_pgn": <export --game ID>}
"""
import json
import sys

import berserk
import requests


def same(what, got, want):
    if got != want:
        print(f"FAIL {what}: berserk {got!r} != tabiya {want!r}")
        sys.exit(1)


def moves_of(answer):
    return [(m["uci"], m["san"], m["white"], m["draws"], m["black"]) for m in answer["moves"]]


def main():
    url, expected = sys.argv[1], json.load(open(sys.argv[2]))
    client = berserk.Client(session=requests.Session(), explorer_url=url.rstrip("/"))
    ex = client.opening_explorer

    m = ex.get_masters_games(play=["e2e4"], top_games=15, moves=50)
    e4 = expected["e4"]
    for k in ("white", "draws", "black"):
        same(f"masters {k}", m[k], e4[k])
    same("masters moves", moves_of(m), moves_of(e4))
    same("masters average ratings", [x["averageRating"] for x in m["moves"]],
         [x["averageRating"] for x in e4["moves"]])
    same("masters top games", [(g["id"], g["uci"], g["white"]["name"], g["black"]["name"], g["winner"], g["year"])
                               for g in m["topGames"]],
         [(g["id"], g["uci"], g["white"]["name"], g["black"]["name"], g["winner"], g["year"])
          for g in e4["topGames"]])
    same("masters opening", m["opening"], e4["opening"])

    sic = expected["sicilian"]
    l = ex.get_lichess_games(play=["e2e4", "c7c5"], moves=50, top_games=4, recent_games=4)
    for k in ("white", "draws", "black"):
        same(f"lichess {k}", l[k], sic[k])
    same("lichess moves", moves_of(l), moves_of(sic))
    same("lichess top games", [g["id"] for g in l["topGames"]], [g["id"] for g in sic["topGames"][:4]])
    same("lichess recent games", len(l["recentGames"]), min(4, sic["white"] + sic["draws"] + sic["black"]))

    results = list(ex.stream_player_games(player=expected["player"], color="white", moves=50))
    same("player stream lines", len(results), 1)
    p = results[0]
    pw = expected["player_white"]
    for k in ("white", "draws", "black"):
        same(f"player {k}", p[k], pw[k])
    for g in p["recentGames"]:
        same("player's recent games are theirs as White", g["white"]["name"], expected["player"])

    pgn = ex.get_otb_master_game(expected["game"])
    same("master game PGN", pgn.strip(), expected["game_pgn"].strip())
    print(f"berserk {berserk.__version__ if hasattr(berserk, '__version__') else ''}: masters, lichess, player and master-game answers agree")


main()
