// Othello rules for the page.
//
// A board is { discs, sideToMove }:
//   discs       64 characters, 'b' (black), 'w' (white) or '.' (empty), square a1 first, then
//               b1 ... h1, a2 ... h8: row by row from the top, as Othello writes it (columns a-h
//               left to right, rows 1-8 top to bottom). Square index = (row - 1) * 8 + column.
//   sideToMove  'b' or 'w', the side that must play; null once neither side can move.
//
//   start()                      -> the opening position, black to move
//   legalMoves(board, side?)     -> ['c4', 'd3', ...] in square order
//   play(board, 'f5')            -> the board after the move: discs flipped, and the turn passed
//                                   on (it stays with the mover when the other side has no move;
//                                   null when neither has one). Throws on an illegal move.
//   parseLine('f5d6c3')          -> [start, after f5, after f5 d6, after f5 d6 c3]
//   count(board), perft(board, depth), squareName(i), parseSquare('f5')

const COLUMNS = 'abcdefgh';
const DIRECTIONS = [[1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1], [1, -1]];
const other = (side) => (side === 'b' ? 'w' : 'b');

export const squareName = (i) => COLUMNS[i % 8] + (Math.floor(i / 8) + 1);
export function parseSquare(name) {
  const m = /^([a-h])([1-8])$/i.exec(String(name));
  return m ? (Number(m[2]) - 1) * 8 + COLUMNS.indexOf(m[1].toLowerCase()) : -1;
}

export const START_DISCS = `${'.'.repeat(27)}wb${'.'.repeat(6)}bw${'.'.repeat(27)}`;

export function start() {
  return { discs: START_DISCS, sideToMove: 'b' };
}

// The squares a disc of `side` on `index` would flip (empty when the move is illegal).
export function flips(discs, index, side) {
  if (discs[index] !== '.') return [];
  const theirs = other(side);
  const out = [];
  for (const [dc, dr] of DIRECTIONS) {
    const line = [];
    let c = (index % 8) + dc, r = Math.floor(index / 8) + dr;
    while (c >= 0 && c < 8 && r >= 0 && r < 8 && discs[r * 8 + c] === theirs) {
      line.push(r * 8 + c);
      c += dc;
      r += dr;
    }
    if (line.length && c >= 0 && c < 8 && r >= 0 && r < 8 && discs[r * 8 + c] === side) out.push(...line);
  }
  return out;
}

function moveIndices(discs, side) {
  const out = [];
  for (let i = 0; i < 64; i++) if (flips(discs, i, side).length) out.push(i);
  return out;
}

export function legalMoves(board, side = board.sideToMove) {
  if (!side) return [];
  return moveIndices(board.discs, side).map(squareName);
}

export function play(board, square) {
  const side = board.sideToMove;
  const index = typeof square === 'number' ? square : parseSquare(square);
  const flipped = side && index >= 0 ? flips(board.discs, index, side) : [];
  if (!flipped.length) throw new Error(`illegal move ${square} for ${side === 'b' ? 'black' : side === 'w' ? 'white' : 'nobody (game over)'}`);
  const next = place(board.discs, index, side);
  let sideToMove = other(side);
  if (!moveIndices(next, sideToMove).length) sideToMove = moveIndices(next, side).length ? side : null;
  return { discs: next, sideToMove };
}

// A line of moves written together ('f5d6c3', 'F5 D6 C3' or 'f5-d6-c3') -> every board from
// the start to the end of the line. Throws, naming the move, at the first illegal one.
export function parseLine(line, from = start()) {
  const text = String(line).replace(/[\s,;-]+/g, '').toLowerCase();
  if (!/^([a-h][1-8])*$/.test(text)) throw new Error(`not a line of Othello moves: ${line}`);
  const boards = [from];
  for (let i = 0; i < text.length; i += 2) {
    const move = text.slice(i, i + 2);
    try {
      boards.push(play(boards[boards.length - 1], move));
    } catch (e) {
      throw new Error(`move ${i / 2 + 1} (${move}) of ${line}: ${e.message}`);
    }
  }
  return boards;
}

export function count(board) {
  const n = (c) => board.discs.split(c).length - 1;
  return { b: n('b'), w: n('w'), empty: n('.') };
}

export const isGameOver = (board) => board.sideToMove === null;

// Leaf count of the move tree, a pass counting as a ply and a finished game as a leaf (the
// convention of Aart Bik's Othello perft table).
export function perft(board, depth) {
  const walk = (discs, side, d) => {
    if (d === 0) return 1;
    const moves = moveIndices(discs, side);
    if (!moves.length) return moveIndices(discs, other(side)).length ? walk(discs, other(side), d - 1) : 1;
    if (d === 1) return moves.length;
    let n = 0;
    for (const i of moves) n += walk(place(discs, i, side), other(side), d - 1);
    return n;
  };
  return board.sideToMove ? walk(board.discs, board.sideToMove, depth) : 1;
}

function place(discs, index, side) {
  const out = discs.split('');
  out[index] = side;
  for (const i of flips(discs, index, side)) out[i] = side;
  return out.join('');
}
