/**
 * Escaping of text written into XML, in one place: SIARD's table and metadata text
 * (escapeSiardText), plain metadata.xml values (escapeXml), and the strict form METS files use
 * (escapeXmlAttribute).
 *
 * Text in SIARD XML files (G_3.3-3, G_3.3-4): XML's special characters become entity references;
 * characters XML 1.0 cannot carry (0-8, 11, 12, 14-31), DEL and the C1 controls (127-159), the
 * escape character '\' itself and every space after the first of a run are written as `\u00XX`.
 * Carriage return is escaped too: an XML parser would turn a literal CR (or CR LF) into LF,
 * silently changing the value. TAB and LF are legal XML and stay literal.
 */

function needsEscape(code: number): boolean {
  return code < 0x20 ? code !== 0x09 && code !== 0x0a : code === 0x5c || (code >= 0x7f && code <= 0x9f);
}

function hex2(code: number): string {
  return '\\u00' + code.toString(16).toUpperCase().padStart(2, '0');
}

/**
 * A character escapeSiardText may change or refuse (or a space after a space). Text without one,
 * the usual case, is returned as it is after this one scan in the regex engine.
 */
const MAY_NEED_ESCAPE = /[&<>"'\\\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]| {2}/;

/** Escapes character data of an element (also safe inside a double-quoted attribute). */
export function escapeSiardText(text: string): string {
  if (!MAY_NEED_ESCAPE.test(text)) return text;
  let out = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    let rep: string | undefined;
    if (code === 0x26) rep = '&amp;';
    else if (code === 0x3c) rep = '&lt;';
    else if (code === 0x3e) rep = '&gt;';
    else if (code === 0x22) rep = '&quot;';
    else if (code === 0x27) rep = '&apos;';
    else if (code === 0x20) rep = i > 0 && text.charCodeAt(i - 1) === 0x20 ? '\\u0020' : undefined;
    else if (needsEscape(code)) rep = hex2(code);
    else if (code >= 0xd800 && code <= 0xdfff) {
      // A lone surrogate cannot be encoded in UTF-8; a pair is a normal character.
      const pair = code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
      if (pair) {
        i++;
        continue;
      }
      throw new Error(`The text contains a lone surrogate U+${code.toString(16).toUpperCase()} at position ${i}.`);
    } else if (code === 0xfffe || code === 0xffff) {
      throw new Error(`The text contains the non-character U+${code.toString(16).toUpperCase()}, which XML cannot carry.`);
    }
    if (rep !== undefined) {
      out += text.slice(start, i) + rep;
      start = i + 1;
    }
  }
  return start === 0 ? text : out + text.slice(start);
}

/** Escapes a value for a double-quoted XML attribute or element of metadata.xml (no SIARD escapes). */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;'));
}

/**
 * Escapes a value for a double-quoted attribute. TAB, LF and CR become character references so
 * attribute-value normalisation does not turn them into spaces. Characters XML 1.0 cannot carry
 * (other C0 controls, lone surrogates, U+FFFE/U+FFFF) are refused: a METS file must say exactly
 * what it was given or nothing. Character references are as valid in element text, so element
 * text that must survive exactly (a CR) is escaped the same way.
 */
export function escapeXmlAttribute(value: string, what: string): string {
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
