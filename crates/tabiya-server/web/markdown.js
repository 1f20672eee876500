// A small, safe Markdown renderer for position notes: all HTML in the text is escaped first,
// then only these become markup:
//
//   paragraphs (blank lines between), lists (lines starting "- ", "* ", "+ " or "1. ", "1) "),
//   **bold**, *italic* or _italic_, `code`, [links](https://…) with http or https only
//   (anything else — javascript:, data:, relative — stays text).
//
//   renderMarkdown('**Sharp.** See [this](https://lichess.org)')
//     -> '<p><strong>Sharp.</strong> See <a href="https://lichess.org" rel="noopener noreferrer nofollow" target="_blank">this</a></p>'
//
// The output holds no tag but p, ul, ol, li, strong, em, code and a, and no attribute but a
// link's href (always http/https, quotes escaped), rel and target.

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function unescapeHtml(text) {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, e) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]);
}

// Placeholders for pieces already made into markup (code spans, links): a character the
// text cannot hold, since every such character is removed from it first.
const MARK = '\u0000';
const stash = (kept, html) => `${MARK}${kept.push(html) - 1}${MARK}`;
const unstash = (kept, text) => text.replace(new RegExp(`${MARK}(\\d+)${MARK}`, 'g'), (_, i) => kept[Number(i)]);

// The link targets a note may have: absolute http(s) URLs without spaces.
export function safeUrl(url) {
  return /^https?:\/\/[^\s<>"'`]+$/i.test(url) ? url : null;
}

function emphasis(text) {
  return text
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, '<strong>$1</strong>')
    .replace(/\*(?=[^\s*])([\s\S]*?[^\s*])\*/g, '<em>$1</em>')
    .replace(/(^|[^\w])_(?=[^\s_])([\s\S]*?[^\s_])_(?!\w)/g, '$1<em>$2</em>');
}

// One paragraph's or list item's text (raw) into markup.
export function renderInline(raw) {
  const kept = [];
  // Code spans first: their text is shown as it is.
  let text = String(raw).replace(/\u0000/g, '').replace(/`([^`]+)`/g, (_, code) => stash(kept, `<code>${escapeHtml(code)}</code>`));
  text = escapeHtml(text);
  // Links: [text](url). The URL is matched on the escaped text, checked as written (a quote
  // or an angle bracket makes it no link), and escaped again for its attribute.
  text = text.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (whole, label, url) => {
    const plain = unescapeHtml(url);
    if (!safeUrl(plain)) return stash(kept, emphasis(label));
    return stash(kept, `<a href="${escapeHtml(plain)}" rel="noopener noreferrer nofollow" target="_blank">${emphasis(label)}</a>`);
  });
  return unstash(kept, unstash(kept, emphasis(text)));
}

const ITEM = /^\s{0,3}(?:([-*+])|(\d{1,9})[.)])\s+(.*)$/;

export function renderMarkdown(source) {
  const lines = String(source || '').replace(/\u0000/g, '').replace(/\r\n?/g, '\n').split('\n');
  const out = [];
  let para = [];
  let list = null; // { ordered, items: [text] }
  const flushPara = () => {
    if (para.length) out.push(`<p>${renderInline(para.join(' '))}</p>`);
    para = [];
  };
  const flushList = () => {
    if (!list) return;
    const tag = list.ordered ? 'ol' : 'ul';
    out.push(`<${tag}>${list.items.map((t) => `<li>${renderInline(t)}</li>`).join('')}</${tag}>`);
    list = null;
  };
  for (const line of lines) {
    if (!line.trim()) {
      flushPara();
      flushList();
      continue;
    }
    const m = ITEM.exec(line);
    // A list starts on a line of its own or after a paragraph; a numbered line inside a
    // paragraph ("… in\n1999. …") stays text unless it starts with 1.
    if (m && (!para.length || m[1] || m[2] === '1')) {
      const ordered = !m[1];
      flushPara();
      if (list && list.ordered !== ordered) flushList();
      if (!list) list = { ordered, items: [] };
      list.items.push(m[3]);
    } else if (list && /^\s{2,}\S/.test(line)) {
      // An indented line goes on with the item before it.
      list.items[list.items.length - 1] += ` ${line.trim()}`;
    } else {
      flushList();
      para.push(line.trim());
    }
  }
  flushPara();
  flushList();
  return out.join('\n');
}
