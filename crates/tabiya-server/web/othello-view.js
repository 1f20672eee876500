// Othello on the page: a line of moves with its boards and passes, the words for a position,
// and the game viewer (Othello games come whole in the games lists: { id, moves: 'f5d6…', ... }).
//
//   othelloLine(['f5', 'd6']) -> { boards, moves, passes, error }   boards[i] is after i moves;
//                                passes[i] true when the side to move after move i had to pass
//   positionWords(board)       -> 'Black 4 – White 1 · White to move'
//   createOthelloViewer(element, { onSelect(ply), onBack(), onExplore(ply) })
//     .show(row, { note })  .select(ply)  .length()  .board(ply)  .movesTo(ply)

import { start, play, count } from './othello-rules.js';
import { el } from './dom.js';
import { othelloResult } from './explorer.js';

const NAME = { b: 'Black', w: 'White' };

export function othelloLine(line) {
  const boards = [start()];
  const passes = [false];
  const moves = [];
  let error = null;
  for (const square of line) {
    const before = boards[boards.length - 1];
    try {
      const next = play(before, square);
      boards.push(next);
      moves.push(square);
      // The mover moves again: the other side had no move.
      passes.push(next.sideToMove !== null && next.sideToMove === before.sideToMove);
    } catch (e) {
      error = `move ${moves.length + 1} (${square}): ${e.message}`;
      break;
    }
  }
  return { boards, moves, passes, error };
}

export function positionWords(board) {
  const c = count(board);
  const discs = `Black ${c.b} – White ${c.w}`;
  if (!board.sideToMove) {
    const winner = c.b > c.w ? 'Black wins' : c.w > c.b ? 'White wins' : 'a draw';
    return `${discs} · game over, ${winner}`;
  }
  return `${discs} · ${NAME[board.sideToMove]} to move`;
}

// A move list: 1. f5 2. d6 …, "pass" where a side could not move. Each move a button with
// data-ply (the number of moves on the board once it is played); ply 0 is the start.
export function moveList(line, { current, label }) {
  const nav = el('div', { className: 'movetext othello-moves', role: 'group', 'aria-label': label });
  nav.append(el('button', { type: 'button', className: 'mv mv--start', dataset: { ply: '0' }, 'aria-label': 'start position' }, 'Start'), ' ');
  line.moves.forEach((m, i) => {
    const ply = i + 1;
    const mover = line.boards[i].sideToMove;
    nav.append(el('button', {
      type: 'button', className: 'mv', dataset: { ply: String(ply) },
      'aria-label': `${ply}, ${NAME[mover]} ${m}`,
    }, el('span', { className: 'mv-number' }, `${ply}.`), ' ', el('span', { className: `disc-dot disc-dot--${mover}`, 'aria-hidden': 'true' }), m), ' ');
    if (line.passes[ply]) {
      const passer = line.boards[ply].sideToMove === 'b' ? 'White' : 'Black';
      nav.append(el('span', { className: 'pass', title: `${passer} had no move` }, `${passer} passes`), ' ');
    }
  });
  if (current !== undefined) markCurrent(nav, current);
  return nav;
}

export function markCurrent(container, ply) {
  let active = null;
  for (const b of container.querySelectorAll('button.mv')) {
    const on = Number(b.dataset.ply) === ply;
    b.classList.toggle('is-current', on);
    if (on) { b.setAttribute('aria-current', 'step'); active = b; } else b.removeAttribute('aria-current');
  }
  return active;
}

export function createOthelloViewer(element, { onSelect = () => {}, onBack = () => {}, onExplore = () => {} } = {}) {
  let line = null;
  let current = 0;
  element.classList.add('game-viewer');
  element.addEventListener('click', (e) => {
    const b = e.target.closest('button.mv');
    if (b) onSelect(Number(b.dataset.ply));
  });

  function show(row, { note = '' } = {}) {
    line = othelloLine(row.moves.match(/[a-h][1-8]/g) || []);
    const r = othelloResult(row);
    const back = el('button', { type: 'button', className: 'back-button' }, '← Back to the explorer');
    back.addEventListener('click', () => onBack());
    const explore = el('button', { type: 'button', title: 'Open the explorer at the position on the board' }, 'Explore this position');
    explore.addEventListener('click', () => onExplore(current));
    const end = line.boards[line.boards.length - 1];
    const c = count(end);
    element.replaceChildren(
      el('div', { className: 'toolbar' }, back, explore),
      el('header', { className: 'game-head' },
        el('h2', { id: 'game-title' },
          el('span', { className: 'side-mark side-mark--black', 'aria-hidden': 'true' }), `${row.black.name} – `,
          el('span', { className: 'side-mark side-mark--white', 'aria-hidden': 'true' }), row.white.name),
        el('p', { className: 'game-facts' }, [
          `${r.text} (${r.words}; black discs – white discs)`,
          row.tournament ? row.tournament.name : '',
          row.year ? String(row.year) : '',
          row.theoreticalScore !== undefined ? `theoretical score ${row.theoreticalScore}` : '',
          `game ${row.id}`,
        ].filter(Boolean).join(' · ')),
        line.error ? el('p', { className: 'api-error', role: 'alert' }, `This game's moves stop being legal at ${line.error}`) : null,
        note ? el('p', { className: 'note' }, note) : null,
        c.b + c.w < 64 && !line.error ? el('p', { className: 'muted small' }, `The board at the end: Black ${c.b} – White ${c.w} (the empty squares go to the winner in the score).`) : null),
      moveList(line, { current: 0, label: 'Moves of the game' }),
      el('p', { className: 'muted small' }, 'Step with ', el('kbd', {}, '←'), ' ', el('kbd', {}, '→'), ', ', el('kbd', {}, 'Home'), ' ', el('kbd', {}, 'End'), ', or click a move.'),
    );
    current = 0;
  }

  function select(ply) {
    if (!line) return;
    current = Math.max(0, Math.min(ply, line.moves.length));
    const box = element.querySelector('.movetext');
    const active = markCurrent(box, current);
    if (active) {
      const top = active.offsetTop - box.offsetTop;
      if (top < box.scrollTop || top + active.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = top - box.clientHeight / 2;
    }
  }

  return {
    show,
    select,
    length: () => (line ? line.moves.length : 0),
    board: (ply) => (line ? line.boards[Math.max(0, Math.min(ply, line.moves.length))] : start()),
    lastMove: (ply) => (line && ply > 0 ? line.moves[ply - 1] : null),
    movesTo: (ply) => (line ? line.moves.slice(0, ply) : []),
    current: () => current,
  };
}
