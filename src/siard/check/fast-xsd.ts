/**
 * What a table's XSD allows, read for the fast table pass (table-pass-fast.ts) whoever wrote it:
 * our writer, DBPTK, SIARD Suite, SiardGui, Full Convert. Their XSDs differ in namespace (DBPTK:
 * one per table), prefixes, attribute order, annotations, the root's version attribute (2.2, 2.1 or
 * none) and the facets of the date and time types (patterns with or without fractions, bounds with
 * or without a zone, 9999-12-31 as the last day); their meaning is what counts. The XSD is read
 * strictly: one root element `table` holding `row`s of a sequence c1 ... cN, each of a type whose
 * values the fast pass judges (fast-cells.ts): the XSD built-in types, the LOB types (simple content
 * with the optional attributes file, length, digestType, digest) and restrictions of xs:date,
 * xs:time and xs:dateTime by bounds and one pattern (facets). Anything else (another construct,
 * attribute or facet, an import, a pattern beyond the plain syntax read here) gives undefined, and
 * the table is read by the full pass with libxml2's XSD validation, which decides.
 */
import type { XmlElement } from 'libxml2-wasm';
import { cellType, type SiardTable } from '../model.js';
import { FAST_XSD_TYPES, type TemporalFacets, type YearBound } from './fast-cells.js';
import { libxml2, parseOptions } from './xsd-validator.js';

const XS = 'http://www.w3.org/2001/XMLSchema';

export interface FastProfile {
  /** per column: the XSD type as fast-cells.ts names it (xs:integer, clobType, dateType ...) */
  types: string[];
  /** per column: the bounds and pattern of a date or time type */
  facets: Array<TemporalFacets | undefined>;
  /** per column: whether the XSD requires the cell (minOccurs 1) */
  required: boolean[];
  /** the table's namespace (the XSD's targetNamespace) */
  namespace: string;
  /** the root's version attribute: the values allowed and whether it is required; undefined: not allowed */
  version?: { values: Set<string>; required: boolean };
}

/** An XSD construct the fast pass does not judge: the profile is not given. */
class NotFast extends Error {}

function refuse(): never {
  throw new NotFast();
}

/** The XSD elements under `el`, annotations skipped; anything else than XSD elements, comments and whitespace refused. */
function children(el: XmlElement): XmlElement[] {
  const out: XmlElement[] = [];
  const { XmlElement, XmlText, XmlComment } = libxml2();
  for (let c = el.firstChild; c; c = c.next) {
    if (c instanceof XmlElement) {
      if (c.namespaceUri !== XS) refuse();
      if (c.name !== 'annotation') out.push(c);
    } else if (c instanceof XmlText) {
      if (c.content.trim() !== '') refuse();
    } else if (!(c instanceof XmlComment)) refuse();
  }
  return out;
}

/** The element's attributes, none but `allowed` (no foreign attributes either). */
function attributes(el: XmlElement, allowed: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const a of el.attrs) {
    if (a.namespaceUri !== '' || !allowed.includes(a.name)) refuse();
    out.set(a.name, a.value);
  }
  return out;
}

function only(el: XmlElement, name: string): XmlElement {
  const c = children(el);
  if (c.length !== 1 || c[0]!.name !== name) refuse();
  return c[0]!;
}

/** A QName attribute value as {namespace}local. */
function qname(el: XmlElement, value: string | undefined): string {
  if (value === undefined) return refuse();
  const colon = value.indexOf(':');
  const ns = el.namespaceForPrefix(colon < 0 ? '' : value.slice(0, colon)) ?? '';
  return `{${ns}}${value.slice(colon + 1)}`;
}

const BUILT_IN: Record<string, string> = {
  integer: 'xs:integer',
  decimal: 'xs:decimal',
  double: 'xs:double',
  float: 'xs:float',
  boolean: 'xs:boolean',
  string: 'xs:string',
  hexBinary: 'xs:hexBinary',
  duration: 'xs:duration',
  date: 'dateType',
  time: 'timeType',
  dateTime: 'dateTimeType',
};

/** the pattern syntax read here: digits, `\d`, escaped `.` and `-`, groups, alternatives, quantifiers; a subset as a JavaScript pattern */
const PLAIN_PATTERN = /^(?:\\d|\\\.|\\-|[0-9:TZ()?*+|-]|\{\d+(?:,\d*)?\})*$/;
const BOUND = /^(-?\d{4,})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?)?(Z)?$/;

function yearBound(value: string | undefined): YearBound | undefined {
  if (value === undefined) return undefined;
  const m = BOUND.exec(value) ?? refuse();
  const startOfYear = m[2] === '01' && m[3] === '01' && (m[4] ?? '00') === '00' && (m[5] ?? '00') === '00' && (m[6] ?? '00') === '00';
  return { year: Number(m[1]), startOfYear: startOfYear && /^0*$/.test(m[7] ?? ''), zoned: m[8] === 'Z' };
}

/** A restriction of xs:date, xs:time or xs:dateTime by bounds and at most one pattern. */
function temporal(simple: XmlElement): { type: string; facets: TemporalFacets } {
  attributes(simple, ['name']);
  const restriction = only(simple, 'restriction');
  const base = qname(restriction, attributes(restriction, ['base']).get('base'));
  const type = base.startsWith(`{${XS}}`) ? BUILT_IN[base.slice(XS.length + 2)] : undefined;
  if (type !== 'dateType' && type !== 'timeType' && type !== 'dateTimeType') return refuse();
  const values = new Map<string, string>();
  for (const f of children(restriction)) {
    if (values.has(f.name)) refuse();
    values.set(f.name, attributes(f, ['value']).get('value') ?? refuse());
  }
  const facets: TemporalFacets = {};
  for (const [name, value] of values) {
    if (name === 'pattern') {
      if (!PLAIN_PATTERN.test(value)) refuse();
      facets.pattern = new RegExp(`^(?:${value})$`);
    } else if ((name === 'minInclusive' || name === 'minExclusive') && type !== 'timeType') {
      facets.min = { ...yearBound(value)!, inclusive: name === 'minInclusive' };
    } else if ((name === 'maxInclusive' || name === 'maxExclusive') && type !== 'timeType') facets.max = yearBound(value);
    else refuse();
  }
  return { type, facets };
}

/** A LOB type: simple content extending xs:string or xs:hexBinary by the optional attributes file, length, digestType, digest. */
function lobType(complex: XmlElement, named: Named): string {
  attributes(complex, ['name']);
  const extension = only(only(complex, 'simpleContent'), 'extension');
  const base = qname(extension, attributes(extension, ['base']).get('base'));
  const type = base === `{${XS}}string` ? 'clobType' : base === `{${XS}}hexBinary` ? 'blobType' : refuse();
  const want = new Map([
    ['file', `{${XS}}anyURI`],
    ['length', `{${XS}}integer`],
    ['digest', `{${XS}}string`],
  ]);
  const seen = new Set<string>();
  for (const a of children(extension)) {
    if (a.name !== 'attribute') refuse();
    const at = attributes(a, ['name', 'type']);
    const name = at.get('name') ?? refuse();
    const t = qname(a, at.get('type'));
    if (seen.has(name)) refuse();
    seen.add(name);
    if (name === 'digestType') digestTypes(named.get(t) ?? refuse());
    else if (want.get(name) !== t) refuse();
  }
  if (seen.size !== 4) refuse();
  return type;
}

/** The digestType attribute's type: strings, MD5, SHA-1 and SHA-256 among them. */
function digestTypes(simple: XmlElement): void {
  if (simple.name !== 'simpleType') refuse();
  const restriction = only(simple, 'restriction');
  if (qname(restriction, attributes(restriction, ['base']).get('base')) !== `{${XS}}string`) refuse();
  const values = new Set<string>();
  for (const f of children(restriction)) {
    const v = attributes(f, ['value']).get('value') ?? refuse();
    if (f.name === 'enumeration') values.add(v);
    else if (f.name !== 'whiteSpace') refuse();
  }
  if (!['MD5', 'SHA-1', 'SHA-256'].every((d) => values.has(d))) refuse();
}

type Named = Map<string, XmlElement>;

/** One cell's type: a built-in type or a named date, time or LOB type of the schema. */
function cellXsdType(type: string, named: Named): { type: string; facets?: TemporalFacets } {
  if (type.startsWith(`{${XS}}`)) {
    const builtIn = BUILT_IN[type.slice(XS.length + 2)] ?? refuse();
    return builtIn === 'dateType' || builtIn === 'timeType' || builtIn === 'dateTimeType'
      ? { type: builtIn, facets: {} }
      : { type: builtIn };
  }
  const def = named.get(type) ?? refuse();
  return def.name === 'complexType' ? { type: lobType(def, named) } : temporal(def);
}

/** The row's cells: a sequence c1 ... cN of scalar elements, each at most once. */
function cells(record: XmlElement, named: Named, profile: Pick<FastProfile, 'types' | 'facets' | 'required'>): void {
  const sequence = only(record, 'sequence');
  attributes(sequence, []);
  children(sequence).forEach((e, i) => {
    if (e.name !== 'element') refuse();
    const a = attributes(e, ['name', 'type', 'minOccurs', 'maxOccurs']);
    if (a.get('name') !== `c${i + 1}` || (a.get('maxOccurs') ?? '1') !== '1') refuse();
    const min = a.get('minOccurs') ?? '1';
    if (min !== '0' && min !== '1') refuse();
    const t = cellXsdType(qname(e, a.get('type')), named);
    profile.types.push(t.type);
    profile.facets.push(t.facets);
    profile.required.push(min === '1');
  });
}

/** The root `table`: rows (any number) and the version attribute, if declared. */
function root(table: XmlElement, named: Named, target: string): { record: XmlElement; version?: FastProfile['version'] } {
  if (attributes(table, ['name']).get('name') !== 'table') refuse();
  const complex = only(table, 'complexType');
  attributes(complex, []);
  const [sequence, version, ...rest] = children(complex);
  if (sequence?.name !== 'sequence' || rest.length > 0) refuse();
  attributes(sequence, []);
  const row = only(sequence, 'element');
  const r = attributes(row, ['name', 'type', 'minOccurs', 'maxOccurs']);
  if (r.get('name') !== 'row' || r.get('minOccurs') !== '0' || r.get('maxOccurs') !== 'unbounded') refuse();
  const record = r.has('type') ? (named.get(qname(row, r.get('type'))) ?? refuse()) : only(row, 'complexType');
  if (record.name !== 'complexType') refuse();
  attributes(record, r.has('type') ? ['name'] : []);
  if (!version) return { record };
  // the version attribute, of a named type enumerating the values (whitespace facets aside)
  if (version.name !== 'attribute') refuse();
  const v = attributes(version, ['name', 'type', 'use']);
  if (v.get('name') !== 'version' || v.get('use') === 'prohibited') refuse();
  const simple = named.get(qname(version, v.get('type'))) ?? refuse();
  const restriction = only(simple, 'restriction');
  if (qname(restriction, attributes(restriction, ['base']).get('base')) !== `{${XS}}string`) refuse();
  const values = new Set<string>();
  for (const f of children(restriction)) {
    const value = attributes(f, ['value']).get('value') ?? refuse();
    if (f.name === 'enumeration') values.add(value);
    else if (f.name !== 'whiteSpace') refuse();
  }
  if (values.size === 0 || target === '') refuse();
  return { record, version: { values, required: v.get('use') === 'required' } };
}

/** The fast profile of a table's XSD, or undefined when the fast pass cannot judge what it allows. */
export function fastXsdProfile(table: SiardTable, xsd: Uint8Array): FastProfile | undefined {
  if (table.columns.some((c) => c.cardinality !== undefined || cellType(c) === undefined)) return undefined;
  try {
    using doc = libxml2().XmlDocument.fromBuffer(xsd, { option: parseOptions() });
    const schema = doc.root;
    if (schema.namespaceUri !== XS || schema.name !== 'schema') return undefined;
    const s = attributes(schema, ['targetNamespace', 'elementFormDefault', 'attributeFormDefault', 'version']);
    const namespace = s.get('targetNamespace') ?? refuse();
    if (s.get('elementFormDefault') !== 'qualified' || (s.get('attributeFormDefault') ?? 'unqualified') !== 'unqualified') refuse();
    const named: Named = new Map();
    let table0: XmlElement | undefined;
    for (const c of children(schema)) {
      if (c.name === 'element') {
        if (table0) refuse();
        table0 = c;
      } else if (c.name === 'complexType' || c.name === 'simpleType') {
        const name = `{${namespace}}${c.attr('name')?.value ?? refuse()}`;
        if (named.has(name)) refuse();
        named.set(name, c);
      } else refuse();
    }
    const { record, version } = root(table0 ?? refuse(), named, namespace);
    const profile: FastProfile = { types: [], facets: [], required: [], namespace, ...(version ? { version } : {}) };
    cells(record, named, profile);
    if (profile.types.length !== table.columns.length || !profile.types.every((t) => FAST_XSD_TYPES.has(t))) return undefined;
    return profile;
  } catch {
    return undefined; // NotFast, or an XSD libxml2 compiled but this reading cannot follow
  }
}
