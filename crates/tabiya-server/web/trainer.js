// The trainer (view=train): the database's due flashcards, one at a time on the board.
//
//   const trainer = createTrainer(body, { board: () => chessBoard, onExplore(card) {...}, onLeave() {...} })
//   trainer.show(db)     the view is shown for database `db` (a session starts, or goes on)
//   trainer.move(uci)    a move made on the board (or typed) while a card is asked
//   trainer.fen()        the position asked, if one is (for the "Type a move" box)
//   trainer.hide()       the view is left: the board's arrows go
//
// A session asks /api/cards?due=1 for the due cards (those whose day has come, then those
// asked again today). Each card's position is set on the board turned for the side to move,
// the move before it marked; the move played is sent to /api/cards/{id}/answer (a write: a
// server started without --writable refuses it, and the page says so). The verdict: right
// or wrong, the card's move(s) as green arrows and a wrong move as a red one, the note, the
// next review; then "Next card" (Enter). After the last card the due cards are asked for
// again — a card graded below 4 comes back the same day (SM-2's step 7) — until none is left.
//
// trainerArrows(verdict) and reviewText(verdict) are pure (tested under Node).

import { getJson, postJson } from './api.js';
import { el } from './dom.js';

// The arrows of a verdict: each right move green, the move played red when it was wrong.
export function trainerArrows(v) {
  const arrow = (uci, brush) => ({ orig: uci.slice(0, 2), dest: uci.slice(2, 4), brush });
  const shapes = v.expected.map((m) => arrow(m.uci, 'green'));
  if (!v.correct) shapes.push(arrow(v.played.uci, 'red'));
  return shapes;
}

// What the verdict means for the card's schedule, in words.
export function reviewText(v) {
  const date = v.card.due.slice(0, 10);
  const days = v.card.schedule.intervalDays;
  let text;
  if (v.drill) text = `Repeated today: the schedule stays (next review ${date})`;
  else if (v.correct) text = `Next review in ${days} day${days === 1 ? '' : 's'} (${date})`;
  else text = `A lapse: next review tomorrow (${date})`;
  if (v.card.schedule.again) text += '; asked again today';
  return `${text}.`;
}

const sideName = (side) => (side === 'black' ? 'Black' : 'White');
const lastMoveOf = (card) => {
  const u = card.line.length ? card.line[card.line.length - 1] : null;
  return u ? [u.slice(0, 2), u.slice(2, 4)] : null;
};

export function createTrainer(body, { board, onExplore = () => {}, onLeave = () => {} }) {
  let db = null;
  let queue = []; // the cards of this round
  let at = 0; // the card asked in the queue
  let round = 0;
  let phase = 'idle'; // 'loading' | 'ask' | 'sending' | 'answered' | 'done' | 'error'
  let verdict = null;
  let message = '';
  let answered = 0;
  let right = 0;
  let total = 0; // the database's cards

  const card = () => queue[at] || null;

  async function load() {
    phase = 'loading';
    draw();
    try {
      const list = await getJson('/api/cards', { db, due: 1 });
      total = list.total;
      queue = list.cards;
      at = 0;
      round += 1;
      phase = queue.length ? 'ask' : 'done';
    } catch (e) {
      phase = 'error';
      message = e.message;
    }
    draw();
  }

  async function answer(uci) {
    const c = card();
    phase = 'sending';
    draw();
    try {
      verdict = await postJson(`/api/cards/${c.id}/answer`, { db }, { move: uci });
      answered += 1;
      if (verdict.correct) right += 1;
      phase = 'answered';
    } catch (e) {
      // Refused (a read-only server) or failed: the card stays asked, the reason shown.
      phase = 'ask';
      message = e.message;
    }
    draw();
  }

  function next() {
    verdict = null;
    message = '';
    at += 1;
    if (at < queue.length) {
      phase = 'ask';
      draw();
    } else {
      load();
    }
  }

  function setBoard() {
    const b = board();
    const c = card();
    if (!b || !c) return;
    const locked = phase !== 'ask';
    b.set(c.fen, {
      orientation: c.side,
      lastMove: lastMoveOf(c),
      ...(locked ? { legalDests: new Map() } : {}),
    });
    b.setShapes('trainer', phase === 'answered' && verdict ? trainerArrows(verdict) : []);
  }

  function progress() {
    const left = queue.length - at;
    const again = round > 1 ? ' (asked again today)' : '';
    return `Card ${at + 1} of ${queue.length}${again} · ${left} left · ${answered} answered, ${right} right`;
  }

  function draw() {
    const root = el('div', { id: 'trainer', className: 'trainer', dataset: { phase } });
    const leave = el('button', { type: 'button', id: 'trainer-leave', className: 'trainer-leave' }, '← Explorer');
    leave.addEventListener('click', () => onLeave());
    root.append(el('h2', { id: 'train-title' }, el('span', {}, 'Training'), leave));
    const c = card();
    if (phase === 'loading') {
      root.append(el('p', { className: 'loading' }, el('span', { className: 'spinner', 'aria-hidden': 'true' }), ' Asking for the due cards…'));
    } else if (phase === 'error') {
      root.append(el('p', { className: 'api-error', role: 'alert' }, `Error: ${message}`));
    } else if (phase === 'done') {
      root.append(
        el('p', { id: 'trainer-done', className: 'trainer-done' },
          answered ? `No card is left for today: ${answered} answered, ${right} right.` : 'No card is due.'),
        el('p', { className: 'muted small' }, `${total} card${total === 1 ? '' : 's'} in ${db}. Make cards with tabiya cards add, from-line, from-book or from-db.`),
      );
    } else if (c) {
      root.dataset.card = String(c.id);
      root.append(el('p', { id: 'trainer-progress', className: 'trainer-progress' }, progress()));
      root.append(el('p', { id: 'trainer-prompt', className: 'trainer-prompt' },
        el('strong', {}, `${sideName(c.side)} to move`),
        c.lineText ? ` after ${c.lineText}` : '',
        phase === 'answered' ? '' : ': play the move on the board.'));
      if (message) root.append(el('p', { className: 'api-error', role: 'alert' }, `Error: ${message}`));
      if (phase === 'answered' && verdict) {
        const others = verdict.expected.filter((m) => m.uci !== verdict.played.uci).map((m) => m.san);
        const moves = verdict.expected.map((m) => m.san).join(' or ');
        root.append(el('div', {
          id: 'trainer-feedback', role: 'status',
          className: `trainer-feedback trainer-feedback--${verdict.correct ? 'right' : 'wrong'}`,
          dataset: { correct: String(verdict.correct) },
        },
        el('p', { className: 'trainer-verdict' }, verdict.correct
          ? `✓ Right: ${verdict.played.san}${others.length ? ` (also right: ${others.join(', ')})` : ''}.`
          : `✗ Wrong: you played ${verdict.played.san}; the move is ${moves}.`),
        el('p', { className: 'trainer-review' }, reviewText(verdict))));
        if (verdict.card.note) {
          root.append(el('div', { id: 'trainer-note', className: 'trainer-note' },
            el('h3', {}, 'Note'), el('p', {}, verdict.card.note)));
        }
        const nextButton = el('button', { type: 'button', id: 'trainer-next', className: 'trainer-next' },
          at + 1 < queue.length ? 'Next card' : 'Go on');
        nextButton.addEventListener('click', next);
        const explore = el('button', { type: 'button', id: 'trainer-explore' }, 'Explore this position');
        const shown = c;
        explore.addEventListener('click', () => onExplore(shown));
        root.append(el('div', { className: 'toolbar' }, nextButton, explore));
      } else if (phase === 'sending') {
        root.append(el('p', { className: 'muted' }, 'Checking…'));
      }
    }
    const hadFocus = body.contains(document.activeElement);
    body.replaceChildren(root);
    setBoard();
    const focus = root.querySelector('#trainer-next');
    if (focus && (hadFocus || phase === 'answered')) focus.focus({ preventScroll: true });
  }

  return {
    show(name) {
      if (name !== db) {
        db = name;
        queue = [];
        at = 0;
        round = 0;
        answered = 0;
        right = 0;
        verdict = null;
        message = '';
        load();
        return;
      }
      draw();
    },
    move(uci) {
      if (phase !== 'ask' || !card()) return;
      message = '';
      answer(uci);
    },
    fen: () => (phase === 'ask' && card() ? card().fen : null),
    hide() {
      const b = board();
      if (b) b.setShapes('trainer', []);
    },
  };
}
