// Tests of the pure parts of "Pawn structures later" (structures-view.js): a structure's text
// read into squares, said in words, and the link that opens the structure search on it.
// (The panel itself is tested in a real browser by crates/tabiya/tests/page/test_page.py.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pawnSquares, structureWords, structureSearchUrl } from '../structures-view.js';
import { readState } from '../url-state.js';

const CARLSBAD = '8/pp3ppp/2p5/3p4/3P4/4P3/PP3PPP/8';

test("a structure's text read into squares, by file then rank", () => {
  assert.deepEqual(pawnSquares(CARLSBAD), {
    white: ['a2', 'b2', 'd4', 'e3', 'f2', 'g2', 'h2'],
    black: ['a7', 'b7', 'c6', 'd5', 'f7', 'g7', 'h7'],
  });
  // Doubled pawns: the lower first.
  assert.deepEqual(pawnSquares('8/8/8/8/2P5/2P5/8/8'), { white: ['c3', 'c4'], black: [] });
  assert.deepEqual(pawnSquares('8/8/8/8/8/8/8/8'), { white: [], black: [] });
  assert.deepEqual(pawnSquares(' 8/7p/8/8/8/8/P7/8 '), { white: ['a2'], black: ['h7'] });
});

test('what is no board of pawns is refused', () => {
  for (const bad of ['', '8/8', '8/8/8/8/8/8/8/8/8', '8/8/8/8/8/8/8/7', '8/8/8/8/8/8/8/9',
    '8/8/8/8/8/8/8/PPPPPPPPP', '8/8/8/8/8/8/8/N7', '8/8/8/8/8/8/8/8P', null, undefined]) {
    assert.equal(pawnSquares(bad), null, JSON.stringify(bad));
  }
});

test('a structure in words (the diagram\'s label)', () => {
  assert.equal(structureWords(CARLSBAD),
    'white pawns a2 b2 d4 e3 f2 g2 h2; black pawns a7 b7 c6 d5 f7 g7 h7');
  assert.equal(structureWords('8/8/8/8/8/8/P7/8'), 'white pawn a2; no black pawns');
  assert.equal(structureWords('8/8'), 'pawn structure 8/8');
});

test('the link opens the structure search on exactly those pawns, the rest kept', () => {
  const url = structureSearchUrl(CARLSBAD, '?db=demo&play=d2d4,d7d5&orient=black&since=2020&game=4&ply=3&offset=40&pattern=x&material=KvK');
  assert.equal(url, `?db=demo&play=d2d4,d7d5&orient=black&view=search&pawns=${CARLSBAD}&since=2020`);
  const s = readState(url);
  assert.equal(s.view, 'search');
  assert.deepEqual(s.search, { pattern: '', pawns: CARLSBAD, material: '', either: false, hold: null, bishops: false });
  assert.equal(s.filters.since, '2020');
  assert.equal(s.game, null);
  assert.equal(s.offset, 0);
  // From the start page too.
  assert.equal(structureSearchUrl(CARLSBAD, ''), `?view=search&pawns=${CARLSBAD}`);
});
