/**
 * PostgreSQL text output -> SIARD lexical values. The session runs with the settings of
 * connection.ts (UTC, ISO dates, ISO 8601 intervals, shortest exact floats, hex bytea), so each
 * conversion is a small rewrite of a known format. A value that has no faithful SIARD form
 * (numeric NaN, infinite or BC dates, mixed-sign intervals) throws ValueConversionError; the
 * caller adds table, row and column to the message.
 */
import type { PgValueKind } from './type-mapping.js';

export class ValueConversionError extends Error {}

/** "\x0a0b" (bytea hex output) -> bytes */
export function decodeByteaHex(text: string): Buffer {
  if (!text.startsWith('\\x')) throw new ValueConversionError('bytea value is not in hex output format');
  return Buffer.from(text.slice(2), 'hex');
}

/** Dates before year 1 and infinite dates have no xs:date / xs:dateTime form. */
function refuseUnrepresentableDate(text: string): string {
  // (text.endsWith and two comparisons, not regular expressions: once per date and timestamp cell)
  if (text.endsWith(' BC') || text === 'infinity' || text === '-infinity') {
    throw new ValueConversionError(`date/time "${text}" has no SIARD form (BC or infinite)`);
  }
  return text;
}

/** "+00" / "+00:00" / "-05:30" -> "Z" when zero, else "+hh:mm" */
function zone(offset: string): string {
  const m = /^([+-])(\d\d)(?::?(\d\d))?(?::?(\d\d))?$/.exec(offset);
  if (!m) throw new ValueConversionError(`time zone offset "${offset}" is not understood`);
  if (m[2] === '00' && (m[3] ?? '00') === '00' && (m[4] ?? '00') === '00') return 'Z';
  if (m[4] && m[4] !== '00') throw new ValueConversionError(`time zone offset "${offset}" has seconds`);
  return `${m[1]}${m[2]}:${m[3] ?? '00'}`;
}

function splitZone(text: string): [string, string] {
  const m = /^(.*?)([+-]\d\d(?::?\d\d){0,2})$/.exec(text);
  if (!m) throw new ValueConversionError(`"${text}" has no time zone offset`);
  return [m[1], m[2]];
}

/** An ISO 8601 interval as PostgreSQL prints it (P1Y-2M3DT4H) -> xs:duration, or an error. */
export function intervalToDuration(text: string): string {
  const m = /^P(?:(-?\d+)Y)?(?:(-?\d+)M)?(?:(-?\d+)D)?(?:T(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?\d+(?:\.\d+)?)S)?)?$/.exec(text);
  if (!m) throw new ValueConversionError(`interval "${text}" is not in ISO 8601 form`);
  const parts = m.slice(1);
  const signs = new Set(parts.filter((p): p is string => p !== undefined && Number(p) !== 0).map((p) => p.startsWith('-')));
  if (signs.size > 1) throw new ValueConversionError(`interval "${text}" mixes positive and negative parts, which xs:duration cannot hold`);
  const [y, mo, d, h, mi, s] = parts.map((p) => (p === undefined || Number(p) === 0 ? undefined : p.replace(/^-/, '')));
  let out = signs.has(true) ? '-P' : 'P';
  if (y) out += `${y}Y`;
  if (mo) out += `${mo}M`;
  if (d) out += `${d}D`;
  if (h || mi || s) out += 'T' + (h ? `${h}H` : '') + (mi ? `${mi}M` : '') + (s ? `${s}S` : '');
  return out === 'P' || out === '-P' ? 'PT0S' : out;
}

/** One scalar value (PostgreSQL text output) -> SIARD lexical text or bytes. */
export function convertScalar(kind: PgValueKind, text: string): string | Buffer {
  switch (kind) {
    case 'integer':
    case 'text':
    case 'clob':
    case 'xml':
    case 'largeObject':
      return text;
    case 'decimal':
      if (!/^-?\d+(\.\d+)?$/.test(text)) throw new ValueConversionError(`numeric value "${text}" has no SIARD (xs:decimal) form`);
      return text;
    case 'float':
      if (text === 'NaN') return 'NaN';
      if (text === 'Infinity') return 'INF';
      if (text === '-Infinity') return '-INF';
      return text;
    case 'boolean':
      return text === 't' || text === 'true' ? 'true' : 'false';
    case 'blob':
      return decodeByteaHex(text);
    case 'date':
      return `${refuseUnrepresentableDate(text)}Z`;
    case 'time':
      return `${text}Z`;
    case 'timetz': {
      // selected as (value AT TIME ZONE 'UTC'), so the offset is +00 and becomes Z
      const [clock, offset] = splitZone(text);
      return clock + zone(offset);
    }
    case 'timestamp':
      return `${refuseUnrepresentableDate(text).replace(' ', 'T')}Z`;
    case 'timestamptz': {
      const [stamp, offset] = splitZone(refuseUnrepresentableDate(text));
      return stamp.replace(' ', 'T') + zone(offset);
    }
    case 'interval':
      return intervalToDuration(text);
  }
}

/**
 * A one-dimensional PostgreSQL array literal ("{1,NULL,\"a b\"}") -> its elements as text
 * (null for NULL). Multi-dimensional arrays and lower bounds other than 1 ("[0:2]={...}") throw:
 * SIARD's a1, a2, ... cannot say where an array starts.
 */
export function parseArrayLiteral(text: string): Array<string | null> {
  if (text.startsWith('[')) throw new ValueConversionError(`array "${text.slice(0, 40)}" does not start at index 1`);
  if (!text.startsWith('{') || !text.endsWith('}')) throw new ValueConversionError(`"${text.slice(0, 40)}" is not an array literal`);
  const body = text.slice(1, -1);
  const out: Array<string | null> = [];
  if (body === '') return out;
  let i = 0;
  for (;;) {
    if (body[i] === '{') throw new ValueConversionError('multi-dimensional arrays have no SIARD form');
    if (body[i] === '"') {
      let value = '';
      i++;
      while (i < body.length && body[i] !== '"') {
        if (body[i] === '\\') i++;
        value += body[i];
        i++;
      }
      i++; // past the closing quote
      out.push(value);
    } else {
      let end = body.indexOf(',', i);
      if (end < 0) end = body.length;
      const raw = body.slice(i, end);
      out.push(raw === 'NULL' ? null : raw);
      i = end;
    }
    if (i >= body.length) return out;
    i++; // past the comma
  }
}
