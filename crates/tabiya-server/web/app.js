// Tabiya's page: a board, the line played, and the explorer, games, books and game viewer of
// the position, for a chess or Othello database. The state lives in the URL (url-state.js):
// a move played pushes a history entry, stepping through a line or a game replaces it, and
// the back button restores whatever an entry holds.
//
// Flow: an action calls update(patch) -> the URL is written -> apply() makes sure the right
// board is mounted -> render() draws the board, the line and the shown panel, and asks the
// panel's loader (api.js) for the answers it needs; loaders skip answers already shown.
// The engine panel (engine.js) follows the board's position; its analyses, once kept, show in
// the explorer's Eval column, so a finished one asks for the explorer's answer again.
// The header's player search (name-search.js) opens the player page (view=player&name=…,
// player.js), whose links set the player filter and open the explorer or the games; its
// Preparation (prepare-view.js, prep=white|black) follows the board.
// The header's Statistics link opens the database's statistics (view=stats, stats.js), whose
// links open the explorer at an opening or a player's page. The position's note (note.js)
// shows above the tabs; a writable server (/api/databases says so) lets the page edit it.
// The header's Train link opens the flashcards' trainer (view=train, trainer.js), which
// takes the board: moves made on it answer the card shown.
// The header's Search link opens the structure search (view=search, search-view.js): a board
// editor for a pattern or a pawn structure, material, and the answer of /api/search; its
// games open in the viewer at the ply where the search first holds.

import { readState, writeState, activeFilters, emptyFilters, SEARCH_SORTS } from './url-state.js';
import { getJson, sendJson, createLoader, apiUrl, prefetch, prefetched } from './api.js';
import { el, fmt } from './dom.js';
import { createChessBoard } from './chess-board.js';
import { START_FEN, legalMoves, parseFen, play, isCheck } from './chess-rules.js';
import { renderChessExplorer, renderOthelloExplorer } from './explorer.js';
import { createEnginePanel } from './engine.js';
import { createNameSearch } from './name-search.js';

const $ = (id) => document.getElementById(id);
const TOP = 8;

const state = readState(location.search);
let catalog = { databases: [], books: [], writable: false };
let db = null; // { name, kind, games } or null when only books are served
let mounted = null; // the kind whose board is mounted
let chessBoard = null;
let othelloBoard = null;
let othello = null; // the Othello modules, loaded when an Othello database is shown
let viewer = null;
let viewerKind = null;
let gameShown = null; // 'db#id' of the game in the viewer
let firstTable = false;
const openings = new Map(); // chess FEN -> { eco, name }
const keptEvals = new Map(); // chess FEN -> the explorer's kept evaluation of it, or null
let engine = null; // the engine panel (engine.js)
let notes = null; // the position's note (note.js)
let lastNote = null; // { key, note, position } of the last chess explorer answer
let trainer = null; // the flashcards' trainer (trainer.js), loaded when first shown
let repertoire = null; // the repertoire panel (repertoire-view.js), loaded when opened or kept
let explorerFen = null; // the chess position the explorer's table shows
let searchView = null; // the structure search (search-view.js), loaded when first shown
const othelloRows = new Map(); // Othello game id -> its row (the games lists carry whole games)

const loaders = {};
const kind = () => (db ? db.kind : 'chess');
// The database as the URL names it (none: the server's first, which is the page's too), so
// the first explorer answer can be asked for before /api/databases has answered.
const dbParam = () => state.db || undefined;
const panelBody = (name) => $(`panel-${name}`).querySelector('.panel-body');

// ------------------------------------------------------------------ state and URL

function update(patch, mode = 'push') {
  Object.assign(state, patch);
  notice = '';
  const url = new URL(writeState(state, kind()), location.href);
  if (url.href !== location.href) history[mode === 'replace' ? 'replaceState' : 'pushState'](null, '', url);
  return apply();
}

function replaceUrl() {
  const url = new URL(writeState(state, kind()), location.href);
  if (url.href !== location.href) history.replaceState(null, '', url);
}

async function apply() {
  const wanted = catalog.databases.find((d) => d.name === state.db) || catalog.databases[0] || null;
  if (state.db && (!wanted || wanted.name !== state.db)) {
    notice = `No database named “${state.db}” is served${wanted ? `; showing ${wanted.name}` : ''}.`;
    state.db = null;
    replaceUrl();
  }
  const changed = db !== wanted;
  db = wanted;
  if (db) $('db-select').value = db.name;
  if (changed) {
    for (const l of Object.values(loaders)) l.reset();
    openings.clear();
    keptEvals.clear();
    fillFilters();
  }
  await mount();
  render();
}

// What the page says above everything: a database the link names that is not served, a
// line that cannot be played, the server unreachable.
let notice = '';
function pageError(message) {
  const p = $('page-error');
  p.hidden = !message;
  p.textContent = message || '';
}

// New content for a panel; focus that was in it stays in it (same id, else the first move or
// link), so keyboard users are not thrown back to the top of the page.
function replaceKeepingFocus(body, content) {
  const active = document.activeElement;
  const had = active && body.contains(active) ? (active.id || true) : null;
  body.replaceChildren(content);
  if (!had) return;
  const target = (typeof had === 'string' && body.querySelector(`#${CSS.escape(had)}`))
    || body.querySelector('.move-button, a[data-game], button:not([disabled])');
  if (target) target.focus({ preventScroll: true });
}

// ------------------------------------------------------------------ boards

async function mount() {
  const k = kind();
  if (mounted === k) return;
  if (k === 'othello' && !othello) {
    const [board, rules, view] = await Promise.all([
      import('./othello-board.js'), import('./othello-rules.js'), import('./othello-view.js')]);
    othello = { ...board, ...rules, ...view };
  }
  if (chessBoard) chessBoard.destroy();
  chessBoard = null;
  othelloBoard = null;
  const holder = el('div', { id: 'board' });
  $('board-wrap').replaceChildren(holder);
  if (k === 'chess') {
    chessBoard = createChessBoard(holder, { onMove: (uci) => boardMove(uci), orientation: state.orient });
    // Named for screen readers ("Chess board, white to move"); moves by keyboard go through
    // the "Type a move" box, the tables and the move lists.
    holder.setAttribute('role', 'img');
  } else {
    othelloBoard = othello.createOthelloBoard(holder, { onMove: (square) => boardMove(square) });
  }
  mounted = k;
  performance.mark('tabiya:board');
  document.body.dataset.kind = k;
  engine.setEnabled(k === 'chess'); // Othello has no engine
  $('chess-filters').hidden = k !== 'chess';
  $('othello-filters').hidden = k !== 'othello';
  $('symmetry-note').hidden = k !== 'othello';
  $('flip').hidden = k !== 'chess';
  $('flip-key').hidden = k !== 'chess';
  $('footer-lichess').hidden = k !== 'chess';
  $('paste-summary').textContent = k === 'chess' ? 'Paste a FEN, PGN or moves' : 'Paste Othello moves';
  $('move-input').placeholder = k === 'chess' ? 'e4, Nf3, e2e4' : 'f5';
  $('move-error').textContent = '';
  $('paste-label').textContent = k === 'chess'
    ? 'A FEN, a PGN (its main line is played) or moves like 1. e4 c5'
    : 'Othello moves, like f5d6c3d3c4 or F5 D6 C3';
  $('fen-line').hidden = k !== 'chess';
  $('panel-game').querySelector('.panel-body').replaceChildren();
  viewer = null;
  gameShown = null;
}

// The line played, checked and with every position (cached: render() asks often).
let lineCache = { key: null };
function currentLine() {
  const key = `${kind()}|${state.fen || ''}|${state.line.join(',')}`;
  if (lineCache.key === key) return lineCache;
  lineCache = kind() === 'chess' ? chessLine() : othelloLine();
  lineCache.key = key;
  if (lineCache.ucis && lineCache.ucis.join(',') !== state.line.join(',')) {
    // Moves written as SAN in a link, or an illegal tail cut off: the URL says what is shown.
    state.line = lineCache.ucis.slice();
    if (state.at !== null && state.at > state.line.length) state.at = null;
    lineCache.key = `${kind()}|${state.fen || ''}|${state.line.join(',')}`;
    replaceUrl();
  }
  return lineCache;
}

function chessLine() {
  let start = state.fen || START_FEN;
  let error = null;
  try {
    parseFen(start);
  } catch (e) {
    error = `The position in the link cannot be shown: ${e.message}`;
    start = START_FEN;
  }
  const fens = [start];
  const sans = [];
  const ucis = [];
  for (const token of state.line) {
    const fen = fens[fens.length - 1];
    const moves = legalMoves(fen);
    let m = moves.find((x) => x.uci === token);
    if (!m) m = resolveLoose(fen, token, moves);
    if (!m) {
      error = `Move ${token} of the line is not legal; the line stops before it.`;
      break;
    }
    ucis.push(m.uci);
    sans.push(m.san);
    fens.push(play(fen, m.uci));
  }
  const fields = start.split(/\s+/);
  return { fens, sans, ucis, error, blackFirst: fields[1] === 'b', full: Math.max(1, Number.parseInt(fields[5], 10) || 1) };
}

// SAN in a hand-written link (e4, Nf3, O-O): matched against the legal moves' SAN.
function resolveLoose(fen, token, moves) {
  const plain = (s) => String(s).replace(/[+#!?x=]/g, '').replace(/^0-0(-0)?$/, (m) => m.replace(/0/g, 'O'));
  const hits = moves.filter((x) => plain(x.san) === plain(token));
  return hits.length === 1 ? hits[0] : null;
}

function othelloLine() {
  const line = othello.othelloLine(state.line);
  return { ...line, ucis: line.moves, sans: line.moves };
}

function currentAt() {
  const L = currentLine();
  return state.at === null ? L.ucis.length : Math.min(state.at, L.ucis.length);
}

// ------------------------------------------------------------------ actions

// The trainer is shown (a chess database's; elsewhere view=train shows the explorer).
const training = () => state.view === 'train' && !state.game && !!db && kind() === 'chess';

// A move made on the board (drag, click) or chosen in a table.
function boardMove(move) {
  if (training()) {
    if (trainer) trainer.move(move);
    return;
  }
  if (state.game && viewer) {
    // Playing from a game's position: the game's moves up to there, then this one.
    const base = viewer.movesTo(state.ply || '0');
    const start = kind() === 'chess' ? gameStartFen() : null;
    update({ fen: start === START_FEN ? null : start, line: [...base, move], at: null, game: null, ply: null, view: 'explorer', offset: 0 });
    return;
  }
  playMove(move);
}

function playMove(move) {
  const at = currentAt();
  if (state.line[at] === move) {
    update({ at: at + 1 >= state.line.length ? null : at + 1, offset: 0 });
  } else {
    update({ line: [...state.line.slice(0, at), move], at: null, offset: 0 });
  }
}

function gameStartFen() {
  return viewer && viewer.start ? viewer.start().fen : START_FEN;
}

function goTo(ply) {
  const n = currentLine().ucis.length;
  const at = Math.max(0, Math.min(ply, n));
  update({ at: at >= n ? null : at, offset: 0 }, 'replace');
}

function step(dir) {
  if (state.game) {
    if (!viewer) return;
    if (kind() === 'chess') {
      const path = state.ply || '0';
      const to = dir === -Infinity ? '0' : dir === Infinity ? viewer.end(path) : viewer.step(path, dir);
      update({ ply: to }, 'replace');
    } else {
      const ply = Number(state.ply || 0);
      const to = dir === -Infinity ? 0 : dir === Infinity ? viewer.length() : Math.max(0, Math.min(viewer.length(), ply + dir));
      update({ ply: String(to) }, 'replace');
    }
    return;
  }
  const at = currentAt();
  goTo(dir === -Infinity ? 0 : dir === Infinity ? currentLine().ucis.length : at + dir);
}

// A game opened in the viewer: at `ply` (a path in its move tree, '13' the main line's 13th
// ply) when given, else where it reaches the explorer's position.
function openGame(id, ply = null) {
  update({ game: String(id), ply: ply === null || ply === undefined ? null : String(ply) });
  $('panels').focus({ preventScroll: true });
}

function gameHref(id, ply = null) {
  return writeState({ ...state, game: String(id), ply: ply === null || ply === undefined ? null : String(ply) }, kind());
}

function preview(move) {
  if (kind() === 'chess' && chessBoard) {
    chessBoard.setShapes('preview', move ? [{ orig: move.slice(0, 2), dest: move.slice(2, 4), brush: 'paleBlue' }] : []);
  } else if (othelloBoard) {
    for (const b of $('board').querySelectorAll('.othello-square--preview')) b.classList.remove('othello-square--preview');
    if (move) $('board').querySelector(`[data-square="${move}"]`)?.classList.add('othello-square--preview');
  }
}

// ------------------------------------------------------------------ render

function render() {
  const k = kind();
  const L = currentLine();
  const at = currentAt();
  const inGame = !!state.game && !!db;
  document.body.classList.toggle('in-game', inGame);
  $('filters').hidden = inGame;
  $('tabs').hidden = inGame;
  $('opening').hidden = inGame;
  $('line').hidden = inGame;
  $('clear').hidden = inGame;
  $('symmetry-note').hidden = k !== 'othello' || inGame || state.view === 'stats';
  $('repertoire').hidden = k !== 'chess' || !db;
  $('panel-game').hidden = !inGame;
  $('name-search').hidden = k !== 'chess' || !db;
  const booksServed = catalog.books.length > 0 && k === 'chess';
  $('tab-books').hidden = !booksServed;
  // Only books served: no moves, games or filters to show.
  $('tab-explorer').hidden = !db;
  $('tab-games').hidden = !db;
  if (!db) $('filters').hidden = true;
  $('footer-lichess').hidden = k !== 'chess' || !db;
  let view = state.view;
  if (view === 'books' && !booksServed) view = 'explorer';
  if (view === 'train' && (k !== 'chess' || !db)) view = 'explorer';
  if (view === 'search' && (k !== 'chess' || !db)) view = 'explorer';
  if (!db && view !== 'books') view = booksServed ? 'books' : 'explorer';
  for (const name of ['explorer', 'games', 'books']) {
    $(`panel-${name}`).hidden = inGame || view !== name;
    $(`tab-${name}`).setAttribute('aria-pressed', String(view === name));
  }
  const inPlayer = !inGame && view === 'player';
  $('panel-player').hidden = !inPlayer;
  const inStats = !inGame && view === 'stats' && !!db;
  $('panel-stats').hidden = !inStats;
  document.body.classList.toggle('in-stats', inStats);
  // The games list takes the width it needs (style.css: the board steps aside).
  document.body.classList.toggle('in-games-list', !inGame && view === 'games' && !!db);
  if (inPlayer || inStats) {
    $('filters').hidden = true;
    $('opening').hidden = true;
  }
  if (inStats) $('tabs').hidden = true;
  renderStatsLink(inStats);
  const inSearch = !inGame && view === 'search';
  $('panel-search').hidden = !inSearch;
  document.body.classList.toggle('in-search', inSearch);
  if (inSearch) {
    $('tabs').hidden = true;
    $('opening').hidden = true;
  }
  renderSearchLink(inSearch);
  const inTrain = !inGame && view === 'train';
  if (inGame || inPlayer || inStats || inTrain || inSearch || k !== 'chess' || !db) {
    notes.hide();
  } else if (lastNote && lastNote.key === noteKey(L.fens[at])) {
    notes.show({ ...lastNote, editable: catalog.writable });
  } else {
    notes.hide();
  }
  pageError([notice, L.error].filter(Boolean).join(' '));
  renderFooter(L, at);
  renderFiltersSummary();
  if ($('filters').hidden || k !== 'chess' || !state.filters.speeds.length) $('speed-note').hidden = true;
  document.body.classList.toggle('in-train', inTrain);
  $('panel-train').hidden = !inTrain;
  $('train-link').hidden = k !== 'chess' || !db;
  $('train-link').href = writeState({ ...state, view: 'train', game: null, ply: null }, k);
  engine.setEnabled(k === 'chess' && !inTrain); // no engine to give the answers away
  if (inTrain) {
    showTrainer();
    return;
  }
  if (trainer) trainer.hide();

  if (inGame) {
    renderGame();
  } else if (inPlayer) {
    loadPlayer();
    showPreparation(L, at);
    showLinePosition(L, at);
    document.title = `Tabiya · ${db.name} · ${state.name}`;
  } else if (inStats) {
    loadStats();
    showLinePosition(L, at);
    document.title = `Tabiya · ${db.name} · statistics`;
  } else if (inSearch) {
    showSearch();
    showLinePosition(L, at);
    document.title = `Tabiya · ${db.name} · structure search`;
  } else {
    // Answers asked for first, the board drawn while they come.
    loadExplorer(L, at); // always: it names the opening above every view
    if (view === 'games') loadGames(L, at);
    if (view === 'books') loadBooks(L, at);
    showLinePosition(L, at);
  }
}

function showLinePosition(L, at) {
  if (kind() === 'chess') {
    const fen = L.fens[at];
    const uci = at > 0 ? L.ucis[at - 1] : null;
    chessBoard.setShapes('preview', []);
    chessBoard.set(fen, { lastMove: uci ? [uci.slice(0, 2), uci.slice(2, 4)] : null, orientation: state.orient });
    engine.setPosition(fen, { db: db ? db.name : null, orientation: state.orient });
    if (keptEvals.has(fen)) engine.showKept(keptEvals.get(fen), fen);
    $('fen-field').value = fen;
    $('position-status').textContent = chessStatus(L, at);
    renderChessLine(L, at);
  } else {
    const board = L.boards[at];
    othelloBoard.set({ discs: board.discs, lastMove: at > 0 ? L.moves[at - 1] : null, sideToMove: board.sideToMove });
    const passed = at > 0 && L.passes[at] ? ` (${board.sideToMove === 'b' ? 'White' : 'Black'} had to pass)` : '';
    $('position-status').textContent = `${at ? `After ${at} move${at === 1 ? '' : 's'}` : 'Start position'}: ${othello.positionWords(board)}${passed}`;
    const nav = othello.moveList(L, { current: at, label: 'Moves played' });
    $('line').replaceChildren(nav, at || L.moves.length ? '' : el('p', { className: 'muted small' }, 'Play a move on the board or in the table.'));
    scrollLine();
  }
  navButtons(at > 0, at < L.ucis.length);
  document.title = `Tabiya · ${db ? db.name : 'books'}${L.ucis.length ? ` · ${lineText(L, at)}` : ''}`;
}

function navButtons(back, forward) {
  $('nav-first').disabled = !back;
  $('nav-prev').disabled = !back;
  $('nav-next').disabled = !forward;
  $('nav-last').disabled = !forward;
}

function moveNumber(L, i) {
  // i: index of the move in the line (0-based)
  const k = i + (L.blackFirst ? 1 : 0);
  return { number: L.full + Math.floor(k / 2), white: k % 2 === 0 };
}

function lineText(L, at) {
  if (kind() !== 'chess') return L.moves.slice(0, at).join('');
  return L.sans.slice(0, at).map((s, i) => {
    const { number, white } = moveNumber(L, i);
    return white ? `${number}. ${s}` : i === 0 ? `${number}… ${s}` : s;
  }).join(' ');
}

function chessStatus(L, at) {
  const fen = L.fens[at];
  const turn = fen.split(' ')[1] === 'w' ? 'White' : 'Black';
  let where = 'Start position';
  if (at > 0) {
    const { number, white } = moveNumber(L, at - 1);
    where = `After ${number}${white ? '.' : '…'} ${L.sans[at - 1]}`;
  }
  const moves = legalMoves(fen).length;
  const check = isCheck(fen);
  const what = !moves ? (check ? `checkmate, ${turn === 'White' ? 'Black' : 'White'} wins` : 'stalemate') : `${turn} to move${check ? ', in check' : ''}`;
  return `${where}: ${what}`;
}

function renderChessLine(L, at) {
  const nav = el('div', { className: 'movetext', role: 'group', 'aria-label': 'Moves played' });
  nav.append(el('button', { type: 'button', className: 'mv mv--start', dataset: { ply: '0' }, 'aria-label': 'start position' }, 'Start'), ' ');
  L.sans.forEach((s, i) => {
    const { number, white } = moveNumber(L, i);
    const label = white ? `${number}. ` : i === 0 ? `${number}… ` : '';
    nav.append(el('button', {
      type: 'button', className: 'mv', dataset: { ply: String(i + 1) },
      'aria-label': `${number}${white ? '' : ' black'} ${s}`,
    }, label ? el('span', { className: 'mv-number' }, label) : null, s), ' ');
  });
  for (const b of nav.querySelectorAll('button.mv')) {
    const on = Number(b.dataset.ply) === at;
    b.classList.toggle('is-current', on);
    if (on) b.setAttribute('aria-current', 'step');
  }
  $('line').replaceChildren(nav, L.sans.length ? '' : el('p', { className: 'muted small' }, 'Play a move on the board or in the table.'));
  scrollLine();
}

// The current move kept in view in a long line (after the frame is drawn: reading the
// layout here would stall the first paint).
function scrollLine() {
  if ($('line').querySelectorAll('.mv').length < 24) return; // fits: nothing to scroll
  requestAnimationFrame(() => {
    const box = $('line').querySelector('.movetext');
    const cur = box && box.querySelector('.is-current');
    if (cur && box.scrollHeight > box.clientHeight) box.scrollTop = cur.offsetTop - box.offsetTop - box.clientHeight / 2;
  });
}

function renderFooter(L, at) {
  $('footer-db').textContent = db
    ? `${db.name}: ${fmt(db.games)} ${db.kind === 'chess' ? 'chess' : 'Othello'} game${db.games === 1 ? '' : 's'}`
    : 'No database is served';
  if (kind() === 'chess' && db) {
    const params = { db: db.name, fen: state.fen || undefined, play: L.ucis.slice(0, at).join(',') || undefined };
    $('link-masters').href = apiUrl('/masters', params);
    $('link-lichess').href = apiUrl('/lichess', params);
  }
}

// ------------------------------------------------------------------ panels

function explorerParams(L, at) {
  if (kind() === 'chess') {
    return {
      db: dbParam(), fen: state.fen || undefined, play: L.ucis.slice(0, at).join(',') || undefined,
      top: TOP, recent: TOP, ...activeFilters(state.filters, 'chess'),
    };
  }
  return { db: dbParam(), moves: L.moves.slice(0, at).join('') || undefined, top: TOP };
}

function loadExplorer(L, at) {
  const body = panelBody('explorer');
  if (!db) {
    body.replaceChildren(el('p', { className: 'empty' }, 'No database is served: start the server with --db DIR. The books are in the Books tab.'));
    $('opening').replaceChildren();
    return;
  }
  const params = explorerParams(L, at);
  const fen = kind() === 'chess' ? L.fens[at] : null;
  // The served books' moves beside the database's (asked at the same time).
  const bookParams = kind() === 'chess' && catalog.books.length ? { fen: params.fen, play: params.play } : null;
  const key = apiUrl('/api/explore', params) + (bookParams ? ' +books' : '');
  explorerKey = key;
  loaders.explorer.load(key, async (signal) => {
    const [data, books] = await Promise.all([
      getJson('/api/explore', params, { signal }),
      bookParams ? getJson('/api/books', bookParams, { signal }) : null,
    ]);
    return books ? { ...data, books } : data;
  }, (data) => {
    if (!firstTable) performance.mark('tabiya:explore-answer');
    if (kind() === 'chess') {
      replaceKeepingFocus(body, renderChessExplorer(data, {
        fen, filtered: Object.keys(activeFilters(state.filters, 'chess')).length > 0,
        onPlay: playMove, onPreview: preview, gameLink: gameHref,
        params, onLine: ({ fen: start, line }) => update({ fen: start, line, at: null, offset: 0 }),
      }));
      explorerFen = fen;
      if (repertoire) repertoire.mark(body, fen);
      if (data.opening) openings.set(fen, data.opening);
      showChessOpening(L, at, data.opening);
      lastNote = { key: noteKey(fen), note: data.note || null, position: { db: params.db, fen: params.fen, play: params.play } };
      if (!state.game && (state.view === 'explorer' || state.view === 'games' || state.view === 'books')) {
        notes.show({ ...lastNote, editable: catalog.writable });
      }
      keptEvals.set(fen, data.eval || null);
      engine.showKept(data.eval || null, fen);
      speedNote = { key, n: data.withoutSpeed || 0 };
      renderSpeedNote();
    } else {
      for (const g of data.topGames || []) othelloRows.set(g.id, g);
      replaceKeepingFocus(body, renderOthelloExplorer(data, {
        onPlay: playMove, onPreview: preview, gameLink: gameHref, openGame: (g) => openGame(g.id),
      }));
      showOthelloOpening(data);
    }
    body.dataset.position = params.play || params.moves || '';
    if (!firstTable) {
      firstTable = true;
      performance.mark('tabiya:first-table');
      document.documentElement.dataset.firstTable = String(Math.round(performance.now()));
    }
  }, () => {
    body.replaceChildren();
  });
  renderSpeedNote();
}

// The explorer's answer asked for again: an analysis just kept changed it.
// The games a speed filter leaves out because they have no time control (the explorer's
// `withoutSpeed`, kept with the answer's key: an answer shown again is not asked again): said
// under the filters, in the explorer and the games list alike, so that a collection without
// TimeControl tags does not answer 0 games with no reason.
let explorerKey = null;
let speedNote = { key: null, n: 0 };
function renderSpeedNote() {
  const note = $('speed-note');
  const n = speedNote.key === explorerKey ? speedNote.n : 0;
  const shown = n > 0 && !$('filters').hidden && kind() === 'chess' && state.filters.speeds.length > 0;
  note.hidden = !shown;
  note.textContent = shown
    ? `${fmt(n)} ${n === 1 ? 'game has' : 'games have'} no time control and ${n === 1 ? 'is' : 'are'} not counted by a speed filter.`
    : '';
}

function refreshExplorer() {
  if (state.game || !db || kind() !== 'chess') return;
  loaders.explorer.reset();
  loadExplorer(currentLine(), currentAt());
}

function showChessOpening(L, at, opening) {
  let o = opening;
  let inherited = false;
  for (let i = at - 1; !o && i >= 0; i--) {
    o = openings.get(L.fens[i]);
    inherited = !!o;
  }
  const box = $('opening');
  if (!o) {
    box.replaceChildren(el('p', { className: 'opening-name' }, at === 0 && !state.fen ? 'Start position' : ''));
    return;
  }
  box.replaceChildren(el('p', { className: 'opening-name', title: inherited ? 'the last named opening of this line' : null },
    el('abbr', { className: 'eco', title: 'ECO code' }, o.eco), ' ', o.name));
}

function showOthelloOpening(data) {
  const box = $('opening');
  const o = data.opening;
  if (!o) {
    box.replaceChildren(el('p', { className: 'opening-name' }, data.line ? '' : 'Start position'));
    return;
  }
  box.replaceChildren(el('p', { className: 'opening-name' }, o.name,
    o.aliases && o.aliases.length ? el('span', { className: 'aliases' }, ` (also ${o.aliases.join(', ')})`) : null,
    el('span', { className: 'muted small' }, ` ${o.line}${o.atMove && o.atMove < (data.line.length / 2) ? `, reached at move ${o.atMove}` : ''}`)));
}

function loadGames(L, at) {
  const body = panelBody('games');
  if (!db) {
    body.replaceChildren(el('p', { className: 'empty' }, 'No database is served.'));
    return;
  }
  const k = kind();
  const position = k === 'chess'
    ? { fen: state.fen || undefined, play: L.ucis.slice(0, at).join(',') || undefined }
    : { moves: L.moves.slice(0, at).join('') || undefined };
  // (details: each chess game's ECO and length, the list's columns; Othello's games are
  // sorted by date or id only)
  const sort = k === 'chess' || state.sort === 'id' ? state.sort : 'date';
  const params = { db: dbParam(), ...position, sort, limit: 20, offset: state.offset, details: k === 'chess' ? 'true' : undefined, ...activeFilters(state.filters, k) };
  const fen = k === 'chess' ? L.fens[at] : null;
  loaders.games.load(apiUrl('/api/games', params), async (signal) => {
    const [mod, data] = await Promise.all([import('./games.js'), getJson('/api/games', params, { signal })]);
    return { mod, data };
  }, ({ mod, data }) => {
    if (k === 'othello') for (const g of data.games) othelloRows.set(g.id, g);
    replaceKeepingFocus(body, mod.renderGames(data, {
      kind: k, fen, offset: state.offset, limit: 20, sort,
      onSort: (order) => update({ sort: order, offset: 0 }),
      onPage: (offset) => update({ offset }),
      gameLink: gameHref, openGame: (g) => openGame(g.id),
    }));
  }, () => body.replaceChildren());
}

function loadBooks(L, at) {
  const body = panelBody('books');
  const params = { fen: state.fen || undefined, play: L.ucis.slice(0, at).join(',') || undefined };
  const fen = L.fens[at];
  loaders.books.load(apiUrl('/api/books', params), async (signal) => {
    const [mod, data] = await Promise.all([import('./books.js'), getJson('/api/books', params, { signal })]);
    return { mod, data };
  }, ({ mod, data }) => {
    replaceKeepingFocus(body, mod.renderBooks(data, { fen, onPlay: playMove, onPreview: preview }));
  }, () => body.replaceChildren());
}

// ------------------------------------------------------------------ player page

function loadPlayer() {
  const body = panelBody('player');
  const params = { db: dbParam(), name: state.name };
  loaders.player.load(apiUrl('/api/player', params), async (signal) => {
    const [mod, prep, card] = await Promise.all([import('./player.js'), import('./prepare-view.js'), getJson('/api/player', params, { signal })]);
    return { mod, prep, card };
  }, ({ mod, prep, card }) => {
    const content = mod.renderPlayerCard(card, { links: playerLinks(card.name || card.names[0] || state.name) });
    if (!prepView) prepView = createPreparation(prep);
    content.append(prepView.element);
    replaceKeepingFocus(body, content);
    const L = currentLine();
    showPreparation(L, currentAt());
  }, () => body.replaceChildren(el('p', { className: 'empty' }, 'Find another player with the search box above.')));
}

// The player page's Preparation (prepare-view.js): the player's repertoire with the colour
// chosen (prep=white|black), for the board's position; choosing a colour starts from the
// start position with the board turned to the player's side.
let prepView = null;
function createPreparation(mod) {
  return mod.createPrepareView({
    getJson, createLoader,
    onColor: (color) => update({ prep: color, orient: color, fen: null, line: [], at: null, offset: 0 }),
    onPlay: playMove, onPreview: preview, gameLink: gameHref,
    lineLink: (sans) => writeState({ ...state, fen: null, line: sans, at: null, game: null, ply: null }, kind()),
  });
}

function showPreparation(L, at) {
  if (prepView && kind() === 'chess') {
    prepView.show({ db: db ? db.name : dbParam(), name: state.name, color: state.prep, fen: L.fens[at] });
  }
}

// Where the player page's links go: the explorer from the start position with the player
// filter set to the player as White or as Black (the board turned for Black), the player's
// games, an opening's explorer; the other filters are kept.
function playerLinks(name) {
  const to = (view, color) => writeState({
    ...state, view, name: null, fen: null, line: [], at: null, game: null, ply: null, offset: 0,
    orient: color === 'black' ? 'black' : 'white',
    filters: { ...state.filters, player: name, color },
  }, kind());
  // An opening's row: the explorer at its named position (its line from the start), the
  // player filter set to the player (either colour), the board turned as it was.
  const opening = (o) => (o.uci === undefined ? null : writeState({
    ...state, view: 'explorer', name: null, fen: null, line: o.uci ? o.uci.split(',') : [], at: null,
    game: null, ply: null, offset: 0, filters: { ...state.filters, player: name, color: 'any' },
  }, kind()));
  return { white: to('explorer', 'white'), black: to('explorer', 'black'), games: to('games', 'any'), opening };
}

function openPlayer(name) {
  update({ view: 'player', name, prep: null, game: null, ply: null });
  $('panels').focus(); // scrolled to where the board comes first (a phone)
}

// ------------------------------------------------------------------ statistics

function loadStats() {
  const body = panelBody('stats');
  const params = { db: db.name };
  loaders.stats.load(apiUrl('/api/stats', params), async (signal) => {
    const [mod, stats] = await Promise.all([import('./stats.js'), getJson('/api/stats', params, { signal })]);
    return { mod, stats };
  }, ({ mod, stats }) => {
    replaceKeepingFocus(body, mod.renderStats(stats, { db: db.name, links: statsLinks() }));
  }, () => body.replaceChildren());
}

// Where the statistics' links go: an opening's row to the explorer at its position (its line
// from the start), a player's to the player page (Othello: the games filtered to the player),
// an event's to its games (Othello: a tournament's); the filters are kept but for an event's
// or a tournament's games.
function statsLinks() {
  const base = { ...state, name: null, game: null, ply: null, offset: 0, at: null };
  const k = kind();
  return {
    opening: (o) => writeState({ ...base, view: 'explorer', fen: null, line: o.uci ? o.uci.split(',') : [] }, k),
    player: (name) => (k === 'chess'
      ? writeState({ ...base, view: 'player', name }, k)
      : writeState({ ...base, view: 'games', line: [], filters: { ...emptyFilters(), player: name } }, k)),
    event: (name) => (k === 'chess'
      ? eventGames(base, name)
      : writeState({ ...base, view: 'games', line: [], filters: { ...emptyFilters(), tournament: name } }, k)),
    gameset: (name) => writeState({ ...base, view: 'explorer', fen: null, line: [], filters: { ...emptyFilters(), gameset: name } }, k),
  };
}

// A chess event's games: the games list from the start position, the only filter the
// criterion `event = NAME` (the event's entry, any spelling: docs/gamesets.md), its name
// quoted; a name holding both quotes has no link.
function eventGames(base, name) {
  const quote = !name.includes('"') ? '"' : !name.includes("'") ? "'" : null;
  if (!quote) return null;
  return writeState({
    ...base, view: 'games', fen: null, line: [],
    filters: { ...emptyFilters(), where: `event = ${quote}${name}${quote}` },
  }, 'chess');
}

// The header's link to the statistics: this database's, marked current when shown.
function renderStatsLink(current) {
  const a = $('stats-link');
  a.hidden = !db;
  a.href = writeState({ ...state, view: 'stats', name: null, game: null, ply: null }, kind());
  if (current) a.setAttribute('aria-current', 'page');
  else a.removeAttribute('aria-current');
}

// ------------------------------------------------------------------ structure search

function showSearch() {
  const args = {
    db: dbParam(), query: state.search, filters: activeFilters(state.filters, 'chess'),
    // (the games list's ECO, length and result orders are not the search's: rating)
    sort: SEARCH_SORTS.includes(state.sort) ? state.sort : 'rating', offset: state.offset,
  };
  if (searchView) {
    searchView.show(args);
    return;
  }
  import('./search-view.js').then((m) => {
    if (!searchView) {
      searchView = m.createSearchView(panelBody('search'), {
        getJson, createLoader, apiUrl,
        onSearch: (search) => update({ search, offset: 0, game: null, ply: null }),
        onSort: (sort) => update({ sort, offset: 0 }),
        onPage: (offset) => update({ offset }),
        gameLink: gameHref,
        explorerFen: () => currentLine().fens[currentAt()],
        onLeave: () => update({ view: 'explorer', offset: 0 }),
      });
      panelBody('search').replaceChildren(searchView.element);
    }
    if (!state.game && state.view === 'search') searchView.show(args);
  }, (e) => pageError(`Cannot load the structure search: ${e.message}`));
}

// The header's link to the structure search (the search last run kept), marked current when shown.
function renderSearchLink(current) {
  const a = $('search-link');
  a.hidden = kind() !== 'chess' || !db;
  a.href = writeState({ ...state, view: 'search', name: null, game: null, ply: null, offset: current ? state.offset : 0 }, kind());
  if (current) a.setAttribute('aria-current', 'page');
  else a.removeAttribute('aria-current');
}

// ------------------------------------------------------------------ notes

const noteKey = (fen) => `${db ? db.name : ''}|${fen}`;

async function saveNote(position, text) {
  const answer = await sendJson('PUT', '/api/note', position, { note: text });
  refreshExplorer();
  return answer.note;
}

async function deleteNote(position) {
  await sendJson('DELETE', '/api/note', position);
  refreshExplorer();
}

// The note panel, its modules (note.js, markdown.js) loaded only when a note is to be shown
// or may be added: most positions have none and most servers are read only.
function lazyNotes(box) {
  let panel = null;
  let loading = null;
  let wanted = null; // the last show() asked for while loading
  return {
    show(args) {
      if (panel) { panel.show(args); return; }
      if (!args.note && !args.editable) { box.hidden = true; wanted = null; return; }
      wanted = args;
      loading = loading || import('./note.js').then((m) => {
        panel = m.createNotePanel(box, { save: saveNote, remove: deleteNote });
        if (wanted) panel.show(wanted);
      }, (e) => pageError(`Cannot load the notes: ${e.message}`));
    },
    hide() {
      wanted = null;
      if (panel) panel.hide();
      else box.hidden = true;
    },
  };
}

// ------------------------------------------------------------------ trainer

function showTrainer() {
  document.title = `Tabiya · ${db.name} · training`;
  if (trainer) {
    trainer.show(db.name);
    return;
  }
  import('./trainer.js').then((m) => {
    trainer = trainer || m.createTrainer(panelBody('train'), {
      board: () => chessBoard, onExplore: exploreCard, onLeave: () => update({ view: 'explorer' }),
    });
    if (training()) render();
  }, (e) => pageError(`Cannot load the trainer: ${e.message}`));
}

// A card's position in the explorer: by its line when it has one, else by its FEN.
function exploreCard(card) {
  const line = card.line.length ? { fen: null, line: card.line } : { fen: card.fen, line: [] };
  update({ ...line, at: null, game: null, ply: null, offset: 0, view: 'explorer', orient: card.side });
}

// ------------------------------------------------------------------ repertoire

async function ensureRepertoire() {
  if (repertoire) return;
  const { createRepertoirePanel } = await import('./repertoire-view.js');
  if (repertoire) return;
  repertoire = createRepertoirePanel($('repertoire-body'), {
    params: () => ({ db: dbParam(), ...activeFilters(state.filters, 'chess') }),
    onLine: (moves) => update({ fen: null, line: moves, at: null, game: null, ply: null, offset: 0, view: 'explorer' }),
    onLoaded: () => {
      if (explorerFen && repertoire) repertoire.mark(panelBody('explorer'), explorerFen);
    },
  });
}

// ------------------------------------------------------------------ game viewer

function ensureViewer() {
  if (viewer && viewerKind === kind()) return;
  const body = panelBody('game');
  body.replaceChildren();
  const common = {
    onBack: () => update({ game: null, ply: null }),
  };
  if (kind() === 'chess') {
    viewer = viewerModule.createGameViewer(body, {
      ...common,
      onSelect: (path) => update({ ply: path }, 'replace'),
      onExplore: (path) => {
        const start = gameStartFen();
        update({ fen: start === START_FEN ? null : start, line: viewer.movesTo(path), at: null, game: null, ply: null, view: 'explorer', offset: 0 });
      },
    });
  } else {
    viewer = othello.createOthelloViewer(body, {
      ...common,
      onSelect: (ply) => update({ ply: String(ply) }, 'replace'),
      onExplore: (ply) => update({ line: viewer.movesTo(ply), at: null, game: null, ply: null, view: 'explorer', offset: 0 }),
    });
  }
  viewerKind = kind();
  gameShown = null;
}

let viewerModule = null; // viewer.js, loaded with the first chess game opened
function renderGame() {
  if (kind() === 'chess' && !viewerModule) {
    import('./viewer.js').then((m) => {
      viewerModule = m;
      if (state.game) renderGame();
    }, (e) => pageError(`Cannot load the game viewer: ${e.message}`));
    return;
  }
  ensureViewer();
  const key = `${db.name}#${state.game}`;
  if (gameShown === key) {
    showGameNode();
    return;
  }
  if (kind() === 'chess') {
    loaders.game.load(key, (signal) => getJson(`/api/game/${encodeURIComponent(state.game)}`, { db: db.name }, { signal }), (game) => {
      viewer.show(game, { db: db.name });
      gameShown = key;
      if (!state.ply) {
        const L = currentLine();
        state.ply = viewer.pathOfFen(L.fens[currentAt()]) || '0';
        replaceUrl();
      }
      showGameNode();
    }, () => gameFailed());
  } else {
    const id = Number(state.game);
    const shown = (row) => {
      const at = othelloPlyOf(row);
      viewer.show(row, {
        note: at.turned ? `This game reached the explorer's position turned or mirrored (move ${at.ply}); it is shown as it was played.` : '',
      });
      gameShown = key;
      if (!state.ply) {
        state.ply = String(at.ply);
        replaceUrl();
      }
      showGameNode();
    };
    const known = othelloRows.get(id);
    if (known) {
      loaders.game.reset();
      shown(known);
      return;
    }
    // Othello games have no /api/game: the list sorted by id holds game N at offset N - 1.
    loaders.game.load(key, (signal) => getJson('/api/games', { db: db.name, sort: 'id', limit: 1, offset: Math.max(0, id - 1) }, { signal }), (data) => {
      const row = data.games.find((g) => g.id === id);
      if (!row) throw new Error(`no game ${state.game} in ${db.name}`);
      othelloRows.set(id, row);
      shown(row);
    }, () => gameFailed());
  }
}

// The first ply of an Othello game whose board is the explorer's, in any orientation, and
// whether it is there turned or mirrored.
function othelloPlyOf(row) {
  const L = currentLine();
  const target = L.boards[currentAt()];
  const game = othello.othelloLine(row.moves.match(/[a-h][1-8]/g) || []);
  const forms = symmetries(target.discs);
  const hit = game.boards.findIndex((b) => b.sideToMove === target.sideToMove && forms.includes(b.discs));
  return hit < 0 ? { ply: 0, turned: false } : { ply: hit, turned: game.boards[hit].discs !== target.discs };
}

function symmetries(discs) {
  const out = [];
  const maps = [
    (r, c) => [r, c], (r, c) => [c, 7 - r], (r, c) => [7 - r, 7 - c], (r, c) => [7 - c, r],
    (r, c) => [r, 7 - c], (r, c) => [7 - r, c], (r, c) => [c, r], (r, c) => [7 - c, 7 - r],
  ];
  for (const f of maps) {
    const a = new Array(64);
    for (let i = 0; i < 64; i++) {
      const [r, c] = f(Math.floor(i / 8), i % 8);
      a[r * 8 + c] = discs[i];
    }
    out.push(a.join(''));
  }
  return out;
}

function gameFailed() {
  gameShown = null;
  const body = panelBody('game');
  const back = el('button', { type: 'button', className: 'back-button' }, '← Back to the explorer');
  back.addEventListener('click', () => update({ game: null, ply: null }));
  body.replaceChildren(el('div', { className: 'toolbar' }, back));
  viewer = null;
}

function showGameNode() {
  const back = panelBody('game').querySelector('.game-viewer .back-button');
  if (back) back.textContent = state.view === 'search' ? '← Back to the search' : '← Back to the explorer';
  if (kind() === 'chess') {
    const node = viewer.node(state.ply || '0') || viewer.start();
    if (node.path !== (state.ply || '0')) { state.ply = node.path; replaceUrl(); }
    viewer.select(node.path);
    chessBoard.setShapes('preview', []);
    chessBoard.set(node.fen, { lastMove: node.uci ? [node.uci.slice(0, 2), node.uci.slice(2, 4)] : null, orientation: state.orient });
    engine.setPosition(node.fen, { db: db.name, orientation: state.orient });
    $('fen-field').value = node.fen;
    const turn = node.fen.split(' ')[1] === 'w' ? 'White' : 'Black';
    $('position-status').textContent = `Game, ${node.san ? `after ${viewer.label(node)}` : 'start position'}: ${turn} to move`;
    navButtons(!!node.prev, !!node.next);
  } else {
    const ply = Math.max(0, Math.min(Number(state.ply || 0), viewer.length()));
    viewer.select(ply);
    const board = viewer.board(ply);
    othelloBoard.set({ discs: board.discs, lastMove: viewer.lastMove(ply), sideToMove: board.sideToMove });
    $('position-status').textContent = `Game, ${ply ? `after move ${ply} (${viewer.lastMove(ply)})` : 'start position'}: ${othello.positionWords(board)}`;
    navButtons(ply > 0, ply < viewer.length());
  }
}

// ------------------------------------------------------------------ filters

// The gamesets of the database (/api/gamesets), asked once a database, for the filter's list.
let gamesetNames = { db: null, names: [] };
function fillGamesets(chosen) {
  const select = $('gameset-select');
  const show = (names) => {
    const wanted = chosen || state.filters.gameset;
    const all = wanted && !names.includes(wanted) ? [...names, wanted] : names;
    select.replaceChildren(el('option', { value: '' }, 'all games'),
      ...all.map((n) => el('option', { value: n }, n)));
    select.value = wanted || '';
  };
  show(gamesetNames.db === (db && db.name) ? gamesetNames.names : []);
  if (!db || kind() !== 'chess' || gamesetNames.db === db.name) return;
  const name = db.name;
  getJson('/api/gamesets', { db: name }).then((list) => {
    gamesetNames = { db: name, names: list.map((g) => g.name) };
    if (db && db.name === name) show(gamesetNames.names);
  }).catch(() => {});
}

function fillFilters() {
  const form = $('filters-form');
  const f = state.filters;
  form.since.value = f.since;
  form.until.value = f.until;
  form.ratingMin.value = f.ratingMin;
  form.ratingMax.value = f.ratingMax;
  for (const box of form.querySelectorAll('input[name=speeds]')) box.checked = f.speeds.includes(box.value);
  form.player.value = kind() === 'chess' ? f.player : '';
  form.color.value = f.color || 'any';
  fillGamesets(f.gameset);
  form.where.value = kind() === 'chess' ? f.where : '';
  form.oplayer.value = kind() === 'othello' ? f.player : '';
  form.tournament.value = f.tournament;
  form.from.value = f.from;
  form.to.value = f.to;
  form.players.value = f.players || 'any';
  $('filters-error').hidden = true;
}

function readFilters() {
  const form = $('filters-form');
  const f = emptyFilters();
  const text = (name) => form[name].value.trim();
  if (kind() === 'chess') {
    f.since = text('since');
    f.until = text('until');
    for (const k of ['since', 'until']) {
      if (f[k] && !/^\d{4}(-(0[1-9]|1[0-2]))?$/.test(f[k])) throw new Error(`${k === 'since' ? 'Since' : 'Until'}: write a year (2020) or a month (2020-06).`);
    }
    f.ratingMin = text('ratingMin');
    f.ratingMax = text('ratingMax');
    for (const k of ['ratingMin', 'ratingMax']) {
      if (f[k] && !/^\d{1,5}$/.test(f[k])) throw new Error('Ratings are whole numbers.');
    }
    if (f.ratingMin && f.ratingMax && Number(f.ratingMin) > Number(f.ratingMax)) throw new Error('The lowest rating is above the highest.');
    f.speeds = [...form.querySelectorAll('input[name=speeds]:checked')].map((b) => b.value);
    f.player = text('player');
    f.color = form.color.value;
    f.gameset = form.gameset.value;
    f.where = text('where');
  } else {
    f.player = text('oplayer');
    f.tournament = text('tournament');
    f.from = text('from');
    f.to = text('to');
    for (const k of ['from', 'to']) if (f[k] && !/^\d{4}$/.test(f[k])) throw new Error('Years have four digits.');
    f.players = form.players.value;
  }
  return f;
}

function renderFiltersSummary() {
  const a = activeFilters(state.filters, kind());
  const bits = [];
  const range = (lo, hi, what = '') => (lo && hi ? `${what}${lo}–${hi}` : lo ? `${what}${what ? '≥ ' : 'since '}${lo}` : `${what}${what ? '≤ ' : 'until '}${hi}`);
  if (a.since || a.until) bits.push(range(a.since, a.until));
  if (a.ratingMin || a.ratingMax) bits.push(range(a.ratingMin, a.ratingMax, 'rating '));
  if (a.speeds) bits.push(a.speeds.replace(/,/g, ', '));
  if (a.player) bits.push(`${a.player}${a.color ? ` as ${a.color}` : ''}`);
  if (a.gameset) bits.push(`gameset ${a.gameset}`);
  if (a.where) bits.push(`where ${a.where}`);
  if (a.tournament) bits.push(a.tournament);
  if (a.from || a.to) bits.push(range(a.from, a.to));
  if (a.players) bits.push(a.players);
  const summary = $('filters-summary');
  summary.replaceChildren('Filters', bits.length
    ? el('span', { className: 'filters-active' }, `: ${bits.join(' · ')}`)
    : el('span', { className: 'muted' }, ' (none)'));
  $('filters').classList.toggle('has-filters', bits.length > 0);
}

let namesTimer = null;
let namesController = null;
function suggestNames() {
  clearTimeout(namesTimer);
  namesTimer = setTimeout(async () => {
    const q = $('filters-form').player.value.trim();
    const list = $('player-names');
    if (q.length < 2 || !db || kind() !== 'chess') return;
    if (namesController) namesController.abort();
    namesController = new AbortController();
    try {
      const names = await getJson('/api/names', { db: db.name, q, kind: 'player', limit: 12 }, { signal: namesController.signal });
      list.replaceChildren(...names.map((n) => el('option', { value: n.name })));
    } catch {
      // Suggestions are a help; the filter works without them.
    }
  }, 150);
}

// ------------------------------------------------------------------ paste box

async function loadPasted(text) {
  const error = $('paste-error');
  error.hidden = true;
  try {
    if (kind() === 'chess') {
      const { parsePaste } = await import('./pgn.js');
      const { fen, moves } = parsePaste(text);
      await update({ fen, line: moves, at: null, game: null, ply: null, view: state.view === 'books' ? 'books' : 'explorer', offset: 0 });
    } else {
      const t = String(text).toLowerCase().replace(/[\s,;.\-]+/g, '').replace(/^\d+/, '');
      if (!/^([a-h][1-8])+$/.test(t)) throw new Error('not a line of Othello moves (write them like f5d6c3)');
      const squares = t.match(/[a-h][1-8]/g);
      const line = othello.othelloLine(squares);
      if (line.error) throw new Error(line.error);
      await update({ line: squares, at: null, game: null, ply: null, view: 'explorer', offset: 0 });
    }
    $('paste').open = false;
  } catch (e) {
    error.hidden = false;
    error.textContent = `Cannot load this: ${e.message}`;
  }
}

// ------------------------------------------------------------------ a move typed

async function typedMove(text) {
  const error = $('move-error');
  error.textContent = '';
  const t = text.trim();
  if (!t) return;
  if (kind() === 'chess') {
    const { resolveMove } = await import('./pgn.js');
    if (training()) {
      const asked = trainer && trainer.fen();
      const m = asked && resolveMove(asked, t);
      if (!m) {
        error.textContent = asked ? `${t} is not a legal move here` : 'No card is asked';
        return;
      }
      $('move-input').value = '';
      trainer.move(m.uci);
      return;
    }
    const fen = state.game && viewer ? (viewer.node(state.ply || '0') || viewer.start()).fen : currentLine().fens[currentAt()];
    const m = resolveMove(fen, t);
    if (!m) {
      error.textContent = `${t} is not a legal move here`;
      return;
    }
    $('move-input').value = '';
    boardMove(m.uci);
  } else {
    const board = state.game && viewer ? viewer.board(Number(state.ply || 0)) : currentLine().boards[currentAt()];
    const square = t.toLowerCase();
    if (!othello.legalMoves(board).includes(square)) {
      error.textContent = `${t} is not a legal move here`;
      return;
    }
    $('move-input').value = '';
    boardMove(square);
  }
}

// ------------------------------------------------------------------ wiring

function wire() {
  for (const name of ['explorer', 'games', 'books', 'game', 'player', 'stats']) loaders[name] = createLoader($(`panel-${name}`));
  notes = lazyNotes($('position-note'));
  createNameSearch($('name-search-input'), $('name-search-list'), {
    search: (q, signal) => getJson('/api/names', { db: db ? db.name : dbParam(), q, kind: 'player', limit: 10 }, { signal }),
    onChoose: openPlayer,
    status: $('name-search-status'),
  });
  $('name-search').addEventListener('submit', (e) => e.preventDefault());
  engine = createEnginePanel($('engine'), $('eval-bar'), {
    board: () => chessBoard,
    onPlay: (uci) => boardMove(uci),
    onDone: () => refreshExplorer(),
    served: () => catalog,
  });

  $('db-select').addEventListener('change', (e) => {
    const name = e.target.value;
    const first = catalog.databases[0];
    update({
      db: first && name === first.name ? null : name,
      fen: null, line: [], at: null, game: null, ply: null, offset: 0, view: ['stats', 'search'].includes(state.view) ? state.view : 'explorer', filters: emptyFilters(),
    });
  });
  $('train-link').addEventListener('click', (e) => {
    if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    update({ view: 'train', game: null, ply: null });
  });
  $('nav-first').addEventListener('click', () => step(-Infinity));
  $('nav-prev').addEventListener('click', () => step(-1));
  $('nav-next').addEventListener('click', () => step(1));
  $('nav-last').addEventListener('click', () => step(Infinity));
  $('flip').addEventListener('click', () => update({ orient: state.orient === 'black' ? 'white' : 'black' }, 'replace'));
  $('clear').addEventListener('click', () => update({ fen: null, line: [], at: null, game: null, ply: null, offset: 0 }));
  $('line').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-ply]');
    if (b) goTo(Number(b.dataset.ply));
  });
  $('tabs').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-view]');
    if (b) update({ view: b.dataset.view });
  });
  $('move-form').addEventListener('submit', (e) => {
    e.preventDefault();
    typedMove($('move-input').value);
  });
  $('paste-form').addEventListener('submit', (e) => {
    e.preventDefault();
    loadPasted($('paste-text').value);
  });
  $('filters-form').addEventListener('submit', (e) => {
    e.preventDefault();
    try {
      const filters = readFilters();
      $('filters-error').hidden = true;
      update({ filters, offset: 0 });
    } catch (err) {
      $('filters-error').hidden = false;
      $('filters-error').textContent = err.message;
    }
  });
  $('filters-clear').addEventListener('click', () => {
    update({ filters: emptyFilters(), offset: 0 });
    fillFilters();
  });
  $('filters-form').player.addEventListener('input', suggestNames);

  // The player page's and the statistics' links: the state they carry, in the page.
  document.addEventListener('click', (e) => {
    const a = e.target.closest('a[data-player-link], a[data-page-link]');
    if (!a || e.defaultPrevented || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    update(readState(new URL(a.href, location.href).search));
    fillFilters();
    $('panels').focus({ preventScroll: true });
  });

  // Links to games (chess: every game link carries data-game): open them in the page.
  document.addEventListener('click', (e) => {
    const a = e.target.closest('a[data-game]');
    if (!a || e.defaultPrevented || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    openGame(a.dataset.game, a.dataset.ply);
  });

  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"], .othello-board__grid, .promotion-chooser')) return;
    if (training()) return; // the trainer's board is not a line to step through
    if (state.view === 'search' && !state.game && kind() === 'chess' && db) return; // no board shown to step through
    const k = e.key;
    if (k === 'ArrowLeft') step(-1);
    else if (k === 'ArrowRight') step(1);
    else if (k === 'Home') step(-Infinity);
    else if (k === 'End') step(Infinity);
    else if ((k === 'f' || k === 'F') && kind() === 'chess') $('flip').click();
    else return;
    e.preventDefault();
  });

  window.addEventListener('popstate', () => {
    Object.assign(state, readState(location.search));
    fillFilters();
    apply();
  });
}

async function boot() {
  wire();
  try {
    catalog = await databasesAnswer;
    performance.mark('tabiya:databases');
    // The board and the first table in one frame, when the table's answer is near.
    await prefetched(100);
  } catch (e) {
    pageError(`Cannot read the served databases: ${e.message}`);
    panelBody('explorer').replaceChildren();
    return;
  }
  const select = $('db-select');
  select.replaceChildren(...catalog.databases.map((d) => el('option', { value: d.name },
    `${d.name} — ${d.kind === 'chess' ? 'chess' : 'Othello'}, ${fmt(d.games)} game${d.games === 1 ? '' : 's'}`)));
  select.disabled = catalog.databases.length < 2;
  $('db-picker').hidden = catalog.databases.length === 0;
  await apply();
  select.value = db ? db.name : '';
  fillFilters();
  $('repertoire').addEventListener('toggle', () => {
    if ($('repertoire').open) ensureRepertoire();
  });
  let kept = null;
  try { kept = localStorage.getItem('tabiya.repertoire'); } catch { kept = null; }
  if (kept && kind() === 'chess' && db) ensureRepertoire();
}

// Asked at once: what is served, and (when the link is a chess position, as the start page
// is) the explorer's answer, guessing the database is chess; a wrong guess costs one answer.
const databasesAnswer = getJson('/api/databases');
if (!state.game && !new URLSearchParams(location.search).has('moves')) {
  const at = state.at === null ? state.line.length : state.at;
  const position = { fen: state.fen || undefined, play: state.line.slice(0, at).join(',') || undefined };
  prefetch('/api/explore', {
    db: dbParam(), ...position, top: TOP, recent: TOP, ...activeFilters(state.filters, 'chess'),
  });
  // The books' answer too (an empty list when none is served).
  prefetch('/api/books', position);
}
boot();
