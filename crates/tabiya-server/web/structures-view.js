// "Pawn structures later" under the explorer's moves: the pawn structures the position's games
// settle into after it (/api/later-structures, with the explorer's filters), each held for at
// least H plies (1, 2, 4 or 8, chosen in the panel), counted once per game, most frequent
// first: a small diagram of the pawns, the games and their share of the position's, the
// W/D/B bar, the average rating, how many plies after the position it began on average, and
// a link that opens the structure search (view=search&pawns=…) on it. A <details>, closed at
// first: nothing is asked for until it is opened, and once opened it stays open (and keeps
// its H) from position to position.
//
//   structuresPanel({ params })  -> <details id="structures-panel">; params: /api/explore's
//                                   (db, fen, play, the filters; top and recent are left out)
//   pawnSquares('8/pp6/8/8/8/8/PP6/8') -> { white: ['a2', 'b2'], black: ['a7', 'b7'] }, or null
//        when the text is no board of pawns (squares by file, then rank)
//   structureWords('8/pp6/…')      -> 'white pawns a2 b2; black pawns a7 b7' (the diagram's label)
//   structureSearchUrl(pawns, locationSearch) -> the page's URL (url-state.js's writeState) of
//        the structure search for exactly those pawns, the rest of the page's state kept
//   (the last three are pure: tested under Node)

import { el, fmt, share } from './dom.js';
import { getJson } from './api.js';
import { wdlBar } from './wdl-bar.js';
import { readState, writeState } from './url-state.js';

const SHOWN = 12;
const HELD = [1, 2, 4, 8];
let wantOpen = false; // the reader's choice, kept from position to position
let held = 4; // likewise: plies a structure must be held to count
const answers = new Map(); // url -> /api/later-structures's answer (the last few)

const FILES = 'abcdefgh';

export function pawnSquares(pawns) {
  const ranks = String(pawns || '').trim().split('/');
  if (ranks.length !== 8) return null;
  const white = [];
  const black = [];
  for (let r = 0; r < 8; r++) {
    let file = 0;
    for (const c of ranks[r]) {
      if (c >= '1' && c <= '8') {
        file += Number(c);
      } else if (c === 'P' || c === 'p') {
        if (file > 7) return null;
        (c === 'P' ? white : black).push([file, 8 - r]);
        file += 1;
      } else {
        return null;
      }
    }
    if (file !== 8) return null;
  }
  const names = (list) => list.sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(([f, r]) => `${FILES[f]}${r}`);
  return { white: names(white), black: names(black) };
}

export function structureWords(pawns) {
  const s = pawnSquares(pawns);
  if (!s) return `pawn structure ${pawns}`;
  const side = (name, list) => (list.length ? `${name} pawn${list.length === 1 ? '' : 's'} ${list.join(' ')}` : `no ${name} pawns`);
  return `${side('white', s.white)}; ${side('black', s.black)}`;
}

export function structureSearchUrl(pawns, locationSearch) {
  const state = readState(locationSearch);
  return writeState({
    ...state,
    view: 'search', name: null, prep: null, game: null, ply: null, offset: 0,
    search: { pattern: '', pawns, material: '', either: false, hold: null, bishops: false },
  }, 'chess');
}

export function structuresPanel({ params }) {
  const { top, recent, ...position } = params;
  const body = el('div', { className: 'extra-body' });
  const details = el('details', { className: 'explorer-extra', id: 'structures-panel' },
    el('summary', {}, 'Pawn structures later'), body);
  let loaded = false;
  const load = async () => {
    loaded = true;
    const asked = { ...position, limit: SHOWN, held };
    const key = JSON.stringify(asked);
    const refocus = body.contains(document.activeElement) ? document.activeElement.id : '';
    // The first answer replaces a message; another H's, the list shown meanwhile (dimmed).
    if (!body.querySelector('#structures-held')) {
      body.replaceChildren(el('p', { className: 'muted small' }, 'Following every game after this position…'));
    } else if (!answers.has(key)) {
      body.setAttribute('aria-busy', 'true');
    }
    try {
      const data = answers.get(key) || await getJson('/api/later-structures', asked);
      remember(key, data);
      if (asked.held !== held) return; // another H was chosen meanwhile: its answer draws
      body.removeAttribute('aria-busy');
      body.replaceChildren(render(data, { onHeld: (h) => { held = h; load(); } }));
      const target = refocus && body.querySelector(`#${CSS.escape(refocus)}`);
      if (target) target.focus({ preventScroll: true });
    } catch (e) {
      if (asked.held !== held) return;
      body.removeAttribute('aria-busy');
      body.replaceChildren(el('p', { className: 'form-error', role: 'alert' }, `Cannot find the later pawn structures: ${e.message}`));
      loaded = false;
    }
  };
  details.addEventListener('toggle', () => {
    wantOpen = details.open;
    if (details.open && !loaded) load();
  });
  if (wantOpen) details.open = true; // (its toggle event loads it)
  return details;
}

function remember(key, data) {
  answers.delete(key);
  answers.set(key, data);
  if (answers.size > 16) answers.delete(answers.keys().next().value);
}

function plies(n) {
  return `${fmt(n)} ${n === 1 ? 'ply' : 'plies'}`;
}

function render(data, { onHeld }) {
  const out = el('div', {});
  const select = el('select', { id: 'structures-held' },
    HELD.map((h) => el('option', { value: String(h) }, plies(h))));
  select.value = String(data.held);
  select.addEventListener('change', () => onHeld(Number(select.value)));
  const kinds = `${fmt(data.distinct)} pawn structure${data.distinct === 1 ? '' : 's'}`;
  out.append(el('div', { className: 'toolbar structures-toolbar' },
    el('p', { className: 'small structures-intro' },
      `${fmt(data.games)} game${data.games === 1 ? ' reaches' : 's reach'} this position; `
      + `${kinds} held ${plies(data.held)} or more after it.`),
    el('label', { className: 'inline-label small', for: 'structures-held' }, 'Held at least ', select)));
  if (!data.structures.length) {
    out.append(el('p', { className: 'muted small' }, data.games
      ? 'None: the pawns did not settle into another structure for that long.'
      : 'No games with these filters.'));
    return out;
  }
  const list = el('ol', { className: 'structures', 'aria-label': 'Pawn structures reached later, most frequent first' });
  data.structures.forEach((s, i) => {
    const words = structureWords(s.pawns);
    const diagramId = `structure-diagram-${i}`;
    const link = el('a', {
      className: 'structure-search', href: structureSearchUrl(s.pawns, location.search),
      dataset: { pageLink: '', pawns: s.pawns }, 'aria-describedby': diagramId,
      title: `search the games with exactly these pawns: ${s.pawns}`,
    }, 'Search this structure');
    // The page's state when followed (the board may have been turned, the ply changed).
    const fresh = () => { link.href = structureSearchUrl(s.pawns, location.search); };
    link.addEventListener('pointerdown', fresh);
    link.addEventListener('focus', fresh);
    link.addEventListener('click', fresh);
    const facts = [
      `after ${plies(s.averagePlies)}`,
      s.averageRating ? `avg ${fmt(s.averageRating)}` : null,
    ].filter(Boolean).join(' · ');
    list.append(el('li', { className: 'structure', dataset: { pawns: s.pawns } },
      miniBoard(s.pawns, { id: diagramId, label: `Pawn structure: ${words}` }),
      el('div', { className: 'structure-head' },
        el('span', { className: 'structure-games' }, `${fmt(s.games)} game${s.games === 1 ? '' : 's'}`,
          el('span', { className: 'share' }, ` ${share(s.games, data.games)}`)),
        el('span', { className: 'structure-facts muted small', title: 'on average, the plies from this position to where the structure began; the players’ average rating' }, facts)),
      wdlBar(s),
      el('div', { className: 'structure-foot' },
        el('code', { className: 'structure-pawns muted small' }, s.pawns), link)));
  });
  out.append(list);
  if (data.distinct > data.structures.length) {
    out.append(el('p', { className: 'muted small' }, `The ${data.structures.length} most frequent of ${kinds}.`));
  }
  return out;
}

// A small diagram of the pawns (search-view.js's look): white pawns hollow discs ringed in
// black, black pawns solid, so they read without colour; named in words for screen readers.
function miniBoard(pawns, { id, label }) {
  const s = pawnSquares(pawns) || { white: [], black: [] };
  const at = new Map();
  for (const q of s.white) at.set(q, 'P');
  for (const q of s.black) at.set(q, 'p');
  const box = el('span', { className: 'mini-board structure-diagram', role: 'img', id, 'aria-label': label, title: label });
  for (let r = 8; r >= 1; r--) {
    for (let f = 0; f < 8; f++) {
      const c = at.get(`${FILES[f]}${r}`);
      const light = (f + r) % 2 === 0; // a1 dark
      box.append(el('span', { className: `mini-sq ${light ? 'mini-sq--light' : 'mini-sq--dark'}${c ? ` mini-sq--${c}` : ''}` }));
    }
  }
  return box;
}
