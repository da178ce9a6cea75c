/**
 * The requirement catalogue: every requirement id of the final SIARD 2.2 text (2021-08-31) and
 * the rules found only in the seed's chapters 7-8 (the E-ARK recommendation for LOBs stored outside
 * the SIARD file, as taken into the SIARD 2.2.0.10 RFC text). Where both number the same rule, the
 * final text's id is the one reported (docs/check.md lists the mapping). `notChecked` says why no
 * program can decide an id; every other id is decided by the checker.
 */
const FINAL = 'SIARD 2.2 final (2021-08-31)';
const SEED = 'SIARD 2.2.0.10 RFC, ch. 7-8 (E-ARK LOB recommendation v0.28)';

export interface Requirement {
  id: string;
  source: string;
  /** M mandatory, O optional (mandatory where it applies) */
  level: 'M' | 'O';
  /** the rule, in short */
  text: string;
  /** why no program can decide it (the id is then always reported not-checked) */
  notChecked?: string;
}

function r(id: string, level: 'M' | 'O', text: string, notChecked?: string, source = FINAL): Requirement {
  return { id, source, level, text, ...(notChecked ? { notChecked } : {}) };
}

export const REQUIREMENTS: readonly Requirement[] = [
  r('G_3.1-1', 'M', 'content is XML 1.0 conforming to XML Schema 1.0 definitions; LOBs may be separate files'),
  r('G_3.2-1', 'M', 'a database is archived in a single SIARD file (which may reference external LOBs, or be segmented)'),
  r('G_3.3-1', 'M', 'all data is stored in Unicode (ISO 10646)'),
  r(
    'G_3.3-2',
    'M',
    'national character sets are mapped to Unicode on extraction',
    'it is a property of the extraction: the package holds only the mapped result, not the source character set',
  ),
  r('G_3.3-3', 'M', 'XML special characters as entity references; control characters 0-31 and 127-159 escaped'),
  r('G_3.3-4', 'M', 'characters 0-8, 14-31, 127-159, the back-slash and multiple spaces escaped as \\u00xx'),
  r('G_3.4-1', 'M', 'externally referenced files are given as file URIs (RFC 8089)'),
  r('G_3.4-2', 'M', 'file URIs are stored as URL-encoded ASCII'),
  r('G_3.4-3', 'O', 'external LOBs may be inside ZIP files addressed by the file URI'),
  r('G_3.5-1', 'M', 'identifiers are stored in Unicode'),
  r(
    'G_3.5-2',
    'M',
    'regular identifiers are stored in upper case without quotation marks',
    'whether a name was a regular or a delimited identifier in the source is not recorded: ' +
      'a lower-case name is a valid delimited identifier',
  ),
  r('G_3.5-3', 'M', 'delimited identifiers are stored without quotation marks'),
  r('G_4.1-1', 'M', 'the SIARD file is a single ZIP archive (PKWARE APPNOTE 6.3.2)'),
  r('G_4.1-2', 'M', 'entries are stored or compressed with deflate'),
  r('G_4.1-3', 'M', 'the SIARD file is not password-protected or encrypted'),
  r('G_4.1-4', 'M', 'ZIP32 and ZIP64 are permitted (ZIP64 where sizes or offsets need it)'),
  r('G_4.1-5', 'M', 'the ZIP archive has the extension .siard'),
  r('P_4.2-1', 'M', 'table data in content/, metadata in header/, nothing else at the root'),
  r('P_4.2-2', 'M', 'content/ holds schema folders holding table folders, nothing else'),
  r('P_4.2-3', 'M', 'a table folder holds tableN.xml and tableN.xsd named as the folder, and only LOB folders besides'),
  r('P_4.2-4', 'M', 'the empty folder header/siardversion/2.2/ exists'),
  r('P_4.2-5', 'M', 'header/ holds metadata.xml and metadata.xsd'),
  r('P_4.2-6', 'M', 'names inside the SIARD file start with a letter and use only a-z A-Z 0-9 _ and . before the extension'),
  r('P_4.3-1', 'M', 'the structure in metadata.xml is that of content/'),
  r('P_4.3-2', 'M', 'the number of columns in metadata.xml equals that in tableN.xsd'),
  r('P_4.3-3', 'M', 'column types in metadata.xml match the XML types in tableN.xsd (type mapping table)'),
  r('P_4.3-4', 'M', 'DISTINCT types are written in tableN.xsd as their base type'),
  r('P_4.3-5', 'M', 'ARRAY columns are sequences a1, a2, ... in tableN.xsd'),
  r('P_4.3-6', 'M', 'UDT columns are sequences u1, u2, ... in tableN.xsd'),
  r('P_4.3-7', 'M', 'nullable in metadata.xml matches minOccurs in tableN.xsd'),
  r('P_4.3-8', 'M', 'the column sequence of metadata.xml is that of tableN.xsd'),
  r('P_4.3-9', 'M', 'the field sequence of metadata.xml is that of tableN.xsd'),
  r('P_4.3-10', 'M', '<rows> in metadata.xml equals the rows of tableN.xml and fits the range of tableN.xsd'),
  r('M_5.0-1', 'M', 'metadata.xml is valid against metadata.xsd'),
  r('M_5.1-1', 'M', 'mandatory database-level metadata is present (and the messageDigest, when stated, is right)'),
  r('M_5.2-1', 'M', 'mandatory schema-level metadata is present'),
  r('M_5.3-1', 'O', 'type metadata, where archived, is complete'),
  r('M_5.4-1', 'M', 'mandatory attribute-level metadata is present'),
  r('M_5.5-1', 'M', 'mandatory table-level metadata is present'),
  r('M_5.6-1', 'M', 'mandatory column-level metadata is present'),
  r('M_5.7-1', 'O', 'field metadata, where archived, is complete'),
  r('M_5.8-1', 'O', 'primary key metadata, where archived, is complete'),
  r('M_5.9-1', 'O', 'foreign key metadata, where archived, is complete and names existing tables and columns'),
  r('M_5.10-1', 'O', 'foreign key references, where archived, are complete'),
  r('M_5.11-1', 'O', 'candidate key metadata, where archived, is complete'),
  r('M_5.12-1', 'O', 'check constraint metadata, where archived, is complete'),
  r('M_5.13-1', 'O', 'trigger metadata, where archived, is complete'),
  r('M_5.14-1', 'O', 'view metadata, where archived, is complete'),
  r('M_5.15-1', 'O', 'routine metadata, where archived, is complete'),
  r('M_5.16-1', 'O', 'routine parameter metadata, where archived, is complete'),
  r('M_5.17-1', 'O', 'user metadata, where archived, is complete'),
  r('M_5.18-1', 'O', 'role metadata, where archived, is complete'),
  r('M_5.19-1', 'O', 'privilege metadata, where archived, is complete'),
  r('T_6.0-1', 'M', 'table values meet their SQL:2008 types, keys, foreign keys and nullability'),
  r('T_6.0-2', 'M', 'tableN.xml is valid against tableN.xsd'),
  r('T_6.1-1', 'M', 'every table has its XML schema definition'),
  r('T_6.1-2', 'M', 'tableN.xsd: element table, rows row, columns c1, c2, ... without gaps'),
  r('T_6.1-3', 'M', 'tableN.xsd uses the type mapping of P_4.3-3 and the SIARD special types'),
  r('T_6.1-4', 'M', 'values of ARRAY and UDT cells are elements a1, a2, ... / u1, u2, ... without gaps'),
  r('T_6.2-1', 'M', 'LOBs inline, in the SIARD file, or outside; a LOB in a file has file and length'),
  r('T_6.3-1', 'M', 'dates and timestamps within the years 0001-9999'),
  r('T_6.3-2', 'M', 'dates, times and timestamps in UTC (terminating Z recommended)'),
  r('T_6.4-1', 'M', 'the data of each table is stored in an XML file'),
  r('T_6.4-2', 'M', 'the table file holds row elements subdivided into c1, c2, ...'),
  r(
    'T_6.4-3',
    'M',
    'a NULL cell is omitted, an empty string is an empty element',
    'an omitted cell is NULL and an empty element is the empty string by definition: ' +
      'no byte of the package can show that the source value was the other one',
  ),
  r('T_6.4-4', 'O', 'complex values are sub-elements a1, a2, ... (ARRAY) or u1, u2, ... (UDT)'),
  r('T_6.4-5', 'M', 'a LOB in a separate file has file, length and digest, and they are right'),
  r('L_7.1-0', 'M', 'external LOBs are files in folders per schema, table and column (naming _lobs/s_t_c/seg_ recommended)'),
  r('L_7.1-1', 'O', 'LOB segment folders may be ZIP files (.zip)'),
  r('S_8.1-0', 'M', 'segmented LOB folders follow L_7.1-0 (seg_[s] recommended)'),
  r('S_8.1.1-0', 'M', 'a LOB split into parts: parts complete and in order (_part001 ... in the final text)'),
  r('S_8.1.2-0', 'O', 'an optional mapping.txt beside the SIARD file: lines "folder URI" (RFC 3986)'),
  r(
    'S_8.1.3-0',
    'O',
    'an optional manifest of external LOBs in md5sum format',
    'the text fixes no name for the manifest file, so no program can tell which file beside the archive is meant to be one',
  ),
  r('S_8.2-0', 'M', 'a SIARD file split as binary parts: suffixes _part001 ... complete and in order'),
  r('L_7.2-0', 'M', 'external LOBs (DATALINK) in [db]_lobseg_[h]/content/schema[i]/ folders', undefined, SEED),
  r('L_7.2-1', 'O', 'lobseg folders of external LOBs may be ZIP files', undefined, SEED),
  r('S_8.3-0', 'M', 'segmented folders of external LOBs: [db]_lobseg_[h], records numbered on', undefined, SEED),
  r('S_8.3-1', 'O', 'segmented folders of external LOBs may be ZIP files', undefined, SEED),
  r('S_8.5-0', 'M', 'a SIARD file segmented by tables: [db].siard.1 ... .z, each a SIARD ZIP', undefined, SEED),
  r('S_8.6-0', 'M', 'a table split across segments: tableN.xml.1 ... .z in order', undefined, SEED),
];

const BY_ID = new Map(REQUIREMENTS.map((q) => [q.id, q]));

export function requirement(id: string): Requirement {
  const q = BY_ID.get(id);
  if (!q) throw new Error(`unknown requirement id ${id}`);
  return q;
}
