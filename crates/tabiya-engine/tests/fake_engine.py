#!/usr/bin/env python3
"""A UCI engine that misbehaves on purpose, for the engine tests.

    fake_engine.py MODE [COUNTER_FILE]

MODE: good (a correct engine that always plays e2e4 from the start, or the first legal-looking
      move it is told of), silent (never answers `uci`), garbage (prints junk, never `uciok`),
      crash (exits with status 3 when told to search), hang (stops reading and printing once
      told to search, answering nothing, not even `isready`), illegal (answers `bestmove e2e5`),
      deaf (searches, then ignores `stop`), flood (prints one endless line),
      crash-once (crashes on its first search, counted in COUNTER_FILE, then is good),
      slow (good, but each search takes 0.2 s).
It answers `isready` at once while idle, as UCI wants.
"""

import sys
import time

mode = sys.argv[1]
counter = sys.argv[2] if len(sys.argv) > 2 else None


def out(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


starts = 0
if counter:
    try:
        starts = int(open(counter).read() or 0)
    except FileNotFoundError:
        starts = 0
    open(counter, "w").write(str(starts + 1))

if mode == "crash-once":
    mode = "crash" if starts == 0 else "good"

for raw in sys.stdin:
    cmd = raw.strip()
    if cmd == "uci":
        if mode == "silent":
            continue
        if mode == "garbage":
            out("Hello, I am not an engine")
            out("\x00\x01 gibberish 12345")
            continue
        out("id name Fake " + mode)
        out("id author Tabiya tests")
        out("option name Hash type spin default 16 min 1 max 1024")
        out("option name MultiPV type spin default 1 min 1 max 10")
        out("uciok")
    elif cmd == "isready":
        out("readyok")
    elif cmd.startswith("go"):
        if mode == "crash":
            sys.exit(3)
        if mode == "hang":
            time.sleep(3600)
        if mode == "flood":
            while True:
                sys.stdout.write("x" * 65536)
                sys.stdout.flush()
        out("info depth 1 seldepth 1 multipv 1 score cp 30 nodes 20 nps 2000 time 10 pv e2e4")
        if mode == "illegal":
            out("bestmove e2e5")
            continue
        if mode == "deaf":
            # Keeps searching; ignores stop (but not isready).
            for line in sys.stdin:
                if line.strip() == "isready":
                    out("readyok")
                if line.strip() == "quit":
                    sys.exit(0)
            sys.exit(0)
        if mode == "slow":
            time.sleep(0.2)
        if "infinite" in cmd:
            for line in sys.stdin:
                if line.strip() == "stop":
                    break
                if line.strip() == "isready":
                    out("readyok")
        out("info depth 2 seldepth 2 multipv 1 score cp 25 nodes 80 nps 4000 time 20 pv e2e4 e7e5")
        out("bestmove e2e4 ponder e7e5")
    elif cmd == "quit":
        sys.exit(0)
