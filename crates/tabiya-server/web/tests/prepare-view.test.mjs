// The player page's Preparation (prepare-view.js): its pure parts, and its place in the URL.
// (The view itself is tested in a real browser by crates/tabiya/tests/page/test_page.py.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { positionOf, resultBar, lineText } from '../prepare-view.js';
import { readState, writeState } from '../url-state.js';

test('a position is found by its FEN, clocks ignored', () => {
  const prep = {
    positions: [
      { fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', line: [] },
      { fen: 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1', line: ['e4'] },
    ],
  };
  assert.deepEqual(positionOf(prep, 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 3 9').line, ['e4']);
  assert.equal(positionOf(prep, 'rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1'), null);
});

test("the player's results as the white/draws/black bar", () => {
  const s = { wins: 5, draws: 3, losses: 2 };
  assert.deepEqual(resultBar(s, 'white'), { white: 5, draws: 3, black: 2 });
  assert.deepEqual(resultBar(s, 'black'), { white: 2, draws: 3, black: 5 });
});

test('lines numbered', () => {
  assert.equal(lineText(['e4', 'c5', 'Nf3']), '1. e4 c5 2. Nf3');
  assert.equal(lineText([]), '');
});

test('the colour is kept in the URL on the player page only', () => {
  const s = readState('?view=player&name=Fischer&prep=black&play=e2e4');
  assert.equal(s.prep, 'black');
  assert.equal(writeState(s, 'chess'), '?play=e2e4&view=player&name=Fischer&prep=black');
  assert.equal(readState('?view=player&name=Fischer&prep=green').prep, null);
  assert.equal(writeState({ ...s, view: 'explorer' }, 'chess'), '?play=e2e4');
});
