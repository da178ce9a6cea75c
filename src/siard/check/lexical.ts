/**
 * Lexical forms of cell values by their SQL:2008 type (T_6.0-1 "the table values must correspond
 * to the constraints of the SQL types in the metadata"): integers in range, decimals within
 * precision and scale, doubles, booleans, character strings within their length, hex binary within
 * its length, dates / times / timestamps (years 0001-9999: T_6.3-1; UTC: T_6.3-2), durations.
 * The value is the element's text as the XML parser gives it (entities resolved); SIARD's own
 * `\u00xx` escapes are counted as one character.
 */
import { sqlTypeFamily, type SqlTypeFamily } from '../model.js';

export interface ColumnRule {
  family: SqlTypeFamily | undefined;
  /** characters (char) or bytes (binary) */
  maxLength?: number;
  precision?: number;
  scale?: number;
  /** integer range by type name */
  range?: [bigint, bigint];
  /** integers of at most this many characters (sign included) are inside `range` */
  safeLength?: number;
}

/** What is wrong with a value, in one phrase; a requirement id when it is not T_6.0-1. */
export interface LexicalProblem {
  id: 'T_6.0-1' | 'T_6.3-1' | 'T_6.3-2';
  message: string;
}

const RANGES: Record<string, [bigint, bigint]> = {
  SMALLINT: [-32768n, 32767n],
  INTEGER: [-2147483648n, 2147483647n],
  INT: [-2147483648n, 2147483647n],
  BIGINT: [-9223372036854775808n, 9223372036854775807n],
};

export function columnRule(type: string | undefined): ColumnRule {
  if (type === undefined) return { family: undefined };
  let family: SqlTypeFamily;
  try {
    family = sqlTypeFamily(type);
  } catch {
    return { family: undefined };
  }
  const t = type.trim().toUpperCase();
  const p = /\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)/.exec(t);
  const rule: ColumnRule = { family };
  if (family === 'integer') {
    rule.range = RANGES[t.replace(/\s+/g, ' ')]!;
    if (rule.range) rule.safeLength = String(rule.range[1]).length - 1;
  }
  if (family === 'decimal' && p) {
    rule.precision = Number(p[1]);
    rule.scale = p[2] !== undefined ? Number(p[2]) : 0;
  }
  if ((family === 'char' || family === 'binary') && p) rule.maxLength = Number(p[1]);
  return rule;
}

const INTEGER = /^[+-]?\d+$/;
/**
 * Whether `v` is an integer already in the form BigInt gives (no sign but '-', no leading zero,
 * no -0) of at most `maxDigits` digits; a loop, not a regex: it runs for every key value.
 */
export function isCanonicalInteger(v: string, maxDigits = Infinity): boolean {
  const start = v.charCodeAt(0) === 0x2d ? 1 : 0;
  const digits = v.length - start;
  if (digits < 1 || digits > maxDigits) return false;
  const first = v.charCodeAt(start);
  if (first === 0x30) return digits === 1 && start === 0;
  for (let i = start; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
const DOUBLE = /^([+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|[+-]?INF|NaN)$/;
const HEX = /^([0-9a-fA-F]{2})*$/;
const ZONE = '(Z|[+-]\\d{2}:\\d{2})?';
const DATE = new RegExp(`^(-?\\d{4,})-(\\d{2})-(\\d{2})${ZONE}$`);
const TIME = new RegExp(`^(\\d{2}):(\\d{2}):(\\d{2})(\\.\\d+)?${ZONE}$`);
const TIMESTAMP = new RegExp(`^(-?\\d{4,})-(\\d{2})-(\\d{2})T(\\d{2}):(\\d{2}):(\\d{2})(\\.\\d+)?${ZONE}$`);
const DURATION = /^-?P(?=\d|T\d)(\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/;

/** characters after SIARD's `\u00xx` escapes (each one character), in code points */
function siardTextLength(v: string): number {
  let n = 0;
  for (const _ of v.replace(/\\u00[0-9a-fA-F]{2}/g, '.')) n++;
  return n;
}

function dateProblem(year: string, month: string, day: string): LexicalProblem | undefined {
  const y = Number(year);
  if (y < 1 || y > 9999) return { id: 'T_6.3-1', message: `the year ${year} is outside 0001-9999` };
  const m = Number(month);
  const d = Number(day);
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (m < 1 || m > 12 || d < 1 || d > days[m - 1]!) return { id: 'T_6.0-1', message: `${year}-${month}-${day} is not a date` };
  return undefined;
}

function timeProblem(h: string, mi: string, s: string): LexicalProblem | undefined {
  if (Number(h) > 24 || Number(mi) > 59 || Number(s) > 60) return { id: 'T_6.0-1', message: `${h}:${mi}:${s} is not a time` };
  return undefined;
}

function zoneProblem(zone: string | undefined): LexicalProblem | undefined {
  if (zone !== undefined && zone !== 'Z' && zone !== '+00:00' && zone !== '-00:00')
    return { id: 'T_6.3-2', message: `the offset ${zone} is not UTC` };
  return undefined;
}

function temporal(family: 'date' | 'time' | 'timestamp', v: string): LexicalProblem | undefined {
  if (family === 'date') {
    const m = DATE.exec(v);
    if (!m) return { id: 'T_6.0-1', message: 'is not a date (YYYY-MM-DD)' };
    return dateProblem(m[1]!, m[2]!, m[3]!) ?? zoneProblem(m[4]);
  }
  if (family === 'time') {
    const m = TIME.exec(v);
    if (!m) return { id: 'T_6.0-1', message: 'is not a time (hh:mm:ss)' };
    return timeProblem(m[1]!, m[2]!, m[3]!) ?? zoneProblem(m[5]);
  }
  const m = TIMESTAMP.exec(v);
  if (!m) return { id: 'T_6.0-1', message: 'is not a timestamp (YYYY-MM-DDThh:mm:ss)' };
  return dateProblem(m[1]!, m[2]!, m[3]!) ?? timeProblem(m[4]!, m[5]!, m[6]!) ?? zoneProblem(m[8]);
}

function decimal(rule: ColumnRule, v: string): LexicalProblem | undefined {
  if (!DECIMAL.test(v)) return { id: 'T_6.0-1', message: 'is not a decimal number' };
  if (rule.precision === undefined) return undefined;
  const [int = '', frac = ''] = v.replace(/^[+-]/, '').split('.');
  const fracDigits = frac.replace(/0+$/, '').length;
  const intDigits = int.replace(/^0+/, '').length;
  if (fracDigits > rule.scale! || intDigits + Math.max(fracDigits, 0) > rule.precision || intDigits > rule.precision - rule.scale!) {
    return { id: 'T_6.0-1', message: `does not fit DECIMAL(${rule.precision},${rule.scale})` };
  }
  return undefined;
}

/** The problem with an inline value of a column, undefined when it is a valid value of the column's type. */
export function lexicalProblem(rule: ColumnRule, v: string): LexicalProblem | undefined {
  switch (rule.family) {
    case 'integer':
      if (!INTEGER.test(v)) return { id: 'T_6.0-1', message: 'is not an integer' };
      // a value with fewer digits than the range's bounds is inside it: no BigInt for it
      if (rule.range && v.length > rule.safeLength! && (BigInt(v) < rule.range[0] || BigInt(v) > rule.range[1]))
        return { id: 'T_6.0-1', message: 'is out of the range of its integer type' };
      return undefined;
    case 'decimal':
      return decimal(rule, v);
    case 'float':
      return DOUBLE.test(v) ? undefined : { id: 'T_6.0-1', message: 'is not a floating-point number' };
    case 'boolean':
      return /^(true|false|1|0)$/.test(v) ? undefined : { id: 'T_6.0-1', message: 'is not a boolean (true or false)' };
    case 'char':
      if (rule.maxLength !== undefined && v.length > rule.maxLength && siardTextLength(v) > rule.maxLength) {
        return { id: 'T_6.0-1', message: `is longer than ${rule.maxLength} characters` };
      }
      return undefined;
    case 'binary':
      if (!HEX.test(v)) return { id: 'T_6.0-1', message: 'is not hexadecimal binary' };
      if (rule.maxLength !== undefined && v.length / 2 > rule.maxLength)
        return { id: 'T_6.0-1', message: `is longer than ${rule.maxLength} bytes` };
      return undefined;
    case 'date':
    case 'time':
    case 'timestamp':
      return temporal(rule.family, v);
    case 'interval':
      return DURATION.test(v) ? undefined : { id: 'T_6.0-1', message: 'is not a duration (xs:duration)' };
    default:
      return undefined;
  }
}

/** The value as compared in keys: numbers in one canonical form, anything else as written. */
export function keyForm(rule: ColumnRule, v: string): string {
  if (rule.family === 'integer') {
    if (isCanonicalInteger(v)) return v;
    if (INTEGER.test(v)) return BigInt(v).toString();
  }
  if (rule.family === 'decimal' && DECIMAL.test(v)) {
    const neg = v.startsWith('-');
    let [int = '', frac = ''] = v.replace(/^[+-]/, '').split('.');
    int = int.replace(/^0+/, '') || '0';
    frac = frac.replace(/0+$/, '');
    const s = frac ? `${int}.${frac}` : int;
    return neg && s !== '0' ? `-${s}` : s;
  }
  return v;
}

/**
 * G_3.3-3 / G_3.3-4: characters that must have been escaped, back-slashes that are no escape, and
 * a run of spaces written raw (G_3.3-4: "multiple space characters are escaped as \u00<xx>"; two
 * spaces side by side in the text, whichever of them a producer escapes: docs/check.md says why).
 */
export function escapeProblem(v: string): { id: 'G_3.3-3' | 'G_3.3-4'; message: string } | undefined {
  if (/[\u007f-\u009f]/.test(v)) return { id: 'G_3.3-3', message: 'holds a control character (127-159) that is not escaped as \\u00xx' };
  if (/\\(?!u00[0-9a-fA-F]{2})/.test(v)) return { id: 'G_3.3-4', message: 'holds a back-slash that is not escaped as \\u005c' };
  if (v.includes('  '))
    return { id: 'G_3.3-4', message: 'holds spaces in a row that are not escaped (every space after the first is to be written \\u0020)' };
  return undefined;
}
