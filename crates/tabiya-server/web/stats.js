// The statistics view (view=stats): what a database holds, from /api/stats.
//
//   renderStats(stats, { db, links: { opening(o), player(name), event(name), gameset(name) } }) -> a DocumentFragment
//     links: hrefs for an opening's row (the explorer at its position), a player's (the
//     player page; Othello: the games filtered to the player) and an event's (the games of
//     the event; Othello: of the tournament; null: no link); each carries data-page-link so
//     the page opens it in place
//
// Charts (charts.js) for games by result, by year, by time control and the ratings; tables
// for the openings most reached, the players and events with the most games, the positions
// by kind and the parts of the file.

import { el, fmt } from './dom.js';
import { barChart } from './charts.js';
import { yearBars, ratingBars, resultBars, speedBars, bytesText } from './stats-data.js';

function section(id, title, ...content) {
  return el('section', { className: 'stats-section', id, 'aria-labelledby': `${id}-title` },
    el('h3', { id: `${id}-title` }, title), ...content);
}

function link(href, text) {
  return href ? el('a', { href, dataset: { pageLink: '' } }, text) : text;
}

function namesTable(id, caption, rows, { head, href }) {
  if (!rows.length) return el('p', { className: 'empty' }, 'None named.');
  return el('table', { className: 'list-table stats-table', id },
    el('caption', { className: 'visually-hidden' }, caption),
    el('thead', {}, el('tr', {},
      el('th', { scope: 'col', className: 'num' }, '#'),
      el('th', { scope: 'col' }, head),
      el('th', { scope: 'col', className: 'num' }, 'Games'))),
    el('tbody', {}, rows.map((r, i) => el('tr', {},
      el('td', { className: 'num muted' }, String(i + 1)),
      el('th', { scope: 'row' }, link(href(r.name), r.name)),
      el('td', { className: 'num' }, fmt(r.games))))));
}

function gamesetsTable(sets, href) {
  if (!sets.length) return el('p', { className: 'empty' }, 'No gameset (tabiya gameset create NAME --where "…").');
  return el('table', { className: 'list-table stats-table', id: 'stats-gamesets-table' },
    el('caption', { className: 'visually-hidden' }, 'Gamesets'),
    el('thead', {}, el('tr', {},
      el('th', { scope: 'col' }, 'Gameset'),
      el('th', { scope: 'col' }, 'Criteria'),
      el('th', { scope: 'col', className: 'num' }, 'Games'))),
    el('tbody', {}, sets.map((g) => el('tr', {},
      el('th', { scope: 'row' }, link(href(g.name), g.name)),
      el('td', { className: 'small' }, el('code', {}, g.criteria),
        g.parent ? el('span', { className: 'muted' }, ` (from ${g.parent})`) : null),
      el('td', { className: 'num' }, fmt(g.games))))));
}

function openingsTable(openings, href) {
  if (!openings.length) return el('p', { className: 'empty' }, 'No game reaches a named opening.');
  return el('table', { className: 'list-table stats-table', id: 'stats-openings-table' },
    el('caption', { className: 'visually-hidden' }, 'Named openings most reached'),
    el('thead', {}, el('tr', {},
      el('th', { scope: 'col' }, 'ECO'),
      el('th', { scope: 'col' }, 'Opening'),
      el('th', { scope: 'col', className: 'num' }, 'Games'))),
    el('tbody', {}, openings.map((o) => el('tr', { dataset: { uci: o.uci } },
      el('td', { className: 'eco-cell' }, el('abbr', { className: 'eco', title: 'ECO code' }, o.eco)),
      el('th', { scope: 'row', className: 'opening-cell' },
        el('a', { href: href(o), dataset: { pageLink: '' }, title: `explore ${o.line}` }, o.name),
        el('span', { className: 'muted small stats-line' }, ` ${o.line}`)),
      el('td', { className: 'num' }, fmt(o.games))))));
}

function share(n, total) {
  return total ? `${((n * 100) / total).toFixed(1)}%` : '';
}

function positionsTable(s) {
  const k = s.positionKinds;
  const rows = [
    ['In the opening tree (T records)', k.tree, `positions reached by at least ${s.promoteAt} games of their run`],
    ['Single (S entries)', k.single, 'one entry for one game’s rarer position'],
    ['Implicit', k.implicit, 'kept by no entry: the next position’s entry stands for them'],
  ];
  return el('table', { className: 'list-table stats-table', id: 'stats-positions-table' },
    el('caption', { className: 'visually-hidden' }, 'Positions counted, by where the index keeps them'),
    el('thead', {}, el('tr', {},
      el('th', { scope: 'col' }, 'Kept'),
      el('th', { scope: 'col', className: 'num' }, 'Positions'),
      el('th', { scope: 'col', className: 'num' }, 'Share'))),
    el('tbody', {}, rows.map(([name, n, what]) => el('tr', {},
      el('th', { scope: 'row', title: what }, name),
      el('td', { className: 'num' }, fmt(n)),
      el('td', { className: 'num' }, share(n, s.positions))))),
    el('tfoot', {}, el('tr', {},
      el('th', { scope: 'row' }, 'Counted'),
      el('td', { className: 'num' }, fmt(s.positions)),
      el('td', { className: 'num' }, ''))));
}

function partsTable(s) {
  return el('table', { className: 'list-table stats-table', id: 'stats-parts-table' },
    el('caption', { className: 'visually-hidden' }, 'Bytes on disk by part'),
    el('thead', {}, el('tr', {},
      el('th', { scope: 'col' }, 'Part'),
      el('th', { scope: 'col', className: 'num' }, 'On disk'),
      el('th', { scope: 'col', className: 'num' }, 'Bytes a game'))),
    el('tbody', {}, s.parts.map((p) => el('tr', {},
      el('th', { scope: 'row', title: `tables: ${p.tables.join(', ')}` }, p.name),
      el('td', { className: 'num', title: `${fmt(p.bytes)} bytes` }, bytesText(p.bytes)),
      el('td', { className: 'num' }, fmt(p.bytesPerGame))))),
    el('tfoot', {}, el('tr', {},
      el('th', { scope: 'row' }, 'The file'),
      el('td', { className: 'num', title: `${fmt(s.fileBytes)} bytes` }, bytesText(s.fileBytes)),
      el('td', { className: 'num' }, fmt(s.bytesPerGame)))));
}

export function renderStats(s, { db, links }) {
  const out = document.createDocumentFragment();
  const chess = s.kind === 'chess';
  const facts = [
    `${fmt(s.games)} ${chess ? 'chess' : 'Othello'} game${s.games === 1 ? '' : 's'}`,
    `${fmt(s.positions)} positions in them (about ${fmt(s.distinctPositions)} different)`,
    chess ? `${fmt(s.players)} player and ${fmt(s.events)} event names` : null,
    chess ? `${fmt(s.notes)} note${s.notes === 1 ? '' : 's'}` : null,
    chess ? `${fmt(s.gamesets.length)} gameset${s.gamesets.length === 1 ? '' : 's'}` : null,
    chess ? `${fmt(s.cards)} flashcard${s.cards === 1 ? '' : 's'}` : null,
    `${bytesText(s.fileBytes)} on disk (${fmt(s.bytesPerGame)} bytes a game)`,
  ].filter(Boolean);
  out.append(el('header', { className: 'stats-head' },
    el('h2', { id: 'stats-title' }, `Statistics of ${db}`),
    el('p', { className: 'muted', id: 'stats-facts' }, facts.join(' · '))));
  const charts = el('div', { className: 'stats-grid' });
  charts.append(barChart({
    id: 'stats-results', title: 'Games by result', labelHead: 'Result', bars: resultBars(s.results, s.kind),
  }));
  charts.append(barChart({
    id: 'stats-years', title: 'Games by year', labelHead: 'Years', bars: yearBars(s.years),
    note: s.noYear ? `${fmt(s.noYear)} game${s.noYear === 1 ? ' has' : 's have'} no year.` : null,
  }));
  if (s.ratings) {
    const r = s.ratings;
    charts.append(barChart({
      id: 'stats-ratings', title: 'Players’ ratings', unit: 'ratings', labelHead: `From (${r.binWidth} points)`,
      bars: ratingBars(r),
      note: `Each game’s White and Black rating, in bins of ${r.binWidth} points: ${fmt(r.gamesBothRated)} games with both, `
        + `${fmt(r.gamesOneRated)} with one, ${fmt(r.gamesUnrated)} without ratings.`,
    }));
  }
  if (s.speeds && s.speeds.classes.some((c) => c.games)) {
    charts.append(barChart({
      id: 'stats-speeds', title: 'Games by time control', labelHead: 'Class', bars: speedBars(s.speeds),
      note: 'Classes of the TimeControl tag by Lichess’s rule.',
    }));
  } else if (s.speeds) {
    charts.append(section('stats-speeds', 'Games by time control',
      el('p', { className: 'empty' }, 'No game has a TimeControl tag that gives its class.')));
  }
  out.append(charts);
  const tables = el('div', { className: 'stats-grid' });
  if (s.topOpenings) {
    tables.append(section('stats-openings', 'Named openings most reached',
      el('p', { className: 'muted small' }, 'Games reaching each named position by any move order; a game counts for every named position it passes.'),
      openingsTable(s.topOpenings, links.opening)));
  }
  tables.append(section('stats-players', 'Players with the most games',
    namesTable('stats-players-table', 'Players with the most games', s.topPlayers, { head: 'Player', href: links.player })));
  tables.append(section('stats-events', chess ? 'Events with the most games' : 'Tournaments with the most games',
    namesTable('stats-events-table', chess ? 'Events with the most games' : 'Tournaments with the most games', s.topEvents,
      { head: chess ? 'Event' : 'Tournament', href: links.event })));
  if (chess) {
    tables.append(section('stats-gamesets', 'Gamesets',
      gamesetsTable(s.gamesets, links.gameset)));
  }
  out.append(tables);
  // How the index keeps its positions and what each part of the file takes: for the curious,
  // closed (the index's own words, T records and S entries, are only here).
  out.append(el('details', { className: 'stats-storage', id: 'stats-storage' },
    el('summary', {}, 'Storage: how the positions are kept, the file’s parts'),
    el('div', { className: 'stats-grid' },
      section('stats-positions', 'Positions by kind',
        positionsTable(s),
        el('p', { className: 'muted small' },
          `${fmt(s.treePositions)} distinct positions in the tree; ${s.runs} index run${s.runs === 1 ? '' : 's'}.`)),
      section('stats-parts', 'On disk', partsTable(s)))));
  return out;
}
