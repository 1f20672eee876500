// Engine evaluations as the page writes them: pure functions, no DOM (tests/eval-format.test.mjs).
//
//   scoreText({ cp: 31 })                    -> '+0.31'     scoreText({ cp: -120 }) -> '−1.20'
//   scoreText({ mate: 3 })                   -> '#3'        scoreText({ mate: -2 }) -> '#−2'
//   scoreText({ cp: 40, bound: 'lower' })    -> '≥+0.40'    (a bound: the score is at least / at most)
//   scoreWords({ cp: -120 })                 -> '1.20 for Black' (for labels and screen readers)
//   winningChances(cp)                       -> White's winning chances in [-1, 1]
//   whiteShare({ cp } | { mate })            -> the eval bar's White part, 0–100 (%)
//   barText({ cp: 31 })                      -> '0.3' (short: the bar's end says whose it is)
//   numberedMoves(fen, ['Nf6', 'Bg5'])       -> [{ label: '12…', san: 'Nf6' }, { label: '13.', san: 'Bg5' }]
//   pvText(fen, sans, max)                   -> '12…Nf6 13.Bg5 …' (at most `max` moves)
//   keptText(analysis)                       -> 'depth 24, 2026-11-24'
//   speedText(analysis)                      -> '1,204 kN/s' (or '63k nodes' without a time)
//
// Scores are White's point of view, as the server gives them: cp in centipawns or mate in
// moves (positive: White mates), with an optional bound 'lower' | 'upper'.

const MINUS = '\u2212';

function signed(x, digits) {
  const text = Math.abs(x).toFixed(digits);
  if (Number(text) === 0) return (0).toFixed(digits);
  return `${x > 0 ? '+' : MINUS}${text}`;
}

function hasMate(score) {
  return score && score.mate !== undefined && score.mate !== null;
}

export function scoreText(score) {
  if (!score) return '';
  const bound = score.bound === 'lower' ? '≥' : score.bound === 'upper' ? '≤' : '';
  if (hasMate(score)) return `${bound}#${score.mate < 0 ? MINUS : ''}${Math.abs(score.mate)}`;
  if (score.cp === undefined || score.cp === null) return '';
  return `${bound}${signed(score.cp / 100, 2)}`;
}

export function scoreWords(score) {
  if (!score) return 'no evaluation';
  const bound = score.bound === 'lower' ? 'at least ' : score.bound === 'upper' ? 'at most ' : '';
  if (hasMate(score)) {
    if (score.mate === 0) return 'mate on the board';
    return `${bound}${score.mate > 0 ? 'White' : 'Black'} mates in ${Math.abs(score.mate)}`;
  }
  const cp = score.cp || 0;
  if (cp === 0) return `${bound}equal (0.00)`;
  return `${bound}${Math.abs(cp / 100).toFixed(2)} for ${cp > 0 ? 'White' : 'Black'}`;
}

// Lichess's winning chances: 2 / (1 + e^(-0.00368208 cp)) - 1, cp capped at ±1000.
export function winningChances(cp) {
  const c = Math.max(-1000, Math.min(1000, cp));
  return 2 / (1 + Math.exp(-0.00368208 * c)) - 1;
}

// The eval bar's White part in percent, to one decimal: a mate fills it for the mating side.
export function whiteShare(score) {
  if (!score) return 50;
  if (hasMate(score)) return score.mate > 0 ? 100 : score.mate < 0 ? 0 : 50;
  return Math.round((50 + 50 * winningChances(score.cp || 0)) * 10) / 10;
}

// The bar's own short text: no sign (it is written at the better side's end of the bar).
export function barText(score) {
  if (!score) return '';
  if (hasMate(score)) return `#${Math.abs(score.mate)}`;
  const pawns = Math.abs((score.cp || 0) / 100);
  return pawns >= 10 ? pawns.toFixed(0) : pawns.toFixed(1);
}

// The side to move and move number of a FEN.
function turnAndNumber(fen) {
  const fields = String(fen || '').trim().split(/\s+/);
  const number = Number.parseInt(fields[5], 10);
  return { white: fields[1] !== 'b', number: Number.isFinite(number) && number > 0 ? number : 1 };
}

// A line of SAN moves from a position, numbered: White's moves carry 'N.', the first move
// carries 'N…' when it is Black's, Black's others none.
export function numberedMoves(fen, sans) {
  let { white, number } = turnAndNumber(fen);
  return (sans || []).map((san, i) => {
    const label = white ? `${number}.` : i === 0 ? `${number}…` : '';
    const move = { label, san, white };
    if (!white) number++;
    white = !white;
    return move;
  });
}

export function pvText(fen, sans, max = Infinity) {
  const moves = numberedMoves(fen, sans);
  const text = moves.slice(0, max).map((m) => `${m.label}${m.san}`).join(' ');
  return moves.length > max ? `${text} …` : text;
}

// A kept evaluation's depth and day ('2026-11-24T08:40:09Z' -> '2026-11-24').
export function keptText(analysis) {
  if (!analysis) return '';
  const day = typeof analysis.date === 'string' ? analysis.date.slice(0, 10) : '';
  return `depth ${analysis.depth}${day ? `, ${day}` : ''}`;
}

const thousands = (n) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

// Nodes per millisecond are thousands of nodes per second.
export function speedText(analysis) {
  if (!analysis || !analysis.nodes) return '';
  if (analysis.timeMs > 0) return `${thousands(analysis.nodes / analysis.timeMs)} kN/s`;
  return `${thousands(analysis.nodes / 1000)}k nodes`;
}
