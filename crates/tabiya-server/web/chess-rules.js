// Chess rules for the page: legal moves, SAN and the position after a move, from a FEN.
//
//   legalMoves(fen) -> [{ from, to, promotion?, uci, san, castle?: 'k'|'q', rook?: square }]
//   play(fen, uci)  -> fen after the move (throws on an illegal move)
//   san(fen, uci), destinations(fen) (for Chessground), isCheck(fen), perft(fen, depth),
//   parseFen(fen), toFen(pos)
//
// Standard chess and Chess960: castling rights may be written KQkq, as X-FEN (K/Q = the
// outermost rook on that side) or as Shredder-FEN (the rook's file, e.g. HAha). Castling in
// UCI is king-to-target (e1g1) when every castling right is the standard one (king on the e-file,
// rooks on a/h), otherwise king-takes-own-rook (e1h1, as UCI_Chess960 and Lichess write it);
// play() accepts both forms whenever they are unambiguous. The FEN play() writes keeps an
// en-passant square only when an en-passant capture is legal (as shakmaty and python-chess do).
//
// Squares are numbers inside (a1 = 0, b1 = 1, ..., h8 = 63) and names outside ('e4').
// Pieces are FEN letters: uppercase white, lowercase black.

const FILES = 'abcdefgh';
export const squareName = (sq) => FILES[sq & 7] + ((sq >> 3) + 1);
export const parseSquare = (name) => {
  if (!/^[a-h][1-8]$/.test(name)) return -1;
  return (name.charCodeAt(1) - 49) * 8 + (name.charCodeAt(0) - 97);
};
const fileOf = (sq) => sq & 7;
const rankOf = (sq) => sq >> 3;
const colorOf = (piece) => (piece === piece.toUpperCase() ? 'w' : 'b');
const other = (color) => (color === 'w' ? 'b' : 'w');
const kind = (piece) => piece.toLowerCase();

// Precomputed targets: knight and king jumps, and the rays of the sliders, for each square.
function jumps(deltas) {
  const table = [];
  for (let sq = 0; sq < 64; sq++) {
    const list = [];
    for (const [df, dr] of deltas) {
      const f = fileOf(sq) + df, r = rankOf(sq) + dr;
      if (f >= 0 && f < 8 && r >= 0 && r < 8) list.push(r * 8 + f);
    }
    table.push(list);
  }
  return table;
}
const KNIGHT = jumps([[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]]);
const KING = jumps([[1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1], [1, -1]]);
const ROOK_DIRS = [[1, 0], [-1, 0], [0, 1], [0, -1]];
const BISHOP_DIRS = [[1, 1], [1, -1], [-1, 1], [-1, -1]];
function rays(dirs) {
  const table = [];
  for (let sq = 0; sq < 64; sq++) {
    table.push(dirs.map(([df, dr]) => {
      const ray = [];
      for (let f = fileOf(sq) + df, r = rankOf(sq) + dr; f >= 0 && f < 8 && r >= 0 && r < 8; f += df, r += dr) {
        ray.push(r * 8 + f);
      }
      return ray;
    }));
  }
  return table;
}
const ROOK_RAYS = rays(ROOK_DIRS);
const BISHOP_RAYS = rays(BISHOP_DIRS);

// ---------------------------------------------------------------- FEN in and out

// A position: { board: Array(64) of piece letter or null, turn: 'w'|'b',
//   castling: { w: { k: rookSquare|null, q: rookSquare|null }, b: {...} }, ep: square|null,
//   halfmove, fullmove }.
export function parseFen(fen) {
  const fields = String(fen).trim().split(/\s+/);
  const [placement, turn = 'w', castling = '-', ep = '-', halfmove = '0', fullmove = '1'] = fields;
  const rows = (placement || '').split('/');
  if (rows.length !== 8) throw new Error(`bad FEN (needs 8 ranks): ${fen}`);
  const board = new Array(64).fill(null);
  rows.forEach((row, i) => {
    const rank = 7 - i;
    let file = 0;
    for (const c of row) {
      if (/[1-8]/.test(c)) file += Number(c);
      else if (/[pnbrqkPNBRQK]/.test(c) && file < 8) board[rank * 8 + file++] = c;
      else throw new Error(`bad FEN (rank ${rank + 1}): ${fen}`);
    }
    if (file !== 8) throw new Error(`bad FEN (rank ${rank + 1} is not 8 squares): ${fen}`);
  });
  for (const k of ['K', 'k']) {
    if (board.filter((p) => p === k).length !== 1) throw new Error(`bad FEN (needs one ${k}): ${fen}`);
  }
  if (turn !== 'w' && turn !== 'b') throw new Error(`bad FEN (side to move): ${fen}`);
  const pos = {
    board, turn,
    castling: { w: { k: null, q: null }, b: { k: null, q: null } },
    ep: null,
    halfmove: Number.parseInt(halfmove, 10) || 0,
    fullmove: Math.max(1, Number.parseInt(fullmove, 10) || 1),
  };
  if (castling !== '-') {
    for (const c of castling) readCastlingRight(pos, c);
  }
  if (ep !== '-') {
    const sq = parseSquare(ep);
    if (sq < 0 || rankOf(sq) !== (turn === 'w' ? 5 : 2)) throw new Error(`bad FEN (en passant): ${fen}`);
    pos.ep = sq;
  }
  if (inCheck(pos, other(turn))) throw new Error(`bad FEN (the side not to move is in check): ${fen}`);
  return pos;
}

// One castling letter; a right whose king or rook is not in place is dropped, as Lichess does.
function readCastlingRight(pos, c) {
  const color = colorOf(c);
  const back = color === 'w' ? 0 : 7;
  const king = pos.board.indexOf(color === 'w' ? 'K' : 'k');
  const rook = color === 'w' ? 'R' : 'r';
  if (rankOf(king) !== back) return;
  const letter = c.toLowerCase();
  let rookSq = null;
  if (letter === 'k' || letter === 'q') {
    // The outermost rook on that side of the king (X-FEN).
    const files = letter === 'k' ? [7, 6, 5, 4, 3, 2, 1] : [0, 1, 2, 3, 4, 5, 6];
    for (const f of files) {
      const sq = back * 8 + f;
      if ((letter === 'k' ? f > fileOf(king) : f < fileOf(king)) && pos.board[sq] === rook) { rookSq = sq; break; }
    }
  } else if (/[a-h]/.test(letter)) {
    const sq = back * 8 + FILES.indexOf(letter);
    if (pos.board[sq] === rook) rookSq = sq;
  } else {
    throw new Error(`bad FEN castling letter: ${c}`);
  }
  if (rookSq === null || fileOf(rookSq) === fileOf(king)) return;
  pos.castling[color][fileOf(rookSq) > fileOf(king) ? 'k' : 'q'] = rookSq;
}

function castlingString(pos) {
  let s = '';
  for (const color of ['w', 'b']) {
    const king = pos.board.indexOf(color === 'w' ? 'K' : 'k');
    const rook = color === 'w' ? 'R' : 'r';
    for (const side of ['k', 'q']) {
      const sq = pos.castling[color][side];
      if (sq === null) continue;
      // K/Q when the rook is the outermost one on its side (so standard chess reads KQkq),
      // otherwise the rook's file.
      let outermost = true;
      for (let f = fileOf(sq) + (side === 'k' ? 1 : -1); f >= 0 && f < 8; f += side === 'k' ? 1 : -1) {
        if (pos.board[rankOf(sq) * 8 + f] === rook) outermost = false;
      }
      const c = outermost && fileOf(king) !== fileOf(sq) ? side : FILES[fileOf(sq)];
      s += color === 'w' ? c.toUpperCase() : c;
    }
  }
  return s || '-';
}

export function toFen(pos) {
  const rows = [];
  for (let rank = 7; rank >= 0; rank--) {
    let row = '', empty = 0;
    for (let file = 0; file < 8; file++) {
      const p = pos.board[rank * 8 + file];
      if (p) { row += (empty || '') + p; empty = 0; } else empty++;
    }
    rows.push(row + (empty || ''));
  }
  const ep = pos.ep !== null && legalEnPassant(pos) ? squareName(pos.ep) : '-';
  return `${rows.join('/')} ${pos.turn} ${castlingString(pos)} ${ep} ${pos.halfmove} ${pos.fullmove}`;
}

// ---------------------------------------------------------------- attacks and moves

// Is square sq attacked by a piece of colour `by`?
function attacked(board, sq, by) {
  const P = by === 'w' ? 'P' : 'p', N = by === 'w' ? 'N' : 'n', K = by === 'w' ? 'K' : 'k';
  const B = by === 'w' ? 'B' : 'b', R = by === 'w' ? 'R' : 'r', Q = by === 'w' ? 'Q' : 'q';
  for (const t of KNIGHT[sq]) if (board[t] === N) return true;
  for (const t of KING[sq]) if (board[t] === K) return true;
  // A white pawn attacks upwards, so it sits one rank below the square it attacks.
  const pawnRank = rankOf(sq) + (by === 'w' ? -1 : 1);
  if (pawnRank >= 0 && pawnRank < 8) {
    for (const df of [-1, 1]) {
      const f = fileOf(sq) + df;
      if (f >= 0 && f < 8 && board[pawnRank * 8 + f] === P) return true;
    }
  }
  for (const ray of ROOK_RAYS[sq]) {
    for (const t of ray) {
      const p = board[t];
      if (p) { if (p === R || p === Q) return true; break; }
    }
  }
  for (const ray of BISHOP_RAYS[sq]) {
    for (const t of ray) {
      const p = board[t];
      if (p) { if (p === B || p === Q) return true; break; }
    }
  }
  return false;
}

const inCheck = (pos, color = pos.turn) =>
  attacked(pos.board, pos.board.indexOf(color === 'w' ? 'K' : 'k'), other(color));

// Moves that follow the pieces' rules, not yet checked for leaving the king in check.
// A move: { from, to, promotion?, castle?: 'k'|'q', rook?: square, ep?: true }. For castling,
// `to` is the king's target square and `rook` the castling rook's square.
function pseudoMoves(pos) {
  const { board, turn } = pos;
  const moves = [];
  const own = (p) => p && colorOf(p) === turn;
  const enemy = (p) => p && colorOf(p) !== turn;
  for (let from = 0; from < 64; from++) {
    const piece = board[from];
    if (!own(piece)) continue;
    switch (kind(piece)) {
      case 'p': {
        const up = turn === 'w' ? 8 : -8;
        const lastRank = turn === 'w' ? 7 : 0;
        const add = (to, extra) => {
          if (rankOf(to) === lastRank) for (const promotion of 'qrbn') moves.push({ from, to, promotion, ...extra });
          else moves.push({ from, to, ...extra });
        };
        const one = from + up;
        if (!board[one]) {
          add(one);
          const startRank = turn === 'w' ? 1 : 6;
          if (rankOf(from) === startRank && !board[one + up]) moves.push({ from, to: one + up });
        }
        for (const df of [-1, 1]) {
          const f = fileOf(from) + df;
          if (f < 0 || f > 7) continue;
          const to = one + df;
          if (enemy(board[to])) add(to);
          else if (to === pos.ep && !board[to] && board[to - up] === (turn === 'w' ? 'p' : 'P')) {
            moves.push({ from, to, ep: true });
          }
        }
        break;
      }
      case 'n':
      case 'k':
        for (const to of (kind(piece) === 'n' ? KNIGHT : KING)[from]) if (!own(board[to])) moves.push({ from, to });
        break;
      default: {
        const k = kind(piece);
        const tables = k === 'r' ? [ROOK_RAYS] : k === 'b' ? [BISHOP_RAYS] : [ROOK_RAYS, BISHOP_RAYS];
        for (const table of tables) {
          for (const ray of table[from]) {
            for (const to of ray) {
              if (own(board[to])) break;
              moves.push({ from, to });
              if (board[to]) break;
            }
          }
        }
      }
    }
  }
  castlingMoves(pos, moves);
  return moves;
}

// Castling in the Chess960 way, which covers standard chess: the king goes to the g- or c-file,
// the rook to the f- or d-file; every square either crosses must be empty but for the two of
// them; the king may not be in check nor cross an attacked square. (Whether it ends in check
// is left to the legality test, with the rook moved.)
function castlingMoves(pos, moves) {
  const { board, turn } = pos;
  const king = board.indexOf(turn === 'w' ? 'K' : 'k');
  const back = turn === 'w' ? 0 : 7;
  for (const side of ['k', 'q']) {
    const rook = pos.castling[turn][side];
    if (rook === null || rankOf(king) !== back) continue;
    const kingTo = back * 8 + (side === 'k' ? 6 : 2);
    const rookTo = back * 8 + (side === 'k' ? 5 : 3);
    const span = (a, b) => {
      const list = [];
      for (let s = Math.min(a, b); s <= Math.max(a, b); s++) list.push(s);
      return list;
    };
    const crossed = new Set([...span(king, kingTo), ...span(rook, rookTo)]);
    if ([...crossed].some((s) => s !== king && s !== rook && board[s])) continue;
    if (span(king, kingTo).some((s) => attacked(board, s, other(turn)))) continue;
    moves.push({ from: king, to: kingTo, castle: side, rook });
  }
}

// The position after a move (a new object; the old one is untouched).
function makeMove(pos, m) {
  const board = pos.board.slice();
  const piece = board[m.from];
  const turn = pos.turn;
  const captured = m.castle ? null : board[m.to];
  const castling = { w: { ...pos.castling.w }, b: { ...pos.castling.b } };
  board[m.from] = null;
  if (m.castle) {
    board[m.rook] = null;
    board[m.to] = piece;
    board[m.castle === 'k' ? m.to - 1 : m.to + 1] = turn === 'w' ? 'R' : 'r';
  } else {
    board[m.to] = m.promotion ? (turn === 'w' ? m.promotion.toUpperCase() : m.promotion) : piece;
    if (m.ep) board[m.to + (turn === 'w' ? -8 : 8)] = null;
  }
  if (kind(piece) === 'k') castling[turn] = { k: null, q: null };
  for (const color of ['w', 'b']) {
    for (const side of ['k', 'q']) {
      const sq = castling[color][side];
      if (sq !== null && (sq === m.from || (sq === m.to && !m.castle))) castling[color][side] = null;
    }
  }
  const double = kind(piece) === 'p' && Math.abs(m.to - m.from) === 16;
  return {
    board, castling,
    turn: other(turn),
    ep: double ? (m.from + m.to) / 2 : null,
    halfmove: kind(piece) === 'p' || captured ? 0 : pos.halfmove + 1,
    fullmove: pos.fullmove + (turn === 'b' ? 1 : 0),
  };
}

function legal(pos) {
  return pseudoMoves(pos).filter((m) => !inCheck(makeMove(pos, m), pos.turn));
}

function legalEnPassant(pos) {
  return legal(pos).some((m) => m.ep);
}

// ---------------------------------------------------------------- names of moves

// Standard castling notation (e1g1) unless some right is a Chess960 one.
function chess960(pos) {
  for (const color of ['w', 'b']) {
    const king = pos.board.indexOf(color === 'w' ? 'K' : 'k');
    for (const side of ['k', 'q']) {
      const sq = pos.castling[color][side];
      if (sq === null) continue;
      if (fileOf(king) !== 4 || fileOf(sq) !== (side === 'k' ? 7 : 0)) return true;
    }
  }
  return false;
}

function uciOf(pos, m, is960) {
  const to = m.castle && is960 ? m.rook : m.to;
  return squareName(m.from) + squareName(to) + (m.promotion || '');
}

function sanOf(pos, m, moves) {
  let san;
  const piece = pos.board[m.from];
  if (m.castle) {
    san = m.castle === 'k' ? 'O-O' : 'O-O-O';
  } else if (kind(piece) === 'p') {
    const capture = m.ep || pos.board[m.to];
    san = (capture ? `${FILES[fileOf(m.from)]}x` : '') + squareName(m.to);
    if (m.promotion) san += `=${m.promotion.toUpperCase()}`;
  } else {
    // Disambiguation: file if it tells the pieces apart, else rank, else both.
    const rivals = moves.filter((o) => !o.castle && o.to === m.to && o.from !== m.from && o.promotion === undefined
      && pos.board[o.from] === piece);
    let which = '';
    if (rivals.length) {
      if (!rivals.some((o) => fileOf(o.from) === fileOf(m.from))) which = FILES[fileOf(m.from)];
      else if (!rivals.some((o) => rankOf(o.from) === rankOf(m.from))) which = String(rankOf(m.from) + 1);
      else which = squareName(m.from);
    }
    san = kind(piece).toUpperCase() + which + (pos.board[m.to] ? 'x' : '') + squareName(m.to);
  }
  const after = makeMove(pos, m);
  if (inCheck(after)) san += legal(after).length ? '+' : '#';
  return san;
}

function describe(pos, m, moves, is960) {
  const out = { from: squareName(m.from), to: squareName(m.castle && is960 ? m.rook : m.to) };
  if (m.promotion) out.promotion = m.promotion;
  if (m.castle) Object.assign(out, { castle: m.castle, rook: squareName(m.rook) });
  out.uci = uciOf(pos, m, is960);
  out.san = sanOf(pos, m, moves);
  return out;
}

// ---------------------------------------------------------------- public face

export function legalMoves(fen) {
  const pos = typeof fen === 'string' ? parseFen(fen) : fen;
  const moves = legal(pos);
  const is960 = chess960(pos);
  return moves.map((m) => describe(pos, m, moves, is960));
}

// The internal move a UCI string names, or undefined. Castling: king to target (standard
// notation) or king to its own rook (Chess960 notation), whichever the string says.
function findMove(pos, uci, moves = legal(pos)) {
  const from = parseSquare(String(uci).slice(0, 2));
  const to = parseSquare(String(uci).slice(2, 4));
  const promotion = String(uci).slice(4) || undefined;
  const is960 = chess960(pos);
  return moves.find((m) => m.from === from && m.promotion === promotion
    && (m.castle ? to === m.rook || (!is960 && to === m.to) : to === m.to));
}

export function play(fen, uci) {
  const pos = parseFen(fen);
  const m = findMove(pos, uci);
  if (!m) throw new Error(`illegal move ${uci} in ${fen}`);
  return toFen(makeMove(pos, m));
}

// SAN of one UCI move, or throws.
export function san(fen, uci) {
  const pos = parseFen(fen);
  const moves = legal(pos);
  const m = findMove(pos, uci, moves);
  if (!m) throw new Error(`illegal move ${uci} in ${fen}`);
  return sanOf(pos, m, moves);
}

export function isCheck(fen) {
  return inCheck(parseFen(fen));
}

// Chessground's destinations: Map of from-square to target squares. Castling can be made by
// moving the king onto its rook, and in standard chess also onto its target square.
export function destinations(fen) {
  const pos = parseFen(fen);
  const is960 = chess960(pos);
  const dests = new Map();
  const add = (from, to) => {
    const list = dests.get(from) || [];
    if (!list.includes(to)) list.push(to);
    dests.set(from, list);
  };
  for (const m of legal(pos)) {
    add(squareName(m.from), squareName(m.castle ? m.rook : m.to));
    if (m.castle && !is960) add(squareName(m.from), squareName(m.to));
  }
  return dests;
}

// Leaf count of the legal move tree: the standard test of a move generator.
export function perft(fen, depth) {
  const walk = (pos, d) => {
    const moves = legal(pos);
    if (d === 1) return moves.length;
    let n = 0;
    for (const m of moves) n += walk(makeMove(pos, m), d - 1);
    return n;
  };
  return depth === 0 ? 1 : walk(parseFen(fen), depth);
}

export const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
