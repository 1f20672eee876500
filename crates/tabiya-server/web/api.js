// Talking to the server, and showing that it is being talked to.
//
//   await getJson('/api/explore', { db: 'demo', play: 'e2e4' }, { signal })
//     -> the JSON answer; throws ApiError(message, kind, status) on a 4xx/5xx (the server's
//        { error, kind }) or when the server cannot be reached.
//   await sendJson('PUT', '/api/note', { db, play }, { note: 'text' })  -> the same, for changes
//   await postJson('/api/cards/3/answer', { db: 'demo' }, { move: 'Nf3' })
//     -> the same for a request that changes something (a JSON body, POST)
//   const loader = createLoader(panel)
//   loader.load(key, (signal) => getJson(...), (data) => render(data), (error) => {...})
//     runs the request unless `key` is what the panel already shows (or is loading); a newer
//     load aborts an older one. The panel is marked busy (aria-busy, a spinner) only when an
//     answer takes longer than 150 ms, so fast answers do not flash. Errors go to an alert in
//     the panel.

export class ApiError extends Error {
  constructor(message, kind = 'error', status = 0) {
    super(message);
    this.name = 'ApiError';
    this.kind = kind;
    this.status = status;
  }
}

export function apiUrl(path, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== null && v !== undefined && v !== '') q.set(k, String(v));
  }
  const text = q.toString().replace(/%2C/g, ',').replace(/%2F/g, '/');
  return text ? `${path}?${text}` : path;
}

async function requestJson(url, signal, init = {}) {
  let response;
  try {
    response = await fetch(url, { signal, ...init, headers: { Accept: 'application/json', ...init.headers } });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError('The server cannot be reached. Is `tabiya serve` still running?', 'network');
  }
  let body = null;
  try {
    body = await response.json();
  } catch (e) {
    if (e.name === 'AbortError') throw e;
  }
  return { ok: response.ok, status: response.status, statusText: response.statusText, body };
}

// Answers asked for before the page knows it needs them (the first table's, while the
// modules load); getJson takes such an answer instead of asking again.
const early = new Map();
export function prefetch(path, params = {}) {
  const url = apiUrl(path, params);
  if (!early.has(url)) {
    const answer = requestJson(url);
    answer.catch(() => {}); // reported when taken, if ever
    early.set(url, answer);
  }
}

// Resolves when every prefetched answer is in, or after `ms`, whichever is first.
export function prefetched(ms) {
  return Promise.race([
    Promise.allSettled([...early.values()]),
    new Promise((resolve) => { setTimeout(resolve, ms); }),
  ]);
}

export async function getJson(path, params = {}, { signal } = {}) {
  const url = apiUrl(path, params);
  const ready = early.get(url);
  early.delete(url);
  return answerOf(path, await (ready || requestJson(url, signal)), signal);
}

export function postJson(path, params = {}, body = {}, options = {}) {
  return sendJson('POST', path, params, body, options);
}

function answerOf(path, r, signal) {
  if (signal && signal.aborted) throw new DOMException('aborted', 'AbortError');
  if (!r.ok) {
    const message = r.body && r.body.error ? r.body.error : `${r.status} ${r.statusText}`;
    throw new ApiError(message, r.body && r.body.kind ? r.body.kind : 'error', r.status);
  }
  if (r.body === null) throw new ApiError(`The server's answer to ${path} is not JSON.`, 'format', r.status);
  return r.body;
}

// The grant a change shows (Authorization: Bearer): the server gives it to its own page
// only, when it was started with --writable. Asked once; a read-only server's refusal is
// kept as no grant (the change is then refused with the server's own reason).
let grant = null;
async function grantHeaders() {
  if (grant === null) {
    grant = requestJson('/api/grant').then((r) => (r.ok && r.body && r.body.grant ? r.body.grant : ''), () => '');
  }
  const g = await grant;
  return g ? { Authorization: `Bearer ${g}` } : {};
}

// A change sent to the server (PUT, DELETE… with a JSON body or none): its JSON answer, or
// ApiError as getJson throws it (a read-only server answers 403).
export async function sendJson(method, path, params = {}, body = undefined, { signal } = {}) {
  const headers = await grantHeaders();
  const init = body === undefined
    ? { method, headers }
    : { method, headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
  return answerOf(path, await requestJson(apiUrl(path, params), signal, init), signal);
}

// PGN sent to the server to be read (a repertoire) with a POST: its JSON answer, or ApiError.
export async function postText(path, params = {}, text = '', { signal } = {}) {
  const init = { method: 'POST', headers: { 'Content-Type': 'application/x-chess-pgn' }, body: text };
  return answerOf(path, await requestJson(apiUrl(path, params), signal, init), signal);
}

const BUSY_AFTER_MS = 150;

// How many answers are awaited, on <html data-loading>: for tests, and for a progress cursor.
let inFlight = 0;
function pending(delta) {
  inFlight += delta;
  document.documentElement.dataset.loading = String(inFlight > 0);
}

export function createLoader(panel) {
  let controller = null;
  let shownKey = null;
  let timer = null;
  const alert = document.createElement('p');
  alert.className = 'api-error';
  alert.setAttribute('role', 'alert');
  alert.hidden = true;
  const spinner = document.createElement('p');
  spinner.className = 'loading';
  spinner.setAttribute('role', 'status');
  spinner.hidden = true;
  spinner.innerHTML = '<span class="spinner" aria-hidden="true"></span> Loading…';
  panel.prepend(alert, spinner);

  function busy(on) {
    panel.setAttribute('aria-busy', String(on));
    panel.classList.toggle('is-loading', on);
    spinner.hidden = !on;
  }

  // A message's first line as text; lines after it (a criterion with a caret under the
  // word at fault) as they are, in a fixed-width block.
  function showError(message) {
    alert.hidden = !message;
    const [first, ...rest] = (message || '').split('\n');
    alert.textContent = message ? `Error: ${first}` : '';
    if (message && rest.length) {
      const pre = document.createElement('pre');
      pre.className = 'api-error-detail';
      pre.textContent = rest.join('\n');
      alert.append(pre);
    }
  }

  return {
    async load(key, fetcher, render, onError = null) {
      if (key === shownKey) return; // shown, or on its way
      if (controller) controller.abort();
      const mine = new AbortController();
      controller = mine;
      shownKey = key;
      clearTimeout(timer);
      timer = setTimeout(() => { if (controller === mine) busy(true); }, BUSY_AFTER_MS);
      pending(+1);
      try {
        const data = await fetcher(mine.signal);
        if (mine.signal.aborted) return;
        showError('');
        render(data);
      } catch (e) {
        if (e.name === 'AbortError' || mine.signal.aborted) return;
        shownKey = null;
        showError(e.message);
        if (onError) onError(e);
      } finally {
        pending(-1);
        if (controller === mine) {
          controller = null;
          clearTimeout(timer);
          busy(false);
        }
      }
    },
    // Forget what is shown, so the next load runs whatever its key.
    reset() { shownKey = null; },
    error: showError,
  };
}
