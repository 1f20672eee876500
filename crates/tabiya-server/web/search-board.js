// The structure search's board editor (search-view.js): an 8x8 grid of buttons on which pieces
// and marks are placed, written as a pattern (pgn-extract's FENPattern) or a pawn structure.
//
//   const board = createSearchBoard(element, { onChange(cells), onStatus(text) });
//   board.set(cells, 'pattern' | 'pawns');  board.cells();  board.mode();  board.focus();
//
// cells: 64 strings, a8 b8 … h8 a7 … h1 (ranks 8 to 1, as a FEN writes them), each a piece
// letter (KQRBNP white, kqrbnp black) or a mark: '?' anything (unconstrained), '1' empty,
// 'A' any white piece, 'a' any black piece, '!' occupied. In the pawns mode only 'P', 'p' and
// '?' (no pawn) are used.
//
// A palette (radio buttons: the 12 pieces and the marks; in the pawns mode the two pawns)
// chooses what a click puts on a square; clicking a square that already holds it clears it
// ('?'). Keyboard: the board is one tab stop, the arrow keys, Home and End move between
// squares, Enter or Space puts the chosen piece or mark, and a letter puts that piece at once
// (K Q R B N P white, k q r b n p black; A a ! as in a pattern; 1 or 0 empty; ? Delete or
// Backspace clear). Every square is a button named for screen readers: "d5, white knight".
//
// The pure part, for the view and for tests under Node:
//   patternText(cells) -> '????????/…' ('' when nothing is constrained)
//   parsePattern(text) -> cells | null (null: not a plain pattern, e.g. with * or [..])
//   pawnsText(cells)   -> '8/pp3ppp/…' ('' when no pawn is placed)
//   parsePawns(text)   -> cells | null
//   cellsOfFen(fen, { pawnsOnly }) -> cells (the other squares '?')
//   pawnChanges(from, to) -> 'White f2→f3' (the pawns moved, taken or added between two
//                            pawn structures' texts)

export const FILES = 'abcdefgh';
const PIECE_LETTERS = 'KQRBNPkqrbnp';
const ROLES = { k: 'king', q: 'queen', r: 'rook', b: 'bishop', n: 'knight', p: 'pawn' };
export const MARKS = {
  '?': 'anything',
  1: 'empty',
  A: 'any white piece',
  a: 'any black piece',
  '!': 'occupied',
};

export const emptyCells = () => new Array(64).fill('?');
export const squareName = (i) => `${FILES[i % 8]}${8 - Math.floor(i / 8)}`;

export function cellWords(c) {
  if (PIECE_LETTERS.includes(c)) return `${c === c.toUpperCase() ? 'white' : 'black'} ${ROLES[c.toLowerCase()]}`;
  return MARKS[c] || 'anything';
}

// Runs of '1' (empty) as digits, the rest as it is; ranks 8 to 1 separated by '/'.
function boardText(cells, emptyMark) {
  const ranks = [];
  for (let r = 0; r < 8; r++) {
    let text = '';
    let run = 0;
    for (let f = 0; f < 8; f++) {
      const c = cells[r * 8 + f];
      if (c === emptyMark) {
        run += 1;
      } else {
        if (run) text += String(run);
        run = 0;
        text += c;
      }
    }
    if (run) text += String(run);
    ranks.push(text);
  }
  return ranks.join('/');
}

export function patternText(cells) {
  if (cells.every((c) => c === '?')) return '';
  return boardText(cells, '1');
}

export function pawnsText(cells) {
  if (!cells.some((c) => c === 'P' || c === 'p')) return '';
  return boardText(cells.map((c) => (c === 'P' || c === 'p' ? c : '1')), '1');
}

// A board text of eight ranks whose characters are in `allowed` or digits (that many of
// `digitMark`); null unless every rank covers exactly eight squares.
function parseBoard(text, allowed, digitMark) {
  const t = String(text || '').trim();
  if (!t) return emptyCells();
  const ranks = t.split('/');
  if (ranks.length !== 8) return null;
  const cells = [];
  for (const rank of ranks) {
    let n = 0;
    for (const ch of rank) {
      if (ch >= '1' && ch <= '8') {
        for (let k = 0; k < Number(ch); k++) cells.push(digitMark);
        n += Number(ch);
      } else if (allowed.includes(ch)) {
        cells.push(ch);
        n += 1;
      } else {
        return null;
      }
    }
    if (n !== 8) return null;
  }
  return cells;
}

export function parsePattern(text) {
  return parseBoard(text, `${PIECE_LETTERS}?!Aa`, '1');
}

export function parsePawns(text) {
  const cells = parseBoard(text, 'Pp', '?');
  if (!cells) return null;
  // No pawn stands on the first or last rank.
  if (cells.some((c, i) => c !== '?' && (i < 8 || i >= 56))) return null;
  return cells;
}

export function cellsOfFen(fen, { pawnsOnly = false } = {}) {
  const placement = String(fen || '').trim().split(/\s+/)[0];
  const cells = parseBoard(placement, PIECE_LETTERS, '?');
  if (!cells) return emptyCells();
  return pawnsOnly ? cells.map((c) => (c === 'P' || c === 'p' ? c : '?')) : cells;
}

export function pawnChanges(fromText, toText) {
  const from = parsePawns(fromText);
  const to = parsePawns(toText);
  if (!from || !to) return '';
  const parts = [];
  for (const [letter, name] of [['P', 'White'], ['p', 'Black']]) {
    const gone = [];
    const come = [];
    for (let i = 0; i < 64; i++) {
      if (from[i] === letter && to[i] !== letter) gone.push(squareName(i));
      if (to[i] === letter && from[i] !== letter) come.push(squareName(i));
    }
    if (!gone.length && !come.length) continue;
    let text;
    if (gone.length && come.length) text = `${gone.join(' ')}→${come.join(' ')}`;
    else if (gone.length) text = `−${gone.join(' −')}`;
    else text = `+${come.join(' +')}`;
    parts.push(`${name} ${text}`);
  }
  return parts.join(', ');
}

// ------------------------------------------------------------------ the editor

// A piece drawn with Chessground's pieces (vendor/chessground.css: `.cg-wrap piece.role.color`).
function pieceNode(letter) {
  const piece = document.createElement('piece');
  piece.className = `${ROLES[letter.toLowerCase()]} ${letter === letter.toUpperCase() ? 'white' : 'black'}`;
  return piece;
}

// What a square or a palette choice shows: a piece, a mark's sign, or nothing.
function cellNode(c) {
  if (PIECE_LETTERS.includes(c)) return pieceNode(c);
  if (c === '?') return null;
  const span = document.createElement('span');
  span.className = `sb-mark sb-mark--${{ 1: 'empty', A: 'white', a: 'black', '!': 'occupied' }[c]}`;
  span.setAttribute('aria-hidden', 'true');
  if (c === '1') span.textContent = '∅';
  return span;
}

const PATTERN_TOOLS = ['K', 'Q', 'R', 'B', 'N', 'P', 'k', 'q', 'r', 'b', 'n', 'p', '1', 'A', 'a', '!', '?'];
const PAWN_TOOLS = ['P', 'p', '?'];
let boards = 0; // distinct ids when a page has two editors

export function createSearchBoard(element, { onChange = () => {}, onStatus = () => {} } = {}) {
  const id = `sb${boards++}`;
  element.classList.add('search-board');
  let mode = 'pattern';
  let cells = emptyCells();
  let tool = 'P';
  let focused = 0;

  // The palette: one radio group, so the arrow keys move between its choices.
  const palette = document.createElement('fieldset');
  palette.className = 'sb-palette';
  const legend = document.createElement('legend');
  legend.textContent = 'Put on a square';
  palette.append(legend);
  const choices = new Map();
  const rows = [0, 1, 2].map(() => Object.assign(document.createElement('div'), { className: 'sb-row' }));
  palette.append(...rows);
  for (const t of PATTERN_TOOLS) {
    const label = document.createElement('label');
    label.className = `sb-choice${PIECE_LETTERS.includes(t) ? ' sb-choice--piece' : ' sb-choice--mark'}`;
    const input = document.createElement('input');
    input.type = 'radio';
    input.name = `${id}-tool`;
    input.value = t;
    input.className = 'sb-choice__input';
    input.addEventListener('change', () => { if (input.checked) tool = t; });
    const icon = document.createElement('span');
    icon.className = 'sb-choice__icon cg-wrap';
    icon.setAttribute('aria-hidden', 'true');
    const shown = cellNode(t);
    if (shown) icon.append(shown);
    const words = document.createElement('span');
    words.className = PIECE_LETTERS.includes(t) ? 'visually-hidden' : 'sb-choice__words';
    words.textContent = t === '?' ? 'anything (clear)' : cellWords(t);
    label.title = t === '?' ? 'anything: the square is not constrained (?)' : `${cellWords(t)} (${t})`;
    label.append(input, icon, words);
    choices.set(t, label);
    rows[PIECE_LETTERS.includes(t) ? (t === t.toUpperCase() ? 0 : 1) : 2].append(label);
  }

  // The board with its coordinates.
  const files = document.createElement('div');
  files.className = 'sb-files';
  files.setAttribute('aria-hidden', 'true');
  for (const f of FILES) files.append(Object.assign(document.createElement('span'), { textContent: f }));
  const ranks = document.createElement('div');
  ranks.className = 'sb-ranks';
  ranks.setAttribute('aria-hidden', 'true');
  for (let r = 8; r >= 1; r--) ranks.append(Object.assign(document.createElement('span'), { textContent: String(r) }));
  const grid = document.createElement('div');
  grid.className = 'sb-grid cg-wrap';
  grid.setAttribute('role', 'group');
  const hint = document.createElement('p');
  hint.id = `${id}-hint`;
  hint.className = 'visually-hidden';
  hint.textContent = 'Arrow keys move between squares; Enter puts the chosen piece or mark; '
    + 'a letter puts that piece (capitals white), A or a any white or black piece, ! occupied, 1 empty, Delete clears.';
  grid.setAttribute('aria-describedby', hint.id);
  const squares = [];
  for (let i = 0; i < 64; i++) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = `sb-square sb-square--${(Math.floor(i / 8) + i) % 2 ? 'dark' : 'light'}`;
    b.dataset.square = squareName(i);
    b.tabIndex = -1;
    b.addEventListener('click', () => {
      moveFocus(i, false);
      put(i, tool, true);
    });
    squares.push(b);
    grid.append(b);
  }
  const frame = document.createElement('div');
  frame.className = 'sb-frame';
  frame.append(Object.assign(document.createElement('span'), { className: 'sb-corner' }), files, ranks, grid);
  element.replaceChildren(palette, frame, hint);

  function draw(i) {
    const c = cells[i];
    const b = squares[i];
    b.replaceChildren();
    const shown = cellNode(c);
    if (shown) b.append(shown);
    b.dataset.cell = c;
    const words = mode === 'pawns' && c === '?' ? 'no pawn' : cellWords(c);
    b.setAttribute('aria-label', `${squareName(i)}, ${words}`);
  }

  // Puts `c` on square i (a toggle when clicked: the same again clears it).
  function put(i, c, toggle) {
    if (mode === 'pawns' && !PAWN_TOOLS.includes(c)) {
      onStatus('The pawn structure holds pawns only.');
      return;
    }
    let value = toggle && cells[i] === c ? '?' : c;
    if (mode === 'pawns' && value === '1') value = '?';
    if ((value === 'P' || value === 'p') && (i < 8 || i >= 56)) {
      onStatus(`No pawn stands on ${squareName(i)}: not on the first or last rank.`);
      return;
    }
    if (cells[i] === value) return;
    cells[i] = value;
    draw(i);
    onStatus(`${squareName(i)}: ${mode === 'pawns' && value === '?' ? 'no pawn' : cellWords(value)}`);
    onChange(cells.slice());
  }

  function set(newCells, newMode = mode) {
    mode = newMode === 'pawns' ? 'pawns' : 'pattern';
    cells = (newCells || emptyCells()).slice();
    if (mode === 'pawns') cells = cells.map((c) => (c === 'P' || c === 'p' ? c : '?'));
    for (const [t, label] of choices) label.hidden = mode === 'pawns' && !PAWN_TOOLS.includes(t);
    if (mode === 'pawns' && !PAWN_TOOLS.includes(tool)) tool = 'P';
    for (const [t, label] of choices) label.querySelector('input').checked = t === tool;
    choices.get('?').querySelector('.sb-choice__words').textContent = mode === 'pawns' ? 'no pawn (clear)' : 'anything (clear)';
    element.dataset.mode = mode;
    grid.setAttribute('aria-label', mode === 'pawns'
      ? 'Pawn structure board: put white and black pawns'
      : 'Pattern board: put pieces and marks');
    for (let i = 0; i < 64; i++) draw(i);
  }

  function moveFocus(i, focus = true) {
    squares[focused].tabIndex = -1;
    focused = i;
    squares[i].tabIndex = 0;
    if (focus) squares[i].focus();
  }

  grid.addEventListener('focusin', (e) => {
    const i = squares.indexOf(e.target);
    if (i >= 0 && i !== focused) moveFocus(i, false);
  });
  grid.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const row = Math.floor(focused / 8);
    const col = focused % 8;
    const target = {
      ArrowLeft: col > 0 ? focused - 1 : focused,
      ArrowRight: col < 7 ? focused + 1 : focused,
      ArrowUp: row > 0 ? focused - 8 : focused,
      ArrowDown: row < 7 ? focused + 8 : focused,
      Home: row * 8,
      End: row * 8 + 7,
    }[e.key];
    if (target !== undefined) {
      e.preventDefault();
      moveFocus(target);
      return;
    }
    let c = null;
    if (PIECE_LETTERS.includes(e.key) || e.key === 'A' || e.key === 'a' || e.key === '!') c = e.key;
    else if (e.key === '1' || e.key === '0') c = '1';
    else if (e.key === '?' || e.key === 'Delete' || e.key === 'Backspace') c = '?';
    if (c === null) return;
    e.preventDefault();
    put(focused, c, false);
  });

  set(cells, mode);
  moveFocus(0, false);

  return {
    set,
    cells: () => cells.slice(),
    mode: () => mode,
    focus: () => squares[focused].focus(),
  };
}
