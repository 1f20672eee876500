// An Othello board: an 8x8 grid of buttons on a green board, black and white discs, dots on
// the legal moves, the last move marked, coordinates a-h (columns, left to right) and 1-8
// (rows, top to bottom).
//
//   const board = createOthelloBoard(element, { onMove(square, { board }) { ... } });
//   board.set({ discs, legal: ['f5', ...], lastMove: 'f5' | null, sideToMove: 'b' | 'w' | null });
//   board.focus(); board.destroy();
//
// discs: 64 characters 'b', 'w' or '.', a1 b1 ... h1 a2 ... h8 (row by row from the top, the
// layout of othello-rules.js). legal defaults to what othello-rules.js computes for sideToMove.
// Playing a legal square (click, tap, or Enter/Space on the focused square) shows the board after
// the move at once and calls onMove('f5', { board }) with that board; the page may then call
// set() again. Keyboard: one tab stop; the arrow keys, Home and End move between squares.
// Every square is a button named for screen readers: "f5, legal move", "d4, white disc".

import { START_DISCS, legalMoves, play, squareName } from './othello-rules.js';

const SIDE_NAME = { b: 'black', w: 'white' };

export function createOthelloBoard(element, { onMove = () => {} } = {}) {
  element.classList.add('othello-board');
  element.setAttribute('role', 'group');
  const label = (text) => {
    const span = document.createElement('span');
    span.className = 'othello-board__coord';
    span.setAttribute('aria-hidden', 'true');
    span.textContent = text;
    return span;
  };

  const files = document.createElement('div');
  files.className = 'othello-board__files';
  for (const c of 'abcdefgh') files.append(label(c));
  const ranks = document.createElement('div');
  ranks.className = 'othello-board__ranks';
  for (let r = 1; r <= 8; r++) ranks.append(label(String(r)));
  const grid = document.createElement('div');
  grid.className = 'othello-board__grid';
  const squares = [];
  for (let i = 0; i < 64; i++) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'othello-square';
    button.dataset.square = squareName(i);
    button.tabIndex = -1;
    button.addEventListener('click', () => choose(i));
    squares.push(button);
    grid.append(button);
  }
  const corner = document.createElement('span');
  corner.className = 'othello-board__corner';
  element.replaceChildren(corner, files, ranks, grid);

  let state = { discs: START_DISCS, legal: [], lastMove: null, sideToMove: 'b' };
  let focused = 0;

  function set({ discs = START_DISCS, legal, lastMove = null, sideToMove = null } = {}) {
    if (!/^[bw.]{64}$/.test(discs)) throw new Error('discs must be 64 characters of b, w and .');
    const moves = legal ?? legalMoves({ discs, sideToMove });
    state = { discs, legal: moves, lastMove, sideToMove };
    squares.forEach((button, i) => {
      const name = squareName(i);
      const disc = discs[i];
      const isLegal = moves.includes(name);
      button.className = 'othello-square'
        + (disc !== '.' ? ` othello-square--${SIDE_NAME[disc]}` : '')
        + (isLegal ? ' othello-square--legal' : '')
        + (name === lastMove ? ' othello-square--last' : '');
      button.replaceChildren();
      if (disc !== '.') button.append(Object.assign(document.createElement('span'), { className: 'disc' }));
      else if (isLegal) button.append(Object.assign(document.createElement('span'), { className: 'hint' }));
      const words = [name, disc !== '.' ? `${SIDE_NAME[disc]} disc` : isLegal ? 'legal move' : 'empty'];
      if (name === lastMove) words.push('last move');
      button.setAttribute('aria-label', words.join(', '));
      button.setAttribute('aria-disabled', String(!isLegal));
    });
    const who = sideToMove ? `${SIDE_NAME[sideToMove]} to move` : 'game over';
    element.setAttribute('aria-label', `Othello board, ${who}`);
    element.dataset.sideToMove = sideToMove || '';
    // Keep one tab stop: the focused square, else the first legal move, else the last focused.
    const keep = squares.includes(document.activeElement) ? focused : moves.length ? squares.findIndex((b) => b.dataset.square === moves[0]) : focused;
    moveFocus(keep, false);
  }

  function choose(i) {
    const name = squareName(i);
    moveFocus(i, false);
    if (!state.legal.includes(name)) return;
    let next = null;
    if (state.sideToMove) {
      try {
        next = play(state, name);
      } catch {
        // legal came from the caller and the rules disagree: report it all the same.
      }
    }
    if (next) set({ discs: next.discs, lastMove: name, sideToMove: next.sideToMove });
    onMove(name, { board: next });
  }

  function moveFocus(i, focus = true) {
    squares[focused].tabIndex = -1;
    focused = i;
    squares[i].tabIndex = 0;
    if (focus) squares[i].focus();
  }

  // The tab stop follows focus, however the square got it.
  grid.addEventListener('focusin', (e) => {
    const i = squares.indexOf(e.target);
    if (i >= 0 && i !== focused) moveFocus(i, false);
  });
  grid.addEventListener('keydown', (e) => {
    const row = Math.floor(focused / 8), col = focused % 8;
    const target = {
      ArrowLeft: col > 0 ? focused - 1 : focused,
      ArrowRight: col < 7 ? focused + 1 : focused,
      ArrowUp: row > 0 ? focused - 8 : focused,
      ArrowDown: row < 7 ? focused + 8 : focused,
      Home: e.ctrlKey ? 0 : row * 8,
      End: e.ctrlKey ? 63 : row * 8 + 7,
    }[e.key];
    if (target === undefined) return;
    e.preventDefault();
    moveFocus(target);
  });

  set({ discs: START_DISCS, sideToMove: 'b' });

  return {
    set,
    focus: () => squares[focused].focus(),
    destroy: () => element.replaceChildren(),
  };
}
