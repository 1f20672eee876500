#!/usr/bin/env python3
"""Do two builds of Tabiya give the same answers on the shared data?

    scripts/same-answers BEFORE_BIN AFTER_BIN
    scripts/same-answers --build-before REV [AFTER_BIN]     (AFTER_BIN: target/release/tabiya)

Runs one fixed list of commands with each binary, in its own temporary directory (the
database, books and exports it writes stay there), then compares, command by command:

* the exit status;
* standard output: JSON when BEFORE printed JSON (every field of BEFORE's output must be in
  AFTER's and equal; AFTER may add fields; arrays element by element with equal length;
  fields whose name contains "seconds" or "PerSecond" are ignored), else the bytes;
* standard error, as bytes;
* the files a command writes (books, PGN, CSV, WTHOR files): the same names, each file byte for
  byte.

Before comparing, each run's temporary directory is replaced by a placeholder in every output
and file (as UTF-8 and as UTF-16LE: a Kvetka `.ksf` built from a database holds the absolute
path of the PGN it exports beside the book, in UTF-16LE).

`stats` reports bytes on disk (fileBytes, and each part's bytes and bytesPerGame). They vary
from one import to the next even with one binary (the store's page allocation), so a
difference there is listed under "sizes" and fails only with --strict-sizes.

What is run: a chess import of TWIC, every pgnmentor file, TCEC's .nocomments file and the
edge cases in one command (and TWIC again: all duplicates); stats; explore of the start, 27
named openings (UCI, SAN and mixed), FENs (en passant, Chess960), 42 positions taken from the
TWIC and pgnmentor games at plies 2..40, --top and --book variants; games with each sort,
limits and offsets (one past the end); export of the whole database, of single games and of
positions; book build (Polyglot, CTG, Kvetka; from TWIC's PGN and from the database -- CTG and
Kvetka from the database capped at --max-ply 20, as the whole games take ~30 s each), probe,
info, check, dump, convert, game, merge; position encode/decode in every format; an Othello
import of WTHOR 1981..1985 with stats, explore, games filters, wthor export/check/csv/info/
opening; error cases (exit status and standard error). --quick: TWIC and the edge cases only,
10 positions from games, WTHOR 1981..1982, no dump of the TWIC Kvetka book.

--build-before REV: `git worktree add --detach target/same-answers/src-REV REV` (an existing
one is reused and checked out at REV), `cargo build --release -p tabiya` there with
CARGO_TARGET_DIR=target/same-answers/target, and that binary is BEFORE.

Only the Python standard library is used. Exit status: 0 same answers, 1 different, 2 usage
or setup error.
"""

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCRIPT_DIR = Path(__file__).resolve().parent
REPO = SCRIPT_DIR.parent

TIMING = re.compile(r"seconds|persecond", re.IGNORECASE)
# Bytes on disk in `stats` (not storedBytes: the stored bytes of the entries are an answer).
SIZE_KEYS = re.compile(r"^(fileBytes|bytes|bytesPerGame)$")
PLACEHOLDER = "<TMP>"
MISSING = object()
COMMAND_TIMEOUT = 900  # seconds, per command

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
BENONI_EP = "rnbqkb1r/pp1p1ppp/5n2/2pPp3/2P5/8/PP2PPPP/RNBQKBNR w KQkq e6 0 4"  # dxe6 e.p. legal
FRENCH_EP = "rnbqkbnr/pp3ppp/4p3/2ppP3/3P4/8/PPP2PPP/RNBQKBNR w KQkq c6 0 4"  # c6 not capturable
AFTER_D4 = "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1"
NAJDORF_LATE = "rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 3 12"
ENDGAME = "8/8/8/4k3/8/8/4K3/4R3 w - - 0 1"
GIUOCO = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2P2N2/PP1P1PPP/RNBQK2R w KQkq - 1 5"
# Fallback Chess960 start (the first of data_pgn_cutechess-fischerrandom.pgn).
FRC_DEFAULT = "nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w KQkq - 0 1"

# Named openings: UCI, SAN, mixed, commas or spaces.
OPENINGS = [
    "e4",
    "e2e4,c7c5",                                        # Sicilian (UCI)
    "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6",             # Najdorf (SAN)
    "e2e4 c5 Nf3 d7d6 d4 cxd4 Nxd4 g8f6 Nc3 a6",        # Najdorf again, mixed
    "e4 c5 Nf3 Nc6 d4 cxd4 Nxd4 Nf6 Nc3 e5",            # Sveshnikov
    "e2e4 e7e5 g1f3 b8c6 f1b5",                         # Ruy Lopez (UCI)
    "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7",             # Closed Ruy Lopez (SAN castling)
    "e2e4 e7e5 g1f3 b8c6 f1c4 f8c5 e1g1",               # Giuoco Piano, castling in UCI
    "e4,e5,Nf3,Nc6,d4,exd4,Nxd4",                       # Scotch
    "e4 e5 Nf3 Nf6",                                    # Petrov
    "e4 e5 f4",                                         # King's Gambit
    "e4 e6 d4 d5",                                      # French
    "e4 c6 d4 d5",                                      # Caro-Kann
    "e4 d5 exd5 Qxd5",                                  # Scandinavian
    "e4 Nf6",                                           # Alekhine
    "e4 d6 d4 Nf6 Nc3 g6",                              # Pirc
    "d2d4 d7d5 c2c4",                                   # Queen's Gambit (UCI)
    "d4 d5 c4 e6 Nc3 Nf6",                              # QGD
    "d4 d5 c4 c6",                                      # Slav
    "d2d4 Nf6 c2c4 g6 b1c3 Bg7 e4 d6",                  # King's Indian, mixed
    "d4 Nf6 c4 e6 Nc3 Bb4",                             # Nimzo-Indian
    "d4 Nf6 c4 e6 Nf3 b6",                              # Queen's Indian
    "d4 Nf6 c4 c5 d5 b5",                               # Benko
    "d4 f5",                                            # Dutch
    "c4 e5",                                            # English
    "Nf3 d5 g3",                                        # Reti
    "Nf3 Nf6 c4 e6 d4 d5",                              # QGD by transposition
]


# --------------------------------------------------------------------------------------------
# Sampling positions from the games (python-chess is not needed: the SAN of the main line is
# taken from the PGN text and given to --play).

TOKEN = re.compile(r"\{[^}]*\}|;[^\n]*|\(|\)|\$\d+|\d+\.(?:\.\.)?|1-0|0-1|1/2-1/2|\*|[^\s(){};]+")


def mainline_sans(movetext):
    sans, depth = [], 0
    for tok in TOKEN.findall(movetext):
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth = max(0, depth - 1)
        elif depth or tok[0] in "{;$" or tok in ("1-0", "0-1", "1/2-1/2", "*"):
            continue
        elif re.fullmatch(r"\d+\.+", tok):
            continue
        else:
            tok = tok.rstrip("!?")
            if tok:
                sans.append(tok)
    return sans


def pgn_games(path):
    """(tag lines, movetext) of each game of a PGN file."""
    text = Path(path).read_bytes().decode("latin-1").replace("\r\n", "\n")
    games = []
    for chunk in re.split(r"\n(?=\[Event )", text):
        lines = chunk.strip("\ufeff\n").split("\n")
        tags = [l for l in lines if l.startswith("[")]
        moves = "\n".join(l for l in lines if not l.startswith("[") and not l.startswith("%"))
        if not tags:
            continue
        games.append(("\n".join(tags), moves))
    return games


def sample_lines(files, per_file):
    """Deterministic (label, SAN line) samples: per_file games from each file, at plies 2..40."""
    out = []
    for fno, (path, k) in enumerate(zip(files, per_file)):
        games = pgn_games(path)
        n = len(games)
        if n == 0:
            continue
        picked = set()
        for j in range(k * 3):
            if len(picked) >= k:
                break
            idx = (j * 7919 + 13 * fno) % n
            if idx in picked:
                continue
            tags, movetext = games[idx]
            if "[FEN " in tags or "[Variant " in tags or "[SetUp \"1\"]" in tags:
                continue
            sans = mainline_sans(movetext)
            if len(sans) < 2:
                continue
            ply = 2 + (j * 7 + fno * 5) % 39
            ply = min(ply, len(sans))
            picked.add(idx)
            out.append((f"{Path(path).name} game {idx + 1} ply {ply}", " ".join(sans[:ply])))
    return out


def first_fen_tag(path):
    try:
        m = re.search(r'^\[FEN "([^"]+)"\]', Path(path).read_text(errors="replace"), re.M)
    except OSError:
        return None
    return m.group(1) if m else None


# --------------------------------------------------------------------------------------------
# The checks.

class Check:
    def __init__(self, group, args, json_out=True, outputs=(), sizes=False, expect_ok=True,
                 expect_fail=False, stdin=None, mkdir=()):
        self.group = group
        self.args = list(args)          # strings; "{T}" is the run's temporary directory
        self.json = json_out            # compare stdout as JSON (when BEFORE's parses)
        self.outputs = list(outputs)    # files or directories under {T} to compare
        self.sizes = sizes              # bytes-on-disk fields go to the "sizes" category
        self.expect_ok = expect_ok      # BEFORE failing here means the check itself is broken
        self.expect_fail = expect_fail  # an error case: BEFORE exiting 0 means it tests nothing
        self.stdin = stdin
        self.mkdir = list(mkdir)        # directories under {T} to create first


def build_checks(data, quick):
    pgn = data / "pgn"
    twic = pgn / "twic" / "twic0920.pgn"
    mentor = sorted((pgn / "pgnmentor").glob("*.pgn"))
    tcec = sorted((pgn / "tcec").glob("*.nocomments*.pgn.zst"))
    if not tcec:
        all_tcec = sorted((pgn / "tcec").glob("*.pgn*"), key=lambda p: p.stat().st_size)
        tcec = all_tcec[:1]
    edge = sorted((pgn / "edge-cases").glob("*"))
    poly = data / "polyglot"
    ctgd = data / "ctg"
    wthor = data / "wthor"
    frc_file = next((p for p in edge if "fischerrandom" in p.name or "960" in p.name), None)
    frc = (first_fen_tag(frc_file) if frc_file else None) or FRC_DEFAULT

    for p in [twic, poly / "gm2001.bin", poly / "lasker-trap.bin", ctgd / "simple.ctg", wthor]:
        if not p.exists():
            raise SystemExit(f"same-answers: {p} is missing (give the shared data with --data)")

    c = []
    DB = "{T}/db"
    OTH = "{T}/othello"
    S = str

    # 1. Chess import, one command.
    inputs = [twic] + ([] if quick else mentor + tcec) + edge
    c.append(Check("chess import", ["import", "--db", DB, "--json"] + [S(p) for p in inputs]))

    # 2. stats.
    c.append(Check("chess stats", ["stats", "--db", DB, "--json"], sizes=True))

    # 3. explore.
    def ex(args, top=None, json_out=True):
        a = ["explore", "--db", DB] + args
        if top is not None:
            a += ["--top", S(top)]
        if json_out:
            a.append("--json")
        c.append(Check("explore", a, json_out=json_out))

    ex([])
    for line in OPENINGS:
        ex(["--play", line])
    fens = [START, BENONI_EP, FRENCH_EP, AFTER_D4, NAJDORF_LATE, ENDGAME, GIUOCO, frc]
    for fen in fens:
        ex(["--fen", fen])
    samples = sample_lines([twic] + ([] if quick else mentor), [10 if quick else 12] +
                           ([] if quick else [3] * len(mentor)))
    for _, line in samples:
        ex(["--play", line])
    for args in ([], ["--play", "e4 c5"], ["--play", OPENINGS[2]]):
        for top in (0, 3, 20):
            ex(args, top=top)
    ex(["--play", "e4 c5"], json_out=False)
    ex(["--fen", frc], json_out=False)
    ex(["--play", OPENINGS[5]], top=3, json_out=False)
    books_for_explore = ["--book", S(poly / "gm2001.bin"), "--book",
                         S(ctgd / "PowerPlay17-Sicilienne.ctg") if (ctgd / "PowerPlay17-Sicilienne.ctg").exists()
                         else S(ctgd / "simple.ctg")]
    ex(["--play", "e4 c5"] + books_for_explore)
    ex(["--play", "e4 c5 Nf3 d6 d4"] + books_for_explore)
    ex([] + books_for_explore, json_out=False)

    # 4. games.
    game_positions = [[], ["--play", "e4"], ["--play", "e4 c5"], ["--play", OPENINGS[2]],
                      ["--play", OPENINGS[5]], ["--play", OPENINGS[17]], ["--play", OPENINGS[19]],
                      ["--fen", frc], ["--fen", BENONI_EP], ["--fen", ENDGAME]]
    if quick:
        game_positions = game_positions[:4] + game_positions[7:]
    game_positions += [["--play", line] for _, line in samples[:1 if quick else 3]]
    for pos in game_positions:
        for sort in ("rating", "date", "id"):
            c.append(Check("games", ["games", "--db", DB] + pos + ["--sort", sort, "--json"]))
    for extra in (["--limit", "5", "--offset", "10"], ["--limit", "5", "--offset", "10", "--sort", "date"],
                  ["--limit", "1", "--offset", "2245"], ["--limit", "0"], ["--limit", "200", "--sort", "id"],
                  ["--offset", "100000"], ["--offset", "100000", "--sort", "date"]):
        c.append(Check("games", ["games", "--db", DB, "--play", "e4 c5"] + extra + ["--json"]))
    c.append(Check("games", ["games", "--db", DB, "--json", "--limit", "3", "--offset", "42720"]))
    c.append(Check("games", ["games", "--db", DB, "--play", "e4 c5", "--limit", "7"], json_out=False))
    c.append(Check("games", ["games", "--db", DB, "--fen", frc], json_out=False))

    # 5. export.
    c.append(Check("export", ["export", "--db", DB, "-o", "{T}/export-all/all.pgn"], json_out=False,
                   outputs=["export-all"], mkdir=["export-all"]))
    ids = ([1, 2, 5, 100, 1000, 2245, 2246, 2250, 2254]
           if quick else [1, 2, 5, 100, 2245, 2246, 5000, 12345, 30000, 42708, 42723])
    for gid in ids:
        c.append(Check("export", ["export", "--db", DB, "--game", S(gid)], json_out=False))
    c.append(Check("export", ["export", "--db", DB, "--fen", frc], json_out=False))
    c.append(Check("export", ["export", "--db", DB, "--play", "e4 e5 f4 exf4 Bc4"], json_out=False))
    c.append(Check("export", ["export", "--db", DB, "--play", samples[0][1], "-o", "{T}/export-play/p.pgn"],
                   json_out=False, outputs=["export-play"], mkdir=["export-play"]))

    # 6. Books.
    B = "{T}/books"
    kv_twic = f"{B}/kv-twic/twic"
    kv_db = f"{B}/kv-db/db"
    # CTG and Kvetka books of the whole database take ~30 s each and ~0.5 GB: capped at ply 20.
    db_cap = [] if quick else ["--max-ply", "20"]
    builds = [
        ("pg-twic", ["--format", "polyglot", "-o", f"{B}/pg-twic/twic.bin", S(twic)]),
        ("pg-db", ["--format", "polyglot", "-o", f"{B}/pg-db/db.bin", "--db", DB]),
        ("ctg-twic", ["--format", "ctg", "-o", f"{B}/ctg-twic/twic.ctg", S(twic)]),
        ("ctg-db", ["--format", "ctg", "-o", f"{B}/ctg-db/db", "--db", DB] + db_cap),
        ("kv-twic", ["--format", "kvetka", "-o", kv_twic, S(twic)]),
        ("kv-db", ["--format", "kvetka", "-o", kv_db, "--db", DB] + db_cap),
        ("pg-twic-w", ["--format", "polyglot", "-o", f"{B}/pg-twic-w/w.bin", "--only-white",
                       "--min-game", "1", "--max-ply", "16", S(twic)]),
        ("kv-twic-opts", ["--format", "kvetka", "-o", f"{B}/kv-twic-opts/o", "--max-ply", "12", "--links",
                          "--min-stronger-elo", "2500", "--caption", "same answers", S(twic)]),
    ]
    for name, args in builds:
        c.append(Check("books", ["book", "build"] + args + ["--json"], outputs=[f"books/{name}"]))
    shared_books = [poly / "gm2001.bin", poly / "lasker-trap.bin", ctgd / "simple.ctg"]
    if not quick:
        shared_books += [p for p in (poly / "performance.bin", ctgd / "PowerPlay17-Sicilienne.ctg") if p.exists()]
    built_books = [f"{B}/pg-twic/twic.bin", f"{B}/pg-db/db.bin", f"{B}/ctg-twic/twic.ctg",
                   f"{B}/ctg-db/db.ctg", kv_twic, kv_db + "_0.kob"]
    all_books = [S(p) for p in shared_books] + built_books
    probe_positions = [["--fen", START], ["--play", "e4"], ["--play", "e4 c5"], ["--play", "d4 d5 c4"],
                       ["--play", OPENINGS[5]]]
    for book in all_books:
        for pos in probe_positions[: (3 if quick else 5)]:
            c.append(Check("books", ["book", "probe", book] + pos + ["--json"]))
        c.append(Check("books", ["book", "info", book, "--json"]))
        c.append(Check("books", ["book", "check", book, "--json"], expect_ok=False))
    c.append(Check("books", ["book", "probe", S(poly / "gm2001.bin"), "--play", "e4 c5"], json_out=False))
    c.append(Check("books", ["book", "info", kv_twic], json_out=False))
    for book in [S(poly / "lasker-trap.bin"), S(ctgd / "simple.ctg"), f"{B}/kv-twic-opts/o"] + ([] if quick else [kv_twic]):
        c.append(Check("books", ["book", "dump", book, "--json"]))
    c.append(Check("books", ["book", "dump", S(poly / "lasker-trap.bin")], json_out=False))
    c.append(Check("books", ["book", "dump", S(poly / "lasker-trap.bin"), "--color", "black", "--json"]))
    converts = [("conv-simple", [S(ctgd / "simple.ctg"), "-o", f"{B}/conv-simple/simple.bin"]),
                ("conv-lasker", [S(poly / "lasker-trap.bin"), "-o", f"{B}/conv-lasker/lt", "--format", "kvetka"]),
                ("conv-gm", [S(poly / "gm2001.bin"), "-o", f"{B}/conv-gm/gm", "--format", "kvetka"])]
    if (ctgd / "PowerPlay17-Sicilienne.ctg").exists():
        converts.append(("conv-pp", [S(ctgd / "PowerPlay17-Sicilienne.ctg"), "-o", f"{B}/conv-pp/pp.bin"]))
    # (Kvetka or CTG to Polyglot takes ~5 s for the TWIC book: the small one here.)
    converts.append(("conv-kv", [f"{B}/kv-twic-opts/o", "-o", f"{B}/conv-kv/kv.bin", "--min-game", "2"]))
    converts.append(("conv-kv-ctg", [kv_twic, "-o", f"{B}/conv-kv-ctg/kv.ctg"]))
    for name, args in converts:
        c.append(Check("books", ["book", "convert"] + args + ["--json"], outputs=[f"books/{name}"]))
    c.append(Check("books", ["book", "probe", f"{B}/conv-lasker/lt", "--play", "d4", "--json"]))
    for book, pos in ((kv_twic, "e4 c5"), (kv_twic, "d4 Nf6 c4"), (kv_db, "e4 e5 Nf3")):
        c.append(Check("books", ["book", "game", book, "--play", pos, "--json"]))
    c.append(Check("books", ["book", "game", kv_twic, "--play", "e4 c5", "--index", "0"], json_out=False))
    c.append(Check("books", ["book", "merge", S(poly / "gm2001.bin"), f"{B}/pg-twic/twic.bin",
                             "-o", f"{B}/merge/m.bin", "--json"], outputs=["books/merge"]))
    c.append(Check("books", ["explore", "--db", DB, "--play", "e4 c5", "--book", kv_twic,
                             "--book", f"{B}/ctg-twic/twic.ctg", "--json"]))

    # 7. Position codecs.
    enc_fens = ["startpos", BENONI_EP, AFTER_D4, ENDGAME, NAJDORF_LATE, GIUOCO]
    for fmt in ("b32", "cdb", "ctg", "kvetka", "polyglot"):
        c.append(Check("position", ["position", "encode", "--format", fmt] + enc_fens + ["--json"]))
        c.append(Check("position", ["position", "encode", "--format", fmt, frc, "--json"], expect_ok=False))
    c.append(Check("position", ["position", "encode", "--format", "b32", "-"], json_out=False,
                   stdin="\n".join([START, BENONI_EP, ENDGAME]) + "\n"))
    decodes = {
        "b32": ["ecdfadce99999999088880000000000000000000000000081111111164572546",
                "ecdfad0e9989899988880c000091900000100000000000081100111164572546",
                "0000000000000000000000000000a00080000000000000000000200000006000",
                "cddeacef99999999088880000000000000000000000000081111111145562467"],
        "cdb": ["c3c3c3c3c3c3c3c3678e1089208a408c508d208a1089608e",
                "c3c3998bc9c7c2c3608e1089208a408c50fd2098a108608e",
                "00000000c800000035d10000000000000000000000000000"],
        "ctg": ["56b60f7960f3a60f58b078e0c1e1a60f5960f3b60f7f",
                "77b60f7960f3a1b9588678e0c721a613f5960eb60f704f",
                "0b00000000b40420000000"],
        "kvetka": ["b60f7960f3a60f58b078e0c1e1a60f5960f3b60f70f0",
                   "b60f7960f3a1b9588678e0c721a613f5960eb60f75f0",
                   "960f3a60f5a60f5b60f7830786583ced83de2c1e30f0"],
    }
    for fmt, hexes in decodes.items():
        c.append(Check("position", ["position", "decode", "--format", fmt] + hexes + ["--json"]))
        c.append(Check("position", ["position", "decode", "--format", fmt] + hexes, json_out=False))
    # --black / --mirrored: a position with castling rights cannot be mirrored (an error).
    for fmt, hx, flags, ok in (
            ("ctg", "56b60f7960f3a60f58b1c8e0c1e1a60f5960f3b60f7f", ["--black"], True),
            ("ctg", "56b60f7960f3a60f58b1c8e0c1e1a60f5960f3b60f7f", ["--mirrored"], False),
            ("ctg", "0b00000000b40420000000", ["--mirrored"], True),
            ("ctg", "0b00000000b40420000000", ["--black", "--mirrored"], True),
            ("kvetka", "b60f7960f3a60f58b1c8e0c1e1a60f5960f3b60f70f0", ["--black"], True),
            ("kvetka", "b60f7960f3a60f58b1c8e0c1e1a60f5960f3b60f70f0", ["--black", "--mirrored"], False),
            ("kvetka", "00000000b40420000000000000000000000000000000", ["--mirrored"], True),
            ("kvetka", "00000000b40420000000000000000000000000000000", ["--black", "--mirrored"], True)):
        c.append(Check("position", ["position", "decode", "--format", fmt] + flags + [hx, "--json"], expect_ok=ok))

    # 8. Othello.
    years = range(1981, 1983) if quick else range(1981, 1986)
    wtbs = [S(wthor / f"WTH_{y}.wtb") for y in years]
    c.append(Check("othello", ["import", "--db", OTH, "--json"] + wtbs))
    c.append(Check("othello", ["stats", "--db", OTH, "--json"], sizes=True))
    for line in ["", "f5", "f5d6", "f5d6c3", "f5d6c3d3c4", "f5f6", "f5f4", "c4c3", "d3c5", "e6f4",
                 "f5d6c5f4e3", "f5d6c3d3c4f4f6f3e6e7"]:
        c.append(Check("othello", ["explore", "--db", OTH, "--moves", line, "--json"]))
    c.append(Check("othello", ["explore", "--db", OTH, "--moves", "c4c3", "--top", "2", "--json"]))
    c.append(Check("othello", ["explore", "--db", OTH, "--moves", "f5d6"], json_out=False))
    for args in (["--player", "Tastet"], ["--player", "tastet", "--sort", "date"],
                 ["--from", "1983", "--to", "1984", "--limit", "50"], ["--humans", "--limit", "5"],
                 ["--programs"], ["--tournament", "France", "--offset", "20", "--limit", "10"],
                 ["--moves", "f5d6", "--sort", "id"], ["--moves", "f5d6c3", "--player", "Tastet"],
                 ["--from", "1982", "--to", "1982", "--sort", "rating"], ["--offset", "100000"]):
        c.append(Check("othello", ["games", "--db", OTH] + args + ["--json"]))
    c.append(Check("othello", ["games", "--db", OTH, "--moves", "f5d6", "--limit", "5"], json_out=False))
    c.append(Check("othello", ["wthor", "export", "--db", OTH, "-o", "{T}/wthor-out", "--json"],
                   outputs=["wthor-out"]))
    check_files = [wtbs[0], wtbs[-1]]
    w2022 = data / "wthor-2022-2023" / "WTH_2022.wtb"
    if w2022.exists() and not quick:
        check_files.append(S(w2022))
    c.append(Check("othello", ["wthor", "check", "--json"] + check_files))
    c.append(Check("othello", ["wthor", "check", wtbs[0]], json_out=False))
    c.append(Check("othello", ["wthor", "csv", wtbs[0]], json_out=False))
    c.append(Check("othello", ["wthor", "csv", "--json", wtbs[1]]))
    c.append(Check("othello", ["wthor", "csv", "-o", "{T}/csv/out.csv"] + wtbs, json_out=False, outputs=["csv"],
                   mkdir=["csv"]))
    c.append(Check("othello", ["wthor", "info", "--json", wtbs[0], S(wthor / "WTHOR.JOU"), S(wthor / "WTHOR.TRN")]))
    c.append(Check("othello", ["wthor", "info", wtbs[-1]], json_out=False))
    c.append(Check("othello", ["wthor", "opening", "f5d6c3d3c4", "--json"]))
    c.append(Check("othello", ["wthor", "opening", "c4e3f6e6f5"], json_out=False))

    # 9. Errors: exit status and standard error.
    def err(args, json_out=False, fails=True):
        c.append(Check("errors", args, json_out=json_out, expect_ok=False, expect_fail=fails))

    err(["explore", "--db", DB, "--fen", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1", "--json"])
    err(["explore", "--db", DB, "--fen", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1"])
    err(["explore", "--db", DB, "--play", "e2e4,e7e4", "--json"])
    err(["explore", "--db", DB, "--play", "e4 Ke7x"])
    err(["games", "--db", DB, "--play", "e4 e5 Nf3 Nc6 Bb5 a6 Bxa6 Bxa6 Qxa6"])
    err(["explore", "--db", "{T}/no-such-db", "--play", "e4", "--json"])
    err(["stats", "--db", "{T}/no-such-db"])
    err(["explore", "--db", DB, "--moves", "f5"])
    err(["games", "--db", DB, "--player", "Tastet", "--json"])
    err(["explore", "--db", OTH, "--play", "e4"])
    err(["games", "--db", OTH, "--fen", START])
    err(["explore", "--db", OTH, "--moves", "f5f5"])
    err(["export", "--db", DB, "--game", "999999"])
    err(["games", "--db", DB, "--sort", "elo"])
    err(["position", "decode", "--format", "polyglot", "463b96181691fc9c"])
    err(["position", "decode", "--format", "b32", "zz"])
    err(["position", "encode", "--format", "cdb", "not a fen"])
    err(["book", "probe", "{T}/no-such-book.bin", "--play", "e4"])
    err(["book", "convert", S(poly / "lasker-trap.bin"), "-o", "{T}/books/noext"])
    err(["book", "build", "--format", "polyglot", "--caption", "x", "-o", "{T}/books/x.bin", S(edge[0]) if edge else S(twic)])
    # (An unreadable input is a problem in the report, exit status 0.)
    err(["import", "--db", "{T}/scratch-db", "--json", "{T}/no-such.pgn"], json_out=True, fails=False)

    # Import again into the chess database: every game is a duplicate.
    c.append(Check("chess import", ["import", "--db", DB, "--json", S(twic)]))
    c.append(Check("chess stats", ["stats", "--db", DB, "--json"], sizes=True))
    return c, len(samples)


# --------------------------------------------------------------------------------------------
# Running.

def run_all(label, binary, run_dir, checks, verbose):
    """Runs every check with one binary; returns the per-check results and the time taken."""
    run_dir.mkdir(parents=True)
    bindir = run_dir / ".bin"
    outdir = run_dir / ".out"
    bindir.mkdir()
    outdir.mkdir()
    exe = bindir / "tabiya"  # same name for both, so usage errors (argv[0]) print the same
    shutil.copy2(binary, exe)
    env = dict(os.environ)
    for k in ("TABIYA_DB", "RUST_BACKTRACE", "RUST_LIB_BACKTRACE", "RUST_LOG"):
        env.pop(k, None)
    results = []
    t0 = time.monotonic()
    for i, chk in enumerate(checks):
        for d in chk.mkdir:
            (run_dir / d).mkdir(parents=True, exist_ok=True)
        argv = [str(exe)] + [a.replace("{T}", str(run_dir)) for a in chk.args]
        out_path, err_path = outdir / f"{i:04d}.out", outdir / f"{i:04d}.err"
        t = time.monotonic()
        with open(out_path, "wb") as fo, open(err_path, "wb") as fe:
            try:
                p = subprocess.run(argv, stdout=fo, stderr=fe, cwd=run_dir, env=env,
                                   input=chk.stdin.encode() if chk.stdin is not None else None,
                                   stdin=None if chk.stdin is not None else subprocess.DEVNULL,
                                   timeout=COMMAND_TIMEOUT)
                rc = p.returncode
            except subprocess.TimeoutExpired:
                rc = "timeout"
        dt = time.monotonic() - t
        results.append({"rc": rc, "out": out_path, "err": err_path, "time": dt})
        if verbose:
            print(f"  [{label}] {i + 1}/{len(checks)} {dt:6.2f} s  rc={rc}  {display(chk.args)}",
                  file=sys.stderr, flush=True)
    return results, time.monotonic() - t0


def display(args):
    return "tabiya " + shlex.join(a.replace("{T}", PLACEHOLDER) for a in args)


# --------------------------------------------------------------------------------------------
# Comparing.

class Replacer:
    def __init__(self, run_dir):
        forms = {str(run_dir), os.path.realpath(run_dir)}
        self.pairs = []
        for f in sorted(forms, key=len, reverse=True):
            self.pairs.append((f.encode(), PLACEHOLDER.encode()))
            self.pairs.append((f.encode("utf-16-le"), PLACEHOLDER.encode("utf-16-le")))

    def __call__(self, data):
        for a, b in self.pairs:
            if a in data:
                data = data.replace(a, b)
        return data


def same_type(a, b):
    # 1 and 1.0 and true differ: JSON readers see another type.
    return type(a) is type(b)


def short(v, n=120):
    if v is MISSING:
        return "<missing>"
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= n else s[: n - 3] + "..."


def json_diff(a, b, path, sizes, diffs, extra, limit=50):
    """Appends (path, before, after, category) for each way b fails to hold a."""
    if len(diffs) >= limit:
        return
    if isinstance(a, dict):
        if not isinstance(b, dict):
            diffs.append((path, a, b, "answer"))
            return
        for k, v in a.items():
            if TIMING.search(k):
                continue
            p = f"{path}.{k}"
            cat = "size" if sizes and SIZE_KEYS.match(k) and not isinstance(v, (dict, list)) else "answer"
            if k not in b:
                diffs.append((p, v, MISSING, "answer"))
            elif cat == "size":
                if not (same_type(v, b[k]) and v == b[k]):
                    diffs.append((p, v, b[k], "size"))
            else:
                json_diff(v, b[k], p, sizes, diffs, extra, limit)
        for k in b:
            if k not in a and not TIMING.search(k):
                extra.append(f"{path}.{k}")
    elif isinstance(a, list):
        if not isinstance(b, list):
            diffs.append((path, a, b, "answer"))
            return
        if len(a) != len(b):
            diffs.append((path + ".length", len(a), len(b), "answer"))
        for i, (x, y) in enumerate(zip(a, b)):
            json_diff(x, y, f"{path}[{i}]", sizes, diffs, extra, limit)
    else:
        if not (same_type(a, b) and a == b):
            diffs.append((path, a, b, "answer"))


def text_diff(a, b, what):
    """A one-line description of where bytes a and b first differ (None when equal)."""
    if a == b:
        return None
    binary = b"\0" in a[:65536] or b"\0" in b[:65536]
    if binary:
        n = min(len(a), len(b))
        i = _first_diff(a, b)
        ba = f"0x{a[i]:02x}" if i < len(a) else "<end>"
        bb = f"0x{b[i]:02x}" if i < len(b) else "<end>"
        return f"{what}: {len(a)} vs {len(b)} bytes; first difference at byte {i}: {ba} vs {bb}"
    la, lb = a.split(b"\n"), b.split(b"\n")
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else None
        y = lb[i] if i < len(lb) else None
        if x != y:
            def show(s):
                if s is None:
                    return "<end of output>"
                t = s.decode("utf-8", "replace")
                return repr(t if len(t) <= 150 else t[:147] + "...")
            return f"{what} line {i + 1}: {show(x)} vs {show(y)}"
    return f"{what}: differs"


def _first_diff(a, b):
    n = min(len(a), len(b))
    lo = 0
    step = 1 << 16
    while lo < n and a[lo:lo + step] == b[lo:lo + step]:
        lo += step
    hi = min(n, lo + step)
    for k in range(lo, hi):
        if a[k] != b[k]:
            return k
    return n


def list_files(root):
    if root.is_file():
        return {"": root}
    if not root.exists():
        return {}
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = Path(dirpath) / f
            out[str(p.relative_to(root))] = p
    return out


def compare_check(chk, ra, rb, dir_a, dir_b, rep_a, rep_b):
    """Returns (answer differences, size differences, notes, warnings) of one check."""
    diffs, sizes, notes, warnings = [], [], [], []
    if chk.expect_ok and ra["rc"] != 0:
        warnings.append(f"BEFORE exits {ra['rc']} (expected 0): {display(chk.args)}; stderr: "
                        + ra["err"].read_bytes().decode("utf-8", "replace").strip()[:200])
    if chk.expect_fail and ra["rc"] == 0:
        warnings.append(f"BEFORE exits 0 on an error case: {display(chk.args)}")
    if ra["rc"] != rb["rc"]:
        diffs.append(f"exit status {ra['rc']} vs {rb['rc']}")
    out_a, out_b = rep_a(ra["out"].read_bytes()), rep_b(rb["out"].read_bytes())
    if out_a != out_b:
        done = False
        if chk.json:
            try:
                ja = json.loads(out_a)
            except ValueError:
                ja = MISSING
            if ja is not MISSING:
                try:
                    jb = json.loads(out_b)
                except ValueError:
                    first = out_b.decode("utf-8", "replace").strip().split("\n")[0][:150]
                    diffs.append(f"AFTER's output is not JSON (BEFORE's is): {first!r}")
                    jb = MISSING
                if jb is not MISSING:
                    dd, extra = [], []
                    json_diff(ja, jb, "$", chk.sizes, dd, extra)
                    ans = [d for d in dd if d[3] == "answer"]
                    siz = [d for d in dd if d[3] == "size"]
                    if ans:
                        p, x, y, _ = ans[0]
                        more = f"  (+{len(ans) - 1} more)" if len(ans) > 1 else ""
                        diffs.append(f"{p}: {short(x)} (BEFORE) vs {short(y)} (AFTER){more}")
                    if siz:
                        sizes.append("; ".join(f"{p}: {short(x)} vs {short(y)}" for p, x, y, _ in siz[:3])
                                     + (f" (+{len(siz) - 3} more)" if len(siz) > 3 else ""))
                    if extra:
                        notes.append("AFTER adds " + ", ".join(extra[:5]) + (" ..." if len(extra) > 5 else ""))
                done = True
        if not done:
            diffs.append(text_diff(out_a, out_b, "stdout"))
    err_a, err_b = rep_a(ra["err"].read_bytes()), rep_b(rb["err"].read_bytes())
    if err_a != err_b:
        diffs.append(text_diff(err_a, err_b, "stderr"))
    for rel in chk.outputs:
        fa, fb = list_files(dir_a / rel), list_files(dir_b / rel)
        only_a, only_b = sorted(set(fa) - set(fb)), sorted(set(fb) - set(fa))
        if only_a or only_b:
            diffs.append(f"files in {rel}: only BEFORE wrote {only_a or '-'}, only AFTER wrote {only_b or '-'}")
        if not fa and not only_b:
            warnings.append(f"no file written under {rel}: {display(chk.args)}")
        for name in sorted(set(fa) & set(fb)):
            a, b = rep_a(fa[name].read_bytes()), rep_b(fb[name].read_bytes())
            d = text_diff(a, b, f"file {rel}/{name}" if name else f"file {rel}")
            if d:
                diffs.append(d)
    return diffs, sizes, notes, warnings


# --------------------------------------------------------------------------------------------
# --build-before.

def git(*args, cwd=REPO, capture=True):
    p = subprocess.run(["git", *args], cwd=cwd, text=True,
                       stdout=subprocess.PIPE if capture else None, stderr=subprocess.PIPE if capture else None)
    if p.returncode != 0:
        raise SystemExit(f"same-answers: git {' '.join(args)} failed: {(p.stderr or '').strip()}")
    return (p.stdout or "").strip()


def build_rev(rev):
    """Builds REV's tabiya in a detached worktree; returns the binary's path."""
    commit = git("rev-parse", "--verify", f"{rev}^{{commit}}")
    base = REPO / "target" / "same-answers"
    wt = base / ("src-" + re.sub(r"[^A-Za-z0-9._-]", "_", rev))
    target = base / "target"
    base.mkdir(parents=True, exist_ok=True)
    if (wt / ".git").exists():
        print(f"same-answers: reusing worktree {wt.relative_to(REPO)}, checking out {rev} ({commit[:10]})", flush=True)
        git("checkout", "--quiet", "--detach", commit, cwd=wt)
    else:
        print(f"same-answers: git worktree add --detach {wt.relative_to(REPO)} {rev} ({commit[:10]})", flush=True)
        git("worktree", "prune")
        git("worktree", "add", "--quiet", "--detach", str(wt), commit)
    env = dict(os.environ, CARGO_TARGET_DIR=str(target))
    print(f"same-answers: CARGO_TARGET_DIR={target.relative_to(REPO)} cargo build --release -p tabiya (in {wt.relative_to(REPO)})",
          flush=True)
    p = subprocess.run(["cargo", "build", "--release", "-p", "tabiya"], cwd=wt, env=env)
    if p.returncode != 0:
        raise SystemExit(f"same-answers: building {rev} failed")
    exe = target / "release" / "tabiya"
    if not exe.is_file():
        raise SystemExit(f"same-answers: {exe} was not built")
    return exe


def stale_warning(exe):
    """Warns when AFTER is the workspace's own binary and a source file is newer."""
    try:
        if exe.resolve() != (REPO / "target" / "release" / "tabiya").resolve():
            return
        built = exe.stat().st_mtime
        for root in [REPO / "crates", REPO / "Cargo.toml", REPO / "Cargo.lock"]:
            paths = [root] if root.is_file() else root.rglob("*")
            for p in paths:
                if p.is_file() and p.stat().st_mtime > built:
                    print(f"same-answers: warning: {p.relative_to(REPO)} is newer than {exe} "
                          "(rebuild it: cargo build --release -p tabiya)", flush=True)
                    return
    except OSError:
        pass


# --------------------------------------------------------------------------------------------

def version(exe):
    try:
        return subprocess.run([str(exe), "--version"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"


def main():
    ap = argparse.ArgumentParser(
        prog="scripts/same-answers",
        description=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        usage="scripts/same-answers [options] BEFORE_BIN AFTER_BIN\n"
              "       scripts/same-answers [options] --build-before REV [AFTER_BIN]")
    ap.add_argument("bins", nargs="*", metavar="BIN", help="BEFORE_BIN AFTER_BIN, or AFTER_BIN with --build-before")
    ap.add_argument("--build-before", metavar="REV",
                    help="build REV's tabiya (git worktree under target/same-answers/src-REV, "
                         "CARGO_TARGET_DIR=target/same-answers/target) and use it as BEFORE; "
                         "AFTER defaults to target/release/tabiya")
    ap.add_argument("--quick", action="store_true", help="a smaller set (TWIC only, fewer positions)")
    ap.add_argument("-v", "--verbose", action="store_true", help="show every command and every difference")
    ap.add_argument("--strict-sizes", action="store_true",
                    help="count differences in bytes on disk (stats) as different answers")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--data", metavar="DIR", help="the shared data (default: ../shared/data beside the repository)")
    opt = ap.parse_args()

    t_start = time.monotonic()
    if opt.build_before:
        if len(opt.bins) > 1:
            ap.error("--build-before takes at most one binary (AFTER)")
        after = Path(opt.bins[0]) if opt.bins else REPO / "target" / "release" / "tabiya"
        before = None
    else:
        if len(opt.bins) != 2:
            ap.error("give BEFORE_BIN and AFTER_BIN, or --build-before REV [AFTER_BIN]")
        before, after = Path(opt.bins[0]), Path(opt.bins[1])

    if opt.data:
        data = Path(opt.data)
    elif os.environ.get("SAME_ANSWERS_DATA"):
        data = Path(os.environ["SAME_ANSWERS_DATA"])
    else:
        data = next((d for d in (REPO.parent / "shared" / "data", Path("/work/shared/data")) if d.is_dir()),
                    REPO.parent / "shared" / "data")
    data = data.resolve()
    if not data.is_dir():
        print(f"same-answers: no shared data at {data} (give --data DIR)", file=sys.stderr)
        return 2

    def usable(label, exe):
        if exe.is_file() and os.access(exe, os.X_OK):
            return True
        hint = " (build it: cargo build --release -p tabiya)" if label == "AFTER" and not opt.bins else ""
        print(f"same-answers: {label} binary {exe} is missing or not executable{hint}", file=sys.stderr)
        return False

    if not usable("AFTER", after):  # before a long build of BEFORE
        return 2
    build_time = 0.0
    if opt.build_before:
        t = time.monotonic()
        before = build_rev(opt.build_before)
        build_time = time.monotonic() - t
    if not usable("BEFORE", before):
        return 2
    before, after = before.resolve(), after.resolve()
    stale_warning(after)

    checks, nsamples = build_checks(data, opt.quick)
    print(f"same-answers: {len(checks)} checks ({'quick' if opt.quick else 'full'}; {nsamples} positions from games)")
    print(f"  BEFORE {before}  ({version(before)})")
    print(f"  AFTER  {after}  ({version(after)})")
    print(f"  data   {data}", flush=True)

    root = Path(tempfile.mkdtemp(prefix="same-answers."))
    # Equal-length directory names: paths stored with their length (Kvetka .ksf) then match.
    dir_a, dir_b = root / "run1", root / "run2"
    try:
        res_a, time_a = run_all("BEFORE", before, dir_a, checks, opt.verbose)
        print(f"  ran BEFORE in {time_a:.1f} s", flush=True)
        res_b, time_b = run_all("AFTER", after, dir_b, checks, opt.verbose)
        print(f"  ran AFTER  in {time_b:.1f} s", flush=True)

        t = time.monotonic()
        rep_a, rep_b = Replacer(dir_a), Replacer(dir_b)
        groups = {}
        for chk, ra, rb in zip(checks, res_a, res_b):
            g = groups.setdefault(chk.group, {"n": 0, "diff": [], "sizes": [], "notes": [], "warnings": []})
            g["n"] += 1
            diffs, sizes, notes, warnings = compare_check(chk, ra, rb, dir_a, dir_b, rep_a, rep_b)
            if diffs or (sizes and opt.strict_sizes):
                g["diff"].append((chk, diffs + ([f"sizes: {s}" for s in sizes] if opt.strict_sizes else [])))
            if sizes:
                g["sizes"].append((chk, sizes))
            for n in notes:
                g["notes"].append((chk, n))
            g["warnings"] += warnings
        time_cmp = time.monotonic() - t

        total = len(checks)
        different = 0
        all_sizes, all_warnings = [], []
        print()
        for name, g in groups.items():
            different += len(g["diff"])
            all_sizes += g["sizes"]
            all_warnings += g["warnings"]
            status = "same" if not g["diff"] else f"{len(g['diff'])} DIFFERENT"
            extra = f"; bytes on disk differ in {len(g['sizes'])} (see sizes)" if g["sizes"] else ""
            print(f"{name:<14} {g['n']:>4} checks: {status}{extra}")
            shown = g["diff"] if opt.verbose else g["diff"][:8]
            for chk, diffs in shown:
                print(f"    DIFFERENT: {display(chk.args)}")
                for d in (diffs if opt.verbose else diffs[:3]):
                    print(f"        {d}")
                if not opt.verbose and len(diffs) > 3:
                    print(f"        (+{len(diffs) - 3} more; -v shows all)")
            if len(shown) < len(g["diff"]):
                print(f"    (+{len(g['diff']) - len(shown)} more different checks; -v shows all)")
            if opt.verbose:
                for chk, n in g["notes"]:
                    print(f"    note: {display(chk.args)}: {n}")
        if all_sizes:
            print(f"sizes: {len(all_sizes)} checks report other bytes on disk "
                  f"({'counted: --strict-sizes' if opt.strict_sizes else 'not a failure; --strict-sizes counts them'}); "
                  "they vary between imports even with one binary")
            for chk, sizes in all_sizes:
                print(f"    {display(chk.args)}: {sizes[0]}")
        for w in all_warnings:
            print(f"warning: {w}")
        print()
        if different:
            print(f"DIFFERENT: {different} of {total} checks")
        else:
            print(f"same answers: {total} checks")
        took = time.monotonic() - t_start
        built = f"building BEFORE {build_time:.1f} s, " if build_time else ""
        print(f"took {took:.1f} s ({built}BEFORE {time_a:.1f} s, AFTER {time_b:.1f} s, comparing {time_cmp:.1f} s)")
        return 1 if different else 0
    finally:
        if opt.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:  # output piped into head, say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
