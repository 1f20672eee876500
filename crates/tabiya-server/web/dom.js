// Small DOM helpers shared by the page's modules.
//
//   el('td', { className: 'num', title: '…' }, 'text', childNode)  -> an element
//   fmt(12345) -> '12,345'      pct(0.4675) -> '46.8%'

export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'className' || k === 'textContent' || k === 'hidden' || k === 'type' || k === 'value' || k === 'href') node[k] = v;
    else if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : String(c));
  }
  return node;
}

// (Not toLocaleString: starting Intl costs tens of milliseconds on the first table.)
export const fmt = (n) => (n === null || n === undefined ? '–'
  : String(Math.round(Number(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ','));

export function pct(x, digits = 1) {
  if (x === null || x === undefined || Number.isNaN(x)) return '–';
  return `${(x * 100).toFixed(digits)}%`;
}

// A share of a total as a whole percentage ('<1%' for small non-zero shares).
export function share(n, total) {
  if (!total) return '';
  const p = (n * 100) / total;
  return p > 0 && p < 1 ? '<1%' : `${Math.round(p)}%`;
}

// A PGN result in words, and as the page writes it.
export function resultWords(result) {
  return { '1-0': 'White won', '0-1': 'Black won', '1/2-1/2': 'draw', '*': 'no result' }[result] || '';
}

export function resultText(result) {
  return result === '1/2-1/2' ? '½–½' : result === '1-0' ? '1–0' : result === '0-1' ? '0–1' : result || '*';
}

// A list of games whose whole row opens the game: a click anywhere in a row (but on a link,
// button or field of its own, or at the end of a text selection) clicks the row's game link,
// a[data-game], whose own handlers open it.
export function rowsOpenGames(tbody) {
  tbody.classList.add('rows-open-games');
  tbody.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.target.closest('a, button, input, select, label')) return;
    if (String(globalThis.getSelection?.() || '')) return;
    const link = e.target.closest('tr')?.querySelector('a[data-game]');
    if (link) link.click();
  });
  return tbody;
}
