// One chess game (/api/game/ID): its header, and its moves with variations, comments and NAGs,
// each move a button; the page steps through them on the board.
//
//   const viewer = createGameViewer(element, { onSelect(path), onBack(), onExplore(path) });
//   viewer.show(game, { db });     // the JSON of /api/game/ID
//   viewer.select(path);           // highlight a node ('0' the start, '12' the main line's 12th
//                                  // ply, '12-0-3' the 3rd move of the first variation of ply 12)
//   viewer.node(path), viewer.step(path, +1 | -1), viewer.end(path), viewer.pathOfFen(fen)
//
// A stored game's novelty (novelty-view.js, /api/novelty) is asked for once the game is shown:
// an "N" on the move, the earlier games beside the main line's moves, a line naming it.
//
// NAGs are written with glyphs the usual system fonts have (+= rather than ⩲).
// A variation replaces the move it hangs on: its first move is played from the position
// before that move. Top-level variations are indented blocks; deeper ones sit in parentheses.

import { resultText, resultWords } from './dom.js';
import { getJson } from './api.js';
import { showNovelty } from './novelty-view.js';

const NAGS = {
  1: ['!', 'good move'], 2: ['?', 'mistake'], 3: ['!!', 'brilliant move'], 4: ['??', 'blunder'],
  5: ['!?', 'interesting move'], 6: ['?!', 'dubious move'], 7: ['□', 'only move'], 8: ['□', 'only move'],
  10: ['=', 'equal position'], 11: ['=', 'equal, quiet'], 12: ['=', 'equal, active'], 13: ['∞', 'unclear'],
  14: ['+=', 'White is slightly better'], 15: ['=+', 'Black is slightly better'],
  16: ['±', 'White is better'], 17: ['∓', 'Black is better'],
  18: ['+−', 'White is winning'], 19: ['−+', 'Black is winning'],
  22: ['⊙', 'zugzwang'], 23: ['⊙', 'zugzwang'], 32: ['↻', 'development advantage'], 33: ['↻', 'development advantage'],
  36: ['→', 'initiative'], 37: ['→', 'initiative'], 40: ['↑', 'attack'], 41: ['↑', 'attack'],
  132: ['⇆', 'counterplay'], 133: ['⇆', 'counterplay'], 138: ['⊕', 'time trouble'], 139: ['⊕', 'time trouble'],
  140: ['∆', 'with the idea'], 146: ['N', 'novelty'],
};

export function nagText(n) {
  return NAGS[n] ? NAGS[n][0] : `$${n}`;
}


// The move tree: every node by its path, with prev and next along its own line.
export function buildTree(game) {
  const nodes = new Map();
  const start = { path: '0', ply: 0, fen: game.startFen, comments: game.comments || [], prev: null, next: null, san: null };
  nodes.set('0', start);
  const walk = (moves, prefix, before) => {
    let prev = before;
    const line = [];
    moves.forEach((m, i) => {
      const node = { ...m, path: `${prefix}${i + 1}`, prev, next: null, variations: [] };
      // A line's node follows its prev unless prev already has a continuation (a variation's
      // first move hangs beside the move it replaces, which was linked first).
      if (prev && !prev.next) prev.next = node;
      nodes.set(node.path, node);
      line.push(node);
      node.variations = (m.variations || []).map((v, j) => ({
        comments: v.comments || [],
        nodes: walk(v.moves || [], `${node.path}-${j}-`, prev),
      }));
      prev = node;
    });
    return line;
  };
  const main = walk(game.moves || [], '', start);
  // The start's next is the main line's first move, whatever the variations did.
  start.next = main[0] || null;
  return { nodes, start, main };
}

function moveNumberer(startFen) {
  const fields = String(startFen).split(/\s+/);
  const blackFirst = fields[1] === 'b';
  const full = Math.max(1, Number.parseInt(fields[5], 10) || 1);
  return (ply) => {
    const k = ply - 1 + (blackFirst ? 1 : 0);
    return { number: full + Math.floor(k / 2), white: k % 2 === 0 };
  };
}

export function createGameViewer(element, { onSelect = () => {}, onBack = () => {}, onExplore = () => {} } = {}) {
  let tree = null;
  let numberOf = null;
  let current = '0';
  let noveltyAsked = null; // the AbortController of the novelty asked for the game shown
  element.classList.add('game-viewer');

  element.addEventListener('click', (e) => {
    const button = e.target.closest('button[data-path]');
    if (button) onSelect(button.dataset.path);
  });

  function show(game, { db }) {
    tree = buildTree(game);
    const tags = Object.fromEntries(game.tags.map((t) => [t.name, t.value]));
    const player = (side) => {
      const name = tags[side] || '?';
      const elo = tags[`${side}Elo`];
      return `${name}${elo && elo !== '?' && elo !== '-' ? ` (${elo})` : ''}`;
    };
    element.replaceChildren();
    const bar = document.createElement('div');
    bar.className = 'toolbar';
    const back = button('← Back to the explorer', () => onBack());
    back.className = 'back-button';
    const explore = button('Explore this position', () => onExplore(current));
    explore.title = 'Open the explorer at the position on the board';
    const pgn = document.createElement('a');
    pgn.href = `/api/game/${encodeURIComponent(game.id)}/pgn?db=${encodeURIComponent(db)}`;
    pgn.textContent = 'Download PGN';
    pgn.setAttribute('download', `game-${game.id}.pgn`);
    bar.append(back, explore, pgn);

    const head = document.createElement('header');
    head.className = 'game-head';
    const title = document.createElement('h2');
    title.id = 'game-title';
    title.innerHTML = '<span class="side-mark side-mark--white" aria-hidden="true"></span>';
    title.append(`${player('White')} – `);
    title.insertAdjacentHTML('beforeend', '<span class="side-mark side-mark--black" aria-hidden="true"></span>');
    title.append(player('Black'));
    const facts = document.createElement('p');
    facts.className = 'game-facts';
    const result = game.result || tags.Result || '*';
    const words = resultWords(result);
    const bits = [
      `${resultText(result)}${words ? ` (${words})` : ''}`,
      tags.Event && tags.Event !== '?' ? tags.Event : '',
      tags.Site && tags.Site !== '?' ? tags.Site : '',
      tags.Date && tags.Date !== '????.??.??' ? tags.Date.replace(/\.\?\?/g, '') : '',
      tags.Round && tags.Round !== '?' && tags.Round !== '-' ? `round ${tags.Round}` : '',
      tags.ECO ? `${tags.ECO}${tags.Opening ? ` ${tags.Opening}` : ''}${tags.Variation ? `, ${tags.Variation}` : ''}` : '',
    ].filter(Boolean);
    facts.textContent = bits.join(' · ');
    const more = document.createElement('details');
    more.className = 'game-tags';
    more.innerHTML = '<summary>All tags</summary>';
    const dl = document.createElement('dl');
    for (const t of game.tags) {
      const dt = document.createElement('dt');
      dt.textContent = t.name;
      const dd = document.createElement('dd');
      dd.textContent = t.value;
      dl.append(dt, dd);
    }
    more.append(dl);
    const novelty = document.createElement('p');
    novelty.className = 'game-novelty muted small';
    novelty.id = 'game-novelty';
    novelty.textContent = 'Looking for the novelty…';
    head.append(title, facts, novelty, more);

    const movetext = document.createElement('div');
    movetext.className = 'movetext';
    movetext.setAttribute('role', 'group');
    movetext.setAttribute('aria-labelledby', 'game-title');
    const startButton = document.createElement('button');
    startButton.type = 'button';
    startButton.className = 'mv mv--start';
    startButton.dataset.path = '0';
    startButton.textContent = 'Start';
    startButton.setAttribute('aria-label', 'start position');
    movetext.append(startButton);
    appendComments(movetext, tree.start.comments);
    numberOf = moveNumberer(game.startFen);
    renderLine(movetext, tree.main, 0, numberOf);
    const end = document.createElement('span');
    end.className = 'result';
    end.textContent = resultText(result);
    movetext.append(' ', end);

    const help = document.createElement('p');
    help.className = 'muted small';
    help.innerHTML = 'Step with <kbd>←</kbd> <kbd>→</kbd>, <kbd>Home</kbd> <kbd>End</kbd>, or click a move.';
    element.append(bar, head, movetext, help);
    current = '0';
    loadNovelty(game, db, novelty, movetext);
  }

  // The novelty against the database's earlier games: marks added to the moves once known.
  function loadNovelty(game, db, line, movetext) {
    if (noveltyAsked) noveltyAsked.abort();
    const asked = new AbortController();
    noveltyAsked = asked;
    getJson('/api/novelty', { db, id: game.id }, { signal: asked.signal }).then((report) => {
      if (asked.signal.aborted) return;
      showNovelty(line, movetext, report, { label: (path) => label(node(path)), onSelect });
    }, (e) => {
      if (e.name === 'AbortError' || asked.signal.aborted) return;
      line.textContent = `The novelty cannot be found: ${e.message}`;
    });
  }

  function renderLine(container, line, depth, numberOf) {
    let needNumber = true;
    for (const node of line) {
      const { number, white } = numberOf(node.ply);
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'mv';
      b.dataset.path = node.path;
      let label = '';
      if (white) label = `${number}. `;
      else if (needNumber) label = `${number}… `;
      const nags = (node.nags || []).map(nagText).join('');
      b.textContent = `${label}${node.san}${nags}`;
      const spoken = (node.nags || []).filter((n) => NAGS[n]).map((n) => NAGS[n][1]);
      b.setAttribute('aria-label', `${number}${white ? '' : ' black'} ${node.san}${spoken.length ? `, ${spoken.join(', ')}` : ''}`);
      container.append(b, ' ');
      needNumber = false;
      if (node.comments && node.comments.length) {
        appendComments(container, node.comments);
        needNumber = true;
      }
      for (const v of node.variations) {
        const box = document.createElement(depth === 0 ? 'div' : 'span');
        box.className = depth === 0 ? 'variation variation--block' : 'variation';
        box.setAttribute('role', 'group');
        box.setAttribute('aria-label', `variation instead of ${node.san}`);
        if (depth > 0) box.append('(');
        appendComments(box, v.comments);
        renderLine(box, v.nodes, depth + 1, numberOf);
        if (depth > 0) box.append(')');
        container.append(box, ' ');
        needNumber = true;
      }
    }
  }

  function appendComments(container, comments) {
    for (const c of comments || []) {
      const span = document.createElement('span');
      span.className = 'comment';
      span.textContent = c;
      container.append(span, ' ');
    }
  }

  function select(path) {
    if (!tree) return;
    if (!tree.nodes.has(path)) path = '0';
    current = path;
    let active = null;
    for (const b of element.querySelectorAll('.mv')) {
      const on = b.dataset.path === path;
      b.classList.toggle('is-current', on);
      if (on) { b.setAttribute('aria-current', 'step'); active = b; } else b.removeAttribute('aria-current');
    }
    const box = element.querySelector('.movetext');
    if (active && box) {
      // Keep the move in view inside the list without scrolling the page.
      const top = active.offsetTop - box.offsetTop;
      if (top < box.scrollTop || top + active.offsetHeight > box.scrollTop + box.clientHeight) {
        box.scrollTop = top - box.clientHeight / 2;
      }
    }
  }

  function node(path) {
    return tree ? tree.nodes.get(path) || null : null;
  }

  function step(path, dir) {
    const n = node(path);
    if (!n) return '0';
    const to = dir > 0 ? n.next : n.prev;
    return to ? to.path : path;
  }

  function end(path) {
    let n = node(path) || tree.start;
    while (n.next) n = n.next;
    return n.path;
  }

  // The first main-line ply whose position is `fen` (placement, side, castling), else null.
  function pathOfFen(fen) {
    if (!tree) return null;
    const key = (f) => String(f).split(/\s+/).slice(0, 3).join(' ');
    const want = key(fen);
    if (key(tree.start.fen) === want) return '0';
    const hit = tree.main.find((n) => key(n.fen) === want);
    return hit ? hit.path : null;
  }

  // The UCI moves from the start to a node.
  function movesTo(path) {
    const out = [];
    for (let n = node(path); n && n.path !== '0'; n = n.prev) out.unshift(n.uci);
    return out;
  }

  // '2. Nf3' or '2… Nc6': a node as a move list writes it.
  function label(n) {
    if (!n || !n.san || !numberOf) return '';
    const { number, white } = numberOf(n.ply);
    return `${number}${white ? '.' : '…'} ${n.san}`;
  }

  return { show, select, node, step, end, pathOfFen, movesTo, label, start: () => (tree ? tree.start : null), current: () => current };
}

function button(text, onClick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.addEventListener('click', onClick);
  return b;
}
