// Tests of chess-rules.js. Run: node --test crates/tabiya-server/web/tests/
//
// Perft numbers: the Chess Programming Wiki's "Perft Results" page
// (https://www.chessprogramming.org/Perft_Results: the initial position, position 2 "Kiwipete"
// by Peter McKenzie, positions 3, 4, 5 and 6) and its "Chess960 Perft Results" page
// (https://www.chessprogramming.org/Chess960_Perft_Results, positions 1-3). SAN strings were
// checked against python-chess 1.11.2 (as were 16,000 random positions' moves, SAN and FENs
// while writing the module).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  legalMoves, play, perft, san, destinations, isCheck, parseFen, toFen, START_FEN,
} from '../chess-rules.js';

const KIWIPETE = 'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1';
const POSITION_3 = '8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1';
const POSITION_4 = 'r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1';
const POSITION_4_MIRRORED = 'r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1';
const POSITION_5 = 'rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8';
const POSITION_6 = 'r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10';

const perftCases = [
  ['initial position', START_FEN, [20, 400, 8902, 197281]],
  ['Kiwipete', KIWIPETE, [48, 2039, 97862]],
  ['position 3', POSITION_3, [14, 191, 2812, 43238, 674624]],
  ['position 4', POSITION_4, [6, 264, 9467, 422333]],
  ['position 4 mirrored', POSITION_4_MIRRORED, [6, 264, 9467]],
  ['position 5', POSITION_5, [44, 1486, 62379]],
  ['position 6', POSITION_6, [46, 2079, 89890]],
  // Chess960, Shredder-FEN castling rights.
  ['Chess960 #1', 'bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9', [21, 528, 12189]],
  ['Chess960 #2', '2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9', [21, 807, 18002]],
  ['Chess960 #3', 'b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9', [20, 479, 10471]],
];

for (const [name, fen, counts] of perftCases) {
  test(`perft: ${name}`, () => {
    counts.forEach((expected, i) => assert.equal(perft(fen, i + 1), expected, `depth ${i + 1}`));
  });
}

test('SAN of real moves: plain, disambiguation, castling, promotion, en passant, check, mate', () => {
  const cases = [
    [START_FEN, 'e2e4', 'e4'],
    [START_FEN, 'g1f3', 'Nf3'],
    // Italian game: the bishop's sacrifice checks; Scholar's mate; Fool's mate.
    ['r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR w KQkq - 2 3', 'c4f7', 'Bxf7+'],
    ['r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4', 'h5f7', 'Qxf7#'],
    ['rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2', 'd8h4', 'Qh4#'],
    // Disambiguation by file, by rank, by both; none when only one piece can go there.
    ['7k/8/8/8/8/8/8/R5RK w - - 0 1', 'a1d1', 'Rad1'],
    ['7k/8/8/8/8/8/8/R5RK w - - 0 1', 'g1d1', 'Rgd1'],
    ['7k/8/8/R7/8/8/8/R6K w - - 0 1', 'a1a3', 'R1a3'],
    ['7k/8/8/R7/8/8/8/R6K w - - 0 1', 'a5a3', 'R5a3'],
    ['8/7k/8/8/8/Q7/8/Q1Q4K w - - 0 1', 'a1b2', 'Qa1b2'],
    ['r1bqkbnr/pppppppp/2n5/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 2 2', 'b1c3', 'Nc3'],
    // Castling both ways; back-rank mate.
    [KIWIPETE, 'e1g1', 'O-O'],
    [KIWIPETE, 'e1c1', 'O-O-O'],
    ['6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1', 'a1a8', 'Ra8#'],
    // Promotions: capturing, under-promotion, with check, with mate.
    [POSITION_5, 'd7c8q', 'dxc8=Q'],
    [POSITION_5, 'd7c8n', 'dxc8=N'],
    ['4k3/P7/8/8/8/8/8/4K3 w - - 0 1', 'a7a8q', 'a8=Q+'],
    ['1k6/4P3/1K6/8/8/8/8/8 w - - 0 1', 'e7e8q', 'e8=Q#'],
    ['1k6/4P3/1K6/8/8/8/8/8 w - - 0 1', 'e7e8r', 'e8=R#'],
    // En passant.
    ['rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3', 'e5f6', 'exf6'],
  ];
  for (const [fen, uci, expected] of cases) {
    assert.equal(san(fen, uci), expected, `${uci} in ${fen}`);
    assert.equal(legalMoves(fen).find((m) => m.uci === uci)?.san, expected, `legalMoves: ${uci} in ${fen}`);
  }
});

test('legalMoves: the start position', () => {
  const moves = legalMoves(START_FEN);
  assert.equal(moves.length, 20);
  assert.deepEqual(moves.find((m) => m.uci === 'e2e4'), { from: 'e2', to: 'e4', uci: 'e2e4', san: 'e4' });
});

test('legalMoves: promotions carry the piece', () => {
  const promotions = legalMoves('4k3/P7/8/8/8/8/8/4K3 w - - 0 1').filter((m) => m.from === 'a7');
  assert.deepEqual(promotions.map((m) => m.uci).sort(), ['a7a8b', 'a7a8n', 'a7a8q', 'a7a8r']);
  assert.ok(promotions.every((m) => m.to === 'a8' && 'qrbn'.includes(m.promotion)));
});

test('check, pins and checkmate', () => {
  // Pinned knight on e2 (rook e8 against king e1) may not move.
  const pinned = '4r2k/8/8/8/8/8/4N3/4K3 w - - 0 1';
  assert.ok(!legalMoves(pinned).some((m) => m.from === 'e2'));
  // In check from a rook: only moves that block, capture or step away.
  const check = '4r2k/8/8/8/8/8/3N4/4K3 w - - 0 1';
  assert.ok(isCheck(check));
  assert.deepEqual(legalMoves(check).map((m) => m.uci).sort(), ['d2e4', 'e1d1', 'e1f1', 'e1f2']);
  // After Fool's mate, no move at all.
  const mated = play('rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2', 'd8h4');
  assert.equal(legalMoves(mated).length, 0);
  assert.ok(isCheck(mated));
  // Stalemate: no move, no check.
  const stalemate = '7k/5Q2/6K1/8/8/8/8/8 b - - 0 1';
  assert.equal(legalMoves(stalemate).length, 0);
  assert.ok(!isCheck(stalemate));
});

test('castling is refused through check, out of check and over pieces', () => {
  const uci = (fen) => legalMoves(fen).map((m) => m.uci);
  assert.ok(uci('4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1').includes('e1g1'));
  assert.ok(!uci('4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1').includes('e1g1'), 'f1 attacked');
  assert.ok(uci('4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1').includes('e1c1'));
  assert.ok(!uci('4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1').some((m) => m === 'e1g1' || m === 'e1c1'), 'in check');
  // Queenside: b1 may be attacked (the king does not cross it), but not occupied.
  assert.ok(uci('1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1').includes('e1c1'));
  assert.ok(!uci('4k3/8/8/8/8/8/8/RN2K3 w Q - 0 1').includes('e1c1'));
});

test('play: the FEN after a move', () => {
  assert.equal(play(START_FEN, 'e2e4'), 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1');
  // The en-passant square is written only when the capture is legal.
  const afterD4 = play('rnbqkbnr/pppp1ppp/8/8/4p3/8/PPPPPPPP/RNBQKBNR w KQkq - 0 3', 'd2d4');
  assert.equal(afterD4, 'rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 3');
  assert.equal(play(afterD4, 'e4d3'), 'rnbqkbnr/pppp1ppp/8/8/8/3p4/PPP1PPPP/RNBQKBNR w KQkq - 0 4');
  // Castling moves the rook; capturing a rook on its square removes that castling right.
  assert.equal(play('4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1', 'e1g1'), '4k3/8/8/8/8/8/8/R4RK1 b - - 1 1');
  assert.equal(play('r3k2r/8/8/8/8/8/6b1/R3K2R b KQkq - 0 1', 'g2h1'), 'r3k2r/8/8/8/8/8/8/R3K2b w Qkq - 0 2');
  assert.equal(play('1k6/4P3/1K6/8/8/8/8/8 w - - 0 1', 'e7e8n'), '1k2N3/8/1K6/8/8/8/8/8 b - - 0 1');
  assert.throws(() => play(START_FEN, 'e2e5'), /illegal move/);
  assert.throws(() => play(START_FEN, 'e7e8q'), /illegal move/);
});

test('Chess960: castling as king takes rook, X-FEN and Shredder-FEN rights', () => {
  const fen = '4k3/8/8/8/8/8/8/1R3K1R w HB - 0 1';
  const castles = legalMoves(fen).filter((m) => m.castle);
  assert.deepEqual(castles.map((m) => [m.uci, m.san]).sort(), [['f1b1', 'O-O-O'], ['f1h1', 'O-O']]);
  assert.equal(play(fen, 'f1h1'), '4k3/8/8/8/8/8/8/1R3RK1 b - - 1 1');
  assert.equal(play(fen, 'f1b1'), '4k3/8/8/8/8/8/8/2KR3R b - - 1 1');
  // Rights read as X-FEN, written back the same way; the king castles without moving.
  const still = '1r4kr/8/8/8/8/8/8/1R4KR b KQkq - 0 1';
  assert.equal(toFen(parseFen('1r4kr/8/8/8/8/8/8/1R4KR b HBhb - 0 1')), still);
  assert.equal(play(still, 'g8h8'), '1r3rk1/8/8/8/8/8/8/1R4KR w KQ - 1 2');
  // A rook that is not the outermost one is written by its file.
  assert.equal(toFen(parseFen('4k3/8/8/8/8/8/8/RR2K3 w B - 0 1')), '4k3/8/8/8/8/8/8/RR2K3 w B - 0 1');
});

test('destinations for the board: castling onto the rook, and onto g1/c1 in standard chess', () => {
  const dests = destinations('4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1');
  assert.deepEqual(dests.get('e1').sort(), ['c1', 'd1', 'd2', 'e2', 'f1', 'f2', 'g1', 'h1', 'a1'].sort());
  assert.equal(play('4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1', 'e1h1'), '4k3/8/8/8/8/8/8/R4RK1 b - - 1 1');
  assert.equal(destinations(START_FEN).size, 10);
});

test('bad FENs are refused with a message', () => {
  assert.throws(() => parseFen('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1'), /8 ranks/);
  assert.throws(() => parseFen('rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'), /bad FEN/);
  assert.throws(() => parseFen('rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'), /one k/);
  assert.throws(() => parseFen('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1'), /side to move/);
  assert.throws(() => parseFen('7k/8/8/8/8/Q7/8/Q1Q4K w - - 0 1'), /not to move is in check/);
});
