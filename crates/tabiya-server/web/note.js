// The position's note, above the explorer's tabs: its Markdown rendered (markdown.js), and on
// a server that changes its databases (`tabiya serve --writable`) Add, Edit and Delete.
//
//   const notes = createNotePanel(box, { save: async (position, text) => note|null,
//                                        remove: async (position) => {} })
//   notes.show({ key, note, editable, position })  the note of the position shown (key: its
//        FEN; position: the API's parameters for it); an edit in progress is kept per key
//   notes.hide()
//
// Controls: #note-add, #note-edit, #note-delete (then #note-delete-confirm / -cancel), in the
// editor #note-text, #note-save, #note-cancel; errors in #note-error (role=alert).

import { el } from './dom.js';
import { renderMarkdown } from './markdown.js';

export function createNotePanel(box, { save, remove }) {
  let shown = null; // { key, note, editable, position }
  let mode = 'view'; // 'view' | 'edit' | 'confirm'
  let busy = false;
  let error = '';
  const drafts = new Map(); // key -> text typed and not saved

  function button(id, text, onClick, extra = {}) {
    const b = el('button', { type: 'button', id, ...extra }, text);
    b.disabled = busy;
    b.addEventListener('click', onClick);
    return b;
  }

  async function run(action, after) {
    busy = true;
    error = '';
    render();
    try {
      const result = await action();
      after(result);
    } catch (e) {
      error = e.message;
    } finally {
      busy = false;
      render();
    }
  }

  function render() {
    if (!shown || (!shown.note && !shown.editable)) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    box.hidden = false;
    const { key, note, editable, position } = shown;
    const parts = [];
    if (mode === 'edit' && editable) {
      const text = el('textarea', { id: 'note-text', rows: '6', spellcheck: 'true', 'aria-describedby': 'note-help' });
      text.value = drafts.has(key) ? drafts.get(key) : (note || '');
      text.addEventListener('input', () => drafts.set(key, text.value));
      text.addEventListener('keydown', (e) => {
        if (e.key === 'Escape') { e.preventDefault(); cancel(); }
        if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); saveText(text.value); }
      });
      parts.push(
        el('label', { for: 'note-text', className: 'note-label' }, 'Note on this position'),
        text,
        el('p', { id: 'note-help', className: 'muted small' },
          'Markdown: **bold**, *italic*, `code`, lists (- item), links [text](https://…). Ctrl+Enter saves, Esc cancels. Any move order reaching the position shows it.'),
        el('div', { className: 'toolbar' },
          button('note-save', busy ? 'Saving…' : 'Save', () => saveText(text.value)),
          button('note-cancel', 'Cancel', cancel)));
      queueMicrotask(() => { if (!busy && document.activeElement !== text) text.focus(); });
    } else if (note) {
      const body = el('div', { className: 'note-body', id: 'note-body' });
      body.innerHTML = renderMarkdown(note); // escaped first: only the renderer's own markup
      parts.push(body);
      if (editable && mode === 'confirm') {
        parts.push(el('div', { className: 'toolbar', role: 'group', 'aria-label': 'Delete the note?' },
          el('span', {}, 'Delete this note?'),
          button('note-delete-confirm', busy ? 'Deleting…' : 'Delete', () => run(() => remove(position), () => {
            shown.note = null;
            mode = 'view';
          }), { className: 'danger' }),
          button('note-delete-cancel', 'Keep it', () => { mode = 'view'; render(); })));
      } else if (editable) {
        parts.push(el('div', { className: 'toolbar' },
          button('note-edit', 'Edit note', () => { mode = 'edit'; render(); }),
          button('note-delete', 'Delete note', () => { mode = 'confirm'; render(); })));
      }
    } else {
      parts.push(el('div', { className: 'toolbar' },
        button('note-add', 'Add a note', () => { mode = 'edit'; render(); })));
    }
    if (error) parts.push(el('p', { id: 'note-error', className: 'form-error', role: 'alert' }, `Not saved: ${error}`));
    box.replaceChildren(el('h3', { className: 'visually-hidden', id: 'note-title' }, 'Note'), ...parts);
  }

  function saveText(text) {
    const { key, position } = shown;
    run(() => save(position, text), (note) => {
      drafts.delete(key);
      if (shown && shown.key === key) shown.note = note;
      mode = 'view';
    });
  }

  function cancel() {
    if (shown) drafts.delete(shown.key);
    mode = 'view';
    error = '';
    render();
  }

  return {
    show({ key, note, editable, position }) {
      const same = shown && shown.key === key;
      shown = { key, note: note || null, editable: !!editable, position };
      if (!same) {
        error = '';
        mode = drafts.has(key) && editable ? 'edit' : 'view';
      } else if (busy) {
        return; // the answer to a save or deletion draws it
      }
      render();
    },
    hide() {
      shown = null;
      box.hidden = true;
      box.replaceChildren();
    },
  };
}
