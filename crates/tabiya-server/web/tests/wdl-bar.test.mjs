// Tests of wdl-bar.js's arithmetic (the bar itself is checked in tests/browser-smoke.html).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wdlPercentages } from '../wdl-bar.js';

test('percentages are whole numbers adding up to 100', () => {
  assert.deepEqual(wdlPercentages({ white: 380, draws: 340, black: 280 }), [38, 34, 28]);
  assert.deepEqual(wdlPercentages({ white: 1, draws: 1, black: 1 }), [34, 33, 33]);
  assert.deepEqual(wdlPercentages({ white: 2, draws: 0, black: 1 }), [67, 0, 33]);
  assert.deepEqual(wdlPercentages({ white: 0, draws: 0, black: 7 }), [0, 0, 100]);
  for (let i = 0; i < 200; i++) {
    const c = { white: (i * 7919) % 1000, draws: (i * 104729) % 700, black: (i * 1299709) % 900 };
    if (c.white + c.draws + c.black === 0) continue;
    assert.equal(wdlPercentages(c).reduce((a, b) => a + b, 0), 100, JSON.stringify(c));
  }
});

test('no games: all zero', () => {
  assert.deepEqual(wdlPercentages({ white: 0, draws: 0, black: 0 }), [0, 0, 0]);
});
