/**
 * `content/schemaI/tableJ/tableJ.xsd`: the XML schema of one table's data (P_4.3-3 type mapping,
 * T_6.1), with the helper types the SIARD 2.2 appendix D.3 examples define in each table schema.
 */
import { cellType, sqlTypeFamily, type SiardColumn, type SqlTypeFamily } from './model.js';

export const SIARD_TABLE_NAMESPACE = 'http://www.bar.admin.ch/xmlns/siard/2/table.xsd';

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

/** An ARRAY column (cardinality set): a1 ... a<cardinality>, each optional (absent = NULL element). */
function arrayCell(name: string, c: SiardColumn, nullable: string): string {
  const type = xmlTypeOf(cellType(c) ?? 'CLOB');
  const elements: string[] = [];
  for (let i = 1; i <= (c.cardinality ?? 0); i++) elements.push(`            <xs:element name="a${i}" type="${type}" minOccurs="0"/>`);
  const body = elements.length > 0 ? `\n          <xs:sequence>\n${elements.join('\n')}\n          </xs:sequence>\n        ` : '';
  return `      <xs:element name="${name}"${nullable}>\n        <xs:complexType>${body}</xs:complexType>\n      </xs:element>`;
}

export function tableXsd(columns: SiardColumn[]): string {
  const cells = columns
    .map((c, i) => {
      const nullable = c.nullable !== false ? ' minOccurs="0"' : '';
      if (c.cardinality !== undefined) return arrayCell(`c${i + 1}`, c, nullable);
      return `      <xs:element name="c${i + 1}" type="${xmlTypeOf(cellType(c) ?? 'CLOB')}"${nullable}/>`;
    })
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<xs:schema xmlns="${SIARD_TABLE_NAMESPACE}" xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="${SIARD_TABLE_NAMESPACE}" elementFormDefault="qualified" attributeFormDefault="unqualified" version="2.2">
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
