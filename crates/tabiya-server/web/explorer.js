// The explorer's tables: a position's moves (chess or Othello) with their games, results and
// ratings, a totals row, and the position's top and recent games.
//
//   renderChessExplorer(answer, { fen, filtered, onPlay(uci), onPreview(uci | null), gameLink(id),
//                                 params, onLine({ fen, line }) })
//     (answer.books: /api/books's answer for the position, when books are served; an Eval
//     column when some move has a kept engine evaluation, answer.moves[i].eval; with params,
//     the request's, "Results over time" (years-view.js), the move orders into the
//     position (routes-view.js) and the pawn structures its games reach later
//     (structures-view.js, with the filters; each row opens the structure search) below the
//     moves, each asked for when opened)
//   renderOthelloExplorer(answer, { onPlay(square), onPreview(square | null), openGame(row) })
//   -> a DocumentFragment to put in the explorer panel
//
// Every move row is a row of a real table; its move is a button (keyboard and screen
// readers), and a click anywhere on the row plays it. Results read without colour: the bar
// writes its percentages, and its label says them in words.

import { el, fmt, pct, share, resultText, rowsOpenGames } from './dom.js';
import { wdlBar } from './wdl-bar.js';
import { san as sanOf } from './chess-rules.js';
import { scoreText, scoreWords } from './eval-format.js';
import { yearsPanel } from './years-view.js';
import { routesPanel } from './routes-view.js';
import { structuresPanel } from './structures-view.js';

function moveRow(label, { title, onPlay, onPreview, key }, cells) {
  const button = el('button', { type: 'button', className: 'move-button', title, 'aria-label': title }, label);
  button.addEventListener('click', (e) => { e.stopPropagation(); onPlay(key); });
  const tr = el('tr', { dataset: { move: key } }, el('th', { scope: 'row', className: 'move' }, button), cells);
  tr.addEventListener('click', (e) => { if (!e.target.closest('a, button')) onPlay(key); });
  if (onPreview) {
    tr.addEventListener('mouseenter', () => onPreview(key));
    tr.addEventListener('mouseleave', () => onPreview(null));
    button.addEventListener('focus', () => onPreview(key));
    button.addEventListener('blur', () => onPreview(null));
  }
  return tr;
}

function gamesCell(n, total) {
  return el('td', { className: 'num games' }, fmt(n), total ? el('span', { className: 'share' }, ` ${share(n, total)}`) : null);
}

// Games reaching the position after the move by any move order, beside those played here
// ("1,204 here · 8,930 in all").
function reachedCell(m, here) {
  const r = m.reached;
  if (!r) return el('td', { className: 'num reached muted' }, '–');
  const all = r.white + r.draws + r.black + (r.unknown || 0);
  const more = all - here;
  return el('td', {
    className: `num reached${more > 0 ? ' transposed' : ''}`,
    title: `${fmt(here)} here · ${fmt(all)} in all: ${more > 0 ? `${fmt(more)} reach the position after ${m.san} by another move order` : 'none by another move order'}`,
  }, fmt(all));
}

function barCell(counts, options) {
  return el('td', { className: 'bar' }, wdlBar(counts, options));
}

// A move's kept engine evaluation (of the position after it, White's view), or a dash.
function evalCell(e) {
  if (!e || (e.cp === undefined && e.mate === undefined)) {
    return el('td', { className: 'num eval muted' }, el('span', { 'aria-hidden': 'true' }, '–'), el('span', { className: 'visually-hidden' }, 'none'));
  }
  return el('td', { className: 'num eval', title: `${scoreWords(e)}, depth ${e.depth}` }, scoreText(e));
}

function empty(text) {
  return el('p', { className: 'empty' }, text);
}

export function renderChessExplorer(data, { fen, filtered = false, onPlay, onPreview, gameLink, params = null, onLine = null }) {
  const out = document.createDocumentFragment();
  const total = data.white + data.draws + data.black + (data.unknown || 0);
  if (!total && !data.moves.length) {
    out.append(empty(filtered
      ? 'No games in this position with these filters.'
      : 'No games in this position.'));
  } else {
    const evals = data.moves.some((m) => m.eval);
    const reached = data.moves.some((m) => m.reached);
    const table = el('table', { className: 'explorer-table', id: 'explorer-table' },
      el('caption', { className: 'visually-hidden' }, 'Moves played in this position'),
      el('thead', {}, el('tr', {},
        el('th', { scope: 'col' }, 'Move'),
        el('th', { scope: 'col', className: 'num' }, 'Games'),
        reached ? el('th', { scope: 'col', className: 'num reached', title: 'games reaching the position after the move by any move order' }, 'In all') : null,
        el('th', { scope: 'col' }, 'White / draws / Black'),
        evals ? el('th', { scope: 'col', className: 'num eval', title: 'kept engine evaluation after the move, White’s view' }, 'Eval') : null,
        el('th', { scope: 'col', className: 'num hide-narrow', title: 'average rating of the players of the move' }, 'Avg'),
        el('th', { scope: 'col', className: 'num hide-narrow', title: 'performance rating of the move (FIDE table)' }, 'Perf'))));
    const tbody = el('tbody');
    for (const m of data.moves) {
      const n = m.white + m.draws + m.black + (m.unknown || 0);
      const years = m.firstYear ? (m.firstYear === m.lastYear ? `${m.firstYear}` : `${m.firstYear}–${m.lastYear}`) : '';
      const title = `play ${m.san}: ${fmt(n)} game${n === 1 ? '' : 's'}${years ? `, ${years}` : ''}`;
      const tr = moveRow(m.san, { title, onPlay, onPreview, key: m.uci }, [
        gamesCell(n, total),
        reached ? reachedCell(m, n) : null,
        barCell(m),
        evals ? evalCell(m.eval) : null,
        el('td', { className: 'num hide-narrow' }, fmt(m.averageRating)),
        el('td', { className: 'num hide-narrow' }, fmt(m.performance)),
      ]);
      if (m.game) {
        const g = m.game;
        tr.querySelector('th').append(el('a', {
          className: 'single-game', href: gameLink(g.id), dataset: { game: g.id },
          title: `the one game: ${g.white.name} – ${g.black.name}${g.year ? `, ${g.year}` : ''}`,
        }, 'game'));
      }
      tbody.append(tr);
    }
    table.append(tbody);
    table.append(el('tfoot', {}, el('tr', {},
      el('th', { scope: 'row' }, el('span', { 'aria-hidden': 'true' }, 'Σ'), el('span', { className: 'visually-hidden' }, 'All moves')),
      el('td', { className: 'num games' }, fmt(total)),
      reached ? el('td', { className: 'num reached' }, '') : null,
      barCell(data),
      evals ? el('td', { className: 'num eval' }, '') : null,
      el('td', { className: 'num hide-narrow' }, fmt(data.averageRating)),
      el('td', { className: 'num hide-narrow' }, ''))));
    out.append(table);
    const notes = [];
    if (data.ended) notes.push(`${fmt(data.ended)} game${data.ended === 1 ? '' : 's'} ended in this position.`);
    if (data.unknown) notes.push(`${fmt(data.unknown)} game${data.unknown === 1 ? ' has' : 's have'} no result.`);
    if (notes.length) out.append(el('p', { className: 'muted small' }, notes.join(' ')));
  }
  if (data.books && data.books.length) out.append(bookMoves(data.books, { onPlay, onPreview }));
  if (!total) return out;
  if (params) out.append(yearsPanel({ params }));
  // (The start position has one move order, none; every game's is looked at to say so.)
  if (params && (params.fen || params.play)) out.append(routesPanel({ params, onLine }));
  if (params) out.append(structuresPanel({ params }));
  out.append(chessGameList('Top games', data.topGames, { fen, gameLink, id: 'top-games' }));
  if (data.recentGames) out.append(chessGameList('Recent games', data.recentGames, { fen, gameLink, id: 'recent-games' }));
  return out;
}

// The served books' moves beside the database's: one line per book, its moves by weight or
// games, each a button that plays it (the Books tab has each book's whole table).
const BOOK_MOVES_SHOWN = 8;

function bookMoves(books, { onPlay, onPreview }) {
  const section = el('section', { className: 'book-moves', 'aria-labelledby': 'book-moves-title' },
    el('h3', { id: 'book-moves-title' }, 'In the books'));
  for (const book of books) {
    const name = book.name;
    const line = el('p', { className: 'book-line', dataset: { book: name } }, el('strong', {}, name), ': ');
    const moves = book.found ? [...(book.moves || [])] : [];
    if (!moves.length) {
      line.append(el('span', { className: 'muted' }, book.found ? 'in the book, with no moves' : 'not in this book'));
      section.append(line);
      continue;
    }
    const weights = moves.some((m) => m.weight !== undefined);
    const weightSum = weights ? moves.reduce((a, m) => a + (m.weight || 0), 0) : 0;
    moves.sort((a, b) => (weights ? b.weight - a.weight : (b.games || 0) - (a.games || 0)));
    for (const m of moves.slice(0, BOOK_MOVES_SHOWN)) {
      const amount = weights ? share(m.weight, weightSum) : m.games !== undefined ? `${fmt(m.games)}` : '';
      const mark = m.green ? ' ✓' : m.red ? ' ✗' : '';
      const what = weights ? `weight ${share(m.weight, weightSum)}` : m.games !== undefined ? `${fmt(m.games)} games` : '';
      const button = el('button', {
        type: 'button', className: 'book-move', dataset: { move: m.uci },
        title: `play ${m.san} (${name}${what ? `: ${what}` : ''}${m.green ? ', marked green' : m.red ? ', marked red' : ''})`,
      }, m.san, amount ? el('span', { className: 'muted small' }, ` ${amount}`) : null, mark);
      button.addEventListener('click', () => onPlay(m.uci));
      button.addEventListener('mouseenter', () => onPreview(m.uci));
      button.addEventListener('mouseleave', () => onPreview(null));
      line.append(button, ' ');
    }
    if (moves.length > BOOK_MOVES_SHOWN) line.append(el('span', { className: 'muted small' }, `+${moves.length - BOOK_MOVES_SHOWN} more`));
    section.append(line);
  }
  return section;
}

function chessGameList(title, games, { fen, gameLink, id }) {
  const section = el('section', { className: 'game-list', 'aria-labelledby': `${id}-title` },
    el('h3', { id: `${id}-title` }, title));
  if (!games || !games.length) {
    section.append(empty('None.'));
    return section;
  }
  const tbody = el('tbody');
  for (const g of games) {
    let move = '';
    try { move = g.uci ? sanOf(fen, g.uci) : ''; } catch { move = g.uci || ''; }
    const result = g.winner === 'white' ? '1-0' : g.winner === 'black' ? '0-1' : '1/2-1/2';
    tbody.append(el('tr', {},
      el('td', { className: 'players' },
        el('a', { href: gameLink(g.id), dataset: { game: g.id } },
          playerText(g.white), el('span', { className: 'vs' }, ' – '), playerText(g.black))),
      el('td', { className: 'result', title: { '1-0': 'White won', '0-1': 'Black won', '1/2-1/2': 'draw' }[result] }, resultText(result)),
      el('td', { className: 'move' }, move),
      el('td', { className: 'num' }, g.month || g.year || '')));
  }
  section.append(el('table', { className: 'list-table' },
    el('caption', { className: 'visually-hidden' }, title),
    el('thead', {}, el('tr', {},
      el('th', { scope: 'col' }, 'White – Black'), el('th', { scope: 'col' }, 'Result'),
      el('th', { scope: 'col' }, 'Move'), el('th', { scope: 'col', className: 'num' }, 'Date'))),
    rowsOpenGames(tbody)));
  return section;
}

function playerText(p) {
  return `${p.name || '?'}${p.rating ? ` (${p.rating})` : ''}`;
}

// ------------------------------------------------------------------ Othello

export function renderOthelloExplorer(data, { onPlay, onPreview, openGame, gameLink }) {
  const out = document.createDocumentFragment();
  const total = data.games;
  if (!total && !data.moves.length) {
    out.append(empty(data.sideToMove ? 'No games in this position.' : 'No games in this position (the game is over).'));
  } else {
    const mover = data.sideToMove === 'white' ? 'White' : 'Black';
    const table = el('table', { className: 'explorer-table', id: 'explorer-table' },
      el('caption', { className: 'visually-hidden' }, 'Moves played in this position'),
      el('thead', {}, el('tr', {},
        el('th', { scope: 'col' }, 'Move'),
        el('th', { scope: 'col', className: 'num' }, 'Games'),
        el('th', { scope: 'col' }, 'Black / draws / White'),
        el('th', { scope: 'col', className: 'num', title: `share of the games won by ${mover}, the side to move (a draw counts half)` },
          `${mover} win`, el('span', { className: 'visually-hidden' }, ' rate (the side to move; a draw counts half)')),
        el('th', { scope: 'col', className: 'num hide-narrow', title: 'average number of black discs at the end' }, 'Discs', el('span', { className: 'visually-hidden' }, ' (black, average)')),
        el('th', { scope: 'col', className: 'num hide-narrow', title: 'average theoretical score: black discs with perfect play from the end of the recorded game, as WTHOR gives it' }, 'Theor.'))));
    const tbody = el('tbody');
    for (const m of data.moves) {
      const eq = m.equivalent && m.equivalent.length ? m.equivalent : null;
      const title = `play ${m.move}: ${fmt(m.games)} game${m.games === 1 ? '' : 's'}${eq ? ` (the same as ${eq.join(', ')} by symmetry)` : ''}`;
      const tr = moveRow(m.move, { title, onPlay, onPreview, key: m.move }, [
        gamesCell(m.games, total),
        barCell(m, { blackFirst: true }),
        el('td', { className: 'num' }, pct(m.winRate)),
        el('td', { className: 'num hide-narrow' }, m.averageBlackDiscs === null || m.averageBlackDiscs === undefined ? '–' : m.averageBlackDiscs.toFixed(1)),
        el('td', { className: 'num hide-narrow' }, m.averageTheoreticalScore === null || m.averageTheoreticalScore === undefined ? '–' : m.averageTheoreticalScore.toFixed(1)),
      ]);
      if (eq) tr.querySelector('th').append(el('span', { className: 'equivalent', title: 'equivalent moves: the same position by symmetry' }, ` ≡ ${eq.join(' ')}`));
      tbody.append(tr);
    }
    table.append(tbody);
    const won = data.sideToMove === 'white' ? data.white : data.black;
    const decided = data.white + data.draws + data.black;
    table.append(el('tfoot', {}, el('tr', {},
      el('th', { scope: 'row' }, el('span', { 'aria-hidden': 'true' }, 'Σ'), el('span', { className: 'visually-hidden' }, 'All moves')),
      el('td', { className: 'num games' }, fmt(total)),
      barCell(data, { blackFirst: true }),
      el('td', { className: 'num' }, decided && data.sideToMove ? pct((won + data.draws / 2) / decided) : '–'),
      el('td', { className: 'num hide-narrow' }, data.averageBlackDiscs ? data.averageBlackDiscs.toFixed(1) : '–'),
      el('td', { className: 'num hide-narrow' }, data.averageTheoreticalScore ? data.averageTheoreticalScore.toFixed(1) : '–'))));
    out.append(table);
    if (data.ended) out.append(el('p', { className: 'muted small' }, `${fmt(data.ended)} game${data.ended === 1 ? '' : 's'} ended in this position.`));
  }
  // WTHOR games carry no ratings: the explorer's top games are the newest (by year).
  if (total) {
    const list = othelloGameList('Newest games', data.topGames || [], { openGame, gameLink, id: 'top-games' });
    list.querySelector('h3').after(el('p', { className: 'muted small', id: 'top-games-note' }, 'Othello games have no ratings: the newest games of this position come first.'));
    out.append(list);
  }
  return out;
}

export function othelloResult(g) {
  const white = 64 - g.blackScore;
  const words = g.winner === 'black' ? 'Black won' : g.winner === 'white' ? 'White won' : 'draw';
  return { text: `${g.blackScore}–${white}`, words };
}

export function othelloGameList(title, games, { openGame, gameLink, id, caption }) {
  const section = el('section', { className: 'game-list', 'aria-labelledby': `${id}-title` },
    el('h3', { id: `${id}-title` }, title));
  if (!games.length) {
    section.append(empty('None.'));
    return section;
  }
  section.append(othelloGamesTable(games, { openGame, gameLink, caption: caption || title }));
  return section;
}

export function othelloGamesTable(games, { openGame, gameLink, caption }) {
  const tbody = el('tbody');
  for (const g of games) {
    const r = othelloResult(g);
    const link = el('a', { href: gameLink(g.id), dataset: { game: String(g.id) } },
      g.black.name, el('span', { className: 'vs' }, ' – '), g.white.name);
    link.addEventListener('click', (e) => {
      if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      e.stopPropagation();
      openGame(g);
    });
    tbody.append(el('tr', {},
      el('td', { className: 'players' }, link),
      el('td', { className: 'result', title: `${r.words} (black discs – white discs)` }, r.text, el('span', { className: 'visually-hidden' }, ` ${r.words}`)),
      el('td', { className: 'move' }, g.move || ''),
      el('td', { className: 'hide-narrow' }, g.tournament ? g.tournament.name : ''),
      el('td', { className: 'num' }, g.year || '')));
  }
  return el('table', { className: 'list-table' },
    el('caption', { className: 'visually-hidden' }, caption),
    el('thead', {}, el('tr', {},
      el('th', { scope: 'col' }, 'Black – White'), el('th', { scope: 'col' }, 'Score'),
      el('th', { scope: 'col' }, 'Move'), el('th', { scope: 'col', className: 'hide-narrow' }, 'Tournament'),
      el('th', { scope: 'col', className: 'num' }, 'Year'))),
    rowsOpenGames(tbody));
}
