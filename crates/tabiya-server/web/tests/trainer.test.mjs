// Tests of the trainer's pure parts: the arrows a verdict draws and its schedule in words.
// (The trainer itself is tested in a real browser by crates/tabiya/tests/page/test_trainer.py.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { trainerArrows, reviewText } from '../trainer.js';
import { readState, writeState } from '../url-state.js';

const verdict = (over) => ({
  correct: true,
  drill: false,
  played: { uci: 'g1f3', san: 'Nf3' },
  expected: [{ uci: 'g1f3', san: 'Nf3' }, { uci: 'b1c3', san: 'Nc3' }],
  card: { due: '2026-03-07T10:00:00Z', schedule: { intervalDays: 6, again: false } },
  ...over,
});

test('right moves are green arrows; a wrong one is red', () => {
  assert.deepEqual(trainerArrows(verdict()), [
    { orig: 'g1', dest: 'f3', brush: 'green' },
    { orig: 'b1', dest: 'c3', brush: 'green' },
  ]);
  const wrong = verdict({ correct: false, played: { uci: 'e1g1', san: 'O-O' }, expected: [{ uci: 'd2d4', san: 'd4' }] });
  assert.deepEqual(trainerArrows(wrong), [
    { orig: 'd2', dest: 'd4', brush: 'green' },
    { orig: 'e1', dest: 'g1', brush: 'red' },
  ]);
});

test('the next review in words', () => {
  assert.equal(reviewText(verdict()), 'Next review in 6 days (2026-03-07).');
  assert.equal(reviewText(verdict({ card: { due: '2026-03-02T10:00:00Z', schedule: { intervalDays: 1, again: true } } })),
    'Next review in 1 day (2026-03-02); asked again today.');
  assert.equal(reviewText(verdict({ correct: false, card: { due: '2026-03-02T10:00:00Z', schedule: { intervalDays: 1, again: true } } })),
    'A lapse: next review tomorrow (2026-03-02); asked again today.');
  assert.equal(reviewText(verdict({ drill: true })), 'Repeated today: the schedule stays (next review 2026-03-07).');
});

test('the trainer is a view of the URL', () => {
  const s = readState('?db=demo&view=train');
  assert.equal(s.view, 'train');
  assert.equal(writeState(s, 'chess'), '?db=demo&view=train');
});
