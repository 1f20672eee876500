// The white/draw/black bar of style.css (.wdl-bar), from counts.
//
//   wdlBar({ white: 380, draws: 340, black: 280 }) -> <div class="wdl-bar">…</div>
//   wdlPercentages({ white, draws, black })         -> [38, 34, 28] (whole numbers adding up to 100)
//
// Each segment carries its percentage as text, <span class="wdl-bar__pct">; a label is hidden
// (wdl-bar__seg--narrow) when its segment is too narrow to hold it: below `narrowBelow` percent
// at first, then, once the bar is laid out, whenever the text is wider than its segment
// (measured again as the bar is resized), so labels are never clipped and never run into each
// other. The bar's accessible name and tooltip say all three, so it reads without colour and
// without the hidden labels.

export function wdlPercentages({ white = 0, draws = 0, black = 0 }) {
  const counts = [white, draws, black];
  const total = white + draws + black;
  if (!total) return [0, 0, 0];
  // Largest remainders, so the three shown numbers add up to 100.
  const exact = counts.map((n) => (n * 100) / total);
  const out = exact.map(Math.floor);
  const order = exact.map((x, i) => [x - Math.floor(x), i]).sort((a, b) => b[0] - a[0]);
  const missing = 100 - out.reduce((a, b) => a + b, 0);
  for (let k = 0; k < missing; k++) out[order[k][1]]++;
  return out;
}

const NAMES = ['white wins', 'draws', 'black wins'];
// 12345 -> '12,345' (as toLocaleString('en') writes it, without the cost of starting Intl:
// tens of milliseconds on the first call, on the page's first table).
const thousands = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const CLASSES = ['white', 'draws', 'black'];

// `names`: what the three shares are called in the bar's label, in the bar's order (a
// player's won / drawn / lost, say; the colours stay white, grey, black).
// `blackFirst`: Black's share first (Othello, where Black moves first): black, draws, white.
export function wdlBar(counts, { narrowBelow = 12, names, blackFirst = false } = {}) {
  const order = blackFirst ? [2, 1, 0] : [0, 1, 2];
  const inOrder = (xs) => order.map((i) => xs[i]);
  const shares = inOrder(wdlPercentages(counts));
  names = names || inOrder(NAMES);
  const classes = inOrder(CLASSES);
  const bar = document.createElement('div');
  bar.className = 'wdl-bar';
  bar.setAttribute('role', 'img');
  const total = (counts.white || 0) + (counts.draws || 0) + (counts.black || 0);
  const text = total
    ? shares.map((p, i) => `${names[i]} ${p}%`).join(', ') + ` (${thousands(total)} games)`
    : 'no games';
  bar.setAttribute('aria-label', text);
  bar.title = text;
  shares.forEach((p, i) => {
    if (!p) return;
    const seg = document.createElement('span');
    seg.className = `wdl-bar__seg wdl-bar__seg--${classes[i]}${p < narrowBelow ? ' wdl-bar__seg--narrow' : ''}`;
    seg.style.flexBasis = `${p}%`;
    seg.append(Object.assign(document.createElement('span'), { className: 'wdl-bar__pct', textContent: `${p}%` }));
    bar.append(seg);
  });
  if (typeof ResizeObserver === 'function') resizes().observe(bar);
  return bar;
}

// One observer for every bar: a segment's label is shown only when it fits (with a pixel to
// spare on each side).
let observer = null;
function resizes() {
  observer ??= new ResizeObserver((entries) => {
    for (const { target } of entries) fitLabels(target);
  });
  return observer;
}

export function fitLabels(bar) {
  if (!bar.isConnected || !bar.clientWidth) return;
  for (const seg of bar.querySelectorAll('.wdl-bar__seg')) {
    const label = seg.querySelector('.wdl-bar__pct');
    if (!label) continue;
    seg.classList.toggle('wdl-bar__seg--narrow', label.offsetWidth + 2 > seg.clientWidth);
  }
}
