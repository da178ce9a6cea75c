/**
 * The cells the fast table pass (table-pass-fast.ts) accepts: a value that is certainly valid
 * under the table XSD our writer produces for its column (tableXsd in siard/table-xsd.ts, whose
 * types are listed here) and gives no finding of the value checks (lexical.ts: T_6.0-1, T_6.3-x,
 * G_3.3-3, G_3.3-4). Conservative on purpose: a value that is valid but unusual (" 5 " with
 * whitespace XSD collapses, "+INF", "24:00:00", a leap second, a five-digit year) is not accepted,
 * and the table is then read by the full pass (saxes and libxml2's XSD validation), which decides.
 */
import { escapeProblem, lexicalProblem, type ColumnRule } from './lexical.js';

const HEX = /^(?:[0-9a-fA-F]{2})*$/;
const FLOAT = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
/** the patterns of dateType, timeType and dateTimeType (digits after a dot required, as xs:time wants) */
const DATE = /^\d{4}-\d{2}-\d{2}Z?$/;
const TIME = /^(\d{2}):\d{2}:(\d{2})(?:\.\d+)?Z?$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T(\d{2}):\d{2}:(\d{2})(?:\.\d+)?Z?$/;
const ZERO = /^-?0+(?:\.0+)?(?:[eE][+-]?\d+)?$/;
/** xs:float's largest finite value and smallest normal one */
const FLOAT_MAX = 3.4028234663852886e38;
const FLOAT_MIN = 1.1754943508222875e-38;

/** The XSD types of tableXsd's scalar cells whose values the fast pass can judge. */
export const FAST_XSD_TYPES = new Set([
  'xs:integer',
  'xs:decimal',
  'xs:double',
  'xs:float',
  'xs:boolean',
  'xs:string',
  'clobType',
  'xs:hexBinary',
  'blobType',
  'dateType',
  'timeType',
  'dateTimeType',
  'xs:duration',
]);

/** a float or double written plainly, finite and normal (no overflow or underflow for a validator to round) */
function floatOk(v: string, min: number, max: number): boolean {
  if (v === 'INF' || v === '-INF' || v === 'NaN') return true;
  if (!FLOAT.test(v)) return false;
  const x = Math.abs(Number(v));
  return x === 0 ? ZERO.test(v) : x >= min && x <= max;
}

/** hours 00-23 and seconds 00-59: what every XSD processor accepts without discussion */
function clockOk(m: RegExpExecArray | null): boolean {
  return m !== null && Number(m[1]) <= 23 && Number(m[2]) <= 59;
}

/**
 * A date without a zone is compared with dateType's bounds (0001-01-01Z, 10000-01-01Z) only
 * within 14 hours of them: its first and last years are left to the validator.
 */
function boundsOk(v: string): boolean {
  if (v.endsWith('Z')) return true;
  const year = Number(v.slice(0, 4));
  return year > 1 && year < 9999;
}

/** Whether the text of an inline cell (entities resolved, SIARD escapes kept) is valid for the XSD type (conservatively). */
function xsdValueOk(xsdType: string, v: string): boolean {
  switch (xsdType) {
    case 'xs:string':
    case 'clobType':
      return true;
    case 'xs:hexBinary':
    case 'blobType':
      return HEX.test(v);
    case 'xs:double':
      return floatOk(v, 2.2250738585072014e-308, Number.MAX_VALUE);
    case 'xs:float':
      return floatOk(v, FLOAT_MIN, FLOAT_MAX);
    case 'dateType':
      return DATE.test(v) && boundsOk(v);
    case 'timeType':
      return clockOk(TIME.exec(v));
    case 'dateTimeType':
      return clockOk(DATE_TIME.exec(v)) && boundsOk(v);
    default:
      // xs:integer, xs:decimal, xs:boolean, xs:duration: lexical.ts's forms are inside their lexical spaces
      return true;
  }
}

/**
 * Whether an inline value is accepted: valid for its XSD type and without any finding of the value
 * checks (the escapes of text columns, the lexical form by SQL type). `marked` false: the caller
 * knows the value holds no back-slash and no character 127-159 (no escape problem to look for).
 */
export function fastCellOk(xsdType: string, rule: ColumnRule, v: string, marked = true): boolean {
  if (!xsdValueOk(xsdType, v)) return false;
  const f = rule.family;
  if (marked && (f === 'char' || f === 'clob' || f === 'xml') && escapeProblem(v) !== undefined) return false;
  return lexicalProblem(rule, v) === undefined;
}

/** Whether a LOB cell's attributes are accepted (length a plain integer, a digest and a known digestType). */
export function fastLobAttributesOk(a: Record<string, string>): boolean {
  const { file, length, digest, digestType } = a;
  if (file === undefined || file === '' || length === undefined || digest === undefined) return false;
  if (!/^\d{1,15}$/.test(length)) return false;
  return digestType === undefined || digestType === 'MD5' || digestType === 'SHA-1' || digestType === 'SHA-256';
}
