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

/** A bound of a date or timestamp type, by its year: whether it is the year's first instant, whether it has a zone (Z). */
export interface YearBound {
  year: number;
  startOfYear: boolean;
  zoned: boolean;
}

/** The facets of a date, time or timestamp type in a table XSD (fast-xsd.ts): bounds and a pattern. */
export interface TemporalFacets {
  min?: YearBound & { inclusive: boolean };
  max?: YearBound;
  pattern?: RegExp;
}

/** our writer's dateType and dateTimeType: from 0001-01-01Z, before 10000-01-01Z */
const WRITER_BOUNDS: TemporalFacets = {
  min: { year: 1, startOfYear: true, zoned: true, inclusive: true },
  max: { year: 10000, startOfYear: true, zoned: true },
};

/**
 * Whether a value of year `year` (4 digits) lies within the bounds whatever its time of year.
 * A value or a bound without a zone is compared with the other only 14 hours apart (XSD's rule for
 * values with and without a zone): a year more is kept from such a bound. Years near a bound are
 * left to the validator: a year equal to a bound's only when both are zoned and the bound is the
 * year's first instant.
 */
function yearsOk(v: string, year: number, f: TemporalFacets): boolean {
  if (year < 1) return false; // XSD 1.0 has no year 0000
  const zoned = v.endsWith('Z');
  const { min, max } = f;
  if (min) {
    const exact = zoned && min.zoned;
    const least = min.year + (exact ? (min.startOfYear && min.inclusive ? 0 : 1) : min.startOfYear ? 1 : 2);
    if (year < least) return false;
  }
  if (max) {
    const exact = zoned && max.zoned;
    if (year > max.year - (exact ? 1 : 2)) return false;
  }
  return true;
}

/** A date, time or timestamp valid for its XSD type with these facets (the pattern tested as a subset of XSD's). */
function temporalOk(xsdType: string, v: string, f: TemporalFacets): boolean {
  if (f.pattern && !f.pattern.test(v)) return false;
  switch (xsdType) {
    case 'dateType':
      return DATE.test(v) && yearsOk(v, Number(v.slice(0, 4)), f);
    case 'timeType':
      return clockOk(TIME.exec(v));
    default:
      return clockOk(DATE_TIME.exec(v)) && yearsOk(v, Number(v.slice(0, 4)), f);
  }
}

/** Whether the text of an inline cell (entities resolved, SIARD escapes kept) is valid for the XSD type (conservatively). */
function xsdValueOk(xsdType: string, v: string, facets: TemporalFacets): boolean {
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
    case 'timeType':
    case 'dateTimeType':
      return temporalOk(xsdType, v, facets);
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
export function fastCellOk(xsdType: string, rule: ColumnRule, v: string, marked = true, facets: TemporalFacets = WRITER_BOUNDS): boolean {
  if (!xsdValueOk(xsdType, v, facets)) return false;
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
