// Tests of eval-format.js: scores as text, winning chances and the eval bar, numbered lines.
// (The engine panel itself is tested in a real browser by crates/tabiya/tests/page/test_page.py.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  scoreText, scoreWords, winningChances, whiteShare, barText, numberedMoves, pvText, keptText, speedText,
} from '../eval-format.js';

const MINUS = '\u2212';

test('scores as text: pawns with two decimals, a true minus sign, mates, bounds', () => {
  assert.equal(scoreText({ cp: 31 }), '+0.31');
  assert.equal(scoreText({ cp: -120 }), `${MINUS}1.20`);
  assert.equal(scoreText({ cp: 0 }), '0.00', 'no sign on an equal position');
  assert.equal(scoreText({ cp: 1234 }), '+12.34');
  assert.equal(scoreText({ cp: -5 }), `${MINUS}0.05`);
  assert.equal(scoreText({ mate: 3 }), '#3', 'White mates in 3');
  assert.equal(scoreText({ mate: -2 }), `#${MINUS}2`, 'Black mates in 2');
  assert.equal(scoreText({ cp: 40, bound: 'lower' }), '≥+0.40');
  assert.equal(scoreText({ cp: -40, bound: 'upper' }), `≤${MINUS}0.40`);
  assert.equal(scoreText({ mate: 5, bound: 'lower' }), '≥#5');
  assert.equal(scoreText({ cp: 31, depth: 24 }), '+0.31', "the explorer's per-move eval has a depth too");
  assert.equal(scoreText(null), '');
  assert.equal(scoreText({ depth: 3 }), '', 'neither cp nor mate');
});

test('scores in words, for labels', () => {
  assert.equal(scoreWords({ cp: 31 }), '0.31 for White');
  assert.equal(scoreWords({ cp: -120 }), '1.20 for Black');
  assert.equal(scoreWords({ cp: 0 }), 'equal (0.00)');
  assert.equal(scoreWords({ mate: -2 }), 'Black mates in 2');
  assert.equal(scoreWords({ mate: 1, bound: 'lower' }), 'at least White mates in 1');
});

test("winning chances: Lichess's curve, cp capped at ±1000", () => {
  // 2 / (1 + e^(-0.00368208 cp)) - 1
  assert.equal(winningChances(0), 0);
  // cp 100: e^-0.368208 ≈ 0.69195; 2 / 1.69195 ≈ 1.18207; minus 1: ≈ 0.18207
  assert.ok(Math.abs(winningChances(100) - 0.18207) < 1e-4, String(winningChances(100)));
  // The curve is odd: -100 gives -0.18207.
  assert.ok(Math.abs(winningChances(-100) + 0.18207) < 1e-4);
  // cp 1000: e^-3.68208 ≈ 0.025171; 2 / 1.025171 ≈ 1.950895; minus 1: ≈ 0.950895
  assert.ok(Math.abs(winningChances(1000) - 0.950895) < 1e-4, String(winningChances(1000)));
  assert.equal(winningChances(5000), winningChances(1000), 'capped at +1000');
  assert.equal(winningChances(-5000), winningChances(-1000), 'capped at -1000');
});

test("the eval bar's White share: 50 + 50 × winning chances, a mate fills it", () => {
  assert.equal(whiteShare({ cp: 0 }), 50);
  // 50 + 50 × 0.18207 = 59.10 -> 59.1
  assert.equal(whiteShare({ cp: 100 }), 59.1);
  // 50 - 50 × 0.18207 = 40.90 -> 40.9
  assert.equal(whiteShare({ cp: -100 }), 40.9);
  // cp -300: e^1.104624 ≈ 3.01809; 2 / 4.01809 ≈ 0.497749; minus 1: -0.502251;
  // 50 - 25.11 = 24.89 -> 24.9
  assert.equal(whiteShare({ cp: -300 }), 24.9);
  // cp 1000 and above: 50 + 50 × 0.950895 = 97.54 -> 97.5 (never a full bar without a mate)
  assert.equal(whiteShare({ cp: 1000 }), 97.5);
  assert.equal(whiteShare({ cp: 2500 }), 97.5);
  assert.equal(whiteShare({ mate: 4 }), 100);
  assert.equal(whiteShare({ mate: -1 }), 0);
  assert.equal(whiteShare(null), 50);
});

test("the bar's short text has no sign", () => {
  assert.equal(barText({ cp: 31 }), '0.3');
  assert.equal(barText({ cp: -120 }), '1.2');
  assert.equal(barText({ cp: 1234 }), '12', 'ten pawns and more: whole pawns');
  assert.equal(barText({ mate: -2 }), '#2');
});

test('a line numbered from the position: White to move', () => {
  // Start position: White to move, move 1. Moves alternate 1.e4 e5 2.Nf3 Nc6 3.Bb5.
  const start = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
  assert.equal(pvText(start, ['e4', 'e5', 'Nf3', 'Nc6', 'Bb5']), '1.e4 e5 2.Nf3 Nc6 3.Bb5');
  assert.deepEqual(numberedMoves(start, ['e4', 'e5']), [
    { label: '1.', san: 'e4', white: true },
    { label: '', san: 'e5', white: false },
  ]);
  // Move 12, White to move: 12.Bg5 Be7 13.e3.
  const w12 = 'r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 4 12';
  assert.equal(pvText(w12, ['Bg5', 'Be7', 'e3']), '12.Bg5 Be7 13.e3');
});

test('a line numbered from the position: Black to move', () => {
  // After 1. e4 (Black to move, move 1): 1…c5 2.Nf3 d6.
  const e4 = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';
  assert.equal(pvText(e4, ['c5', 'Nf3', 'd6']), '1…c5 2.Nf3 d6');
  // Move 12, Black to move: 12…Nf6 13.Bg5 Be7 14.e3.
  const b12 = 'r1bqkb1r/pppp1ppp/2n5/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 3 12';
  assert.equal(pvText(b12, ['Nf6', 'Bg5', 'Be7', 'e3']), '12…Nf6 13.Bg5 Be7 14.e3');
  assert.deepEqual(numberedMoves(b12, ['Nf6', 'Bg5']).map((m) => m.label), ['12…', '13.']);
});

test('a long line is cut after `max` moves', () => {
  const e4 = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';
  const sans = ['c5', 'Nf3', 'd6', 'd4', 'cxd4', 'Nxd4', 'Nf6', 'Nc3', 'a6', 'Be3', 'e5', 'Nb3'];
  // Ten moves: 1…c5 2.Nf3 d6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 a6 6.Be3, then the mark of more.
  assert.equal(pvText(e4, sans, 10), '1…c5 2.Nf3 d6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 a6 6.Be3 …');
  assert.equal(pvText(e4, sans.slice(0, 10), 10), '1…c5 2.Nf3 d6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 a6 6.Be3', 'exactly ten: no mark');
  assert.equal(pvText(e4, []), '');
});

test('a kept evaluation: depth and day; speed', () => {
  assert.equal(keptText({ depth: 24, date: '2026-11-24T08:40:09Z' }), 'depth 24, 2026-11-24');
  assert.equal(keptText({ depth: 12 }), 'depth 12');
  // 63,570 nodes in 38 ms: 63570 / 38 ≈ 1672.9 nodes/ms = 1,673 kN/s
  assert.equal(speedText({ nodes: 63570, timeMs: 38 }), '1,673 kN/s');
  // no time: the nodes in thousands, 148,956 -> 149k
  assert.equal(speedText({ nodes: 148956, timeMs: 0 }), '149k nodes');
  assert.equal(speedText({ nodes: 0, timeMs: 0 }), '');
});
