/**
 * Small text helpers for writing METS: attribute escaping, XML IDs (NCName), relative file URLs.
 */

/**
 * Escapes a value for a double-quoted attribute. TAB, LF and CR become character references so
 * attribute-value normalisation does not turn them into spaces. Characters XML 1.0 cannot carry
 * (other C0 controls, lone surrogates, U+FFFE/U+FFFF) are refused: a METS file must say exactly
 * what it was given or nothing.
 */
export function escapeAttribute(value: string, what: string): string {
  let out = '';
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    let rep: string | undefined;
    if (code === 0x26) rep = '&amp;';
    else if (code === 0x3c) rep = '&lt;';
    else if (code === 0x3e) rep = '&gt;';
    else if (code === 0x22) rep = '&quot;';
    else if (code === 0x09) rep = '&#9;';
    else if (code === 0x0a) rep = '&#10;';
    else if (code === 0x0d) rep = '&#13;';
    else if (code < 0x20 || code === 0xfffe || code === 0xffff) {
      throw new Error(`${what} contains the character U+${code.toString(16).toUpperCase().padStart(4, '0')}, which XML cannot carry.`);
    } else if (code >= 0xd800 && code <= 0xdfff) {
      const pair = code <= 0xdbff && i + 1 < value.length && (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
      if (!pair) throw new Error(`${what} contains a lone surrogate U+${code.toString(16).toUpperCase()}.`);
      i++;
      continue;
    }
    if (rep !== undefined) {
      out += value.slice(start, i) + rep;
      start = i + 1;
    }
  }
  return start === 0 ? value : out + value.slice(start);
}

/** ` NAME="value"`, or '' when value is undefined. */
export function attr(name: string, value: string | number | undefined): string {
  if (value === undefined) return '';
  return ` ${name}="${escapeAttribute(String(value), `The METS attribute ${name}`)}"`;
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

/** Percent-encodes each '/'-separated segment (RFC 3986 unreserved characters stay). */
export function encodeRelativeUrl(relPath: string): string {
  return relPath
    .split('/')
    .map((s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase()))
    .join('/');
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
