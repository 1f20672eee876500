// The repertoire panel: a PGN file with variations and a side, kept in this browser
// (localStorage) until removed. While one is loaded, the explorer marks the moves it plays
// (your side to move) or prepares for (the other side) in the position on the board, by
// any move order; "Check" asks the server for its gaps (biggest first: each opens its
// position on the board), its moves that score badly, its rare lines and the positions it
// answers differently in two places.
//
//   const rep = createRepertoirePanel(root, { params, onLine, onLoaded });
//   rep.mark(explorerBody, fen)   -- marks the explorer's rows for the position `fen`
//
// `params()` gives the database and the explorer's filters; `onLine(moves)` shows a line
// (UCI moves from the start) on the board; `onLoaded()` is told when the repertoire changes.

import { el, fmt, pct } from './dom.js';
import { postText } from './api.js';

const STORE = 'tabiya.repertoire';

// A position's key in the overlay: placement, side to move, castling (no en passant, no
// clocks: the server writes en passant only when a capture is legal).
export function positionKey(fen) {
  return String(fen).trim().split(/\s+/).slice(0, 3).join(' ');
}

// The overlay's table: position key -> UCI moves.
export function overlayTable(positions) {
  const table = new Map();
  for (const p of positions || []) {
    const k = positionKey(p.fen);
    const known = table.get(k) || [];
    for (const m of p.moves) if (!known.includes(m)) known.push(m);
    table.set(k, known);
  }
  return table;
}

function load() {
  try {
    const v = JSON.parse(localStorage.getItem(STORE) || 'null');
    return v && typeof v.pgn === 'string' ? v : null;
  } catch {
    return null;
  }
}

function save(v) {
  try {
    if (v) localStorage.setItem(STORE, JSON.stringify(v));
    else localStorage.removeItem(STORE);
  } catch {
    // A browser without storage keeps it for this page only.
  }
}

export function createRepertoirePanel(root, { params, onLine, onLoaded }) {
  let rep = load(); // { name, side, pgn }
  let table = new Map();
  const status = el('p', { className: 'muted small', role: 'status' });
  const error = el('p', { className: 'form-error', role: 'alert', hidden: true });
  const file = el('input', { type: 'file', id: 'rep-file', accept: '.pgn,text/plain,application/x-chess-pgn' });
  const side = el('select', { id: 'rep-side' },
    el('option', { value: 'white' }, 'White'), el('option', { value: 'black' }, 'Black'));
  const check = el('button', { type: 'button', id: 'rep-check' }, 'Check against the database');
  const remove = el('button', { type: 'button', id: 'rep-remove' }, 'Remove');
  const results = el('div', { id: 'rep-results', 'aria-live': 'polite' });

  function fail(e) {
    error.hidden = false;
    error.textContent = e.message || String(e);
  }

  async function fetchTable() {
    error.hidden = true;
    table = new Map();
    if (!rep) {
      status.textContent = 'No repertoire loaded: choose a PGN file with your lines (variations too).';
      check.disabled = true;
      remove.disabled = true;
      onLoaded();
      return;
    }
    side.value = rep.side;
    check.disabled = false;
    remove.disabled = false;
    status.textContent = `Loading ${rep.name}…`;
    try {
      const answer = await postText('/api/repertoire', { db: params().db, name: rep.name }, rep.pgn);
      table = overlayTable(answer.positions);
      status.textContent = `${rep.name} for ${rep.side}: ${fmt(answer.positions.length)} positions with moves.`
        + ' Its moves are marked ◆ in the explorer.';
      if (answer.warnings.length) fail(new Error(answer.warnings.join('; ')));
    } catch (e) {
      status.textContent = '';
      fail(e);
    }
    onLoaded();
  }

  file.addEventListener('change', async () => {
    const f = file.files && file.files[0];
    if (!f) return;
    rep = { name: f.name, side: side.value, pgn: await f.text() };
    save(rep);
    results.replaceChildren();
    await fetchTable();
  });
  side.addEventListener('change', () => {
    if (!rep) return;
    rep = { ...rep, side: side.value };
    save(rep);
    results.replaceChildren();
    onLoaded();
  });
  remove.addEventListener('click', () => {
    rep = null;
    save(null);
    file.value = '';
    results.replaceChildren();
    fetchTable();
  });
  check.addEventListener('click', async () => {
    if (!rep) return;
    error.hidden = true;
    results.replaceChildren(el('p', { className: 'loading' }, 'Checking…'));
    try {
      const r = await postText('/api/repertoire/check', { ...params(), name: rep.name, side: rep.side }, rep.pgn);
      results.replaceChildren(renderCheck(r, onLine));
    } catch (e) {
      results.replaceChildren();
      fail(e);
    }
  });

  root.replaceChildren(
    el('div', { className: 'rep-form' },
      el('label', { for: 'rep-file' }, 'Repertoire (PGN)'), file),
    el('div', { className: 'toolbar rep-form' },
      el('label', { for: 'rep-side' }, 'for'), side, check, remove),
    status, error, results,
  );
  fetchTable();

  return {
    // Marks the explorer's rows whose move the repertoire has in position `fen`, and says
    // which of its moves no game played.
    mark(body, fen) {
      const moves = rep ? table.get(positionKey(fen)) : null;
      for (const old of body.querySelectorAll('.rep-mark, .rep-only')) old.remove();
      if (!moves || !moves.length) return;
      const yours = fen.split(/\s+/)[1] === (rep.side === 'white' ? 'w' : 'b');
      const label = yours ? 'your move in the repertoire' : 'a reply the repertoire prepares';
      const seen = new Set();
      for (const row of body.querySelectorAll('tr[data-move]')) {
        if (!moves.includes(row.dataset.move)) continue;
        seen.add(row.dataset.move);
        row.classList.add('in-rep');
        const th = row.querySelector('th');
        if (th) th.append(el('span', { className: 'rep-mark', title: label, 'aria-label': label }, ' ◆'));
      }
      const missing = moves.filter((m) => !seen.has(m));
      if (missing.length) {
        body.append(el('p', { className: 'rep-only muted small' },
          `Repertoire: ${missing.join(', ')} (no game here).`));
      }
    },
    get loaded() { return !!rep; },
  };
}

function lineButton(text, moves, onLine) {
  return el('button', { type: 'button', className: 'linklike rep-line', onclick: () => onLine(moves) }, text || '(start)');
}


export function renderCheck(r, onLine) {
  const out = el('div', { className: 'rep-check' });
  out.append(el('p', {},
    `${fmt(r.gapCount)} gaps at least ${pct(r.minShare)} likely to ply ${r.depth}`
    + ` (together ${pct(r.gapProbability)}); ${fmt(r.ownPositions)} of your positions answered;`
    + ` ${fmt(r.games)} games.`));
  if (r.gaps.length) {
    out.append(el('h3', {}, 'Gaps, most likely first'));
    const list = el('ol', { className: 'rep-gaps' });
    for (const g of r.gaps) {
      const played = g.candidates.map((c) => `${c.san} ${pct(c.share, 0)}`).join(', ');
      list.append(el('li', { dataset: { fen: g.fen } },
        el('span', { className: 'num rep-p' }, pct(g.probability)), ' ',
        lineButton(g.line, g.moves, onLine),
        el('span', { className: 'muted small' }, ` — ${fmt(g.games)} games; played: ${played}`)));
    }
    out.append(list);
  }
  if (r.badMoves.length) {
    out.append(el('h3', {}, 'Moves that score badly'));
    out.append(el('ul', {}, r.badMoves.map((b) => el('li', {},
      `${b.line}: ${pct(b.score)} in ${fmt(b.games)} games (the position ${pct(b.positionScore)})`
      + (b.best ? `; ${b.best.san} scores ${pct(b.best.score)} in ${fmt(b.best.games)}` : '')))));
  }
  if (r.rareLines.length) {
    out.append(el('h3', {}, 'Rare lines (could be pruned)'));
    out.append(el('ul', {}, r.rareLines.map((l) => el('li', {},
      `${l.line}: ${pct(l.probability, 2)}, ${fmt(l.games)} games, ${fmt(l.positionsBelow)} positions below`))));
  }
  if (r.inconsistent.length) {
    out.append(el('h3', {}, 'Answered differently in two places'));
    out.append(el('ul', {}, r.inconsistent.map((i) => el('li', {},
      i.answers.map((a) => `${a.line} → ${a.moves.join(', ')}`).join(' · ')))));
  }
  if (!r.gaps.length && !r.badMoves.length && !r.rareLines.length && !r.inconsistent.length) {
    out.append(el('p', {}, 'No gaps, bad moves, rare lines or contradictions found.'));
  }
  return out;
}
