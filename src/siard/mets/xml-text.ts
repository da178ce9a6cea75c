/**
 * Small text helpers for writing METS: attributes, XML IDs (NCName), relative file URLs.
 */
import { escapeXmlAttribute } from '../xml-text.js';

/** ` NAME="value"`, or '' when value is undefined. */
export function attr(name: string, value: string | number | undefined): string {
  if (value === undefined) return '';
  return ` ${name}="${escapeXmlAttribute(String(value), `The METS attribute ${name}`)}"`;
}

/**
 * An XML ID (NCName) made from any text, one-to-one: ASCII letters, digits, '-' and '_' stay,
 * every other UTF-8 byte becomes `.XX` (so '.' itself is `.2E`). Since '.' appears only in
 * escapes, two different texts never give the same ID.
 */
export function ncNameOf(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9_-]/.test(c) ? c : '.' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/**
 * Turns a relative URL reference from an FLocat back into a '/'-separated path, or explains why
 * it cannot be used: absolute URLs (a scheme, a leading '/'), queries, fragments, '.' or '..'
 * segments, encoded '/' or NUL. Paths from a METS file never leave the folder they are relative to.
 */
export function decodeRelativeUrl(href: string): { path: string } | { problem: string } {
  if (href.length === 0) return { problem: 'it is empty' };
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(href)) return { problem: 'it is an absolute URL, not a reference relative to the METS file' };
  if (href.startsWith('/')) return { problem: 'it starts with "/", not a reference relative to the METS file' };
  if (/[?#]/.test(href)) return { problem: 'it has a query or fragment' };
  if (href.includes('\\')) return { problem: 'it contains a back-slash' };
  const parts: string[] = [];
  for (const raw of href.split('/')) {
    let part: string;
    try {
      part = decodeURIComponent(raw);
    } catch {
      return { problem: `"${raw}" is not valid percent-encoding` };
    }
    if (part === '' || part === '.' || part === '..') return { problem: 'it has an empty, "." or ".." segment' };
    if (part.includes('/') || part.includes('\0')) return { problem: 'it encodes "/" or NUL inside a segment' };
    parts.push(part);
  }
  return { path: parts.join('/') };
}
