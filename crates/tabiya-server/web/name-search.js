// The header's player search: a combobox (ARIA 1.2, list autocomplete) over /api/names.
//
//   createNameSearch(input, list, { search(q, signal) -> [{ name, means?, games?, fuzzy? }],
//                                   onChoose(name), status })
//     input: <input type="search" role="combobox" aria-controls=list.id>
//     list:  <ul role="listbox">, filled with <li role="option"> (name, then its game count
//            when the answer gives one; names found only with a typo are marked)
//     status: an element with aria-live, told how many names were found
//   -> { close(), clear() }
//
// Typing asks for names 150 ms after the last key (an older question is aborted); ↓ and ↑
// move through the suggestions (the input keeps the focus: aria-activedescendant), Enter
// chooses the one marked (or the first), Escape closes the list, or empties the box when it
// is closed. A click chooses too.

import { el, fmt } from './dom.js';

const DEBOUNCE_MS = 150;

export function createNameSearch(input, list, { search, onChoose, status = null }) {
  let hits = [];
  let active = -1;
  let timer = null;
  let controller = null;
  let asked = '';

  const optionId = (i) => `${list.id}-${i}`;

  function setOpen(open) {
    list.hidden = !open;
    input.setAttribute('aria-expanded', String(open));
    if (!open) setActive(-1);
  }

  function setActive(i) {
    active = i;
    for (const [k, li] of [...list.children].entries()) {
      const on = k === i;
      li.classList.toggle('is-active', on);
      li.setAttribute('aria-selected', String(on));
      if (on) li.scrollIntoView({ block: 'nearest' });
    }
    if (i >= 0) input.setAttribute('aria-activedescendant', optionId(i));
    else input.removeAttribute('aria-activedescendant');
  }

  function show(found, q) {
    hits = found;
    list.replaceChildren(...found.map((h, i) => el('li', {
      id: optionId(i), role: 'option', className: 'name-option', 'aria-selected': 'false', dataset: { name: h.name },
    },
    el('span', { className: 'name-option__name' }, h.name),
    h.fuzzy ? el('span', { className: 'name-option__fuzzy', title: 'found with a typo allowed' }, ' ≈') : null,
    h.means ? el('span', { className: 'name-option__means' }, ` → ${h.means}`) : null,
    typeof h.games === 'number'
      ? el('span', { className: 'name-option__games' }, `${fmt(h.games)} game${h.games === 1 ? '' : 's'}`)
      : null)));
    if (status) {
      status.textContent = found.length
        ? `${found.length} player${found.length === 1 ? '' : 's'} found; up and down arrows to choose`
        : `no player found for ${q}`;
    }
    setOpen(found.length > 0 && document.activeElement === input);
    setActive(-1);
  }

  async function ask(q) {
    if (controller) controller.abort();
    controller = new AbortController();
    const mine = controller;
    asked = q;
    try {
      const found = await search(q, mine.signal);
      if (mine.signal.aborted || input.value.trim() !== q) return;
      show(found, q);
    } catch (e) {
      if (e.name === 'AbortError') return;
      show([], q);
      if (status) status.textContent = `Cannot search names: ${e.message}`;
    }
  }

  function typed() {
    clearTimeout(timer);
    const q = input.value.trim();
    if (!q) {
      if (controller) controller.abort();
      asked = '';
      hits = [];
      list.replaceChildren();
      setOpen(false);
      return;
    }
    timer = setTimeout(() => ask(q), DEBOUNCE_MS);
  }

  function choose(i) {
    const h = hits[i];
    if (!h) return;
    input.value = h.name;
    setOpen(false);
    onChoose(h.name);
  }

  input.addEventListener('input', typed);
  input.addEventListener('keydown', (e) => {
    const open = !list.hidden;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!hits.length) return;
      if (!open) setOpen(true);
      const n = hits.length;
      const next = e.key === 'ArrowDown'
        ? (active + 1) % n
        : (active <= 0 ? n - 1 : active - 1);
      setActive(next);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      const q = input.value.trim();
      if (open && active >= 0) choose(active);
      else if (hits.length && asked === q) choose(0);
      else if (q) {
        // Enter before the suggestions came: the name as typed (the page says if it is none).
        clearTimeout(timer);
        if (controller) controller.abort();
        setOpen(false);
        onChoose(q);
      }
    } else if (e.key === 'Escape') {
      if (open) {
        e.preventDefault();
        setOpen(false);
      } else if (input.value) {
        e.preventDefault();
        input.value = '';
        typed();
      }
    }
  });
  // A mousedown would move the focus away and close the list before the click.
  list.addEventListener('mousedown', (e) => e.preventDefault());
  list.addEventListener('click', (e) => {
    const li = e.target.closest('li[role=option]');
    if (li) choose([...list.children].indexOf(li));
  });
  list.addEventListener('mousemove', (e) => {
    const li = e.target.closest('li[role=option]');
    const i = li ? [...list.children].indexOf(li) : -1;
    if (i >= 0 && i !== active) setActive(i);
  });
  input.addEventListener('blur', () => setOpen(false));
  input.addEventListener('focus', () => { if (hits.length && asked === input.value.trim()) setOpen(true); });

  return {
    close: () => setOpen(false),
    clear() {
      input.value = '';
      hits = [];
      asked = '';
      list.replaceChildren();
      setOpen(false);
    },
  };
}
