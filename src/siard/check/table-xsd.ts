/**
 * A table's tableN.xsd read as SIARD prescribes it (element table, a sequence of row, columns
 * c1 ... cn, ARRAY and UDT values a1 ... / u1 ...) and compared with the table's columns in
 * metadata.xml: count (P_4.3-2), types by the mapping table (P_4.3-3, T_6.1-3), DISTINCT as the
 * base type (P_4.3-4), ARRAY and UDT element sequences (P_4.3-5, P_4.3-6, T_6.1-4), nullability
 * (P_4.3-7), column and field sequence (P_4.3-8, P_4.3-9, T_6.1-2), the row range (P_4.3-10).
 */
import type { XmlElement } from 'libxml2-wasm';
import { sqlTypeFamily, type SiardColumn, type SiardSchema, type SiardTable, type SqlTypeFamily } from '../model.js';
import type { CheckReport, Where } from './report.js';
import { libxml2, parseOptions } from './xsd-validator.js';

export interface XsdElement {
  name: string;
  /** local type name without prefix (xs:integer -> integer), undefined for an inline complex type */
  type?: string;
  minOccurs: number;
  maxOccurs: number;
  /** sub-elements (a1.. / u1..) of a complex column type */
  children: XsdElement[];
}

export interface TableXsd {
  rootName: string;
  row?: XsdElement;
}

const XS = 'http://www.w3.org/2001/XMLSchema';

function elementsOf(el: XmlElement, local: string): XmlElement[] {
  const out: XmlElement[] = [];
  for (let c = el.firstChild; c; c = c.next)
    if (c instanceof libxml2().XmlElement && c.name === local && c.namespaceUri === XS) out.push(c);
  return out;
}

function occurs(v: string | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  return v === 'unbounded' ? Infinity : Number(v);
}

function localType(t: string | undefined): string | undefined {
  return t === undefined ? undefined : t.slice(t.indexOf(':') + 1);
}

function sequenceChildren(complex: XmlElement | undefined, named: Map<string, XmlElement>, depth: number): XsdElement[] {
  if (!complex || depth > 8) return [];
  const seq = elementsOf(complex, 'sequence')[0] ?? elementsOf(complex, 'all')[0];
  if (!seq) return [];
  return elementsOf(seq, 'element').map((e) => toElement(e, named, depth + 1));
}

function toElement(e: XmlElement, named: Map<string, XmlElement>, depth: number): XsdElement {
  const type = localType(e.attr('type')?.value);
  const inline = elementsOf(e, 'complexType')[0];
  const complex = inline ?? (type !== undefined ? named.get(type) : undefined);
  return {
    name: e.attr('name')?.value ?? '',
    ...(inline ? {} : { type }),
    minOccurs: occurs(e.attr('minOccurs')?.value, 1),
    maxOccurs: occurs(e.attr('maxOccurs')?.value, 1),
    children: sequenceChildren(complex, named, depth),
  };
}

/** Parses tableN.xsd; throws with libxml2's words when it is not well-formed. */
export function parseTableXsd(xsd: Uint8Array): TableXsd {
  using doc = libxml2().XmlDocument.fromBuffer(xsd, { option: parseOptions() });
  const schema = doc.root;
  const named = new Map<string, XmlElement>();
  for (const c of elementsOf(schema, 'complexType')) named.set(c.attr('name')?.value ?? '', c);
  const root = elementsOf(schema, 'element')[0];
  if (!root) return { rootName: '' };
  const top = toElement(root, named, 0);
  const row = top.children.find((c) => c.name === 'row') ?? top.children[0];
  return { rootName: top.name, ...(row ? { row } : {}) };
}

/** The XML types P_4.3-3 allows for a SQL type family (local names). */
const MAPPING: Record<SqlTypeFamily, string[]> = {
  integer: ['integer'],
  decimal: ['decimal'],
  float: ['double', 'float'],
  boolean: ['boolean'],
  char: ['string', 'clobType'],
  clob: ['clobType'],
  binary: ['hexBinary', 'blobType'],
  blob: ['blobType'],
  date: ['dateType', 'date'],
  time: ['timeType', 'time'],
  timestamp: ['dateTimeType', 'dateTime'],
  interval: ['duration'],
  xml: ['clobType'],
  datalink: ['blobType', 'clobType', 'datalinkType'],
};

function family(type: string | undefined): SqlTypeFamily | undefined {
  if (type === undefined) return undefined;
  try {
    return sqlTypeFamily(type);
  } catch {
    return undefined;
  }
}

function consecutive(children: XsdElement[], letter: string): boolean {
  return children.every((c, i) => c.name === `${letter}${i + 1}`);
}

/** 'shape': not a sequence of `letter`N elements at all (P_4.3-5 / P_4.3-6); 'gap': such a sequence, misnumbered (T_6.1-4) */
function sequenceFault(children: XsdElement[], letter: string): 'shape' | 'gap' | undefined {
  const numbered = new RegExp(`^${letter}[1-9]\\d*$`);
  if (children.length === 0 || !children.every((c) => numbered.test(c.name))) return 'shape';
  return consecutive(children, letter) ? undefined : 'gap';
}

function checkComplex(schema: SiardSchema, col: SiardColumn, el: XsdElement, where: Where, report: CheckReport): void {
  const name = `${where.table}.${col.name}`;
  if (col.cardinality !== undefined) {
    report.applies('P_4.3-5', 'T_6.1-4', 'T_6.4-4');
    const fault = sequenceFault(el.children, 'a');
    if (fault === 'shape') report.fail('P_4.3-5', `ARRAY column ${name} is not a sequence a1, a2, ... in the table's XSD.`, where);
    if (fault === 'gap') report.fail('T_6.1-4', `ARRAY column ${name}: its elements are not named a1, a2, ... without gaps.`, where);
    return;
  }
  const udt = schema.types?.find((t) => t.name === col.typeName);
  if (udt?.category !== 'udt') return;
  report.applies('P_4.3-6', 'T_6.1-4', 'P_4.3-9', 'T_6.4-4');
  const fault = sequenceFault(el.children, 'u');
  if (fault === 'shape') report.fail('P_4.3-6', `UDT column ${name} is not a sequence u1, u2, ... in the table's XSD.`, where);
  else if (fault === 'gap') report.fail('T_6.1-4', `UDT column ${name}: its elements are not named u1, u2, ... without gaps.`, where);
  else if (udt.attributes && el.children.length !== udt.attributes.length) {
    report.fail(
      'P_4.3-9',
      `UDT column ${name} has ${udt.attributes.length} attributes in metadata.xml but ${el.children.length} elements in the XSD.`,
      where,
    );
  }
}

function checkType(schema: SiardSchema, col: SiardColumn, el: XsdElement, where: Where, report: CheckReport): void {
  const distinct = col.typeName !== undefined ? schema.types?.find((t) => t.name === col.typeName && t.category === 'distinct') : undefined;
  const id = distinct ? 'P_4.3-4' : 'P_4.3-3';
  const fam = family(distinct ? distinct.base : col.type);
  if (fam === undefined || el.type === undefined) return;
  report.applies(id, 'T_6.1-3');
  if (!MAPPING[fam].includes(el.type)) {
    const sql = distinct ? `DISTINCT type ${distinct.name} (base ${distinct.base})` : col.type;
    const message =
      `Column ${where.table}.${col.name} is ${sql} in metadata.xml but ${el.type} in the XSD; ` + `expected ${MAPPING[fam].join(' or ')}.`;
    report.fail(id, message, where);
    report.fail('T_6.1-3', message, where);
  }
}

export function compareTableXsd(schema: SiardSchema, table: SiardTable, xsd: TableXsd, entry: string, report: CheckReport): void {
  const tableName = `${schema.name}.${table.name}`;
  const base = { entry, table: tableName };
  report.applies('T_6.1-2', 'P_4.3-2', 'P_4.3-7', 'P_4.3-8', 'P_4.3-10');
  if (xsd.rootName !== 'table' || !xsd.row || xsd.row.name !== 'row') {
    report.fail('T_6.1-2', `The XSD of ${tableName} does not declare a root element table holding elements row.`, base);
    return;
  }
  const cells = xsd.row.children;
  if (!consecutive(cells, 'c'))
    report.fail(
      'T_6.1-2',
      `The XSD of ${tableName} names its columns ${cells.map((c) => c.name).join(', ')}, not c1, c2, ... without gaps.`,
      base,
    );
  if (cells.length !== table.columns.length) {
    report.fail('P_4.3-2', `${tableName} has ${table.columns.length} columns in metadata.xml but ${cells.length} in its XSD.`, base);
  }
  const rows = table.rows;
  if (rows < xsd.row.minOccurs || rows > xsd.row.maxOccurs) {
    report.fail(
      'P_4.3-10',
      `${tableName} has <rows>${rows}</rows> in metadata.xml, ` +
        `outside the range ${xsd.row.minOccurs}..${xsd.row.maxOccurs} its XSD allows for row.`,
      base,
    );
  }
  table.columns.forEach((col, i) => {
    const el = cells.find((c) => c.name === `c${i + 1}`);
    const where = { ...base, column: col.name };
    if (!el) return;
    if (cells.indexOf(el) !== i)
      report.fail(
        'P_4.3-8',
        `Column ${col.name} is column ${i + 1} in metadata.xml but at position ${cells.indexOf(el) + 1} in the XSD.`,
        where,
      );
    const nullable = col.nullable ?? true;
    if (nullable !== (el.minOccurs === 0)) {
      report.fail(
        'P_4.3-7',
        `Column ${tableName}.${col.name} is ${nullable ? '' : 'not '}nullable in metadata.xml ` +
          `but has minOccurs="${el.minOccurs}" in the XSD.`,
        where,
      );
    }
    checkType(schema, col, el, where, report);
    checkComplex(schema, col, el, where, report);
  });
}
