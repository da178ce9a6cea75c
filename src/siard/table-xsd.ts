/**
 * `content/schemaI/tableJ/tableJ.xsd`: the XML schema of one table's data (P_4.3-3 type mapping,
 * T_6.1), with the helper types the SIARD 2.2 appendix D.3 examples define in each table schema.
 */
import type { CellShape } from './cell-shape.js';
import { cellType, sqlTypeFamily, type SiardColumn, type SqlTypeFamily } from './model.js';

export const SIARD_TABLE_NAMESPACE = 'http://www.bar.admin.ch/xmlns/siard/2/table.xsd';
/** The start tag of a table XSD, as SIARD 2.2's own table schemas write it. */
const SCHEMA_START_TAG =
  `<xs:schema xmlns="${SIARD_TABLE_NAMESPACE}" xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="${SIARD_TABLE_NAMESPACE}" ` +
  'elementFormDefault="qualified" attributeFormDefault="unqualified" version="2.2">';

const XML_TYPE: Record<SqlTypeFamily, string> = {
  integer: 'xs:integer',
  decimal: 'xs:decimal',
  float: 'xs:double',
  boolean: 'xs:boolean',
  char: 'xs:string',
  clob: 'clobType',
  binary: 'xs:hexBinary',
  blob: 'blobType',
  date: 'dateType',
  time: 'timeType',
  timestamp: 'dateTimeType',
  interval: 'xs:duration',
  xml: 'clobType',
  datalink: 'blobType',
};

/** XML schema type of a column's cells. REAL is xs:float; everything else follows XML_TYPE. */
export function xmlTypeOf(type: string): string {
  if (/^\s*REAL\s*$/i.test(type)) return 'xs:float';
  return XML_TYPE[sqlTypeFamily(type)];
}

/**
 * An ARRAY with more elements than this declares in the table XSD only the elements its data uses
 * (an Oracle VARRAY may allow 2^31 - 1): the schema stays small and still describes every cell.
 */
export const MAX_DECLARED_ARRAY_ELEMENTS = 1000;

/** Largest element index written per array, keyed by its path in the cell ("c5", "c11/u4", "c3/a*"). */
export type ArrayUse = Map<string, number>;

/** Path key of an element inside a cell: array indexes become "*", so every element of an array shares it. */
export function arrayPathKey(path: readonly string[]): string {
  return path.map((p) => (p.startsWith('a') ? 'a*' : p)).join('/');
}

function elementXsd(name: string, shape: CellShape, optional: boolean, indent: string, path: string[], used: ArrayUse): string {
  const min = optional ? ' minOccurs="0"' : '';
  if (shape.kind === 'scalar') return `${indent}<xs:element name="${name}" type="${xmlTypeOf(shape.type)}"${min}/>`;
  const inner: string[] = [];
  if (shape.kind === 'udt') {
    shape.attributes.forEach((a, i) => inner.push(elementXsd(`u${i + 1}`, a.shape, true, indent + '      ', [...path, `u${i + 1}`], used)));
  } else {
    const count =
      shape.cardinality <= MAX_DECLARED_ARRAY_ELEMENTS ? shape.cardinality : Math.min(shape.cardinality, used.get(arrayPathKey(path)) ?? 0);
    for (let i = 1; i <= count; i++) inner.push(elementXsd(`a${i}`, shape.element, true, indent + '      ', [...path, 'a*'], used));
  }
  const body = inner.length > 0 ? `\n${indent}    <xs:sequence>\n${inner.join('\n')}\n${indent}    </xs:sequence>\n${indent}  ` : '';
  return `${indent}<xs:element name="${name}"${min}>\n${indent}  <xs:complexType>${body}</xs:complexType>\n${indent}</xs:element>`;
}

/** The shape of a column that has no UDT: a predefined value, or an ARRAY of one when `cardinality` is set. */
export function plainShape(c: SiardColumn): CellShape {
  const type = cellType(c) ?? 'CLOB';
  const scalar: CellShape = { kind: 'scalar', type, family: sqlTypeFamily(type) };
  return c.cardinality !== undefined ? { kind: 'array', cardinality: c.cardinality, element: scalar } : scalar;
}

/**
 * The XSD of a table. `shapes` gives each column's cell shape (default: plainShape); `used` the
 * largest element index written per array, for arrays too long to declare whole.
 */
export function tableXsd(columns: SiardColumn[], shapes: CellShape[] = columns.map(plainShape), used: ArrayUse = new Map()): string {
  const cells = columns.map((c, i) => elementXsd(`c${i + 1}`, shapes[i]!, c.nullable !== false, '      ', [`c${i + 1}`], used)).join('\n');
  return `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
${SCHEMA_START_TAG}
  <xs:element name="table">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="row" type="recordType" minOccurs="0" maxOccurs="unbounded"/>
      </xs:sequence>
      <xs:attribute name="version" type="versionType" use="required"/>
    </xs:complexType>
  </xs:element>
  <xs:simpleType name="versionType">
    <xs:restriction base="xs:string">
      <xs:whiteSpace value="collapse"/>
      <xs:enumeration value="2.2"/>
    </xs:restriction>
  </xs:simpleType>
  <xs:complexType name="recordType">
    <xs:sequence>
${cells}
    </xs:sequence>
  </xs:complexType>
  <xs:complexType name="clobType">
    <xs:simpleContent>
      <xs:extension base="xs:string">
        <xs:attribute name="file" type="xs:anyURI"/>
        <xs:attribute name="length" type="xs:integer"/>
        <xs:attribute name="digestType" type="digestTypeType"/>
        <xs:attribute name="digest" type="xs:string"/>
      </xs:extension>
    </xs:simpleContent>
  </xs:complexType>
  <xs:complexType name="blobType">
    <xs:simpleContent>
      <xs:extension base="xs:hexBinary">
        <xs:attribute name="file" type="xs:anyURI"/>
        <xs:attribute name="length" type="xs:integer"/>
        <xs:attribute name="digestType" type="digestTypeType"/>
        <xs:attribute name="digest" type="xs:string"/>
      </xs:extension>
    </xs:simpleContent>
  </xs:complexType>
  <xs:simpleType name="digestTypeType">
    <xs:restriction base="xs:string">
      <xs:whiteSpace value="collapse"/>
      <xs:enumeration value="MD5"/>
      <xs:enumeration value="SHA-1"/>
      <xs:enumeration value="SHA-256"/>
    </xs:restriction>
  </xs:simpleType>
  <xs:simpleType name="dateType">
    <xs:restriction base="xs:date">
      <xs:minInclusive value="0001-01-01Z"/>
      <xs:maxExclusive value="10000-01-01Z"/>
      <xs:pattern value="\\d{4}-\\d{2}-\\d{2}Z?"/>
    </xs:restriction>
  </xs:simpleType>
  <xs:simpleType name="timeType">
    <xs:restriction base="xs:time">
      <xs:pattern value="\\d{2}:\\d{2}:\\d{2}(\\.\\d*)?Z?"/>
    </xs:restriction>
  </xs:simpleType>
  <xs:simpleType name="dateTimeType">
    <xs:restriction base="xs:dateTime">
      <xs:minInclusive value="0001-01-01T00:00:00.000000000Z"/>
      <xs:maxExclusive value="10000-01-01T00:00:00.000000000Z"/>
      <xs:pattern value="\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d*)?Z?"/>
    </xs:restriction>
  </xs:simpleType>
</xs:schema>
`;
}

/** Whether tableXsd depends on the rows: an array too long to declare whole is declared as far as rows use it. */
export function xsdDependsOnRows(shapes: readonly CellShape[]): boolean {
  const depends = (shape: CellShape): boolean =>
    shape.kind === 'array'
      ? shape.cardinality > MAX_DECLARED_ARRAY_ELEMENTS || depends(shape.element)
      : shape.kind === 'udt' && shape.attributes.some((a) => depends(a.shape));
  return shapes.some(depends);
}
