// The statistics view's bars, from /api/stats's numbers (values worked out by hand).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { niceScale, yearBars, ratingBars, resultBars, speedBars, bytesText, thousands } from '../stats-data.js';

test('a round axis above the largest value', () => {
  assert.deepEqual(niceScale(1820), { top: 2000, step: 500 });
  assert.deepEqual(niceScale(2245), { top: 3000, step: 1000 });
  assert.deepEqual(niceScale(7), { top: 8, step: 2 });
  assert.deepEqual(niceScale(1), { top: 1, step: 1 });
  assert.deepEqual(niceScale(0), { top: 1, step: 1 });
  assert.deepEqual(niceScale(499405), { top: 600000, step: 200000 });
  for (const max of [3, 17, 99, 100, 101, 1234, 98765]) {
    const { top, step } = niceScale(max);
    assert.ok(top >= max && top - step < max, `${max}: ${top} by ${step}`);
    assert.equal(top % step, 0);
  }
});

test('a bar a year, the years between included', () => {
  const bars = yearBars([{ year: 2010, games: 3 }, { year: 2012, games: 5 }]);
  assert.deepEqual(bars.map((b) => [b.label, b.value]), [['2010', 3], ['2011', 0], ['2012', 5]]);
  assert.equal(bars[2].title, '2012: 5 games');
  assert.deepEqual(yearBars([]), []);
});

test('many years in spans of years', () => {
  // 1848..2012: 165 years; at most 48 bars: 5-year spans give 1845..2010, 34 bars.
  const years = [{ year: 1848, games: 3 }, { year: 1849, games: 11 }, { year: 1851, games: 1 }, { year: 2012, games: 2245 }];
  const bars = yearBars(years, { maxBars: 48 });
  assert.equal(bars.length, 34);
  assert.deepEqual([bars[0].label, bars[0].tick, bars[0].value], ['1845–1849', '1845', 14]);
  assert.deepEqual([bars[1].label, bars[1].value], ['1850–1854', 1]);
  assert.deepEqual([bars[33].label, bars[33].value], ['2010–2014', 2245]);
  assert.equal(bars.reduce((a, b) => a + b.value, 0), 2260);
  const decades = yearBars(years, { maxBars: 20 });
  assert.equal(decades[0].label, '1840–1849');
  assert.equal(decades.length, 18);
});

test('ratings in bins, empty bins between shown', () => {
  const ratings = { binWidth: 100, bins: [{ from: 2400, ratings: 3 }, { from: 2600, ratings: 1 }] };
  assert.deepEqual(ratingBars(ratings).map((b) => [b.label, b.value]), [['2400', 3], ['2500', 0], ['2600', 1]]);
  assert.equal(ratingBars(ratings)[0].title, '2400–2499: 3 ratings');
  // An outlier far away: only the bins holding ratings.
  const far = { binWidth: 100, bins: [{ from: 100, ratings: 1 }, { from: 9900, ratings: 2 }] };
  assert.deepEqual(ratingBars(far).map((b) => b.label), ['100', '9900']);
  assert.deepEqual(ratingBars({ binWidth: 100, bins: [] }), []);
});

test('results: chess as PGN writes them, Othello black first', () => {
  const r = { white: 5, draws: 3, black: 2, unknown: 0 };
  assert.deepEqual(resultBars(r, 'chess').map((b) => [b.label, b.value]), [['1–0', 5], ['½–½', 3], ['0–1', 2]]);
  assert.deepEqual(resultBars({ ...r, unknown: 1 }, 'chess').map((b) => b.label), ['1–0', '½–½', '0–1', '*']);
  assert.deepEqual(resultBars(r, 'othello').map((b) => [b.label, b.value]), [['Black won', 2], ['White won', 5], ['Draw', 3]]);
  assert.equal(resultBars(r, 'chess')[1].title, 'draws: 3 games');
});

test('time controls and sizes', () => {
  const speeds = { classes: [{ speed: 'blitz', games: 2 }, { speed: 'classical', games: 1 }], unknown: 7 };
  assert.deepEqual(speedBars(speeds).map((b) => [b.label, b.value]), [['Blitz', 2], ['Classical', 1], ['Unknown', 7]]);
  assert.deepEqual(speedBars(undefined), []);
  assert.equal(bytesText(512), '512 B');
  assert.equal(bytesText(2109440), '2.0 MB');
  assert.equal(bytesText(767700992), '732 MB');
  assert.equal(thousands(1234567), '1,234,567');
});
