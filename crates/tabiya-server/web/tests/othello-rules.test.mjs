// Tests of othello-rules.js. Run: node --test crates/tabiya-server/web/tests/
//
// Perft numbers: Aart Bik, "Perft for Reversi" (2009,
// https://aartbik.blogspot.com/2009/02/perft-for-reversi.html): 4, 12, 56, 244, 1396, 8200,
// 55092, 390216 for depths 1-8 from the start position (a pass is a ply; the counts differ
// between pass conventions only from depth 9). The real games are from the WTHOR database
// (Fédération Française d'Othello), with final counts from Tabiya's independent referee,
// oracle/wthor_oracle.py (which also agreed with this module on all 5,716 games of
// WTH_1993 and WTH_2008 while it was written).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  start, legalMoves, play, parseLine, count, perft, flips, parseSquare, squareName, START_DISCS,
} from '../othello-rules.js';

test('the start position: layout and counts', () => {
  const b = start();
  assert.equal(b.sideToMove, 'b');
  assert.equal(b.discs.length, 64);
  // Row by row from a1: d4 and e5 white, e4 and d5 black.
  assert.equal(b.discs[parseSquare('d4')], 'w');
  assert.equal(b.discs[parseSquare('e5')], 'w');
  assert.equal(b.discs[parseSquare('e4')], 'b');
  assert.equal(b.discs[parseSquare('d5')], 'b');
  assert.equal(START_DISCS, '...........................wb......bw...........................');
  assert.deepEqual(count(b), { b: 2, w: 2, empty: 60 });
  assert.deepEqual(legalMoves(b), ['d3', 'c4', 'f5', 'e6']);
});

test('after f5: three moves for white, and the flip', () => {
  const b = play(start(), 'f5');
  assert.equal(b.sideToMove, 'w');
  assert.equal(b.discs[parseSquare('e5')], 'b', 'e5 flipped');
  assert.deepEqual(count(b), { b: 4, w: 1, empty: 59 });
  assert.deepEqual(legalMoves(b), ['f4', 'd6', 'f6']);
});

test('perft from the start, depths 1-8', () => {
  const expected = [4, 12, 56, 244, 1396, 8200, 55092, 390216];
  expected.forEach((n, i) => assert.equal(perft(start(), i + 1), n, `depth ${i + 1}`));
});

test('illegal moves are refused', () => {
  assert.throws(() => play(start(), 'a1'), /illegal move a1 for black/);
  assert.throws(() => play(start(), 'd4'), /illegal move/);
  assert.throws(() => parseLine('f5f5'), /move 2 \(f5\)/);
  assert.throws(() => parseLine('f5x9'), /not a line/);
});

test('parseLine: every board of a line, in any common spelling', () => {
  const boards = parseLine('f5d6c3');
  assert.equal(boards.length, 4);
  assert.deepEqual(boards[0], start());
  assert.deepEqual(boards[3], parseLine('F5 D6 C3')[3]);
  assert.deepEqual(boards[3], parseLine('f5-d6-c3')[3]);
  assert.equal(boards[3].sideToMove, 'w');
  assert.deepEqual(count(boards[3]), { b: 5, w: 2, empty: 57 });
  assert.deepEqual(parseLine(''), [start()]);
});

test('flips in every direction, none around the edge', () => {
  // Black on e5 surrounded by white on all 8 neighbours, each line closed by black.
  const discs = Array(64).fill('.');
  const at = (name, c) => { discs[parseSquare(name)] = c; };
  for (const n of ['c3', 'c5', 'c7', 'e3', 'e7', 'g3', 'g5', 'g7']) at(n, 'b');
  for (const n of ['d4', 'd5', 'd6', 'e4', 'e6', 'f4', 'f5', 'f6']) at(n, 'w');
  const flipped = flips(discs.join(''), parseSquare('e5'), 'b').map(squareName).sort();
  assert.deepEqual(flipped, ['d4', 'd5', 'd6', 'e4', 'e6', 'f4', 'f5', 'f6']);
  // h1 and a2 are neighbours in the string, not on the board.
  const edge = Array(64).fill('.');
  edge[parseSquare('a2')] = 'w';
  edge[parseSquare('b2')] = 'b';
  assert.deepEqual(flips(edge.join(''), parseSquare('h1'), 'b'), []);
});

test('a real game with a pass: the side that cannot move is skipped', () => {
  const line = 'f5d6c3d3c4f4e3f6g4h3c6f3d7e2h4g3e1g5h6c5f2e7h5h7b6h2d8g6e6b5a6f8e8b4g8c7c8a5a3a7a4'
    + 'a2b7a8b8h8g1f1d1d2c1c2b1b2a1g2h1b3f7';
  const boards = parseLine(line);
  // White's 46th move (h8) leaves black without a move: white plays again.
  assert.equal(boards[45].sideToMove, 'w');
  assert.equal(boards[46].sideToMove, 'w');
  const last = boards.at(-1);
  assert.equal(last.sideToMove, null, 'game over');
  assert.deepEqual(count(last), { b: 4, w: 59, empty: 1 });
  assert.deepEqual(legalMoves(last), []);
});

test('a real game ending early: black wiped out after 57 moves', () => {
  const line = 'f5f6e6f4g6c5c4d6g4d3b5b4c3a5b3e3c2d2d1a3a4e2b6a6c6e1f1c1b1f2g1f3b2g5g2h1a2a1h2h4h3'
    + 'g3h5h6f7g8e7f8d7g7h7h8c7c8b7e8a7';
  const last = parseLine(line).at(-1);
  assert.equal(last.sideToMove, null);
  assert.deepEqual(count(last), { b: 0, w: 61, empty: 3 });
  assert.throws(() => play(last, 'd8'), /nobody \(game over\)/);
});
