// The structure search (view=search, /api/search): a board editor (search-board.js) that
// writes a pattern or a pawn structure, a material signature, either colour, held for N
// plies, bishops of opposite colours; the answer: the games' results, the moves played from
// the first position where the query holds, the pawn structures reached next, the games.
//
//   const view = createSearchView(element, {
//     getJson, createLoader, apiUrl,
//     onSearch(query),          a search asked for (the form submitted, a structure clicked)
//     onSort(sort), onPage(offset),
//     gameLink(id, ply),        the page's link to a game at a ply (the viewer opens there)
//     explorerFen(),            the explorer's position, to start the board from
//     onLeave(),                back to the explorer
//   });
//   view.show({ db, query, filters, sort, offset })  -> asks /api/search when the query has
//     something to search for (an answer already shown is not asked again)
//   view.element
//
// query = { pattern, pawns, material, either, hold, bishops } (url-state.js keeps it in the
// URL). searchParams(query) -> /api/search's parameters. The game links carry data-game and
// data-ply, so the page's click handler opens them in its viewer at that ply.

import { el, fmt, share, resultText, resultWords } from './dom.js';
import { wdlBar, wdlPercentages } from './wdl-bar.js';
import {
  createSearchBoard, patternText, parsePattern, pawnsText, parsePawns, cellsOfFen, pawnChanges,
  emptyCells,
} from './search-board.js';

export const SEARCH_PAGE = 20;
const MOVES_SHOWN = 12; // moves asked for (/api/search's `moves`) before "Show all"


export function emptyQuery() {
  return { pattern: '', pawns: '', material: '', either: false, hold: null, bishops: false };
}

// Whether a query has something to search for.
export function hasQuery(q) {
  return !!(q && (q.pattern || q.pawns || q.material || q.bishops));
}

export function searchParams(q) {
  return {
    pattern: q.pattern || undefined,
    pawns: q.pawns || undefined,
    material: q.material || undefined,
    eitherColour: q.either ? 'true' : undefined,
    for: q.hold && q.hold > 1 ? String(q.hold) : undefined,
    oppositeBishops: q.bishops ? 'true' : undefined,
  };
}

const sameQuery = (a, b) => JSON.stringify({ ...emptyQuery(), ...a }) === JSON.stringify({ ...emptyQuery(), ...b });

// '7… Be7' from the position's FEN (its side to move and move number) and the move's SAN.
export function moveLabel(fen, san) {
  if (!san) return '';
  const fields = String(fen || '').split(/\s+/);
  const number = Math.max(1, Number.parseInt(fields[5], 10) || 1);
  const bare = String(san).replace(/^\.{3}|^…/, '');
  return fields[1] === 'b' ? `${number}… ${bare}` : `${number}. ${bare}`;
}

// A SAN names a move in its own position, and the first matching positions of different
// games differ: two rows can share one (…Nxd5 from b6 and from f6 are different moves).
// For each move, what tells it from the others of its SAN: its from square ('b6'), its UCI
// when that is shared too, '' when its SAN is its own.
export function sanApart(moves) {
  const count = (key) => {
    const n = new Map();
    for (const m of moves) n.set(key(m), (n.get(key(m)) || 0) + 1);
    return n;
  };
  const bySan = count((m) => m.san);
  const byFrom = count((m) => `${m.san} ${String(m.uci || '').slice(0, 2)}`);
  return moves.map((m) => {
    if (bySan.get(m.san) < 2 || !m.uci) return '';
    return byFrom.get(`${m.san} ${m.uci.slice(0, 2)}`) > 1 ? m.uci : m.uci.slice(0, 2);
  });
}

export function createSearchView(element, { getJson, createLoader, apiUrl, onSearch, onSort, onPage, gameLink, explorerFen, onLeave }) {
  let mode = 'pattern';
  let shownQuery = null; // the query the form was last filled with
  let view = null; // the last show()'s arguments
  const texts = { pattern: '', pawns: '' }; // each mode's text, kept while the other is shown

  // ---------------------------------------------------------------- the form
  const status = el('p', { className: 'visually-hidden', id: 'search-board-status', 'aria-live': 'polite' });
  const boardNote = el('p', { className: 'muted small search-board-note', id: 'search-board-note', 'aria-live': 'polite' });
  const boardBox = el('div', { id: 'search-board' });
  const board = createSearchBoard(boardBox, {
    onChange: (cells) => {
      const text = mode === 'pawns' ? pawnsText(cells) : patternText(cells);
      textInput.value = text;
      texts[mode] = text;
      boardNote.textContent = '';
    },
    onStatus: (text) => { status.textContent = text; },
  });

  const modeRadio = (value, label, help) => el('label', { className: 'search-mode__choice' },
    el('input', { type: 'radio', name: 'search-mode', value, id: `search-mode-${value}` }),
    ' ', el('span', {}, label, el('span', { className: 'muted small' }, ` ${help}`)));
  const modes = el('fieldset', { className: 'search-mode' },
    el('legend', {}, 'The board is'),
    modeRadio('pattern', 'A pattern', '(pieces and marks; other squares anything)'),
    modeRadio('pawns', 'A pawn structure', '(exactly these pawns)'));
  modes.addEventListener('change', (e) => {
    if (e.target.name === 'search-mode') setMode(e.target.value);
  });

  const textLabel = el('label', { for: 'search-text', id: 'search-text-label' }, 'Pattern');
  const textInput = el('input', {
    id: 'search-text', className: 'mono', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false',
    'aria-describedby': 'search-text-help search-board-note',
  });
  const textHelp = el('p', { id: 'search-text-help', className: 'muted small' });
  textInput.addEventListener('input', () => {
    texts[mode] = textInput.value.trim();
    readText();
  });

  const fromPieces = el('button', { type: 'button', id: 'search-from-pieces', title: 'Put the pieces of the explorer’s position on the board (the other squares anything)' }, 'Explorer’s pieces');
  const fromPawns = el('button', { type: 'button', id: 'search-from-pawns', title: 'Put the pawns of the explorer’s position on the board' }, 'Explorer’s pawns');
  const clearBoard = el('button', { type: 'button', id: 'search-clear-board', title: 'Take everything off the board' }, 'Clear');
  fromPieces.addEventListener('click', () => fromExplorer(false));
  fromPawns.addEventListener('click', () => fromExplorer(true));
  clearBoard.addEventListener('click', () => {
    board.set(emptyCells(), mode);
    textInput.value = '';
    texts[mode] = '';
    boardNote.textContent = '';
    status.textContent = 'The board is cleared.';
  });

  const material = el('input', {
    id: 'search-material', className: 'mono', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false',
    placeholder: 'KRPvKR', size: '14', 'aria-describedby': 'search-material-help',
  });
  const either = el('input', { type: 'checkbox', id: 'search-either' });
  const hold = el('input', { type: 'number', id: 'search-for', min: '1', max: '1000', step: '1', inputmode: 'numeric', size: '5', placeholder: '1' });
  const bishops = el('input', { type: 'checkbox', id: 'search-bishops' });
  const formError = el('p', { id: 'search-form-error', className: 'form-error', role: 'alert', hidden: true });

  const form = el('form', { id: 'search-form', className: 'search-form', novalidate: true, 'aria-label': 'Structure search' },
    el('div', { className: 'search-form__board' },
      modes,
      boardBox,
      status,
      el('div', { className: 'toolbar search-board-tools', role: 'group', 'aria-label': 'Start the board from' }, fromPieces, fromPawns, clearBoard)),
    el('div', { className: 'search-form__fields' },
      el('div', { className: 'search-field' }, textLabel, textInput, textHelp, boardNote),
      el('div', { className: 'search-field' },
        el('label', { for: 'search-material' }, 'Material'), material,
        el('p', { id: 'search-material-help', className: 'muted small' },
          'White’s pieces, v, Black’s: KRPvKR; P* any number of pawns, P+ one or more, m a minor piece (KRvKmm).')),
      el('div', { className: 'search-checks' },
        el('label', {}, either, ' Either colour ', el('span', { className: 'muted small' }, '(also with the colours swapped)')),
        el('label', {}, bishops, ' Bishops of opposite colours'),
        el('label', {}, 'Held for ', hold, ' plies ', el('span', { className: 'muted small' }, '(in a row)'))),
      el('div', { className: 'toolbar' },
        el('button', { type: 'submit', id: 'search-run', className: 'primary' }, 'Search'),
        el('button', { type: 'button', id: 'search-reset' }, 'New search')),
      formError,
      syntaxHelp()));
  form.querySelector('#search-reset').addEventListener('click', () => {
    texts.pattern = '';
    texts.pawns = '';
    fill({ ...emptyQuery() }, 'pattern');
    formError.hidden = true;
  });
  let reveal = false; // the answer to a search just asked for is scrolled into view
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const q = readForm();
    if (!q) return;
    formError.hidden = true;
    shownQuery = q;
    reveal = true;
    onSearch(q);
  });

  // ---------------------------------------------------------------- the results
  const resultsBody = el('div', { className: 'search-results__body' },
    el('p', { className: 'empty' }, 'Put pieces or pawns on the board, or give a material signature, then Search.'));
  const results = el('section', { id: 'search-results', className: 'search-results', 'aria-labelledby': 'search-results-title' },
    el('h3', { id: 'search-results-title', className: 'visually-hidden' }, 'Results'),
    resultsBody);
  const loader = createLoader(results);

  const root = el('div', { className: 'search-view' },
    el('header', { className: 'search-head' },
      el('div', { className: 'search-head__top' },
        el('h2', { id: 'search-title' }, 'Structure search'),
        el('button', { type: 'button', className: 'link-button search-leave', id: 'search-leave', onclick: () => onLeave() }, '← Back to the explorer')),
      el('p', { className: 'muted small' },
        'The games that reach a structure: pieces on squares, a material balance, a pawn structure. The filters above apply.')),
    el('div', { className: 'search-layout' }, form, results));

  setMode('pattern');

  // ---------------------------------------------------------------- the form's parts

  function setMode(m) {
    mode = m === 'pawns' ? 'pawns' : 'pattern';
    for (const r of modes.querySelectorAll('input[name=search-mode]')) r.checked = r.value === mode;
    textLabel.textContent = mode === 'pawns' ? 'Pawn structure' : 'Pattern';
    textInput.placeholder = mode === 'pawns' ? '8/pp3ppp/2p5/3p4/3P4/4P3/PP3PPP/8' : '*/*/*/3N4/*/*/*/*';
    textHelp.textContent = mode === 'pawns'
      ? 'A board of pawns only, ranks 8 to 1: the games with exactly these pawns.'
      : 'Ranks 8 to 1 separated by /; the syntax is below. Squares left anything are ?.';
    fromPieces.hidden = mode === 'pawns';
    textInput.value = texts[mode];
    readText();
  }

  // The text read back into the board when the board can show it.
  function readText() {
    const text = textInput.value.trim();
    const cells = mode === 'pawns' ? parsePawns(text) : parsePattern(text);
    if (cells) {
      board.set(cells, mode);
      boardNote.textContent = '';
    } else {
      board.set(emptyCells(), mode);
      boardNote.textContent = mode === 'pawns'
        ? 'The board cannot show this text; it is searched as written. A click on the board starts a new structure.'
        : 'The board cannot show this pattern (* or [..], or not 8 squares a rank); it is searched as written. A click on the board starts a new one.';
    }
  }

  function fromExplorer(pawnsOnly) {
    const fen = explorerFen();
    const cells = cellsOfFen(fen, { pawnsOnly: pawnsOnly || mode === 'pawns' });
    board.set(cells, mode);
    const text = mode === 'pawns' ? pawnsText(cells) : patternText(cells);
    textInput.value = text;
    texts[mode] = text;
    boardNote.textContent = '';
    status.textContent = pawnsOnly ? 'The explorer position’s pawns are on the board.' : 'The explorer position’s pieces are on the board.';
  }

  function fill(q, forceMode = null) {
    texts.pattern = q.pattern || '';
    texts.pawns = q.pawns || '';
    const m = forceMode || (q.pattern ? 'pattern' : q.pawns ? 'pawns' : mode);
    material.value = q.material || '';
    either.checked = !!q.either;
    bishops.checked = !!q.bishops;
    hold.value = q.hold && q.hold > 1 ? String(q.hold) : '';
    setMode(m);
  }

  // The form as a query (only the shown mode's text), or null with the reason shown.
  function readForm() {
    const text = textInput.value.trim();
    const q = {
      ...emptyQuery(),
      pattern: mode === 'pattern' ? text : '',
      pawns: mode === 'pawns' ? text : '',
      material: material.value.trim(),
      either: either.checked,
      bishops: bishops.checked,
    };
    const h = hold.value.trim();
    if (h) {
      if (!/^\d+$/.test(h) || Number(h) < 1 || Number(h) > 1000) {
        return refuse('Held for: a whole number of plies from 1 to 1000.');
      }
      q.hold = Number(h) > 1 ? Number(h) : null;
    }
    if (!hasQuery(q)) {
      return refuse('Nothing to search for: put pieces or pawns on the board, write a pattern, give a material signature or tick bishops of opposite colours.');
    }
    return q;
  }

  function refuse(message) {
    formError.hidden = false;
    formError.textContent = message;
    return null;
  }

  // ---------------------------------------------------------------- show

  function show(args) {
    view = args;
    const q = { ...emptyQuery(), ...args.query };
    if (!shownQuery || !sameQuery(shownQuery, q)) {
      fill(q);
      shownQuery = q;
    }
    if (!hasQuery(q)) {
      loader.reset();
      loader.error('');
      resultsBody.replaceChildren(el('p', { className: 'empty' },
        'Put pieces or pawns on the board, or give a material signature, then Search.'));
      return;
    }
    const params = {
      db: args.db, ...searchParams(q), ...args.filters,
      sort: args.sort, limit: SEARCH_PAGE, offset: args.offset || undefined, moves: MOVES_SHOWN,
    };
    loader.load(apiUrl('/api/search', params), (signal) => getJson('/api/search', params, { signal }), (data) => {
      replaceKeepingFocus(renderResults(data, { query: q, sort: args.sort, offset: args.offset || 0, params }));
    }, () => resultsBody.replaceChildren()).then(() => {
      // The answer (or the server's reason for refusing) where it can be seen: under the
      // form on a narrow screen, at the top of its column on a wide one.
      if (!reveal) return;
      reveal = false;
      const top = results.getBoundingClientRect().top;
      if (top < 0 || top > window.innerHeight - 120) results.scrollIntoView({ block: 'start' });
    });
  }

  // New results; focus that was on one of the old ones' controls (the pager, the order) goes
  // to the same control, or to the other page button when that one is now disabled.
  function replaceKeepingFocus(content) {
    const active = document.activeElement;
    const id = active && resultsBody.contains(active) ? active.id : '';
    resultsBody.replaceChildren(content);
    if (!id) return;
    let target = resultsBody.querySelector(`#${CSS.escape(id)}`);
    if (target && target.disabled) target = resultsBody.querySelector(id === 'search-prev' ? '#search-next-page' : '#search-prev');
    if (target && !target.disabled) target.focus({ preventScroll: true });
  }

  function renderResults(data, { query, sort, offset, params }) {
    const out = document.createDocumentFragment();
    out.append(totals(data));
    out.append(movesSection(data, params));
    if (query.pawns && data.next) out.append(nextSection(data.next, query));
    out.append(gamesSection(data, { sort, offset }));
    return out;
  }

  function totals(data) {
    const n = data.games || 0;
    const [w, d, b] = wdlPercentages(data);
    const facts = [
      n ? `White ${w}% · draws ${d}% · Black ${b}%` : null,
      data.averageRating ? `average rating ${fmt(data.averageRating)}` : null,
      data.ended ? `${fmt(data.ended)} ended where the search first held` : null,
      data.unknown ? `${fmt(data.unknown)} without a result` : null,
    ].filter(Boolean);
    return el('div', { className: 'search-totals' },
      el('p', { className: 'search-count', id: 'search-count', dataset: { games: String(n) }, 'aria-live': 'polite' },
        el('strong', {}, fmt(n)), ` game${n === 1 ? '' : 's'} match`,
        data.replayed ? el('span', { className: 'muted small' }, ` (${fmt(data.replayed)} game${data.replayed === 1 ? '' : 's'} looked at)`) : null),
      n ? wdlBar(data) : null,
      facts.length ? el('p', { className: 'muted small search-facts' }, facts.join(' · ')) : null);
  }

  // The moves asked for (the most played); "Show all" asks the same search for every move.
  function movesSection(data, params) {
    const section = el('section', { className: 'search-section', 'aria-labelledby': 'search-moves-title' },
      el('h3', { id: 'search-moves-title' }, 'Moves from the first matching position'));
    const moves = data.moves || [];
    if (!moves.length) {
      section.append(el('p', { className: 'empty' }, data.games ? 'No move was played from there (the games ended).' : 'No games.'));
      return section;
    }
    // Every game that went on from there played one move (the list may show fewer).
    const total = (data.games || 0) - (data.ended || 0);
    const row = (m, from) => {
      const n = m.white + m.draws + m.black + (m.unknown || 0);
      const years = m.firstYear ? (m.firstYear === m.lastYear ? `${m.firstYear}` : `${m.firstYear}–${m.lastYear}`) : '';
      return el('tr', { dataset: { uci: m.uci }, title: `${m.san} (${m.uci}): ${fmt(n)} game${n === 1 ? '' : 's'}${years ? `, ${years}` : ''}` },
        el('th', { scope: 'row', className: 'move' }, m.san,
          from ? el('span', { className: 'muted small move-from' }, ` from ${from}`) : null),
        el('td', { className: 'num games' }, fmt(n), el('span', { className: 'share' }, ` ${share(n, total)}`)),
        el('td', { className: 'bar' }, wdlBar(m)),
        el('td', { className: 'num hide-narrow' }, fmt(m.averageRating)),
        el('td', { className: 'num hide-narrow' }, fmt(m.performance)));
    };
    // Told apart among the rows shown together.
    const rows = (list) => {
      const from = sanApart(list);
      return list.map((m, i) => row(m, from[i]));
    };
    const tbody = el('tbody', {}, ...rows(moves));
    section.append(el('table', { className: 'explorer-table search-moves', id: 'search-moves', tabindex: -1 },
      el('caption', { className: 'visually-hidden' }, 'Moves played from the first position where the search holds'),
      el('thead', {}, el('tr', {},
        el('th', { scope: 'col' }, 'Move'),
        el('th', { scope: 'col', className: 'num' }, 'Games'),
        el('th', { scope: 'col' }, 'White / draws / Black'),
        el('th', { scope: 'col', className: 'num hide-narrow', title: 'average rating of the players of the move' }, 'Avg'),
        el('th', { scope: 'col', className: 'num hide-narrow', title: 'performance rating of the move (FIDE table)' }, 'Perf'))),
      tbody));
    const all = data.distinctMoves ?? moves.length;
    if (all > moves.length) {
      const label = `Show all ${fmt(all)} moves`;
      const more = el('button', { type: 'button', id: 'search-more-moves', 'aria-controls': 'search-moves' }, label);
      const status = el('span', { className: 'muted small', role: 'status' });
      more.addEventListener('click', async () => {
        more.disabled = true;
        more.textContent = 'Loading all moves…';
        status.textContent = '';
        try {
          const every = await getJson('/api/search', { ...params, moves: undefined, limit: 0, offset: undefined });
          tbody.replaceChildren(...rows(every.moves || []));
          more.parentElement.remove();
          tbody.parentElement.focus({ preventScroll: true });
        } catch (e) {
          more.disabled = false;
          more.textContent = label;
          status.textContent = `The moves could not be loaded: ${e.message || e}`;
        }
      });
      section.append(el('div', { className: 'toolbar search-more' }, more, status));
    }
    return section;
  }

  function nextSection(next, query) {
    const section = el('section', { className: 'search-section', 'aria-labelledby': 'search-next-title' },
      el('h3', { id: 'search-next-title' }, 'Pawn structures reached next'));
    if (!next.length) {
      section.append(el('p', { className: 'empty' }, 'None: the pawns did not change again in these games.'));
      return section;
    }
    const tbody = el('tbody');
    for (const s of next) {
      const change = pawnChanges(query.pawns, s.pawns);
      const button = el('button', {
        type: 'button', className: 'linklike mono search-next-structure', dataset: { pawns: s.pawns },
        title: `search this pawn structure${change ? ` (${change})` : ''}`,
      }, s.pawns);
      button.addEventListener('click', () => onSearch({ ...query, pattern: '', pawns: s.pawns }));
      tbody.append(el('tr', { dataset: { pawns: s.pawns } },
        el('td', { className: 'mini-cell' }, miniBoard(s.pawns)),
        el('th', { scope: 'row', className: 'structure' }, button,
          change ? el('span', { className: 'muted small search-change' }, change) : null),
        el('td', { className: 'num' }, fmt(s.games)),
        el('td', { className: 'bar hide-narrow' }, wdlBar(s))));
    }
    section.append(el('table', { className: 'list-table search-next', id: 'search-next' },
      el('caption', { className: 'visually-hidden' }, 'Pawn structures the games reached next; each searches that structure'),
      el('thead', {}, el('tr', {},
        el('th', { scope: 'col' }, el('span', { className: 'visually-hidden' }, 'Diagram')),
        el('th', { scope: 'col' }, 'Pawns'),
        el('th', { scope: 'col', className: 'num' }, 'Games'),
        el('th', { scope: 'col', className: 'hide-narrow' }, 'White / draws / Black'))),
      tbody));
    return section;
  }

  function gamesSection(data, { sort, offset }) {
    const total = data.games || 0;
    const list = data.list || [];
    const first = total ? offset + 1 : 0;
    const last = Math.min(offset + list.length, total);
    const section = el('section', { className: 'search-section', 'aria-labelledby': 'search-games-title' },
      el('h3', { id: 'search-games-title' }, 'Games'));
    const sortSelect = el('select', { id: 'search-sort' },
      ...[['rating', 'Rating'], ['date', 'Date'], ['id', 'Import order']].map(([v, t]) => el('option', { value: v }, t)));
    sortSelect.value = sort;
    sortSelect.addEventListener('change', () => onSort(sortSelect.value));
    const prev = el('button', { type: 'button', id: 'search-prev', disabled: offset <= 0 }, '‹ Previous');
    const next = el('button', { type: 'button', id: 'search-next-page', disabled: last >= total }, 'Next ›');
    prev.addEventListener('click', () => onPage(Math.max(0, offset - SEARCH_PAGE)));
    next.addEventListener('click', () => onPage(offset + SEARCH_PAGE));
    section.append(el('div', { className: 'toolbar games-toolbar' },
      el('p', { className: 'games-count', id: 'search-games-count' },
        total ? `Games ${fmt(first)}–${fmt(last)} of ${fmt(total)}` : 'No games'),
      el('label', { className: 'inline-label' }, 'Sort by ', sortSelect),
      el('span', { className: 'pager' }, prev, next)));
    if (!list.length) {
      section.append(el('p', { className: 'empty' }, total ? 'No games on this page.' : 'No game reaches this.'));
      return section;
    }
    const tbody = el('tbody');
    for (const g of list) {
      const player = (p) => el('span', { className: 'player' }, p.name || '?', p.rating ? el('span', { className: 'rating' }, ` ${p.rating}`) : null);
      const where = moveLabel(g.fen, g.san);
      tbody.append(el('tr', { dataset: { id: g.id } },
        el('td', { className: 'players' },
          el('a', {
            href: gameLink(g.id, g.ply), dataset: { game: g.id, ply: String(g.ply) },
            title: `open the game where the search first holds (ply ${g.ply})`,
          }, player(g.white), el('span', { className: 'vs' }, ' – '), player(g.black)),
          g.swapped ? el('span', { className: 'swapped', title: 'matched with the colours swapped' }, ' ⇄', el('span', { className: 'visually-hidden' }, ' colours swapped')) : null),
        el('td', { className: 'result', title: resultWords(g.result) }, resultText(g.result)),
        el('td', { className: 'move', title: `the move played where the search first holds (ply ${g.ply})` }, where || (g.ply ? `ply ${g.ply}` : 'start')),
        el('td', { className: 'num date' }, (g.date || '').replace(/\.\?\?/g, '')),
        el('td', { className: 'hide-narrow event' }, [g.event, g.round && g.round !== '?' ? `(${g.round})` : ''].filter(Boolean).join(' '))));
    }
    section.append(el('table', { className: 'list-table', id: 'search-games' },
      el('caption', { className: 'visually-hidden' }, 'Games where the search holds'),
      el('thead', {}, el('tr', {},
        el('th', { scope: 'col' }, 'White – Black'), el('th', { scope: 'col' }, 'Result'),
        el('th', { scope: 'col', title: 'the move played where the search first holds' }, 'Then'),
        el('th', { scope: 'col', className: 'num' }, 'Date'),
        el('th', { scope: 'col', className: 'hide-narrow' }, 'Event'))),
      tbody));
    return section;
  }

  return { element: root, show, board, refresh: () => { if (view) { loader.reset(); show(view); } } };
}

// A small diagram of a pawn structure (decorative: the text beside it says it).
function miniBoard(pawns) {
  const cells = parsePawns(pawns) || emptyCells();
  const box = el('span', { className: 'mini-board', 'aria-hidden': 'true' });
  cells.forEach((c, i) => {
    const light = (Math.floor(i / 8) + i) % 2 === 0;
    box.append(el('span', { className: `mini-sq ${light ? 'mini-sq--light' : 'mini-sq--dark'}${c === 'P' ? ' mini-sq--P' : c === 'p' ? ' mini-sq--p' : ''}` }));
  });
  return box;
}

function syntaxHelp() {
  const row = (code, words) => el('tr', {}, el('th', { scope: 'row' }, el('code', {}, code)), el('td', {}, words));
  return el('details', { className: 'search-syntax' },
    el('summary', {}, 'Pattern syntax'),
    el('table', { className: 'list-table' },
      el('caption', { className: 'visually-hidden' }, 'What a pattern’s characters mean'),
      el('tbody', {},
        row('K Q R B N P', 'that white piece (k q r b n p: black)'),
        row('1–8', 'that many empty squares'),
        row('?', 'any square, empty or not'),
        row('!', 'an occupied square'),
        row('A  a', 'any white piece, any black piece'),
        row('*', 'zero or more squares of the rank'),
        row('[NB]  [^Pp]', 'any of the listed, anything but the listed'))),
    el('p', { className: 'muted small' }, 'Every rank is given, 8 to 1: */*/*/3N4/*/*/*/* is a white knight on d5 with the rest of its rank empty.'));
}
