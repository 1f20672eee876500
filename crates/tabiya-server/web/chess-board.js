// A chess board: a thin wrapper over Lichess's Chessground (vendor/chessground.js) with the
// rules of chess-rules.js and an accessible promotion chooser.
//
//   const board = createChessBoard(element, { onMove(uci, { san, fen }) { ... } });
//   board.set(fen, { lastMove: ['e2', 'e4'] | null, orientation: 'white' | 'black',
//                    legalDests: Map { 'g1' => ['f3', 'h3'], ... }, turnColor: 'white' | 'black' });
//   board.flip(); board.orientation(); board.fen(); board.destroy(); board.ground (Chessground's API)
//   board.move('e7', 'e8');  // as if the user moved it (for a keyboard or text move input);
//                            // false, and nothing done, if the rules know no such move
//   board.setShapes('engine', [{ orig: 'g1', dest: 'f3', brush: 'paleGreen' }]);
//                            // arrows drawn by the page, in named layers (a move previewed, the
//                            // engine's best move) so that clearing one keeps the others
//
// legalDests and turnColor default to what chess-rules.js computes from the FEN. A move made on
// the board (drag or click; a pawn reaching the last rank asks for the piece first) is shown at
// once as the position after it, then reported as UCI to onMove: e2e4, e7e8q, e1g1 (castling
// is e1g1 in standard chess and king-takes-rook in Chess960 positions, as chess-rules.js
// writes it). The page may then call set() with the same or another position.
//
// Needs vendor/chessground.css and style.css on the page. The element gets a square size
// from style.css (.chess-board); give it a width.

import { Chessground } from './vendor/chessground.js';
import { START_FEN, legalMoves, play, isCheck, parseFen, destinations } from './chess-rules.js';

const PROMOTIONS = [['q', 'queen'], ['r', 'rook'], ['b', 'bishop'], ['n', 'knight']];
const colorName = (turn) => (turn === 'w' ? 'white' : 'black');

export function createChessBoard(element, { onMove = () => {}, orientation = 'white' } = {}) {
  element.classList.add('chess-board');
  const host = document.createElement('div');
  host.className = 'chess-board__ground';
  element.replaceChildren(host);

  let fen = START_FEN;
  let shown = {}; // the options of the position on show, to restore it after a cancelled promotion
  let moves = [];
  let chooser = null;
  const layers = new Map(); // layer name -> Chessground auto shapes

  const ground = Chessground(host, {
    orientation,
    coordinates: true,
    addDimensionsCssVarsTo: element, // ---cg-width/height: the promotion chooser covers the board exactly
    autoCastle: true,
    animation: { enabled: true, duration: 160 },
    highlight: { lastMove: true, check: true },
    movable: { free: false, showDests: true, rookCastle: true, events: { after: userMove } },
    premovable: { enabled: false },
    draggable: { enabled: true, showGhost: true },
    drawable: { enabled: true },
  });

  function show(newFen, options = {}) {
    const { lastMove = null, legalDests, turnColor } = options;
    const pos = parseFen(newFen); // throws on a bad FEN, before anything changes
    fen = newFen;
    shown = options;
    moves = legalMoves(fen);
    const turn = turnColor || colorName(pos.turn);
    ground.set({
      fen,
      turnColor: turn,
      lastMove: lastMove || undefined,
      check: isCheck(fen) ? turn : false,
      movable: { color: turn, dests: legalDests || destinations(fen) },
    });
    element.setAttribute('aria-label', `Chess board, ${turn} to move`);
  }

  function set(newFen, options = {}) {
    closeChooser();
    if (options.orientation && options.orientation !== ground.state.orientation) ground.set({ orientation: options.orientation });
    show(newFen, options);
  }

  // Chessground moved a piece from orig to dest: find the move it means.
  function userMove(orig, dest) {
    const matching = moves.filter((m) => m.from === orig && (m.to === dest || (m.castle && m.rook === dest)));
    if (matching.some((m) => m.promotion)) {
      openChooser(orig, dest, matching);
      return;
    }
    // A move the rules do not know (only possible with caller-given legalDests) is passed on.
    commit(matching[0] ? matching[0].uci : orig + dest, [orig, dest]);
  }

  function commit(uci, lastMove) {
    const move = moves.find((m) => m.uci === uci);
    let next = null;
    try {
      next = play(fen, uci);
    } catch {
      // Unknown to the rules: leave the board as Chessground drew it.
    }
    if (next) show(next, { lastMove });
    onMove(uci, { san: move ? move.san : null, fen: next });
  }

  // The promotion chooser: four buttons over the board; Escape or a click beside them cancels.
  function openChooser(orig, dest, matching) {
    closeChooser();
    const color = colorName(parseFen(fen).turn);
    chooser = document.createElement('div');
    chooser.className = 'promotion-chooser';
    chooser.setAttribute('role', 'dialog');
    chooser.setAttribute('aria-modal', 'true');
    chooser.setAttribute('aria-label', `Promote the pawn on ${dest} to`);
    const title = document.createElement('p');
    title.className = 'promotion-chooser__title';
    title.textContent = `Promote on ${dest} to`;
    const row = document.createElement('div');
    row.className = 'promotion-chooser__choices cg-wrap';
    for (const [letter, role] of PROMOTIONS) {
      const move = matching.find((m) => m.promotion === letter);
      if (!move) continue;
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'promotion-chooser__choice';
      button.setAttribute('aria-label', `${role} (${move.san})`);
      button.title = role;
      const piece = document.createElement('piece');
      piece.className = `${role} ${color}`;
      button.append(piece);
      button.addEventListener('click', () => {
        closeChooser();
        commit(move.uci, [orig, dest]);
      });
      row.append(button);
    }
    chooser.append(title, row);
    chooser.addEventListener('click', (e) => { if (e.target === chooser) cancel(); });
    chooser.addEventListener('keydown', (e) => {
      const buttons = [...row.querySelectorAll('button')];
      const i = buttons.indexOf(document.activeElement);
      if (e.key === 'Escape') { e.preventDefault(); cancel(); }
      else if (e.key === 'ArrowRight' || e.key === 'ArrowDown' || (e.key === 'Tab' && !e.shiftKey)) {
        e.preventDefault(); buttons[(i + 1) % buttons.length].focus();
      } else if (e.key === 'ArrowLeft' || e.key === 'ArrowUp' || (e.key === 'Tab' && e.shiftKey)) {
        e.preventDefault(); buttons[(i - 1 + buttons.length) % buttons.length].focus();
      }
    });
    element.append(chooser);
    row.querySelector('button').focus();
  }

  function setShapes(layer, shapes) {
    const list = shapes || [];
    const before = layers.get(layer) || [];
    if (!list.length && !before.length) return;
    if (list.length) layers.set(layer, list); else layers.delete(layer);
    ground.setAutoShapes([...layers.values()].flat());
  }

  function cancel() {
    closeChooser();
    show(fen, shown);
  }

  function closeChooser() {
    if (chooser) chooser.remove();
    chooser = null;
  }

  show(fen);

  return {
    set,
    flip: () => ground.toggleOrientation(),
    orientation: () => ground.state.orientation,
    fen: () => fen,
    setShapes,
    ground, // the Chessground instance, for whatever this wrapper does not cover
    move: (orig, dest) => {
      if (!moves.some((m) => m.from === orig && (m.to === dest || m.rook === dest))) return false;
      ground.move(orig, dest);
      userMove(orig, dest);
      return true;
    },
    destroy: () => { closeChooser(); ground.destroy(); element.replaceChildren(); },
  };
}
