// The statistics view's numbers shaped into bars (pure: no DOM, tested under Node).
//
//   niceScale(1820)                      -> { top: 2000, step: 500 }   (the value axis)
//   yearBars(years, { maxBars: 48 })     -> [{ label: '1988', tick: '1988', value: 136, title }]:
//        one bar a year from the first to the last (years without games included), or a bar
//        per 5, 10, 20, 50… years when there are more years than bars (label '1845–1849',
//        tick '1845')
//   ratingBars(ratings, { maxBars: 40 }) -> a bar per bin from the lowest to the highest
//        (empty bins included) unless that is too many: then the bins holding ratings only
//   resultBars(results, kind)            -> white wins, draws, black wins, no result
//        (Othello: black first, as it moves first)
//   speedBars(speeds)                    -> a bar per time-control class, then unknown
//   bytesText(2109440)                   -> '2.0 MB'
//   thousands(12345)                     -> '12,345'

export const thousands = (n) => String(Math.round(Number(n) || 0)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

// A round top for an axis holding `max`, and a step giving about `ticks` lines.
export function niceScale(max, ticks = 4) {
  if (!(max > 0)) return { top: 1, step: 1 };
  const raw = max / ticks;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((f) => f * mag).find((s) => s >= raw);
  const clean = Math.max(1, Math.round(step));
  const top = Math.ceil(max / clean) * clean;
  return { top, step: clean };
}

const games = (n) => `${thousands(n)} game${n === 1 ? '' : 's'}`;

const SPANS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000];

export function yearBars(years, { maxBars = 48 } = {}) {
  if (!years || !years.length) return [];
  const first = years[0].year;
  const last = years[years.length - 1].year;
  const span = SPANS.find((s) => Math.floor(last / s) - Math.floor(first / s) + 1 <= maxBars) || SPANS[SPANS.length - 1];
  const by = new Map(years.map((y) => [y.year, y.games]));
  const bars = [];
  for (let from = Math.floor(first / span) * span; from <= last; from += span) {
    let value = 0;
    for (let y = from; y < from + span; y++) value += by.get(y) || 0;
    const to = from + span - 1;
    const label = span === 1 ? `${from}` : `${from}–${to}`;
    bars.push({ label, tick: `${from}`, value, title: `${label}: ${games(value)}` });
  }
  return bars;
}

export function ratingBars(ratings, { maxBars = 40 } = {}) {
  if (!ratings || !ratings.bins.length) return [];
  const width = ratings.binWidth || 100;
  const bins = ratings.bins;
  const lo = bins[0].from;
  const hi = bins[bins.length - 1].from;
  const by = new Map(bins.map((b) => [b.from, b.ratings]));
  const froms = (hi - lo) / width + 1 <= maxBars
    ? Array.from({ length: (hi - lo) / width + 1 }, (_, i) => lo + i * width)
    : bins.map((b) => b.from);
  return froms.map((from) => {
    const value = by.get(from) || 0;
    return {
      label: `${from}`,
      value,
      title: `${from}–${from + width - 1}: ${thousands(value)} rating${value === 1 ? '' : 's'}`,
    };
  });
}

export function resultBars(results, kind = 'chess') {
  const chess = kind === 'chess';
  const bars = [
    { key: 'white', label: chess ? '1–0' : 'White won', words: 'White won', className: 'white' },
    { key: 'draws', label: chess ? '½–½' : 'Draw', words: 'draws', className: 'draws' },
    { key: 'black', label: chess ? '0–1' : 'Black won', words: 'Black won', className: 'black' },
    { key: 'unknown', label: chess ? '*' : 'No result', words: 'no result', className: 'unknown' },
  ];
  if (!chess) bars.unshift(bars.splice(2, 1)[0]);
  return bars
    .filter((b) => b.key !== 'unknown' || results.unknown > 0)
    .map((b) => ({
      label: b.label, value: results[b.key] || 0, className: b.className,
      title: `${b.words}: ${games(results[b.key] || 0)}`,
    }));
}

const SPEED_NAMES = {
  ultraBullet: 'UltraBullet', bullet: 'Bullet', blitz: 'Blitz', rapid: 'Rapid',
  classical: 'Classical', correspondence: 'Correspondence',
};

export function speedBars(speeds) {
  if (!speeds) return [];
  const bars = speeds.classes.map((c) => ({
    label: SPEED_NAMES[c.speed] || c.speed, value: c.games, title: `${SPEED_NAMES[c.speed] || c.speed}: ${games(c.games)}`,
  }));
  bars.push({ label: 'Unknown', value: speeds.unknown, title: `no readable TimeControl: ${games(speeds.unknown)}`, className: 'unknown' });
  return bars;
}

export function bytesText(n) {
  if (!(n >= 0)) return '–';
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}
