// Every served book's moves for a chess position (/api/books), one table per book: Polyglot
// weights as a share of the position's weights, CTG and Kvetka games with the results (their
// wins and losses are the mover's; the bar shows them as White / draws / Black), ratings,
// CTG's green and red marks and any move annotation.
//
//   renderBooks(answers, { fen, onPlay(uci), onPreview(uci | null) }) -> a DocumentFragment

import { el, fmt, share } from './dom.js';
import { wdlBar } from './wdl-bar.js';
import { nagText } from './viewer.js';

const FORMAT_NAMES = { polyglot: 'Polyglot', ctg: 'ChessBase CTG', kvetka: 'Kvetka' };

// A book's wins/draws/losses for the side to move, as white/draws/black.
function asColours(s, whiteToMove) {
  return whiteToMove
    ? { white: s.wins || 0, draws: s.draws || 0, black: s.losses || 0 }
    : { white: s.losses || 0, draws: s.draws || 0, black: s.wins || 0 };
}

export function renderBooks(answers, { fen, onPlay, onPreview }) {
  const out = document.createDocumentFragment();
  if (!answers.length) {
    out.append(el('p', { className: 'empty' }, 'No book is served (start the server with --book FILE).'));
    return out;
  }
  const whiteToMove = String(fen).split(/\s+/)[1] !== 'b';
  const mover = whiteToMove ? 'White' : 'Black';
  for (const [i, book] of answers.entries()) {
    const id = `book-${i}`;
    const section = el('section', { className: 'book', 'aria-labelledby': `${id}-title`, dataset: { book: book.name } },
      el('h3', { id: `${id}-title` }, book.name, ' ', el('span', { className: 'muted small' }, `${FORMAT_NAMES[book.format] || book.format}`)));
    if (book.found && book.games !== undefined) {
      const bits = [`${fmt(book.games)} game${book.games === 1 ? '' : 's'}`];
      if (book.wins !== undefined) bits.push(`${mover} +${fmt(book.wins)} =${fmt(book.draws)} −${fmt(book.losses)}`);
      if (book.averageRating) bits.push(`average rating ${book.averageRating}`);
      if (book.performance) bits.push(`performance ${book.performance}`);
      section.append(el('p', { className: 'muted small' }, bits.join(' · ')));
    }
    if (!book.found || !book.moves.length) {
      section.append(el('p', { className: 'empty' }, book.found ? 'In this book, with no moves.' : 'Not in this book.'));
      out.append(section);
      continue;
    }
    const has = (k) => book.moves.some((m) => m[k] !== undefined && m[k] !== null);
    const weights = has('weight');
    const games = has('games');
    const results = has('wins');
    const ratings = has('averageRating');
    const perf = has('performance');
    const marks = book.moves.some((m) => m.green || m.red || m.annotation);
    const weightSum = weights ? book.moves.reduce((a, m) => a + (m.weight || 0), 0) : 0;
    const moves = [...book.moves].sort((a, b) => (weights ? b.weight - a.weight : 0) || ((b.games || 0) - (a.games || 0)));
    const head = [el('th', { scope: 'col' }, 'Move')];
    if (weights) head.push(el('th', { scope: 'col', className: 'num', title: 'the move\'s weight as a share of the position\'s' }, 'Weight'));
    if (games) head.push(el('th', { scope: 'col', className: 'num' }, 'Games'));
    if (results) head.push(el('th', { scope: 'col' }, 'White / draws / Black'));
    if (ratings) head.push(el('th', { scope: 'col', className: 'num hide-narrow' }, 'Avg'));
    if (perf) head.push(el('th', { scope: 'col', className: 'num hide-narrow' }, 'Perf'));
    if (marks) head.push(el('th', { scope: 'col' }, 'Marks'));
    const tbody = el('tbody');
    for (const m of moves) {
      const cells = [];
      if (weights) {
        const part = weightSum ? (m.weight * 100) / weightSum : 0;
        cells.push(el('td', { className: 'num weight', title: `weight ${m.weight}${m.learn ? `, learn ${m.learn}` : ''}` },
          el('span', { className: 'weight-bar', style: `width: ${part.toFixed(1)}%`, 'aria-hidden': 'true' }),
          el('span', { className: 'weight-text' }, weightSum ? share(m.weight, weightSum) : fmt(m.weight))));
      }
      if (games) cells.push(el('td', { className: 'num' }, fmt(m.games)));
      if (results) cells.push(el('td', { className: 'bar' }, wdlBar(asColours(m, whiteToMove))));
      if (ratings) cells.push(el('td', { className: 'num hide-narrow' }, fmt(m.averageRating)));
      if (perf) cells.push(el('td', { className: 'num hide-narrow' }, fmt(m.performance)));
      if (marks) {
        const td = el('td', { className: 'marks' });
        if (m.green) td.append(el('span', { className: 'mark mark--green', title: 'marked green: recommended' }, '✓ green'));
        if (m.red) td.append(el('span', { className: 'mark mark--red', title: 'marked red: not recommended' }, '✗ red'));
        if (m.annotation) td.append(el('span', { className: 'mark', title: `annotation $${m.annotation}` }, nagText(m.annotation)));
        cells.push(td);
      }
      const button = el('button', { type: 'button', className: 'move-button', title: `play ${m.san}` }, m.san);
      button.addEventListener('click', (e) => { e.stopPropagation(); onPlay(m.uci); });
      const tr = el('tr', { dataset: { move: m.uci } }, el('th', { scope: 'row', className: 'move' }, button), cells);
      tr.addEventListener('click', () => onPlay(m.uci));
      tr.addEventListener('mouseenter', () => onPreview(m.uci));
      tr.addEventListener('mouseleave', () => onPreview(null));
      button.addEventListener('focus', () => onPreview(m.uci));
      button.addEventListener('blur', () => onPreview(null));
      tbody.append(tr);
    }
    section.append(el('table', { className: 'explorer-table book-table' },
      el('caption', { className: 'visually-hidden' }, `${book.name}'s moves`),
      el('thead', {}, el('tr', {}, head)), tbody));
    out.append(section);
  }
  return out;
}
