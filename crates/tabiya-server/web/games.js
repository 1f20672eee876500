// The games of a position: a page of them, sortable (by rating, date, ECO, length, result or
// import order: the select, or a column's header), with Previous/Next and the total.
//
//   renderGames(answer, { kind, fen, offset, limit, sort, onSort(sort), onPage(offset),
//                         gameLink(id), openGame(row) })  -> a DocumentFragment
// Chess rows come from /api/games ({ total, games: [{ id, white, black, result, date, ... }] }),
// Othello rows from the same endpoint on an Othello database.

import { el, fmt, resultText, resultWords, rowsOpenGames } from './dom.js';
import { san as sanOf } from './chess-rules.js';
import { othelloGamesTable } from './explorer.js';

export const PAGE_SIZE = 20;

// Each order of /api/games: its direction (aria-sort) and what it is, in words.
const SORTED = {
  rating: ['descending', 'rating, highest first'],
  date: ['descending', 'date, newest first'],
  eco: ['ascending', 'ECO code, A00 first (games without one last)'],
  length: ['descending', 'length, longest first'],
  result: ['descending', 'result: White’s wins, draws, Black’s wins, then unfinished'],
};

export function renderGames(data, opts) {
  const { kind, offset, limit = PAGE_SIZE, sort, onSort, onPage } = opts;
  const out = document.createDocumentFragment();
  const total = data.total || 0;
  const first = total ? offset + 1 : 0;
  const last = Math.min(offset + data.games.length, total);

  // WTHOR games have no ratings (date), no ECO; their list is sorted by date or id.
  const sortSelect = el('select', { id: 'games-sort' },
    ...[['rating', 'Rating'], ['date', 'Date'], ['eco', 'ECO'], ['length', 'Length'], ['result', 'Result'], ['id', 'Import order']]
      .filter(([v]) => kind === 'chess' || v === 'date' || v === 'id')
      .map(([v, t]) => el('option', { value: v }, t)));
  sortSelect.value = kind !== 'chess' && sort !== 'id' ? 'date' : sort;
  sortSelect.addEventListener('change', () => onSort(sortSelect.value));
  const prev = el('button', { type: 'button', id: 'games-prev', disabled: offset <= 0 }, '‹ Previous');
  const next = el('button', { type: 'button', id: 'games-next', disabled: last >= total }, 'Next ›');
  prev.addEventListener('click', () => onPage(Math.max(0, offset - limit)));
  next.addEventListener('click', () => onPage(offset + limit));
  out.append(el('div', { className: 'toolbar games-toolbar' },
    el('p', { className: 'games-count', id: 'games-count', 'aria-live': 'polite' },
      total ? `Games ${fmt(first)}–${fmt(last)} of ${fmt(total)}` : 'No games'),
    el('label', { className: 'inline-label' }, 'Sort by ', sortSelect),
    el('span', { className: 'pager' }, prev, next)));

  if (!data.games.length) {
    out.append(el('p', { className: 'empty' }, total ? 'No games on this page.' : 'No games in this position.'));
    return out;
  }
  out.append(kind === 'chess' ? chessTable(data.games, opts) : othelloGamesTable(data.games, { ...opts, caption: 'Games of this position' }));
  return out;
}

function chessTable(games, { fen, gameLink, sort, onSort }) {
  const tbody = el('tbody');
  for (const g of games) {
    let move = '';
    try { move = g.uci ? sanOf(fen, g.uci) : ''; } catch { move = g.uci || ''; }
    const player = (p) => el('span', { className: 'player' }, p.name || '?', p.rating ? el('span', { className: 'rating' }, ` ${p.rating}`) : null);
    tbody.append(el('tr', {},
      el('td', { className: 'players' },
        el('a', { href: gameLink(g.id), dataset: { game: g.id } }, player(g.white), el('span', { className: 'vs' }, ' – '), player(g.black))),
      el('td', { className: 'result', title: resultWords(g.result) }, resultText(g.result)),
      el('td', { className: 'move' }, move),
      el('td', { className: 'eco' }, g.eco || ''),
      el('td', { className: 'num length', title: g.plies === undefined ? null : `${g.plies} plies` }, g.plies === undefined ? '' : String(Math.ceil(g.plies / 2))),
      el('td', { className: 'num date' }, (g.date || '').replace(/\.\?\?/g, '')),
      el('td', { className: 'hide-narrow event' }, [g.event, g.round && g.round !== '?' ? `(${g.round})` : ''].filter(Boolean).join(' '))));
  }
  // The columns the server sorts by are buttons (the whole list sorted, then paged); the
  // sorted one says so (aria-sort) in the direction of its order.
  const sortable = (label, value, { className, title } = {}) => {
    const [direction, how] = SORTED[value];
    return el('th', {
      scope: 'col', className, title, 'aria-sort': sort === value ? direction : null,
    }, onSort ? el('button', {
      type: 'button', className: 'sort-button', dataset: { sort: value },
      title: `Sort by ${how}`,
      onclick: () => onSort(value),
    }, label) : label);
  };
  return el('table', { className: 'list-table games-table', id: 'games-table' },
    el('caption', { className: 'visually-hidden' }, 'Games of this position'),
    el('thead', {}, el('tr', {},
      sortable('White – Black', 'rating', { className: 'players' }),
      sortable('Result', 'result'),
      el('th', { scope: 'col' }, 'Move'),
      sortable('ECO', 'eco', { title: 'opening code (the game’s ECO tag)' }),
      sortable('Moves', 'length', { className: 'num', title: 'length in moves' }),
      sortable('Date', 'date', { className: 'num' }),
      el('th', { scope: 'col', className: 'hide-narrow' }, 'Event'))),
    rowsOpenGames(tbody));
}
