// The page's state and its URL: everything a shared link or the back button must restore.
//
//   readState('?db=demo&play=e2e4,c7c5&at=1&since=2020') -> state
//   writeState(state, 'chess' | 'othello')               -> '?db=demo&play=e2e4,c7c5&at=1&since=2020'
//
// state = {
//   db,                 database name (null: the first served)
//   fen,                chess: the line's starting FEN (null: the standard start)
//   line,               the moves played: chess UCI ['e2e4', ...], Othello squares ['f5', ...]
//   at,                 how many of them are on the board (null: all)
//   orient,             'white' | 'black' (chess board orientation)
//   view,               'explorer' | 'games' | 'books' | 'player' | 'stats' (the database's statistics)
//                       | 'train' (the flashcards' trainer) | 'search' (the structure search)
//   name,               the player page's player (view=player&name=…; `player` is the filter's)
//   prep,               the player page's Preparation: 'white' | 'black' | null (prep=white)
//   filters,            { since, until, ratingMin, ratingMax, speeds: [], player, color,  (chess)
//                         gameset, where (a gameset's games; criteria, docs/gamesets.md)
//                         tournament, from, to, players }                                 (Othello)
//   sort, offset,       the games list's order and page
//   game, ply,          an open game and where it is (a path in its move tree, see viewer.js)
//   search,             the structure search (search-view.js): { pattern, pawns, material, either,
//                       hold, bishops }, in the URL as /api/search names them (pattern=…&pawns=…
//                       &material=…&eitherColour=true&for=4&oppositeBishops=true), written only
//                       with view=search
// }
// A chess line is `play=e2e4,c7c5`; an Othello line `moves=f5d6c3`. Defaults are left out of
// the URL, so the start page is plain `/`.

export const SPEEDS = ['ultraBullet', 'bullet', 'blitz', 'rapid', 'classical', 'correspondence'];
export const VIEWS = ['explorer', 'games', 'books', 'player', 'stats', 'train', 'search'];
export const SORTS = ['rating', 'date', 'id', 'eco', 'length', 'result'];
// The orders of the structure search's games (the games list has SORTS: also ECO, length
// and result).
export const SEARCH_SORTS = ['rating', 'date', 'id'];

const FILTER_KEYS = ['since', 'until', 'ratingMin', 'ratingMax', 'player', 'color', 'gameset', 'where', 'tournament', 'from', 'to', 'players'];

export function emptyFilters() {
  return {
    since: '', until: '', ratingMin: '', ratingMax: '', speeds: [], player: '', color: 'any',
    gameset: '', where: '', tournament: '', from: '', to: '', players: 'any',
  };
}

export function readState(search) {
  const p = new URLSearchParams(search);
  const get = (k) => (p.get(k) || '').trim();
  const filters = emptyFilters();
  for (const k of FILTER_KEYS) if (get(k)) filters[k] = get(k);
  filters.speeds = get('speeds') ? get('speeds').split(',').filter((s) => SPEEDS.includes(s)) : [];
  const line = get('play')
    ? get('play').split(/[\s,]+/).filter(Boolean)
    : (get('moves').toLowerCase().match(/[a-h][1-8]/g) || []);
  const at = /^\d+$/.test(get('at')) ? Math.min(Number(get('at')), line.length) : null;
  const offset = /^\d+$/.test(get('offset')) ? Number(get('offset')) : 0;
  // The player page needs a name; without one, the explorer.
  const name = get('name') || null;
  const view = VIEWS.includes(get('view')) && (get('view') !== 'player' || name) ? get('view') : 'explorer';
  return {
    db: get('db') || null,
    fen: get('fen') || null,
    line,
    at: at === line.length ? null : at,
    orient: get('orient') === 'black' ? 'black' : 'white',
    view,
    name: view === 'player' ? name : null,
    prep: view === 'player' && ['white', 'black'].includes(get('prep')) ? get('prep') : null,
    filters,
    sort: SORTS.includes(get('sort')) ? get('sort') : 'rating',
    offset,
    game: get('game') || null,
    ply: get('ply') || null,
    search: readSearch(get),
  };
}

const yes = (v) => v === 'true' || v === '1';

function readSearch(get) {
  const hold = /^\d+$/.test(get('for')) ? Number(get('for')) : null;
  return {
    pattern: get('pattern'),
    pawns: get('pawns'),
    material: get('material'),
    either: yes(get('eitherColour')) || yes(get('eitherColor')),
    hold: hold && hold > 1 ? hold : null,
    bishops: yes(get('oppositeBishops')),
  };
}

export function writeState(s, kind = 'chess') {
  const p = new URLSearchParams();
  if (s.db) p.set('db', s.db);
  if (kind === 'chess') {
    if (s.fen) p.set('fen', s.fen);
    if (s.line.length) p.set('play', s.line.join(','));
  } else if (s.line.length) {
    p.set('moves', s.line.join(''));
  }
  if (s.at !== null && s.at !== undefined && s.at < s.line.length) p.set('at', String(s.at));
  if (kind === 'chess' && s.orient === 'black') p.set('orient', 'black');
  if (s.view !== 'explorer') p.set('view', s.view);
  if (s.view === 'player' && s.name) p.set('name', s.name);
  if (s.view === 'player' && s.prep) p.set('prep', s.prep);
  if (s.view === 'search' && s.search) {
    const q = s.search;
    if (q.pattern) p.set('pattern', q.pattern);
    if (q.pawns) p.set('pawns', q.pawns);
    if (q.material) p.set('material', q.material);
    if (q.either) p.set('eitherColour', 'true');
    if (q.hold && q.hold > 1) p.set('for', String(q.hold));
    if (q.bishops) p.set('oppositeBishops', 'true');
  }
  for (const [k, v] of Object.entries(activeFilters(s.filters, kind))) p.set(k, v);
  if (s.sort !== 'rating') p.set('sort', s.sort);
  if (s.offset) p.set('offset', String(s.offset));
  if (s.game) p.set('game', s.game);
  if (s.game && s.ply) p.set('ply', s.ply);
  const text = p.toString().replace(/%2C/g, ',').replace(/%2F/g, '/');
  return text ? `?${text}` : (typeof location === 'undefined' ? '/' : location.pathname);
}

// The filters that are set, as API parameters (chess: explore and games; Othello: games).
export function activeFilters(f, kind = 'chess') {
  const out = {};
  const keys = kind === 'chess'
    ? ['since', 'until', 'ratingMin', 'ratingMax', 'player', 'gameset', 'where']
    : ['player', 'tournament', 'from', 'to'];
  for (const k of keys) if (f[k]) out[k] = f[k];
  if (kind === 'chess') {
    if (f.speeds.length) out.speeds = f.speeds.join(',');
    if (f.player && f.color && f.color !== 'any') out.color = f.color;
  } else if (f.players && f.players !== 'any') {
    out.players = f.players;
  }
  return out;
}
