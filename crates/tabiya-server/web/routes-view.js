// "Move orders" under the explorer's moves: the sequences of moves by which the games reach
// the position (/api/transpositions), most frequent first, with how many came by the line on
// the board; each plays its move order on the board. A <details>, closed at first: nothing is
// asked for until it is opened, and once opened it stays open from position to position.
//
//   routesPanel({ params, onLine({ fen, line }) })  -> <details id="routes-panel">
//     params: /api/explore's (db, fen, play; the filters do not apply: every game is counted)
//   routeText(route) -> '1. e4 c5 2. Nf3' (a route from another start: numbered from its FEN)
//   (routeText is pure: tested under Node)

import { el, fmt, share } from './dom.js';
import { getJson } from './api.js';
import { wdlBar } from './wdl-bar.js';

const SHOWN = 10;
let wantOpen = false; // the reader's choice, kept from position to position
const answers = new Map(); // url -> /api/transpositions's answer (the last few)

export function routeText(route) {
  const fields = String(route.fromFen || '').split(/\s+/);
  const blackFirst = fields[1] === 'b';
  const full = Math.max(1, Number.parseInt(fields[5], 10) || 1);
  return route.san.map((s, i) => {
    const k = i + (blackFirst ? 1 : 0);
    const number = full + Math.floor(k / 2);
    if (k % 2 === 0) return `${number}. ${s}`;
    return i === 0 ? `${number}… ${s}` : s;
  }).join(' ');
}

export function routesPanel({ params, onLine }) {
  const asked = { db: params.db, fen: params.fen, play: params.play, limit: SHOWN };
  const body = el('div', { className: 'extra-body' });
  const details = el('details', { className: 'explorer-extra', id: 'routes-panel' },
    el('summary', {}, 'Move orders (transpositions)'), body);
  let loaded = false;
  const load = async () => {
    loaded = true;
    body.replaceChildren(el('p', { className: 'muted small' }, 'Following every game to this position…'));
    try {
      const key = JSON.stringify(asked);
      const data = answers.get(key) || await getJson('/api/transpositions', asked);
      remember(key, data);
      body.replaceChildren(render(data, { onLine, onBoard: params.fen ? null : (params.play || '') }));
    } catch (e) {
      body.replaceChildren(el('p', { className: 'form-error', role: 'alert' }, `Cannot find the move orders: ${e.message}`));
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

// onBoard: the line on the board from the start (UCI, commas), or null for a position by FEN.
function render(data, { onLine, onBoard }) {
  const out = el('div', {});
  const orders = `${fmt(data.distinct)} move order${data.distinct === 1 ? '' : 's'}`;
  let intro = `${fmt(data.games)} game${data.games === 1 ? ' reaches' : 's reach'} this position by ${orders}`;
  if (data.byAsked !== undefined && data.byAsked !== null) {
    intro += `; ${fmt(data.byAsked)} of them by the line on the board, ${fmt(data.games - data.byAsked)} by another`;
  }
  out.append(el('p', { className: 'small' }, `${intro}.`));
  if (!data.routes.length) return out;
  const list = el('ol', { className: 'routes' });
  for (const r of data.routes) {
    const here = onBoard !== null && !r.fromFen && r.uci.join(',') === onBoard;
    const text = routeText(r);
    const button = el('button', {
      type: 'button', className: 'route-button', dataset: { line: r.uci.join(',') },
      title: `play ${text} on the board`,
    }, text);
    button.addEventListener('click', () => onLine({ fen: r.fromFen || null, line: r.uci }));
    list.append(el('li', { className: here ? 'route is-asked' : 'route' },
      el('span', {}, button, here ? ' ' : null, here ? el('span', { className: 'mark' }, 'on the board') : null),
      el('span', { className: 'route-games' }, `${fmt(r.games)} game${r.games === 1 ? '' : 's'}`,
        el('span', { className: 'share' }, ` ${share(r.games, data.games)}`)),
      wdlBar(r)));
  }
  out.append(list);
  if (data.distinct > data.routes.length) {
    out.append(el('p', { className: 'muted small' }, `The ${SHOWN} most frequent of ${orders}.`));
  }
  return out;
}
