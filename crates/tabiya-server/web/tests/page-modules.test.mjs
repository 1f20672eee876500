// Tests of the page's pure modules: its URL state, pasted FEN/PGN, the game viewer's move tree.
// (The page itself is tested in a real browser by crates/tabiya/tests/page/test_page.py.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readState, writeState, activeFilters, emptyFilters } from '../url-state.js';
import { parsePaste, resolveMove } from '../pgn.js';
import { buildTree, nagText } from '../viewer.js';
import { START_FEN } from '../chess-rules.js';

test('the URL state round-trips, defaults left out', () => {
  const s = readState('?db=demo&play=e2e4,c7c5&at=1&since=2020&speeds=blitz,bogus,rapid&player=Carlsen&color=white&view=games&sort=date&offset=40&game=12&ply=3-0-2&orient=black');
  assert.deepEqual(s.line, ['e2e4', 'c7c5']);
  assert.equal(s.at, 1);
  assert.deepEqual(s.filters.speeds, ['blitz', 'rapid']);
  assert.equal(s.view, 'games');
  assert.equal(s.offset, 40);
  assert.equal(s.ply, '3-0-2');
  assert.equal(writeState(s, 'chess'),
    '?db=demo&play=e2e4,c7c5&at=1&orient=black&view=games&since=2020&player=Carlsen&speeds=blitz,rapid&color=white&sort=date&offset=40&game=12&ply=3-0-2');
  assert.equal(writeState(readState(''), 'chess'), '/');
  assert.equal(readState('?play=e2e4&at=1').at, null, 'at the end of the line: no at');
  assert.equal(readState('?view=nonsense&sort=x').view, 'explorer');
});

test('the games list’s orders in the URL: ECO, length, result; others read as rating', () => {
  for (const sort of ['eco', 'length', 'result', 'date', 'id']) {
    const s = readState(`?view=games&sort=${sort}&offset=20`);
    assert.equal(s.sort, sort);
    assert.equal(writeState(s, 'chess'), `?view=games&sort=${sort}&offset=20`);
  }
  assert.equal(readState('?sort=colour').sort, 'rating');
  assert.equal(writeState(readState('?view=games&sort=rating'), 'chess'), '?view=games', 'the default left out');
});

test('Othello lines and filters', () => {
  const s = readState('?db=o&moves=F5d6c3&player=rose&from=1980&players=humans&tournament=world');
  assert.deepEqual(s.line, ['f5', 'd6', 'c3']);
  assert.equal(writeState(s, 'othello'), '?db=o&moves=f5d6c3&player=rose&tournament=world&from=1980&players=humans');
  assert.deepEqual(activeFilters({ ...emptyFilters(), color: 'white' }, 'chess'), {}, 'a colour without a player is no filter');
});

test('pasted FEN, PGN and moves', () => {
  assert.deepEqual(parsePaste('1. e4 c5 2. Nf3'), { fen: null, moves: ['e2e4', 'c7c5', 'g1f3'] });
  const pgn = '[Event "x"]\n[White "A"]\n\n1. e4 {a comment; with a semicolon} e5 (1... c5 2. Nf3 (2. c3)) 2. Nf3 $1 Nc6!? 3. Bb5 a6 4. O-O 1-0\n\n[Event "next"]\n1. d4 *';
  assert.deepEqual(parsePaste(pgn).moves, ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1b5', 'a7a6', 'e1g1']);
  const fen = 'r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1';
  assert.deepEqual(parsePaste(fen), { fen, moves: [] });
  assert.deepEqual(parsePaste(`[FEN "${fen}"]\n[SetUp "1"]\n\n1. O-O-O 0-0 *`).moves, ['e1c1', 'e8g8']);
  assert.throws(() => parsePaste('rnbqkbnr/pppppppp/8/8 w KQkq - 0 1'), /bad FEN/);
  assert.throws(() => parsePaste('1. e4 e4'), /move 1… e4 is not legal/);
  assert.throws(() => parsePaste(''), /nothing to load/);
});

test('moves written loosely', () => {
  assert.equal(resolveMove(START_FEN, 'Nf3').uci, 'g1f3');
  assert.equal(resolveMove(START_FEN, 'g1f3').uci, 'g1f3');
  assert.equal(resolveMove(START_FEN, 'Ng1-f3').uci, 'g1f3');
  assert.equal(resolveMove(START_FEN, 'e5'), null);
  const promo = '8/P6k/8/8/8/8/8/K7 w - - 0 1';
  assert.equal(resolveMove(promo, 'a8=Q+').uci, 'a7a8q');
  assert.equal(resolveMove(promo, 'a8N').uci, 'a7a8n');
  assert.equal(resolveMove(promo, 'a7a8r').uci, 'a7a8r');
});

test("the viewer's move tree: variations hang beside the move they replace", () => {
  const fen = (n) => `fen${n}`;
  const game = {
    startFen: START_FEN,
    comments: ['before'],
    moves: [
      { ply: 1, san: 'e4', uci: 'e2e4', fen: fen(1) },
      { ply: 2, san: 'e5', uci: 'e7e5', fen: fen(2), variations: [{ moves: [
        { ply: 2, san: 'c5', uci: 'c7c5', fen: fen('2v') },
        { ply: 3, san: 'Nf3', uci: 'g1f3', fen: fen('3v') }] }] },
      { ply: 3, san: 'Nf3', uci: 'g1f3', fen: fen(3) },
    ],
  };
  const t = buildTree(game);
  assert.equal(t.start.next.path, '1');
  assert.equal(t.nodes.get('1').next.path, '2', 'the main line goes on with the main move');
  assert.equal(t.nodes.get('2-0-1').prev.path, '1', 'a variation starts from the position before its move');
  assert.equal(t.nodes.get('2-0-1').next.path, '2-0-2');
  assert.equal(t.nodes.get('2-0-2').next, null);
  assert.equal(t.nodes.get('3').prev.path, '2');
  assert.equal(nagText(1), '!');
  assert.equal(nagText(4), '??');
  assert.equal(nagText(255), '$255');
});

test('the player page in the URL: its name beside the player filter', () => {
  const s = readState('?view=player&name=Grover,S&player=Kunte,A&color=black');
  assert.equal(s.view, 'player');
  assert.equal(s.name, 'Grover,S');
  assert.equal(s.filters.player, 'Kunte,A');
  assert.equal(writeState(s, 'chess'), '?view=player&name=Grover,S&player=Kunte,A&color=black');
  assert.equal(readState('?view=player').view, 'explorer', 'no name: the explorer');
  const back = readState(writeState({ ...s, view: 'games' }, 'chess'));
  assert.equal(back.name, null, 'the name is the player page\'s only');
  assert.equal(readState('?view=player&name=Hoang+Thanh+Trang').name, 'Hoang Thanh Trang');
});
