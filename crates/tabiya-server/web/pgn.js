// What a user pastes: a FEN, a PGN (its main line becomes the line played) or a plain list
// of moves; and single moves written as UCI or SAN, leniently (e4, Nxf3+, exd8=Q, 0-0, e2e4).
//
//   parsePaste(text) -> { fen: FEN | null, moves: ['e2e4', ...] }   (throws Error, saying why)
//   resolveMove(fen, 'Nf3') -> a move of chess-rules.js's legalMoves(), or null

import { START_FEN, legalMoves, parseFen, parseSquare, play } from './chess-rules.js';

const RESULT = /^(1-0|0-1|1\/2-1\/2|½-½|\*)$/;

export function resolveMove(fen, token) {
  const moves = legalMoves(fen);
  const t = String(token).trim().replace(/[!?+#]+$/, '').replace(/^0-0-0$/, 'O-O-O').replace(/^0-0$/, 'O-O');
  if (/^[a-h][1-8][a-h][1-8][qrbn]?$/i.test(t)) {
    const uci = t.toLowerCase();
    const m = moves.find((x) => x.uci === uci);
    if (m) return m;
    // The other castling notation (king takes rook, or king to target).
    return moves.find((x) => x.castle && x.from === uci.slice(0, 2) && (x.rook === uci.slice(2, 4) || x.to === uci.slice(2, 4))) || null;
  }
  const plain = (s) => s.replace(/[+#x=:-]/g, '').replace(/^OO(O?)$/, 'O-O$1');
  const exact = moves.filter((m) => plain(m.san) === plain(t));
  if (exact.length === 1) return exact[0];
  const r = /^([NBRQK])?([a-h])?([1-8])?[x:]?-?([a-h][1-8])=?([NBRQnbrq])?$/.exec(t);
  if (!r) return null;
  const board = parseFen(fen).board;
  const piece = r[1] || 'P';
  const found = moves.filter((m) => !m.castle && m.to === r[4]
    && board[parseSquare(m.from)].toUpperCase() === piece
    && (!r[2] || m.from[0] === r[2]) && (!r[3] || m.from[1] === r[3])
    && (m.promotion || '') === (r[5] || '').toLowerCase());
  return found.length === 1 ? found[0] : null;
}

export function looksLikeFen(text) {
  const t = text.trim();
  return !t.includes('[') && !/\d\s*\./.test(t) && t.split(/\s+/)[0].includes('/');
}

// The main line of a PGN's first game (or of a bare list of moves), as UCI from its start.
export function parsePaste(text) {
  const t = String(text || '').replace(/^\uFEFF/, '').trim();
  if (!t) throw new Error('nothing to load: paste a FEN, a PGN or moves');
  if (looksLikeFen(t)) {
    parseFen(t); // throws "bad FEN (...)"
    return { fen: t.split(/\s+/).length < 4 ? completeFen(t) : t, moves: [] };
  }
  const tags = {};
  for (const m of t.matchAll(/\[\s*(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]/g)) {
    if (!(m[1] in tags)) tags[m[1]] = m[2].replace(/\\(.)/g, '$1');
  }
  let movetext = t.replace(/\[\s*\w+\s+"(?:[^"\\]|\\.)*"\s*\]/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/;[^\n]*/g, ' ')
    .replace(/^%[^\n]*/gm, ' ');
  // Variations, innermost first.
  for (let before = ''; before !== movetext;) {
    before = movetext;
    movetext = movetext.replace(/\([^()]*\)/g, ' ');
  }
  const tokens = movetext.replace(/\$\d+/g, ' ').replace(/\d+\s*\.(\s*\.\.)?|\.\.\./g, ' ').split(/\s+/).filter(Boolean);
  let fen = START_FEN;
  if (tags.FEN) {
    try {
      parseFen(tags.FEN);
    } catch (e) {
      throw new Error(`the PGN's FEN tag: ${e.message}`);
    }
    fen = tags.FEN;
  }
  const start = fen;
  const moves = [];
  for (const token of tokens) {
    if (RESULT.test(token)) break;
    if (/^[!?]+$/.test(token)) continue;
    const m = resolveMove(fen, token);
    if (!m) {
      const n = Math.floor(moves.length / 2) + 1;
      throw new Error(`move ${n}${moves.length % 2 ? '…' : '.'} ${token} is not legal (or not a move) here`);
    }
    moves.push(m.uci);
    fen = play(fen, m.uci);
  }
  if (!moves.length && !tags.FEN) throw new Error('no moves found: paste a FEN, a PGN or moves like "1. e4 c5"');
  return { fen: start === START_FEN ? null : start, moves };
}

// A FEN given as just its placement (and side): the rest filled in.
function completeFen(t) {
  const [placement, side = 'w'] = t.split(/\s+/);
  return `${placement} ${side} - - 0 1`;
}
