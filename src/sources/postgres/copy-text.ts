/**
 * A cell's SIARD lexical text as PostgreSQL takes it: the few types whose lexical forms differ
 * (xs:double's INF, xs:duration's leading minus, xs:hexBinary) are rewritten, the rest is passed on
 * as it is; then the COPY text field of it. Used for every text cell a restore sends, whichever way.
 */
import type { SqlTypeFamily } from '../../siard/model.js';
import { copyBytes, copyField } from './copy-in.js';

/** xs:duration ("-P3DT1S") -> an interval literal PostgreSQL reads ("P-3DT-1S"). */
export function durationToPgInterval(text: string): string {
  if (!text.startsWith('-')) return text;
  return text.slice(1).replace(/(\d+(?:\.\d+)?)([YMDHS])/g, '-$1$2');
}

/** The value PostgreSQL's input function gets for a cell's text: text, or bytes for a binary type. */
export function pgScalarText(family: SqlTypeFamily | undefined, text: string): string | Buffer {
  switch (family) {
    case 'float':
      return text === 'INF' ? 'Infinity' : text === '-INF' ? '-Infinity' : text;
    case 'interval':
      return durationToPgInterval(text);
    case 'binary':
    case 'blob':
      return Buffer.from(text, 'hex');
    default:
      return text;
  }
}

/** The COPY text field of a cell's text. */
export function copyFieldOfText(family: SqlTypeFamily | undefined, text: string): string {
  const value = pgScalarText(family, text);
  return typeof value === 'string' ? copyField(value) : copyBytes(value);
}
