// Bar charts drawn as inline SVG (no library), each with its numbers as text.
//
//   barChart({ id, title, bars: [{ label, tick?, value, title, className?, parts? }], unit: 'games',
//              note, columns? })
//     (tick: the bar's label under the axis when shorter than its label, e.g. a span's first year;
//     parts: [{ name, value, className }] stacked from the axis up, each a column of the table;
//     columns: [{ head, text(bar) }] more columns of the table, e.g. a score)
//     -> <figure class="chart" id=…>: a heading, the chart (role="img", its aria-label saying
//        what it shows, with the numbers when there are few bars), and a table of every
//        bar's number (in a <details>, "Numbers"), so it reads without sight or colour.
//
// The SVG scales to its box (viewBox, narrower on a narrow screen so that its text stays
// readable); bars carry a <title> (a tooltip: the bar's numbers).

import { el } from './dom.js';
import { niceScale, thousands } from './stats-data.js';

const NS = 'http://www.w3.org/2000/svg';
// The drawing's width: narrower on a phone, where it is shown narrower.
const width = () => (typeof window !== 'undefined' && window.innerWidth < 600 ? 380 : 640);
const H = 240;
const M = { top: 12, right: 8, bottom: 40, left: 56 };
// Bars whose numbers the chart's label says in full; more are summed up.
const SAID_IN_FULL = 12;

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  for (const c of children) node.append(c);
  return node;
}

// Short axis numbers: 1200 -> 1.2k, 2500000 -> 2.5M.
function axisNumber(n) {
  if (n >= 1e6) return `${+(n / 1e6).toFixed(1)}M`;
  if (n >= 1e4) return `${+(n / 1e3).toFixed(0)}k`;
  if (n >= 1e3) return `${+(n / 1e3).toFixed(1)}k`;
  return String(n);
}

function ariaLabel(title, bars, unit) {
  const total = bars.reduce((a, b) => a + b.value, 0);
  if (bars.length <= SAID_IN_FULL) {
    return `${title}: ${bars.map((b) => `${b.label} ${thousands(b.value)}`).join(', ')} (${unit})`;
  }
  const top = bars.reduce((a, b) => (b.value > a.value ? b : a), bars[0]);
  return `${title}: ${bars.length} bars from ${bars[0].label} to ${bars[bars.length - 1].label}, `
    + `${thousands(total)} ${unit} in all, the most at ${top.label} (${thousands(top.value)}); the numbers follow in a table`;
}

function drawing(bars, { title, unit }) {
  const W = width();
  const max = Math.max(0, ...bars.map((b) => b.value));
  const { top, step } = niceScale(max);
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const slot = plotW / Math.max(1, bars.length);
  const gap = Math.min(6, slot * 0.2);
  const y = (v) => M.top + plotH - (v / top) * plotH;
  const root = svg('svg', {
    class: 'chart__svg', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': ariaLabel(title, bars, unit),
    preserveAspectRatio: 'xMidYMid meet',
  });
  const grid = svg('g', { class: 'chart__grid', 'aria-hidden': 'true' });
  for (let v = 0; v <= top; v += step) {
    grid.append(svg('line', { x1: M.left, x2: W - M.right, y1: y(v), y2: y(v) }));
    grid.append(svg('text', { x: M.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, axisNumber(v)));
  }
  root.append(grid);
  const marks = svg('g', { class: 'chart__bars' });
  // Labels under every bar when they fit, else under every k-th.
  const tick = (b) => b.tick || b.label;
  const widest = Math.max(1, ...bars.map((b) => tick(b).length)) * 7 + 8;
  const every = Math.max(1, Math.ceil((bars.length * widest) / plotW));
  bars.forEach((b, i) => {
    const x = M.left + i * slot + gap / 2;
    const h = (b.value / top) * plotH;
    const w = Math.max(1, slot - gap).toFixed(2);
    const tip = svg('title', {}, b.title || `${b.label}: ${thousands(b.value)}`);
    if (b.parts) {
      // A stack: its parts from the axis up, one tooltip for the whole bar.
      const stack = svg('g', { class: 'chart__stack', 'data-label': b.label, 'data-value': b.value }, tip);
      let below = 0;
      for (const p of b.parts) {
        if (!p.value) continue;
        const ph = (p.value / top) * plotH;
        stack.append(svg('rect', {
          class: `chart__bar${p.className ? ` chart__bar--${p.className}` : ''}`,
          x: x.toFixed(2), y: (M.top + plotH - below - ph).toFixed(2), width: w, height: ph.toFixed(2),
        }));
        below += ph;
      }
      marks.append(stack);
    } else {
      marks.append(svg('rect', {
        class: `chart__bar${b.className ? ` chart__bar--${b.className}` : ''}`,
        x: x.toFixed(2), y: (M.top + plotH - h).toFixed(2), width: w, height: h.toFixed(2),
        'data-label': b.label, 'data-value': b.value,
      }, tip));
    }
    if (i % every === 0) {
      marks.append(svg('text', {
        class: 'chart__label', x: (x + (slot - gap) / 2).toFixed(2), y: H - M.bottom + 16, 'text-anchor': 'middle', 'aria-hidden': 'true',
      }, tick(b)));
    }
  });
  root.append(marks);
  root.append(svg('line', { class: 'chart__axis', x1: M.left, x2: W - M.right, y1: y(0), y2: y(0), 'aria-hidden': 'true' }));
  return root;
}

function numbers(bars, { id, title, unit, labelHead, columns }) {
  const parts = (bars.find((b) => b.parts) || { parts: [] }).parts.map((p) => p.name);
  return el('details', { className: 'chart__numbers' },
    el('summary', {}, 'Numbers'),
    el('table', { className: 'list-table chart__table', id: `${id}-table` },
      el('caption', { className: 'visually-hidden' }, title),
      el('thead', {}, el('tr', {},
        el('th', { scope: 'col' }, labelHead),
        el('th', { scope: 'col', className: 'num' }, unit[0].toUpperCase() + unit.slice(1)),
        parts.map((name) => el('th', { scope: 'col', className: 'num' }, name)),
        columns.map((c) => el('th', { scope: 'col', className: 'num' }, c.head)))),
      el('tbody', {}, bars.map((b) => el('tr', { dataset: { label: b.label } },
        el('th', { scope: 'row' }, b.label),
        el('td', { className: 'num' }, thousands(b.value)),
        parts.map((_, k) => el('td', { className: 'num' }, thousands(b.parts ? b.parts[k].value : 0))),
        columns.map((c) => el('td', { className: 'num' }, c.text(b))))))));
}

export function barChart({ id, title, bars, unit = 'games', labelHead = '', note = null, columns = [] }) {
  const titleId = `${id}-title`;
  const figure = el('figure', { className: 'chart', id, 'aria-labelledby': titleId },
    el('h3', { id: titleId, className: 'chart__title' }, title));
  if (!bars.length || bars.every((b) => !b.value)) {
    figure.append(el('p', { className: 'empty' }, `No ${unit}.`));
  } else {
    figure.append(drawing(bars, { title, unit }));
    figure.append(numbers(bars, { id, title, unit, labelHead, columns }));
  }
  if (note) figure.append(el('p', { className: 'muted small chart__note' }, note));
  return figure;
}
