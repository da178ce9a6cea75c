/**
 * HTML that escapes by default: `html` is a tagged template whose every interpolated value is
 * escaped as text (`& < > " '`), unless it is itself made by `html` (or `raw`, kept for the few
 * fixed fragments written in this folder). Arrays are joined, null/undefined/false are nothing.
 * Archive content (cell text, names, descriptions, ids) can therefore only ever appear as text.
 */

const SAFE = Symbol('safe-html');

export interface SafeHtml {
  readonly [SAFE]: true;
  readonly text: string;
}

type Value = SafeHtml | string | number | boolean | null | undefined | readonly Value[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML text or attribute value (quoted with "): the five special characters replaced. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function isSafe(v: unknown): v is SafeHtml {
  return typeof v === 'object' && v !== null && SAFE in v;
}

function render(v: Value): string {
  if (v === null || v === undefined || v === false) return '';
  if (isSafe(v)) return v.text;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let text = strings[0]!;
  for (let i = 0; i < values.length; i++) text += render(values[i]!) + strings[i + 1]!;
  return { [SAFE]: true, text };
}

/** A fragment written in this code (never data): used as is. */
export function raw(text: string): SafeHtml {
  return { [SAFE]: true, text };
}

/** A URL of this application: `path` with its query parameters percent-encoded. */
export function href(path: string, params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s === '' ? path : `${path}?${s}`;
}
