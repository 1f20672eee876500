// The player page: one player's card from /api/player.
//
//   renderPlayerCard(card, { links: { white, black, games, opening(o) } })  -> a DocumentFragment
//     card: { name?, names, games, white: { games, wins, draws, losses, unknown }, black: {...},
//             firstYear, lastYear, ratingMin, ratingMax, openings: [{ eco, name, uci, games }] }
//     links: hrefs (with data-player-link set, so the page opens them in place) of the
//            explorer filtered to the player as White, as Black, of the player's games, and
//            of an opening's (the explorer at its position, filtered to the player; null: no link)
//
// Results by colour are numbers and a bar from the player's side whatever the colour: won
// (light), drawn (grey), lost (dark), headed and labelled so ("won 45%, drawn 30%, lost 25%").

import { el, fmt } from './dom.js';
import { wdlBar } from './wdl-bar.js';

function years(card) {
  if (!card.firstYear) return null;
  return card.firstYear === card.lastYear ? `${card.firstYear}` : `${card.firstYear}–${card.lastYear}`;
}

function ratings(card) {
  if (!card.ratingMin) return null;
  return card.ratingMin === card.ratingMax ? `${card.ratingMin}` : `${card.ratingMin}–${card.ratingMax}`;
}

// Points scored per game decided or drawn, as a percentage.
function score(s) {
  const played = s.wins + s.draws + s.losses;
  return played ? `${Math.round(((s.wins + s.draws / 2) * 100) / played)}%` : '–';
}

function resultsTable(card) {
  const w = card.white;
  const b = card.black;
  const all = {
    games: w.games + b.games, wins: w.wins + b.wins, draws: w.draws + b.draws,
    losses: w.losses + b.losses, unknown: w.unknown + b.unknown,
  };
  const unknown = all.unknown > 0;
  // The bar from the player's side whatever the colour: won (light), drawn, lost (dark).
  const row = (label, s, scope = 'row') => el('tr', {},
    el('th', { scope }, label),
    el('td', { className: 'num' }, fmt(s.games)),
    el('td', { className: 'num' }, fmt(s.wins)),
    el('td', { className: 'num' }, fmt(s.draws)),
    el('td', { className: 'num' }, fmt(s.losses)),
    unknown ? el('td', { className: 'num' }, fmt(s.unknown)) : null,
    el('td', { className: 'num' }, score(s)),
    el('td', { className: 'bar hide-narrow' }, s.games
      ? wdlBar({ white: s.wins, draws: s.draws, black: s.losses }, { names: ['won', 'drawn', 'lost'] }) : null));
  return el('table', { className: 'list-table player-results', id: 'player-results' },
    el('caption', { className: 'visually-hidden' }, 'Results by colour, from the player’s side'),
    el('thead', {}, el('tr', {},
      el('th', { scope: 'col' }, 'As'),
      el('th', { scope: 'col', className: 'num' }, 'Games'),
      el('th', { scope: 'col', className: 'num' }, 'Won'),
      el('th', { scope: 'col', className: 'num' }, 'Drawn'),
      el('th', { scope: 'col', className: 'num' }, 'Lost'),
      unknown ? el('th', { scope: 'col', className: 'num', title: 'games without a result' }, 'No result') : null,
      el('th', { scope: 'col', className: 'num', title: 'points per game won, drawn or lost' }, 'Score'),
      el('th', { scope: 'col', className: 'hide-narrow', title: 'from the player’s side: won (white), drawn (grey), lost (black)' }, 'Won / drawn / lost'))),
    el('tbody', {},
      row(el('span', {}, el('span', { className: 'side-mark side-mark--white', 'aria-hidden': 'true' }), 'White'), w),
      row(el('span', {}, el('span', { className: 'side-mark side-mark--black', 'aria-hidden': 'true' }), 'Black'), b)),
    el('tfoot', {}, row('Both', all)));
}

function openingsTable(card, links) {
  if (!card.openings.length) return el('p', { className: 'empty' }, 'No named opening in these games.');
  return el('table', { className: 'list-table player-openings', id: 'player-openings' },
    el('caption', { className: 'visually-hidden' }, 'Openings most played'),
    el('thead', {}, el('tr', {},
      el('th', { scope: 'col' }, 'ECO'),
      el('th', { scope: 'col' }, 'Opening'),
      el('th', { scope: 'col', className: 'num' }, 'Games'))),
    el('tbody', {}, card.openings.map((o) => el('tr', {},
      el('td', { className: 'eco-cell' }, el('abbr', { className: 'eco', title: 'ECO code' }, o.eco)),
      el('th', { scope: 'row', className: 'opening-cell' }, openingLink(o, links)),
      el('td', { className: 'num' }, fmt(o.games))))));
}

// An opening's name, a link to the explorer at its position filtered to the player.
function openingLink(o, links) {
  const href = links.opening ? links.opening(o) : null;
  return href ? el('a', {
    href, dataset: { playerLink: '', uci: o.uci }, title: 'the explorer at this opening, the player’s games',
  }, o.name) : o.name;
}

export function renderPlayerCard(card, { links }) {
  const out = document.createDocumentFragment();
  // The player's name (the database's entry for them, when it names one), and the other
  // spellings their games use.
  const name = card.name || card.names[0];
  const others = card.names.filter((n) => n !== name);
  const facts = [
    `${fmt(card.games)} game${card.games === 1 ? '' : 's'}`,
    years(card),
    ratings(card) ? `rated ${ratings(card)}` : null,
  ].filter(Boolean);
  const link = (href, text, id) => el('a', { href, id, className: 'button-link', dataset: { playerLink: '' } }, text);
  out.append(el('header', { className: 'player-head' },
    el('h2', { id: 'player-title' }, name),
    others.length ? el('p', { className: 'muted small' }, `Also written ${others.join(', ')}`) : null,
    el('p', { className: 'player-facts', id: 'player-facts' }, facts.join(' · ')),
    el('div', { className: 'toolbar player-actions' },
      link(links.white, 'Explore as White', 'player-explore-white'),
      link(links.black, 'Explore as Black', 'player-explore-black'),
      link(links.games, 'Games', 'player-games'))));
  out.append(el('section', { className: 'player-section', 'aria-labelledby': 'player-results-title' },
    el('h3', { id: 'player-results-title' }, 'Results'),
    resultsTable(card)));
  out.append(el('section', { className: 'player-section', 'aria-labelledby': 'player-openings-title' },
    el('h3', { id: 'player-openings-title' }, 'Openings most played'),
    openingsTable(card, links)));
  return out;
}
