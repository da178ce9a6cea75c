/**
 * The HTML report of a check: one self-contained page (inline style, no script, nothing loaded)
 * an archivist can attach to an accession record: the verdict, the counts, then every requirement
 * with its status, source and findings. Every text is escaped.
 */
import type { CheckResult } from './report.js';
import { requirement } from './requirements.js';

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE =
  'body{font:14px/1.4 sans-serif;margin:2em;color:#222}table{border-collapse:collapse;width:100%}' +
  'td,th{border:1px solid #ccc;padding:4px 6px;vertical-align:top;text-align:left}' +
  '.failed{background:#fdd}.passed{background:#dfd}.not-checked{background:#eee}.not-applicable{color:#777}ul{margin:0;padding-left:1.2em}';

export function renderHtml(target: string, result: CheckResult, when = new Date()): string {
  const counts = new Map<string, number>();
  for (const q of result.requirements) counts.set(q.status, (counts.get(q.status) ?? 0) + 1);
  const rows = [...result.requirements]
    .sort((a, b) => Number(b.status === 'failed') - Number(a.status === 'failed'))
    .map((q) => {
      const findings = q.findings
        .map((f) => {
          const at = [f.entry, f.table && `table ${f.table}`, f.row !== undefined && `row ${f.row}`, f.column && `column ${f.column}`]
            .filter(Boolean)
            .join(', ');
          return `<li>${esc(f.message)}${at ? ` <small>(${esc(at)})</small>` : ''}</li>`;
        })
        .join('');
      return (
        `<tr class="${q.status}"><td>${esc(q.id)}</td><td>${esc(q.status)}</td>` +
        `<td>${esc(requirement(q.id).text)}<br><small>${esc(q.source)}</small></td>` +
        `<td>${findings ? `<ul>${findings}</ul>` : ''}</td></tr>`
      );
    })
    .join('\n');
  return (
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">' +
    `<title>SIARD 2.2 check: ${esc(target)}</title><style>${STYLE}</style></head><body>\n` +
    `<h1>SIARD 2.2 check: ${result.ok ? 'conformant' : 'not conformant'}</h1>\n` +
    `<p>${esc(target)}<br>checked ${esc(when.toISOString())} by siard-ocfl check</p>\n` +
    `<p>${['passed', 'failed', 'not-applicable', 'not-checked'].map((s) => `${counts.get(s) ?? 0} ${s}`).join(', ')}</p>\n` +
    `<table><tr><th>id</th><th>status</th><th>requirement</th><th>findings</th></tr>\n${rows}\n</table></body></html>\n`
  );
}
