// The engine panel (chess): the server's engine analysing the board's position, its lines,
// the best move as an arrow on the board, and the evaluation bar beside the board.
//
//   const engine = createEnginePanel(panelElement, barElement, {
//     board: () => chessBoard,      // the board wrapper of chess-board.js (for the arrow), or null
//     onPlay(uci),                  // a line's first move clicked
//     onDone(analysis),             // an analysis finished and was kept (refresh what shows evals)
//   });
//   engine.setEnabled(true | false)                 a chess database is shown (else all hidden)
//   engine.setPosition(fen, { db, orientation })    the board's position; a running engine follows it
//   engine.showKept(analysis | null, fen)           the explorer's kept evaluation of `fen`, shown
//                                                   when the engine is not running
//   engine.stop()
//
// A run is one EventSource on /api/analysis (docs/api.md): `stored`, then `line`s, then
// `done` or `error`. A position change closes it and opens another with the same client id
// (the server stops the older search); Stop closes it, which stops the engine and keeps what
// it found. The live region says only what changed state (started, stopped, done, kept, an
// error): the depth and the lines change too often to be read out.

import { getJson, apiUrl } from './api.js';
import { el } from './dom.js';
import {
  scoreText, scoreWords, whiteShare, barText, numberedMoves, pvText, keptText, speedText,
} from './eval-format.js';

const DEPTH = 30; // the depth a run goes to (the server's default; Stop ends it sooner)
const MAX_LINES = 3;
const SHOWN_MOVES = 10; // moves of a line shown (all of them in its tooltip)
const LINES_KEY = 'tabiya.engineLines';
const ARROW_BRUSH = 'paleGreen';

const NS = 'http://www.w3.org/2000/svg';
function icon(path) {
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const p = document.createElementNS(NS, 'path');
  p.setAttribute('d', path);
  svg.append(p);
  return svg;
}
const PLAY = 'M7 5v14l11-7z';
const STOP = 'M6 6h12v12H6z';

// An id for this page (not crypto.randomUUID: it exists only in secure contexts).
function clientId() {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
}

function savedLines() {
  try {
    const n = Number(localStorage.getItem(LINES_KEY));
    return n >= 1 && n <= MAX_LINES ? n : 1;
  } catch {
    return 1;
  }
}

// `served()`: what /api/databases said of the engine ({ engine, engineNote }), when known:
// without an engine the panel says why without asking /api/engine (a 404 in the console).
export function createEnginePanel(panel, bar, { board = () => null, onPlay = () => {}, onDone = () => {}, served = () => null } = {}) {
  const client = clientId();
  let info; // undefined: not asked yet; null: asking; { name } or { error }
  let enabled = null; // (null: not told yet, so the first setEnabled always applies)
  let fen = null;
  let db = null;
  let orientation = 'white';
  let lines = savedLines();
  let source = null; // the run's EventSource
  let run = 0; // increases with every run started or ended: late events of an older one are dropped
  let received = 0; // events of the current run
  // What is shown: 'off' (nothing), 'running', 'stopped', 'done', 'kept', 'error'.
  let mode = 'off';
  let pvs = new Map(); // multipv -> { cp | mate, bound, depth, moves, san, kept }
  let depth = 0; // the engine's depth in this run
  let result = null; // the Analysis of `done` or of a kept evaluation
  let message = ''; // an error's text

  // ---------------------------------------------------------------- the panel's elements
  const toggle = el('button', {
    type: 'button', id: 'engine-toggle', className: 'engine-toggle', 'aria-pressed': 'false', disabled: true,
  });
  const select = el('select', { id: 'engine-multipv', title: 'how many lines the engine shows' },
    [1, 2, 3].map((n) => el('option', { value: String(n) }, String(n))));
  select.value = String(lines);
  const meta = el('span', { className: 'engine-meta', id: 'engine-meta' });
  const sep = el('span', { className: 'engine-sep', 'aria-hidden': 'true' }, ' ·\u00a0'); // breaks before the dot
  const note = el('span', { className: 'engine-note', id: 'engine-note', 'aria-live': 'polite' });
  const list = el('ol', { className: 'engine-lines', id: 'engine-lines', 'aria-label': 'Engine lines' });
  const unavailable = el('p', { className: 'engine-unavailable', id: 'engine-unavailable', hidden: true });
  const multipv = el('label', { className: 'engine-multipv' }, 'Lines ', select);
  const controls = el('div', { className: 'engine-head' },
    toggle, multipv,
    el('p', { className: 'engine-status', id: 'engine-status' }, meta, sep, note));
  panel.replaceChildren(unavailable, controls, list);

  const fill = el('div', { className: 'eval-bar__fill' });
  const barLabel = el('span', { className: 'eval-bar__text', 'aria-hidden': 'true' });
  bar.replaceChildren(el('div', { className: 'eval-bar__mid' }), fill, barLabel);
  bar.setAttribute('role', 'img');

  toggle.addEventListener('click', () => (mode === 'running' ? stop() : start()));
  select.addEventListener('change', () => {
    lines = Number(select.value) || 1;
    try { localStorage.setItem(LINES_KEY, String(lines)); } catch { /* a preference only */ }
    if (mode === 'running') start();
    else draw();
  });
  list.addEventListener('click', (e) => {
    const b = e.target.closest('button[data-move]');
    if (b) onPlay(b.dataset.move);
  });

  // ---------------------------------------------------------------- the engine's name
  async function askEngine() {
    if (info !== undefined) return;
    const known = served();
    if (known && known.engine === null && known.engineNote) {
      info = { error: known.engineNote };
      draw();
      return;
    }
    info = null;
    try {
      info = await getJson('/api/engine');
    } catch (e) {
      info = { error: e.message };
    }
    draw();
  }

  // ---------------------------------------------------------------- runs
  function close() {
    if (source) source.close();
    source = null;
    run++;
  }

  function start() {
    if (!fen || !info || info.error) return;
    close();
    const mine = run;
    mode = 'running';
    pvs = new Map();
    depth = 0;
    result = null;
    message = '';
    received = 0;
    const url = apiUrl('/api/analysis', { db: db || undefined, fen, depth: DEPTH, multipv: lines, client });
    source = new EventSource(url);
    const on = (name, fn) => source.addEventListener(name, (e) => {
      if (mine !== run) return;
      let data;
      try { data = JSON.parse(e.data); } catch { return; } // (the EventSource's own 'error' has no data)
      received++;
      fn(data);
      schedule();
    });
    on('stored', (a) => {
      for (const pv of a.pvs || []) pvs.set(pv.multipv, { ...pv, kept: true });
      result = a;
    });
    on('line', (pv) => {
      const had = pvs.get(pv.multipv);
      // A kept line stays until the engine has searched as deep.
      if (!had || !had.kept || pv.depth >= had.depth) pvs.set(pv.multipv, pv);
      depth = Math.max(depth, pv.depth || 0);
    });
    on('done', (a) => {
      close();
      result = a;
      pvs = new Map((a.pvs || []).map((pv) => [pv.multipv, pv]));
      mode = a.source === 'stored' ? 'kept' : 'done';
      if (a.source !== 'stored' && a.stored) onDone(a);
    });
    on('error', (e) => {
      // The server's `error` event (an EventSource's own failures come without data).
      close();
      mode = 'error';
      message = e.error || 'the engine failed';
    });
    source.onerror = () => {
      if (mine !== run || !source || source.readyState === EventSource.OPEN) return;
      const nothing = received === 0;
      close();
      mode = 'error';
      message = nothing ? 'the server did not start the analysis' : 'the connection to the server was lost';
      draw();
      if (nothing) explain(url, run);
    };
    draw();
  }

  // Why a run never started: the server refused it before the stream (a 400 with a message).
  async function explain(url, token) {
    const controller = new AbortController();
    try {
      const r = await fetch(url, { signal: controller.signal, headers: { Accept: 'application/json' } });
      if (r.ok) { controller.abort(); return; }
      const body = await r.json().catch(() => null);
      if (token === run && mode === 'error' && body && body.error) {
        message = body.error;
        draw();
      }
    } catch {
      // Unreachable: the message already shown says so well enough.
    }
  }

  function stop() {
    if (mode !== 'running') return;
    close();
    mode = pvs.size ? 'stopped' : 'off';
    draw();
  }

  // ---------------------------------------------------------------- drawing
  let frame = 0;
  function schedule() {
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; draw(); });
  }

  function shownLines() {
    return [...pvs.values()].filter((pv) => pv.multipv <= lines && (pv.san || []).length)
      .sort((a, b) => a.multipv - b.multipv);
  }

  function setNote(text) {
    if (note.textContent !== text) note.textContent = text;
  }

  function draw() {
    if (frame) { cancelAnimationFrame(frame); frame = 0; }
    panel.hidden = !enabled;
    const noEngine = info && info.error;
    unavailable.hidden = !noEngine;
    // The server's own words (a kept evaluation is still shown, under them).
    unavailable.textContent = noEngine ? `${info.error.charAt(0).toUpperCase()}${info.error.slice(1)}` : '';
    toggle.hidden = !!noEngine;
    multipv.hidden = !!noEngine;
    const running = mode === 'running';
    toggle.disabled = !info || !!noEngine || !fen;
    toggle.setAttribute('aria-pressed', String(running));
    toggle.replaceChildren(icon(running ? STOP : PLAY), running ? 'Stop' : 'Start');
    toggle.title = running ? 'Stop the engine' : 'Analyse this position with the engine';
    panel.dataset.state = mode;

    const best = pvs.get(1);
    const name = (result && result.engine) || (info && info.name) || 'Engine';
    const shownDepth = mode === 'running' ? Math.max(depth, best && best.kept ? best.depth : 0)
      : result ? result.depth : depth;
    panel.dataset.depth = String(shownDepth || 0);
    const bits = [];
    if (mode !== 'off' || (info && info.name)) bits.push(name);
    if (mode !== 'off' && mode !== 'error' && mode !== 'kept' && shownDepth) bits.push(`depth ${shownDepth}`);
    if (mode === 'done' && speedText(result)) bits.push(speedText(result));
    meta.textContent = bits.join(' · ');
    sep.hidden = !bits.length || mode === 'off';

    const words = best ? scoreWords(best) : '';
    if (mode === 'running') setNote('analysing…');
    else if (mode === 'stopped') setNote(`stopped${words ? `: ${words}` : ''}`);
    else if (mode === 'done') setNote(result && !result.pvs.length ? 'no legal move in this position' : `done${words ? `: ${words}` : ''}`);
    else if (mode === 'kept') setNote(`kept: ${keptText(result)}`);
    else if (mode === 'error') setNote(`error: ${message}`);
    else setNote('');
    note.classList.toggle('engine-note--error', mode === 'error');
    note.classList.toggle('engine-note--kept', mode === 'kept');

    drawLines();
    drawBar(best);
    const b = board();
    if (b && b.setShapes) {
      const uci = running && best && best.moves ? best.moves.split(' ')[0] : '';
      b.setShapes('engine', uci ? [{ orig: uci.slice(0, 2), dest: uci.slice(2, 4), brush: ARROW_BRUSH }] : []);
    }
  }

  function drawLines() {
    const items = mode === 'off' ? [] : shownLines().map((pv) => {
      const moves = numberedMoves(fen, pv.san);
      const [first] = moves;
      const uci = pv.moves.split(' ')[0];
      const full = pvText(fen, pv.san);
      const rest = moves.slice(1, SHOWN_MOVES).map((m) => `${m.label}${m.san}`).join(' ')
        + (moves.length > SHOWN_MOVES ? ' …' : '');
      return el('li', { className: 'engine-line', title: `${scoreText(pv)} ${full} (depth ${pv.depth})`, dataset: { multipv: String(pv.multipv) } },
        el('span', { className: 'engine-score', 'aria-label': scoreWords(pv) }, scoreText(pv)), ' ',
        el('span', { className: 'engine-pv' },
          first.label ? el('span', { className: 'mv-number' }, first.label) : null,
          el('button', { type: 'button', className: 'engine-move', dataset: { move: uci }, title: `play ${first.san}` }, first.san),
          rest ? ` ${rest}` : ''));
    });
    list.replaceChildren(...items);
    list.hidden = !items.length;
  }

  function drawBar(best) {
    const score = mode !== 'off' && best && (best.cp !== undefined || best.mate !== undefined) ? best : null;
    bar.hidden = !enabled;
    bar.classList.toggle('eval-bar--empty', !score);
    bar.classList.toggle('eval-bar--flipped', orientation === 'black');
    if (!score) {
      fill.style.height = '50%';
      barLabel.textContent = '';
      bar.setAttribute('aria-label', 'no evaluation');
      bar.removeAttribute('title');
      delete bar.dataset.value;
      return;
    }
    const share = whiteShare(score);
    fill.style.height = `${share}%`;
    const whiteBetter = score.mate !== undefined ? score.mate > 0 : score.cp >= 0;
    barLabel.textContent = barText(score);
    barLabel.classList.toggle('eval-bar__text--white', whiteBetter);
    barLabel.classList.toggle('eval-bar__text--black', !whiteBetter);
    const label = `Evaluation ${scoreText(score)}: ${scoreWords(score)}${mode === 'kept' ? ' (kept)' : ''}`;
    bar.setAttribute('aria-label', label);
    bar.title = label;
    bar.dataset.value = scoreText(score);
  }

  // ---------------------------------------------------------------- the page's calls
  return {
    setEnabled(on) {
      if (on === enabled) return;
      enabled = on;
      if (!on) { close(); mode = 'off'; pvs = new Map(); }
      if (on) askEngine();
      draw();
    },
    setPosition(newFen, { db: newDb = null, orientation: o = 'white' } = {}) {
      orientation = o || 'white';
      if (newFen === fen && newDb === db) { drawBar(pvs.get(1)); return; }
      fen = newFen;
      db = newDb;
      if (mode === 'running') { start(); return; }
      close();
      mode = 'off';
      pvs = new Map();
      result = null;
      depth = 0;
      draw();
    },
    showKept(analysis, forFen) {
      if (!enabled || forFen !== fen || !analysis || !analysis.pvs || !analysis.pvs.length) return;
      if (mode !== 'off' && mode !== 'kept') return; // the engine's own result is newer
      mode = 'kept';
      result = analysis;
      pvs = new Map(analysis.pvs.map((pv) => [pv.multipv, pv]));
      draw();
    },
    stop,
  };
}
