// Tests of the structure search's pure parts: the board editor's texts (search-board.js), the
// view's parameters and labels (search-view.js) and the search kept in the URL (url-state.js).
// (The view itself is tested in a real browser by crates/tabiya/tests/page/test_search.py.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  patternText, parsePattern, pawnsText, parsePawns, cellsOfFen, pawnChanges, emptyCells, squareName, cellWords,
} from '../search-board.js';
import { searchParams, hasQuery, moveLabel, emptyQuery, sanApart } from '../search-view.js';
import { readState, writeState } from '../url-state.js';
import { START_FEN } from '../chess-rules.js';

const CARLSBAD = '8/pp3ppp/2p5/3p4/3P4/4P3/PP3PPP/8';

test('cells are a8 to h1, as a FEN is written', () => {
  assert.equal(squareName(0), 'a8');
  assert.equal(squareName(7), 'h8');
  assert.equal(squareName(56), 'a1');
  assert.equal(squareName(63), 'h1');
  assert.equal(cellWords('N'), 'white knight');
  assert.equal(cellWords('a'), 'any black piece');
  assert.equal(cellWords('1'), 'empty');
});

test('a pattern: unconstrained squares are ?, runs of empty squares digits', () => {
  const cells = emptyCells();
  assert.equal(patternText(cells), '', 'nothing constrained: no pattern');
  cells[3 * 8 + 3] = 'N'; // d5
  assert.equal(patternText(cells), '????????/????????/????????/???N????/????????/????????/????????/????????');
  for (let f = 0; f < 8; f++) if (f !== 3) cells[3 * 8 + f] = '1';
  cells[56] = 'A';
  cells[63] = 'a';
  cells[0] = '!';
  const text = patternText(cells);
  assert.equal(text, '!???????/????????/????????/3N4/????????/????????/????????/A??????a');
  assert.deepEqual(parsePattern(text), cells, 'read back');
  assert.deepEqual(parsePattern(''), emptyCells());
  assert.equal(parsePattern('*/*/*/3N4/*/*/*/*'), null, '* cannot be shown');
  assert.equal(parsePattern('[NB]7/8/8/8/8/8/8/8'), null, 'sets cannot be shown');
  assert.equal(parsePattern('8/8/8'), null);
  assert.equal(parsePattern('9/8/8/8/8/8/8/8'), null);
  assert.equal(parsePattern('7/8/8/8/8/8/8/8'), null, 'seven squares');
  assert.deepEqual(parsePattern('8/8/8/8/8/8/8/8'), new Array(64).fill('1'));
});

test('a pawn structure: pawns only, none on the first or last rank', () => {
  const cells = parsePawns(CARLSBAD);
  assert.ok(cells);
  assert.equal(cells.filter((c) => c === 'P').length, 7);
  assert.equal(cells.filter((c) => c === 'p').length, 7);
  assert.equal(pawnsText(cells), CARLSBAD);
  assert.equal(pawnsText(emptyCells()), '', 'no pawn: no structure');
  assert.equal(parsePawns('8/8/8/8/8/8/8/PPPPPPPP'), null);
  assert.equal(parsePawns('8/pp3ppp/2n5/3p4/3P4/4P3/PP3PPP/8'), null, 'a knight');
  assert.equal(pawnsText(parsePattern('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR')), '8/pppppppp/8/8/8/8/PPPPPPPP/8',
    'the other pieces left out');
});

test('the explorer position as a starting point', () => {
  assert.equal(pawnsText(cellsOfFen(START_FEN, { pawnsOnly: true })), '8/pppppppp/8/8/8/8/PPPPPPPP/8');
  assert.equal(patternText(cellsOfFen(START_FEN)), 'rnbqkbnr/pppppppp/????????/????????/????????/????????/PPPPPPPP/RNBQKBNR');
});

test('the pawns that changed from one structure to the next', () => {
  assert.equal(pawnChanges(CARLSBAD, '8/pp3ppp/2p5/3p4/3P4/4PP2/PP4PP/8'), 'White f2→f3');
  assert.equal(pawnChanges(CARLSBAD, '8/1p3ppp/2p5/p2p4/3P4/4P3/PP3PPP/8'), 'Black a7→a5');
  assert.equal(pawnChanges(CARLSBAD, '8/pp3ppp/8/3p4/3P4/4P3/PP3PPP/8'), 'Black −c6');
  assert.equal(pawnChanges(CARLSBAD, 'nonsense'), '');
});

test('the query as /api/search parameters', () => {
  assert.equal(hasQuery(emptyQuery()), false);
  assert.equal(hasQuery({ ...emptyQuery(), bishops: true }), true);
  assert.deepEqual(JSON.parse(JSON.stringify(searchParams({ ...emptyQuery(), pawns: CARLSBAD, either: true, hold: 4 }))),
    { pawns: CARLSBAD, eitherColour: 'true', for: '4' });
  assert.deepEqual(JSON.parse(JSON.stringify(searchParams({ ...emptyQuery(), material: 'KRvKmm', hold: 1, bishops: true }))),
    { material: 'KRvKmm', oppositeBishops: 'true' });
  assert.equal(moveLabel('r1bqkb1r/pp1n1ppp/2p2n2/3p2B1/3P4/2N1PN2/PP3PPP/R2QKB1R b KQkq - 0 7', '...Be7'), '7… Be7');
  assert.equal(moveLabel('r1bqkb1r/pp1n1ppp/2p2n2/3p2B1/3P4/2N1PN2/PP3PPP/R2QKB1R w KQkq - 0 8', 'Qc2'), '8. Qc2');
  assert.equal(moveLabel('x w - - 0 8', null), '');
});

test('the search in the URL: written with view=search only', () => {
  const s = readState(`?view=search&pawns=${CARLSBAD}&material=KRPvKR&eitherColour=true&for=4&oppositeBishops=1&sort=date&offset=20`);
  assert.equal(s.view, 'search');
  assert.deepEqual(s.search, { pattern: '', pawns: CARLSBAD, material: 'KRPvKR', either: true, hold: 4, bishops: true });
  assert.equal(writeState(s, 'chess'),
    `?view=search&pawns=${CARLSBAD}&material=KRPvKR&eitherColour=true&for=4&oppositeBishops=true&sort=date&offset=20`);
  assert.equal(writeState({ ...s, view: 'explorer' }, 'chess'), '?sort=date&offset=20', 'not with the explorer');
  const p = readState(`?view=search&pattern=${encodeURIComponent('*/*/*/3N4/*/*/*/*')}`);
  assert.equal(p.search.pattern, '*/*/*/3N4/*/*/*/*');
  assert.equal(readState(new URL(`http://x/${writeState(p, 'chess')}`).search).search.pattern, '*/*/*/3N4/*/*/*/*', 'round trip');
  assert.equal(readState('?view=search&for=1').search.hold, null, 'for=1 is the default');
});

test('moves of one SAN from different positions say where they come from', () => {
  const moves = [
    { san: '...Nxd5', uci: 'f6d5' },
    { san: '...exd5', uci: 'e6d5' },
    { san: '...Nxd5', uci: 'b6d5' },
    { san: 'O-O', uci: 'e1g1' },
    { san: 'O-O', uci: 'e1h1' },
    { san: 'Qd2', uci: 'd1d2' },
  ];
  assert.deepEqual(sanApart(moves), ['f6', '', 'b6', 'e1g1', 'e1h1', '']);
  assert.deepEqual(sanApart([]), []);
  assert.deepEqual(sanApart([{ san: 'e4', uci: 'e2e4' }]), ['']);
});
