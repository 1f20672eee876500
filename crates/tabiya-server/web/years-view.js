// "Results over time" under the explorer's moves: the position's games by year (/api/years,
// with the explorer's filters), each year's bar stacked white wins / draws / black wins, and
// the same for one of its moves, chosen in a list. A <details>, closed at first: nothing is
// asked for until it is opened, and once opened it stays open from position to position.
//
//   yearsPanel({ params })  -> <details id="years-panel">; params: /api/explore's (db, fen, play,
//                              the filters; top and recent are left out)
//   yearResultBars(years, { maxBars }) -> charts.js's stacked bars: a bar a year, first to last
//        (years without games included), or a bar per 2, 5, 10… years when there are more
//        years than bars; each bar's parts the results, its title the games and White's score
//   whiteScore({ white, draws, black }) -> White's share of the points (draws half), or null
//   (the last two are pure: tested under Node)

import { el, fmt, pct } from './dom.js';
import { getJson } from './api.js';

let wantOpen = false; // the reader's choice, kept from position to position
const answers = new Map(); // url -> /api/years's answer (the last few)

export function whiteScore({ white = 0, draws = 0, black = 0 }) {
  const n = white + draws + black;
  return n ? (white + draws / 2) / n : null;
}

const SPANS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000];

export function yearResultBars(years, { maxBars = 30 } = {}) {
  if (!years || !years.length) return [];
  const first = years[0].year;
  const last = years[years.length - 1].year;
  const span = SPANS.find((s) => Math.floor(last / s) - Math.floor(first / s) + 1 <= maxBars) || SPANS[SPANS.length - 1];
  const bars = [];
  const at = new Map();
  for (let from = Math.floor(first / span) * span; from <= last; from += span) {
    const label = span === 1 ? String(from) : `${from}–${from + span - 1}`;
    const b = { label, tick: String(from), white: 0, draws: 0, black: 0, unknown: 0 };
    at.set(from, b);
    bars.push(b);
  }
  for (const y of years) {
    const b = at.get(Math.floor(y.year / span) * span);
    for (const k of ['white', 'draws', 'black', 'unknown']) b[k] += y[k] || 0;
  }
  return bars.map((b) => {
    const value = b.white + b.draws + b.black + b.unknown;
    const score = whiteScore(b);
    return {
      label: b.label,
      tick: b.tick,
      value,
      parts: [
        { name: 'White won', value: b.white, className: 'white' },
        { name: 'Draws', value: b.draws, className: 'draws' },
        { name: 'Black won', value: b.black, className: 'black' },
        { name: 'No result', value: b.unknown, className: 'unknown' },
      ],
      score,
      title: `${b.label}: ${fmt(value)} game${value === 1 ? '' : 's'}`
        + (value ? `; White won ${fmt(b.white)}, ${fmt(b.draws)} drawn, Black won ${fmt(b.black)}` : '')
        + (score === null ? '' : `; White scored ${pct(score, 0)}`),
    };
  });
}

export function yearsPanel({ params }) {
  const { top, recent, ...asked } = params;
  const body = el('div', { className: 'extra-body' });
  const details = el('details', { className: 'explorer-extra', id: 'years-panel' },
    el('summary', {}, 'Results over time'), body);
  let loaded = false;
  const load = async () => {
    loaded = true;
    body.replaceChildren(el('p', { className: 'muted small' }, 'Counting the games by year…'));
    try {
      const key = JSON.stringify(asked);
      const [charts, data] = await Promise.all([import('./charts.js'), answers.get(key) || getJson('/api/years', asked)]);
      remember(key, data);
      body.replaceChildren(render(data, charts.barChart));
    } catch (e) {
      body.replaceChildren(el('p', { className: 'form-error', role: 'alert' }, `Cannot count the games by year: ${e.message}`));
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

// The chart of all the games, a list to choose a move's instead, the games without a year.
function render(data, barChart) {
  const out = el('div', {});
  const choices = [{ label: 'all games', years: data.years }, ...data.moves.map((m) => ({ label: m.san, years: m.years }))];
  const holder = el('div', {});
  const legend = () => el('p', { className: 'wdl-legend' },
    el('span', { className: 'white' }, 'White won'), el('span', { className: 'draws' }, 'Draws'),
    el('span', { className: 'black' }, 'Black won'));
  const draw = (i) => {
    const c = choices[i];
    const chart = barChart({
      id: 'position-years',
      title: i ? `Games by year after ${c.label}` : 'Games by year in this position',
      bars: yearResultBars(c.years),
      unit: 'games',
      labelHead: 'Year',
      columns: [{ head: 'White’s score', text: (b) => (b.score === null ? '–' : pct(b.score, 0)) }],
    });
    // The colours' legend under the drawing, above its numbers.
    const svg = chart.querySelector('svg');
    if (svg) svg.after(legend());
    holder.replaceChildren(chart);
  };
  if (choices.length > 2) {
    const select = el('select', { id: 'years-move' },
      choices.slice(0, 16).map((c, i) => el('option', { value: String(i) }, c.label)));
    select.addEventListener('change', () => draw(Number(select.value)));
    out.append(el('p', { className: 'toolbar' }, el('label', { for: 'years-move' }, 'Show '), select));
  }
  draw(0);
  out.append(holder);
  if (data.noYear) out.append(el('p', { className: 'muted small' }, `${fmt(data.noYear)} game${data.noYear === 1 ? ' has' : 's have'} no year.`));
  return out;
}
