// Tests of the pure parts of the novelty in the viewer (novelty-view.js), results over time
// (years-view.js) and the move orders (routes-view.js); values worked out by hand. (The views
// themselves are tested in a real browser by crates/tabiya/tests/page/test_page.py.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { noveltyText } from '../novelty-view.js';
import { yearResultBars, whiteScore } from '../years-view.js';
import { routeText } from '../routes-view.js';

const labels = { 3: '2. Nf3', 4: '2… f5', 1: '1. a3' };
const label = (path) => labels[path];

test('the novelty named with the last known move', () => {
  const report = { novelty: { ply: 4, earlier: 0 }, last_known: { ply: 3, earlier: 105 } };
  assert.equal(noveltyText(report, label), 'Novelty: 2… f5 — last known 2. Nf3 (105 earlier games)');
  assert.equal(noveltyText({ novelty: { ply: 4 }, last_known: { ply: 3, earlier: 1 } }, label),
    'Novelty: 2… f5 — last known 2. Nf3 (1 earlier game)');
  assert.equal(noveltyText({ novelty: { ply: 1 }, last_known: null }, label),
    'Novelty: 1. a3 — no earlier game reached the position after it');
  assert.match(noveltyText({ novelty: null, last_known: null }, label), /^No novelty/);
});

test("White's score: draws count half", () => {
  assert.equal(whiteScore({ white: 3, draws: 2, black: 5 }), 0.4);
  assert.equal(whiteScore({ white: 0, draws: 0, black: 0 }), null);
});

test('a stacked bar a year, the years between included', () => {
  const bars = yearResultBars([
    { year: 2010, white: 2, draws: 1, black: 1, unknown: 0 },
    { year: 2012, white: 0, draws: 0, black: 3, unknown: 1 },
  ]);
  assert.deepEqual(bars.map((b) => [b.label, b.value]), [['2010', 4], ['2011', 0], ['2012', 4]]);
  assert.deepEqual(bars[0].parts.map((p) => p.value), [2, 1, 1, 0]);
  assert.equal(bars[0].score, 0.625);
  assert.equal(bars[1].score, null);
  assert.equal(bars[2].score, 0);
  assert.equal(bars[0].title, '2010: 4 games; White won 2, 1 drawn, Black won 1; White scored 63%');
  assert.equal(bars[1].title, '2011: 0 games');
  assert.deepEqual(yearResultBars([]), []);
});

test('many years in spans', () => {
  // 1950..2012: 63 years; at most 30 bars: spans of 5 years give 1950..2010, 13 bars.
  const bars = yearResultBars([
    { year: 1950, white: 1, draws: 0, black: 0 },
    { year: 1953, white: 0, draws: 2, black: 0 },
    { year: 2012, white: 0, draws: 0, black: 4 },
  ]);
  assert.equal(bars.length, 13);
  assert.deepEqual([bars[0].label, bars[0].tick, bars[0].value], ['1950–1954', '1950', 3]);
  assert.deepEqual(bars[12].parts.map((p) => p.value), [0, 0, 4, 0]);
});

test('a move order numbered as PGN writes it', () => {
  assert.equal(routeText({ san: ['Nf3', 'c5', 'e4'] }), '1. Nf3 c5 2. e4');
  assert.equal(routeText({ san: ['c5', 'Nf3'], fromFen: 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1' }), '1… c5 2. Nf3');
  assert.equal(routeText({ san: [] }), '');
});
