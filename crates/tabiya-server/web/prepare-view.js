// The player page's Preparation: the player's repertoire with one colour as the database
// knows it (/api/prepare, by position: a position two move orders reach is one), shown for
// the board's position — their moves or their opponents' replies there, most played first,
// with games, the player's score and results, and their latest game in the line — and the
// positions where they vary most. A move's row plays it on the board.
//
//   const view = createPrepareView({ getJson, createLoader, onColor(color), onPlay(uci),
//                                    onPreview(uci | null), gameLink(id), lineLink(sans) })
//   view.element                          -> the section (put it in the player page)
//   view.show({ db, name, color, fen })   -> draws it for the board's position (color null:
//                                            only the buttons "As White", "As Black")
//   positionOf(prep, fen), resultBar(score, color), lineText(sans)   (pure, for tests)

import { el, fmt, share } from './dom.js';
import { wdlBar } from './wdl-bar.js';

const fen4 = (fen) => fen.split(/\s+/).slice(0, 4).join(' ');

// The position of the preparation a FEN names (clocks ignored), or null.
export function positionOf(prep, fen) {
  if (!prep.byFen) prep.byFen = new Map(prep.positions.map((p) => [fen4(p.fen), p]));
  return prep.byFen.get(fen4(fen)) || null;
}

// A score from the player's side as the explorer's white/draws/black bar: as Black a win is
// a black segment (as on the player's card).
export function resultBar(s, color) {
  return color === 'white'
    ? { white: s.wins, draws: s.draws, black: s.losses }
    : { white: s.losses, draws: s.draws, black: s.wins };
}

// ['e4', 'c5', 'Nf3'] -> '1. e4 c5 2. Nf3'
export function lineText(sans) {
  return sans.map((s, i) => (i % 2 === 0 ? `${i / 2 + 1}. ${s}` : s)).join(' ');
}

const scoreText = (s) => (s.score === null || s.score === undefined ? '–' : `${s.score.toFixed(1)}%`);
const plural = (n, word) => `${fmt(n)} ${word}${n === 1 ? '' : 's'}`;
const COLOURS = { white: 'White', black: 'Black' };

export function createPrepareView({ getJson, createLoader, onColor, onPlay, onPreview, gameLink, lineLink }) {
  const buttons = Object.entries(COLOURS).map(([color, name]) => {
    const b = el('button', { type: 'button', id: `prepare-${color}`, 'aria-pressed': 'false' }, `As ${name}`);
    b.addEventListener('click', () => onColor(color));
    return b;
  });
  const body = el('div', { className: 'prepare-body', id: 'prepare-body' });
  const holder = el('div', { className: 'prepare-answer' }, body);
  const element = el('section', { className: 'player-section prepare', id: 'prepare', 'aria-labelledby': 'prepare-title' },
    el('h3', { id: 'prepare-title' }, 'Preparation'),
    el('p', { className: 'muted small' }, 'The player’s repertoire as this database knows it, by position: '
      + 'play their moves on the board, or click a row.'),
    el('div', { className: 'toolbar prepare-colours', role: 'group', 'aria-label': 'The player’s colour' }, buttons),
    holder);
  const loader = createLoader(holder);
  const answers = new Map(); // db|name|color -> the preparation
  let shown = null; // { key, fen } drawn
  let boardFen = null; // the board's position, when an answer arrives

  function draw(prep, fen, color) {
    const out = document.createDocumentFragment();
    const s = prep;
    out.append(el('p', { className: 'prepare-summary', id: 'prepare-summary' },
      `${plural(s.games, 'game')} as ${COLOURS[color]}${s.since ? ` since ${s.since}` : ''}: `
      + `+${fmt(s.wins)} =${fmt(s.draws)} −${fmt(s.losses)}, ${scoreText(s)} · the first ${s.depth} plies, `
      + `moves of at least ${plural(s.minGames, 'game')}`));
    const pos = positionOf(prep, fen);
    if (!pos) {
      out.append(el('p', { className: 'empty', id: 'prepare-none' },
        `This position is not in the player’s games as ${COLOURS[color]} (within ${s.depth} plies, by moves of at least ${plural(s.minGames, 'game')}).`));
    } else {
      out.append(positionTable(pos, color));
    }
    if (prep.variesMost.length) out.append(variesList(prep.variesMost));
    body.replaceChildren(out);
  }

  function positionTable(pos, color) {
    const whose = pos.playerToMove ? 'Their moves' : 'Their opponents’ replies';
    const head = el('p', { className: 'prepare-position', id: 'prepare-position' },
      el('strong', {}, whose), ` ${pos.line.length ? `after ${lineText(pos.line)}` : 'at the start'}: `,
      `${plural(pos.games, 'game')}, their score ${scoreText(pos)}`);
    if (!pos.moves.length) {
      return el('div', {}, head, el('p', { className: 'empty' }, 'No move here with enough games.'));
    }
    const rows = pos.moves.map((m) => {
      const title = `play ${m.san}: ${plural(m.games, 'game')}, the player scored ${scoreText(m)}`;
      const button = el('button', { type: 'button', className: 'move-button', title, 'aria-label': title }, m.san);
      button.addEventListener('click', (e) => { e.stopPropagation(); onPlay(m.uci); });
      const l = m.latest;
      const tr = el('tr', { dataset: { move: m.uci } },
        el('th', { scope: 'row', className: 'move' }, button),
        el('td', { className: 'num games' }, fmt(m.games), el('span', { className: 'share' }, ` ${share(m.games, pos.games)}`)),
        el('td', { className: 'num score' }, scoreText(m)),
        el('td', { className: 'bar hide-narrow' }, wdlBar(resultBar(m, color))),
        el('td', { className: 'latest' },
          el('a', { href: gameLink(l.id), dataset: { game: l.id }, title: `${l.event} (game ${l.id})` }, l.date),
          ` ${l.opponent}`));
      tr.addEventListener('click', (e) => { if (!e.target.closest('a, button')) onPlay(m.uci); });
      tr.addEventListener('mouseenter', () => onPreview(m.uci));
      tr.addEventListener('mouseleave', () => onPreview(null));
      return tr;
    });
    return el('div', {}, head, el('table', { className: 'list-table explorer-table prepare-table', id: 'prepare-table' },
      el('caption', { className: 'visually-hidden' }, `${whose} in this position, from the player’s side`),
      el('thead', {}, el('tr', {},
        el('th', { scope: 'col' }, 'Move'),
        el('th', { scope: 'col', className: 'num' }, 'Games'),
        el('th', { scope: 'col', className: 'num', title: 'the player’s points per game won, drawn or lost' }, 'Score'),
        el('th', { scope: 'col', className: 'hide-narrow' }, 'White / draws / Black'),
        el('th', { scope: 'col', title: 'the player’s latest game in this line' }, 'Latest'))),
      el('tbody', {}, rows)));
  }

  function variesList(list) {
    return el('div', { className: 'prepare-varies' },
      el('h4', { id: 'prepare-varies-title' }, 'Where they vary most'),
      el('ol', { id: 'prepare-varies', 'aria-labelledby': 'prepare-varies-title' }, list.map((v) => el('li', {},
        el('a', { href: lineLink(v.line), dataset: { pageLink: '' } }, v.line.length ? `after ${lineText(v.line)}` : 'at the start'),
        `: ${v.moves.map((m) => `${m.san} ${Math.round(m.share)}%`).join(', ')} (${plural(v.games, 'game')})`))));
  }

  function show({ db, name, color, fen }) {
    for (const b of buttons) b.setAttribute('aria-pressed', String(b.id === `prepare-${color}`));
    if (!color) {
      shown = null;
      loader.error('');
      body.replaceChildren(el('p', { className: 'muted' }, 'Choose a colour to see their moves and their opponents’ replies.'));
      return;
    }
    const key = `${db || ''}|${name}|${color}`;
    const prep = answers.get(key);
    if (prep) {
      if (!shown || shown.key !== key || shown.fen !== fen) draw(prep, fen, color);
      shown = { key, fen };
      return;
    }
    const params = { db, player: name, color };
    loader.load(key, (signal) => getJson('/api/prepare', params, { signal }), (answer) => {
      answers.set(key, answer);
      show({ db, name, color, fen: boardFen });
    }, () => body.replaceChildren());
  }

  return {
    element,
    show(args) {
      boardFen = args.fen;
      show(args);
    },
  };
}
