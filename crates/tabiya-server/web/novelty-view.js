// A stored game's novelty in the game viewer (/api/novelty, ChessBase's "N"): the move that
// first led where no earlier game of the database went gets an "N", each main-line move
// shows how many earlier games reached the position after it (small, beside the move, and
// in its label for screen readers), and a line names the novelty and the last known move.
//
//   showNovelty(line, movetext, report, { label(path), onSelect(path) })
//     line: the <p> above the moves that says it; movetext: the viewer's move list (its
//     main-line buttons carry data-path="N" for ply N); report: /api/novelty's answer
//   noveltyText(report, label) -> 'Novelty: 14. Nd5 — last known 13… Be7 (34 earlier games)'
//     (pure: tested under Node)

import { el, fmt } from './dom.js';

const games = (n) => `${fmt(n)} earlier game${n === 1 ? '' : 's'}`;

export function noveltyText(report, label) {
  const n = report.novelty;
  if (!n) return 'No novelty: every position of the game was reached by earlier games.';
  const k = report.last_known;
  return `Novelty: ${label(String(n.ply))}${k ? ` — last known ${label(String(k.ply))} (${games(k.earlier)})` : ' — no earlier game reached the position after it'}`;
}

export function showNovelty(line, movetext, report, { label, onSelect }) {
  const novelty = report.novelty ? report.novelty.ply : null;
  for (const p of report.plies) {
    const b = movetext.querySelector(`button.mv[data-path="${p.ply}"]`);
    if (!b) continue;
    b.dataset.earlier = String(p.earlier);
    b.title = `${games(p.earlier)} reached the position after this move`;
    b.setAttribute('aria-label', `${b.getAttribute('aria-label')}, ${p.ply === novelty ? 'novelty, ' : ''}${games(p.earlier)}`);
    // Counts while the game is still in the database, and wherever it comes back to it.
    if (novelty === null || p.ply < novelty || p.earlier > 0) {
      b.append(el('span', { className: 'mv-earlier', 'aria-hidden': 'true' }, fmt(p.earlier)));
    }
    if (p.ply === novelty) {
      b.classList.add('is-novelty');
      b.append(el('span', { className: 'novelty-mark', 'aria-hidden': 'true' }, 'N'));
    }
  }
  line.classList.remove('muted');
  if (!report.novelty) {
    line.replaceChildren(noveltyText(report, label));
    return;
  }
  const jump = el('button', { type: 'button', className: 'link-button', title: 'show the novelty on the board' }, label(String(novelty)));
  jump.addEventListener('click', () => onSelect(String(novelty)));
  const k = report.last_known;
  line.replaceChildren(el('span', { className: 'novelty-mark', 'aria-hidden': 'true' }, 'N'), ' Novelty: ', jump,
    k ? ` — last known ${label(String(k.ply))} (${games(k.earlier)})` : ' — no earlier game reached the position after it');
}
