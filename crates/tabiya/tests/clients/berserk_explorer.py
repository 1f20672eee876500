#!/usr/bin/env python3
"""The Python Lichess client `berserk` (PyPI, by the Lichess project; not Tabiya's) pointed at
a Tabiya server with `explorer_url`: runs the opening-explorer calls it is given and prints
their answers as berserk returns them, for the test to compare with python-chess's counts.

Usage: berserk_explorer.py SERVER_URL CALLS_JSON
CALLS_JSON: [{"call": "lichess" | "player" | "masters", "args": {keyword arguments of
get_lichess_games, stream_player_games (the last answer streamed) or get_masters_games}}]
Prints a JSON list, one answer a call.
"""
import json
import sys

import berserk
import requests


def main():
    url, calls = sys.argv[1], json.loads(sys.argv[2])
    client = berserk.Client(session=requests.Session(), explorer_url=url.rstrip("/"))
    ex = client.opening_explorer
    out = []
    for c in calls:
        if c["call"] == "lichess":
            out.append(ex.get_lichess_games(**c["args"]))
        elif c["call"] == "player":
            out.append(list(ex.stream_player_games(**c["args"]))[-1])
        else:
            out.append(ex.get_masters_games(**c["args"]))
    json.dump(out, sys.stdout)


main()
