/**
 * The escaping template of the reading room: every interpolated value is text unless made by the
 * template itself, in text and in attribute values, nested and in arrays.
 */
import test from 'ava';
import { escapeHtml, href, html, raw } from '../../../src/serve/html.js';

const HOSTILE = `<script>alert("x")</script>&'"><img src=x onerror=alert(1)>`;

test('interpolated strings are escaped in text and attributes', (t) => {
  const out = html`<p title="${HOSTILE}">${HOSTILE}</p>`.text;
  t.false(out.includes('<script>'));
  t.false(out.includes('<img'));
  t.is(out, `<p title="${escapeHtml(HOSTILE)}">${escapeHtml(HOSTILE)}</p>`);
  t.is(escapeHtml(`&<>"'`), '&amp;&lt;&gt;&quot;&#39;');
});

test('fragments made by html or raw are kept; arrays joined; null, undefined and false are nothing', (t) => {
  const inner = html`<b>${'<i>'}</b>`;
  t.is(
    html`<div>${inner}${[html`<br />`, '<br>']}${null}${undefined}${false}${0}</div>`.text,
    '<div><b>&lt;i&gt;</b><br />&lt;br&gt;0</div>',
  );
  t.is(html`${raw('<hr>')}`.text, '<hr>');
});

test('an object that only looks like a fragment is escaped', (t) => {
  const fake = { text: '<script>' } as unknown as string;
  t.is(html`${fake}`.text, '[object Object]');
});

test('href encodes every parameter', (t) => {
  t.is(href('/table', { id: 'urn:x/../y', s: 'a&b', t: 'c d', page: 2, r: undefined }), '/table?id=urn%3Ax%2F..%2Fy&s=a%26b&t=c+d&page=2');
  t.is(href('/', {}), '/');
});
