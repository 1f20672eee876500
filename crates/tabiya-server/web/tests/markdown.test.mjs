// The notes' Markdown renderer: what it makes of ordinary notes, and that hostile text never
// becomes markup (every tag and attribute of the output is one the renderer writes itself).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderMarkdown, renderInline, escapeHtml, safeUrl } from '../markdown.js';

const ALLOWED = new Set(['p', 'ul', 'ol', 'li', 'strong', 'em', 'code', 'a']);

// Every tag of the output is allowed, and the only attributes are a link's href (http or
// https), rel and target.
function assertSafe(html) {
  for (const m of html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)([^>]*)>/g)) {
    const [, tag, attrs] = m;
    assert.ok(ALLOWED.has(tag), `tag <${tag}> in ${html}`);
    if (tag !== 'a' || m[0].startsWith('</')) {
      assert.equal(attrs, '', `attributes on <${tag}> in ${html}`);
      continue;
    }
    const names = [...attrs.matchAll(/\s([a-z-]+)="[^"]*"/g)].map((a) => a[1]);
    assert.deepEqual(names, ['href', 'rel', 'target'], `attributes ${attrs}`);
    const href = /href="([^"]*)"/.exec(attrs)[1];
    assert.match(href, /^https?:\/\//i, `href ${href}`);
  }
  assert.ok(!/<(?!\/?(p|ul|ol|li|strong|em|code|a)[\s>])/.test(html), `a stray < in ${html}`);
}

test('paragraphs, emphasis, code, links', () => {
  assert.equal(renderMarkdown('Sharp.'), '<p>Sharp.</p>');
  assert.equal(renderMarkdown('One\nline.\n\nTwo.'), '<p>One line.</p>\n<p>Two.</p>');
  assert.equal(renderInline('**bold** and *italic* and _also_'), '<strong>bold</strong> and <em>italic</em> and <em>also</em>');
  assert.equal(renderInline('a snake_case_name stays'), 'a snake_case_name stays');
  assert.equal(renderInline('2 * 3 * 4'), '2 * 3 * 4');
  assert.equal(renderInline('`Nf3 **not bold**`'), '<code>Nf3 **not bold**</code>');
  assert.equal(renderInline('See [Lichess](https://lichess.org/study?a=1&b=2).'),
    'See <a href="https://lichess.org/study?a=1&amp;b=2" rel="noopener noreferrer nofollow" target="_blank">Lichess</a>.');
  assert.equal(renderInline('[**bold** link](http://example.com)'),
    '<a href="http://example.com" rel="noopener noreferrer nofollow" target="_blank"><strong>bold</strong> link</a>');
});

test('lists', () => {
  assert.equal(renderMarkdown('Plans:\n- f4\n- Nf3\n  then Bc4\n\nOr:\n1. d4\n2. c4'),
    '<p>Plans:</p>\n<ul><li>f4</li><li>Nf3 then Bc4</li></ul>\n<p>Or:</p>\n<ol><li>d4</li><li>c4</li></ol>');
  assert.equal(renderMarkdown('* one\n+ two'), '<ul><li>one</li><li>two</li></ul>');
  // A year at the start of a wrapped line is no list.
  assert.equal(renderMarkdown('Played first in\n1999. Then often.'), '<p>Played first in 1999. Then often.</p>');
  assert.equal(renderMarkdown(''), '');
  assert.equal(renderMarkdown(null), '');
});

test('hostile text stays text', () => {
  const cases = [
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '[click](javascript:alert(1))',
    '[click](JavaScript:alert(1))',
    '[click]( javascript:alert(1))',
    '[click](data:text/html;base64,PHNjcmlwdD4=)',
    '[click](vbscript:msgbox(1))',
    '[click](//evil.example/x)',
    '[click](/relative)',
    '[x](http://a.example/"onmouseover="alert(1))',
    "[x](http://a.example/'onmouseover='alert(1))",
    '[x](http://a.example/<script>)',
    '**<b>bold</b>**',
    '`<i>code</i>`',
    '*<a href="javascript:alert(1)">x</a>*',
    '- <svg onload=alert(1)>',
    '&lt;script&gt; already escaped',
    '[a](http://x.example/*y) *z*',
    'x\u00000\u0000 forged placeholder',
    '[jav&#x61;script](jav&#x61;script:alert(1))',
  ];
  for (const c of cases) {
    const html = renderMarkdown(c);
    assertSafe(html);
    assert.ok(!/<script/i.test(html) && !/javascript:/i.test(html.replace(/>[^<]*</g, '><')), `${c} -> ${html}`);
  }
  assert.equal(renderMarkdown('<script>alert(1)</script>'), '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
  assert.equal(renderInline('[click](javascript:alert(1))'), 'click)');
  assert.equal(renderInline('&lt;'), '&amp;lt;');
  assert.equal(renderInline('x\u00000\u0000'), 'x0');
  assert.equal(renderMarkdown('x\u00000\u0000'), '<p>x0</p>');
});

test('escaping and URLs', () => {
  assert.equal(escapeHtml(`<a href="x" onclick='y'>&</a>`), '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  assert.equal(safeUrl('https://lichess.org/'), 'https://lichess.org/');
  assert.equal(safeUrl('HTTP://EXAMPLE.COM'), 'HTTP://EXAMPLE.COM');
  for (const bad of ['javascript:alert(1)', 'ftp://x', 'https://a b', 'https://a"b', 'mailto:a@b', '']) {
    assert.equal(safeUrl(bad), null, bad);
  }
});
