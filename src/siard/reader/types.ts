/**
 * Types only the reader needs, beside the shared archive model (`../model.ts`): the nested fields
 * of UDT/ARRAY columns with their own lobFolder, SIARD 1.0 column folders, nested cell values,
 * and rows with their 1-based index for messages.
 */
import type { SiardArchive, SiardCellValue, SiardLobReference } from '../model.js';
import type { SiardDialect } from '../lob-location.js';

/** A `<field>` of a UDT or ARRAY column (metadata.xsd fieldType). */
export interface SiardReadField {
  name: string;
  /** field-level lobFolder, relative to the enclosing column's or field's one */
  lobFolder?: string;
  mimeType?: string;
  type?: string;
  typeSchema?: string;
  typeName?: string;
  fields: SiardReadField[];
}

/** What the model's SiardColumn does not hold but reading needs. */
export interface SiardReadColumnExtras {
  /**
   * sub-fields of a UDT or ARRAY column (u1.. / a1.. map onto fields[0]..); for a UDT column each
   * field carries its attribute's predefined `type` (and is made when metadata.xml lists none)
   */
  fields: SiardReadField[];
  /** SIARD 1.0 `<folder>` of a LOB column (the internal lob folder name, e.g. "lob3") */
  folder?: string;
}

export interface SiardReadMetadata {
  archive: SiardArchive;
  /** "1.0", "2.1", "2.2" (the version attribute) */
  siardVersion: string;
  /** namespace URI of metadata.xml */
  namespace: string;
  /** extras per schema, per table, per column (same indexes as archive.schemas[s].tables[t].columns[c]) */
  columnExtras: SiardReadColumnExtras[][][];
  dialect: SiardDialect;
  /** tolerated irregularities, one sentence each */
  warnings: string[];
  /** routines, roles and privileges, named (a restore does not recreate them; the model holds them for re-segmentation) */
  otherObjects: SiardOtherObject[];
  /** what metadata.xml says that the model cannot hold (left out of a re-segmented archive), one phrase each */
  dropped: string[];
}

/** A routine, role or privilege named in metadata.xml (`name` schema-qualified where it has a schema). */
export interface SiardOtherObject {
  kind: 'routine' | 'role' | 'privilege';
  name: string;
}

/** A LOB reference as read, with the cell it came from. */
export interface SiardReadLobReference extends SiardLobReference {
  /** the digestType attribute as written, when it is not one of MD5 / SHA-1 / SHA-256 */
  digestTypeRaw?: string;
  /** DATALINK: path given in the source database */
  dlurlpathonly?: string;
}

/** ARRAY (`a1`, `a2` ...) or UDT (`u1`, `u2` ...) value: elements by 1-based index; absent = NULL. */
export interface SiardReadComplexValue {
  kind: 'array' | 'udt';
  elements: Map<number, SiardReadCellValue>;
}

export type SiardReadCellValue = SiardCellValue | SiardReadLobReference | SiardReadComplexValue;

export function isComplexValue(v: SiardReadCellValue): v is SiardReadComplexValue {
  return v !== null && typeof v === 'object' && !(v instanceof Uint8Array) && 'elements' in v;
}

export interface SiardReadRow {
  /** 1-based row number in tableN.xml, for messages */
  index: number;
  /** cells in column order (index 0 is c1); null = NULL */
  cells: SiardReadCellValue[];
}

/** A LOB reference found in a row, with where it sits. */
export interface SiardLobCell {
  schemaIndex: number;
  tableIndex: number;
  /** 1-based row number */
  row: number;
  /** 1-based column number (c1 = 1) */
  column: number;
  /** element path inside the cell, e.g. ["c5", "u2", "u3"] */
  cellPath: string[];
  /** lobFolder chain: column, then each enclosing field (undefined = not given) */
  lobFolders: Array<string | undefined>;
  /** column or field mimeType, if declared */
  mimeType?: string;
  /**
   * 'blob' or 'clob' family of the column, or of the UDT attribute the cell holds (from the
   * schemas' `<types>`); 'char' for a CHAR / VARCHAR a producer kept in a file; undefined when the
   * type is unknown (an undeclared UDT) or another (BINARY / VARBINARY in a file: bytes)
   */
  family?: 'blob' | 'clob' | 'xml' | 'datalink' | 'char';
  ref: SiardReadLobReference;
}
