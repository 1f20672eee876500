#!/usr/bin/env python3
"""Independent oracle for `tabiya cards from-line | from-book | from-db`, on python-chess.

Prints the cards the issue's rules make, as JSON: a list of {"fen", "moves"} (moves in UCI,
castling as the king's two squares), one per position (a position is piece placement, side
to move, castling rights and the en-passant square only when a capture there is legal), in
the order first met.

    cards_oracle.py line SIDE MOVES [FEN]
        each position of the line (UCI or SAN, spaces or commas) where SIDE is to move, with
        the line's move there; a position met again gets the new move added.
    cards_oracle.py book SIDE DEPTH BEST BOOK.bin
        a Polyglot book walked breadth first from the start to DEPTH plies: where SIDE is to
        move, the BEST moves of highest weight (weight 0 never; ties by UCI) make a card and
        are followed; where the other side is, every move of the book is followed; a position
        is walked once.
    cards_oracle.py db SIDE DEPTH BEST MIN_GAMES GAMES.pgn
        the same walk with the moves the games played in each position (each game counts a
        position once, at its first occurrence, with the move played there), most played
        first (ties by UCI), only moves of MIN_GAMES games or more.
"""
import collections
import json
import sys

import chess
import chess.pgn
import chess.polyglot


def key(board):
    ep = board.ep_square if board.has_legal_en_passant() else None
    return (board.board_fen(), board.turn, board.castling_rights, ep)


def card_fen(board):
    return board.fen(en_passant="legal")


def add(cards, order, board, moves):
    k = key(board)
    if k not in cards:
        cards[k] = {"fen": card_fen(board), "moves": []}
        order.append(k)
    for m in moves:
        u = board.uci(m)
        if u not in cards[k]["moves"]:
            cards[k]["moves"].append(u)


def parse_move(board, token):
    try:
        m = chess.Move.from_uci(token)
        if m in board.legal_moves:
            return m
    except ValueError:
        pass
    return board.parse_san(token)


def line(side, moves, fen=None):
    board = chess.Board(fen) if fen else chess.Board()
    want = side == "white"
    cards, order = {}, []
    for token in moves.replace(",", " ").split():
        m = parse_move(board, token)
        if board.turn == want:
            add(cards, order, board, [m])
        board.push(m)
    return [cards[k] for k in order]


def walk(side, depth, best, source):
    want = side == "white"
    cards, order = {}, []
    start = chess.Board()
    seen = {key(start)}
    queue = collections.deque([(start, 0)])
    while queue:
        board, ply = queue.popleft()
        if ply >= depth:
            continue
        ours = board.turn == want
        moves = source(board, ours)
        if ours:
            moves = moves[:best]
            if not moves:
                continue
            add(cards, order, board, moves)
        for m in moves:
            child = board.copy(stack=False)
            child.push(m)
            if key(child) not in seen:
                seen.add(key(child))
                queue.append((child, ply + 1))
    return [cards[k] for k in order]


def book_source(path):
    reader = chess.polyglot.open_reader(path)

    def moves(board, ours):
        ranked = {}
        for e in reader.find_all(board, minimum_weight=0):
            if ours and e.weight == 0:
                continue
            u = board.uci(e.move)
            ranked[u] = max(ranked.get(u, -1), e.weight)
        order = sorted(ranked, key=lambda u: (-ranked[u], u))
        return [board.parse_uci(u) for u in order]

    return moves


def db_source(path, min_games):
    counts = collections.defaultdict(collections.Counter)
    with open(path, encoding="utf-8", errors="replace") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            board = game.board()
            seen = set()
            for m in game.mainline_moves():
                k = key(board)
                if k not in seen:
                    seen.add(k)
                    counts[k][board.uci(m)] += 1
                board.push(m)

    def moves(board, ours):
        c = counts.get(key(board), {})
        order = sorted((u for u, n in c.items() if n >= min_games), key=lambda u: (-c[u], u))
        return [board.parse_uci(u) for u in order]

    return moves


def main():
    args = sys.argv[1:]
    if args and args[0] == "line":
        out = line(args[1], args[2], args[3] if len(args) > 3 else None)
    elif args and args[0] == "book":
        out = walk(args[1], int(args[2]), int(args[3]), book_source(args[4]))
    elif args and args[0] == "db":
        out = walk(args[1], int(args[2]), int(args[3]), db_source(args[5], int(args[4])))
    else:
        print(__doc__)
        return 2
    json.dump(out, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
