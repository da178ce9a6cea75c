/**
 * The SIARD archive model: what `header/metadata.xml` describes plus the shape of the cells in
 * `content/schemaI/tableJ/tableJ.xml`. Sources produce it, the writer serialises it, the reader
 * parses into it. It mirrors the SIARD 2.2 metadata.xsd (element names kept) and holds only what
 * this project reads or writes. Routines, roles and privileges are filled only by a received SIARD
 * package (re-segmentation carries them over); the database sources give none.
 *
 * ARRAY columns: `type` is the element type and `cardinality` is set (the largest array; a source
 * sets it on array columns only). The writer declares `<fields>` `name[1]` ... `name[cardinality]`
 * and writes cells as `<cN><a1>..</a1><a3>..</a3></cN>` (a missing aI = NULL element, `<cN/>` =
 * an empty array).
 *
 * Numbering follows SIARD: schema/table folders from 0 (`schema0`, `table0`), columns and rows
 * from 1 in the XML (`c1`, row 1) but arrays here are 0-based (columns[0] is `c1`).
 */
import { ALGORITHM_OF_DIGEST_NAME } from './digest-names.js';

/** Digest algorithms a SIARD `digestType` may name (digestTypeType in metadata.xsd). */
export type SiardDigestType = 'MD5' | 'SHA-1' | 'SHA-256';
export const SIARD_DIGEST_TYPES: readonly SiardDigestType[] = ['MD5', 'SHA-1', 'SHA-256'];

/** `digestType` -> node:crypto algorithm name (see digest-names.ts). */
export const NODE_HASH_OF_DIGEST_TYPE: Readonly<Record<SiardDigestType, string>> = Object.freeze(
  Object.fromEntries(SIARD_DIGEST_TYPES.map((t) => [t, ALGORITHM_OF_DIGEST_NAME[t]])) as Record<SiardDigestType, string>,
);

/** `<messageDigest>` of the archive: the digest of the zip bytes before the `header/` entry. */
export interface SiardMessageDigest {
  digestType: SiardDigestType;
  /** lower-case hex */
  digest: string;
}

export interface SiardArchive {
  /** `version` attribute of siardArchive: "2.2" for what we write; readers may meet "2.1". */
  version: string;
  dbname: string;
  description?: string;
  archiver?: string;
  archiverContact?: string;
  dataOwner: string;
  dataOriginTimespan: string;
  /** Database-level lobFolder (URI, absolute or relative to the folder of the .siard file). */
  lobFolder?: string;
  producerApplication?: string;
  /** xs:date, e.g. "2026-11-21" (we write UTC with "Z": "2026-11-21Z"). */
  archivalDate: string;
  messageDigests: SiardMessageDigest[];
  clientMachine?: string;
  databaseProduct?: string;
  connection?: string;
  databaseUser?: string;
  schemas: SiardSchema[];
  users: SiardUser[];
  /** `<roles>`: absent or empty = none written */
  roles?: SiardRole[];
  /** `<privileges>`: absent or empty = none written */
  privileges?: SiardPrivilege[];
}

export interface SiardUser {
  name: string;
  description?: string;
}

/** A role (metadata.xsd roleType); `admin` is the user or role that administers it. */
export interface SiardRole {
  name: string;
  admin: string;
  description?: string;
}

/** A grant, of a privilege or of a role (metadata.xsd privilegeType). */
export interface SiardPrivilege {
  /** e.g. "SELECT", "ALL PRIVILEGES", or a role name */
  type: string;
  /** the object granted on; absent for a role grant */
  object?: string;
  grantor: string;
  /** users or roles, or "PUBLIC" */
  grantee: string;
  option?: 'ADMIN' | 'GRANT';
  description?: string;
}

/** A routine of a schema (metadata.xsd routineType); `source` in the source's language, `body` in SQL:2008. */
export interface SiardRoutine {
  /** unique in the schema (routines may be overloaded under one `name`) */
  specificName: string;
  name: string;
  description?: string;
  source?: string;
  body?: string;
  characteristic?: string;
  returnType?: string;
  /** `<parameters>`: absent or empty = none written */
  parameters?: SiardParameter[];
}

/** A parameter of a routine (metadata.xsd parameterType): a predefined `type`, or `typeSchema`/`typeName`. */
export interface SiardParameter {
  name: string;
  /** IN, OUT or INOUT */
  mode: string;
  type?: string;
  typeSchema?: string;
  typeName?: string;
  typeOriginal?: string;
  /** ARRAY parameters: (maximum) number of elements */
  cardinality?: number;
  description?: string;
}

export interface SiardSchema {
  name: string;
  /** folder name inside content/, e.g. "schema0" */
  folder: string;
  description?: string;
  /** `<types>`: user-defined types of the schema (we write DISTINCT types only) */
  types?: SiardType[];
  tables: SiardTable[];
  views: SiardView[];
  /** `<routines>`: absent or empty = none written */
  routines?: SiardRoutine[];
}

export interface SiardTable {
  name: string;
  /** folder name inside the schema folder, e.g. "table2" */
  folder: string;
  description?: string;
  columns: SiardColumn[];
  primaryKey?: SiardUniqueKey;
  foreignKeys: SiardForeignKey[];
  candidateKeys: SiardUniqueKey[];
  /** `<checkConstraints>`: absent or empty = none written */
  checkConstraints?: SiardCheckConstraint[];
  /** `<triggers>`: absent or empty = none written */
  triggers?: SiardTrigger[];
  /** number of rows in tableN.xml (`<rows>`) */
  rows: number;
}

/**
 * A user-defined type (metadata.xsd typeType): a DISTINCT type has a predefined `base`; a
 * structured type (category "udt") has `attributes`, whose values a cell holds as u1, u2 ...
 */
export interface SiardType {
  name: string;
  category: 'distinct' | 'udt';
  /** supertype of a structured type */
  underSchema?: string;
  underType?: string;
  instantiable: boolean;
  final: boolean;
  /** DISTINCT types: the predefined SQL:2008 type of the values */
  base?: string;
  /** structured types: attribute i is cell element u(i+1) */
  attributes?: SiardAttribute[];
  description?: string;
}

/** An attribute of a structured type (metadata.xsd attributeType): a predefined type or another type, possibly an ARRAY. */
export interface SiardAttribute {
  name: string;
  type?: string;
  typeSchema?: string;
  typeName?: string;
  typeOriginal?: string;
  nullable?: boolean;
  defaultValue?: string;
  /** set on ARRAY attributes: their (maximum) number of elements */
  cardinality?: number;
  description?: string;
}

/** A `<field>` of a UDT or ARRAY column (metadata.xsd fieldType): names the parts of the cell's u1.. / a1.. elements. */
export interface SiardField {
  name: string;
  /** relative to the enclosing column's or field's lobFolder */
  lobFolder?: string;
  fields?: SiardField[];
  mimeType?: string;
  description?: string;
}

export interface SiardView {
  name: string;
  query?: string;
  queryOriginal?: string;
  description?: string;
  columns: SiardColumn[];
  rows?: number;
}

export interface SiardColumn {
  name: string;
  /**
   * Column-level lobFolder. Per the DILCIS 2024 note: absent = LOBs of this column are inside the
   * .siard; present = outside, relative to the database-level lobFolder (we write "./" or, for the
   * siard22 layout, "sI_tJ_cK/"). Writers set it only on columns that have externalised LOBs.
   */
  lobFolder?: string;
  /** SQL:2008 predefined type (predefinedTypeType), e.g. "BIGINT", "VARCHAR(40)", "BLOB". */
  type?: string;
  /** UDT columns carry typeSchema/typeName instead of type (we write them for DISTINCT types). */
  typeSchema?: string;
  typeName?: string;
  /**
   * For a column of a DISTINCT type: the type's `base`, which decides how cells are written and
   * read. Not a metadata.xml element (the column names its type); sources and the reader set it.
   */
  baseType?: string;
  /** The source's native type as declared, e.g. "NVARCHAR(15)" or "" for an untyped SQLite column. */
  typeOriginal?: string;
  mimeType?: string;
  nullable?: boolean;
  defaultValue?: string;
  /** `<fields>` of a UDT or ARRAY column as received or given by a source (the writer makes them when absent) */
  fields?: SiardField[];
  /** ARRAY columns only: (maximum) number of elements; its presence marks the column as an array */
  cardinality?: number;
  description?: string;
}

export interface SiardUniqueKey {
  name: string;
  description?: string;
  columns: string[];
}

/** A table check constraint (metadata.xsd checkConstraintType); `condition` in the source's SQL dialect. */
export interface SiardCheckConstraint {
  name: string;
  condition: string;
  description?: string;
}

/** A trigger (metadata.xsd triggerType); `triggeredAction` in the source's SQL dialect. */
export interface SiardTrigger {
  name: string;
  actionTime: 'BEFORE' | 'AFTER' | 'INSTEAD OF';
  /** INSERT, DELETE, UPDATE [OF columns] (several joined with OR) */
  triggerEvent: string;
  triggeredAction: string;
  description?: string;
}

export type SiardReferentialAction = 'CASCADE' | 'SET NULL' | 'SET DEFAULT' | 'RESTRICT' | 'NO ACTION';
export type SiardMatchType = 'FULL' | 'PARTIAL' | 'SIMPLE';

export interface SiardForeignKey {
  name: string;
  referencedSchema: string;
  referencedTable: string;
  references: Array<{ column: string; referenced: string }>;
  matchType?: SiardMatchType;
  deleteAction?: SiardReferentialAction;
  updateAction?: SiardReferentialAction;
  description?: string;
}

/**
 * A LOB stored in a file (cell attributes of clobType/blobType). `file` is relative to the column's
 * lobFolder (itself relative to the database-level one) or, with no column lobFolder, to the root
 * of the .siard. For a LOB split into parts (`.0` ... `.z` in lobseg, `_part001` ... in siard22)
 * `file` names the unsplit file and `length`/`digest` cover the whole LOB.
 */
export interface SiardLobReference {
  file: string;
  /** bytes for BLOB, characters (Unicode code points) for CLOB */
  length?: number;
  digestType?: SiardDigestType;
  /** lower-case hex */
  digest?: string;
}

/**
 * One cell of tableN.xml after unescaping:
 * - null: element absent (SQL NULL)
 * - string: text content (numbers, dates, character data, inline CLOB), "" for an empty element
 * - Uint8Array: inline binary (hex in the XML)
 * - SiardLobReference: a LOB in a file
 */
export type SiardCellValue = null | string | Uint8Array | SiardLobReference;

export function isLobReference(value: SiardCellValue): value is SiardLobReference {
  return value !== null && typeof value === 'object' && !(value instanceof Uint8Array);
}

/** The predefined type a column's cells have: its own, or its DISTINCT type's base. */
export function cellType(c: SiardColumn): string | undefined {
  return c.type ?? c.baseType;
}

/** Broad families of SQL:2008 predefined types; decides how a cell is written and read back. */
export type SqlTypeFamily =
  | 'integer'
  | 'decimal'
  | 'float'
  | 'boolean'
  | 'char'
  | 'clob'
  | 'binary'
  | 'blob'
  | 'date'
  | 'time'
  | 'timestamp'
  | 'interval'
  | 'xml'
  | 'datalink';

/** Family of a predefinedTypeType string ("VARCHAR(40)" -> "char", "BLOB" -> "blob"), null for others. */
function familyOfType(type: string): SqlTypeFamily | null {
  const t = type.trim().toUpperCase().replace(/\s+/g, ' ');
  if (/^(INTEGER|INT|SMALLINT|BIGINT)$/.test(t)) return 'integer';
  if (/^(NUMERIC|DECIMAL|DEC)\b/.test(t)) return 'decimal';
  if (/^(REAL|DOUBLE PRECISION|FLOAT)\b/.test(t)) return 'float';
  if (t === 'BOOLEAN') return 'boolean';
  if (/^(CHARACTER LARGE OBJECT|CLOB|NATIONAL CHARACTER LARGE OBJECT|NCHAR LARGE OBJECT|NCLOB)\b/.test(t)) return 'clob';
  if (/^(BINARY LARGE OBJECT|BLOB)\b/.test(t)) return 'blob';
  if (/^(BINARY|BINARY VARYING|VARBINARY)\b/.test(t)) return 'binary';
  if (/^(CHARACTER|CHAR|VARCHAR|NATIONAL|NCHAR)\b/.test(t)) return 'char';
  if (t === 'DATE') return 'date';
  if (/^TIMESTAMP\b/.test(t)) return 'timestamp';
  if (/^TIME\b/.test(t)) return 'time';
  if (/^INTERVAL\b/.test(t)) return 'interval';
  if (t === 'XML') return 'xml';
  if (t === 'DATALINK') return 'datalink';
  return null;
}

/**
 * Families of the type strings seen: readers ask for a column's family for every cell, and the
 * regular expressions above cost more than the cell. Bounded, since an archive names its types.
 */
const FAMILIES = new Map<string, SqlTypeFamily | null>();
const MAX_CACHED_TYPES = 4096;

/** The family of a SQL:2008 predefined type, or undefined for anything else (a UDT's name, say). */
export function knownTypeFamily(type: string): SqlTypeFamily | undefined {
  let family = FAMILIES.get(type);
  if (family === undefined) {
    family = familyOfType(type);
    if (FAMILIES.size < MAX_CACHED_TYPES) FAMILIES.set(type, family);
  }
  return family ?? undefined;
}

/** Family of a predefinedTypeType string ("VARCHAR(40)" -> "char", "BLOB" -> "blob"); throws for others. */
export function sqlTypeFamily(type: string): SqlTypeFamily {
  const family = knownTypeFamily(type);
  if (family === undefined) throw new Error(`"${type}" is not a SQL:2008 predefined type.`);
  return family;
}

/**
 * Character families: a cell of these held in a LOB file is text (UTF-8), whether the column is a
 * CLOB or XML or, as some producers write them, a long CHAR / VARCHAR (SiardApi's sakila keeps
 * VARCHAR(32767) cells in files). Its length may be counted in characters.
 */
export function isTextFamily(family: SqlTypeFamily | undefined): boolean {
  return family === 'char' || family === 'clob' || family === 'xml';
}

/** LOB families: cells of these may be externalised into files. */
export function isLobFamily(family: SqlTypeFamily): boolean {
  return family === 'clob' || family === 'blob' || family === 'xml';
}
