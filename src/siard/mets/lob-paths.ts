/**
 * Recognises the LOB files of the two layouts we write (src/siard/lob-placement.ts) from their
 * path beside the `.siard`, giving the segment folder, the path inside it and the cell identity.
 * This lets a METS index be built from nothing but file paths and digests: from the files an
 * export writes, or from an existing object's inventory (`siard-ocfl mets`).
 *
 *   lobseg:  Northwind_lobseg_0/content/schema0/table2/lob4/record0.bin[.0|.1|...|.z]
 *            segment `Northwind_lobseg_0`, row = record + 1
 *   siard22: Northwind_lobs/s0_t2_c4/seg_0/t2_c4_r1.bin[_part001]
 *            segment `Northwind_lobs/s0_t2_c4/seg_0`
 */
import type { LobIdentity, MetsLobRecord } from './types.js';

export interface LobPathInfo {
  segment: string;
  /** path inside the segment folder */
  path: string;
  identity: LobIdentity;
}

const LOBSEG = /^([^/]+_lobseg_\d+)\/(content\/schema(\d+)\/table(\d+)\/lob(\d+)\/record(\d+)\.[^/.]+(?:\.(\d+|z))?)$/;
const SIARD22 = /^([^/]+_lobs\/s(\d+)_t(\d+)_c(\d+)\/seg_\d+)\/(t(\d+)_c(\d+)_r(\d+)\.[^/._]+(?:_part(\d{3,}))?)$/;

/** The segment and cell of a LOB file path, or undefined when it is not one of ours. */
export function lobPathInfo(relPath: string): LobPathInfo | undefined {
  let m = LOBSEG.exec(relPath);
  if (m) {
    const [, segment, inner, schema, table, column, record, part] = m;
    const identity: LobIdentity = { schema: Number(schema), table: Number(table), column: Number(column), row: Number(record) + 1 };
    if (identity.column < 1) return undefined;
    if (part !== undefined) identity.part = part;
    return { segment: segment!, path: inner!, identity };
  }
  m = SIARD22.exec(relPath);
  if (m) {
    const [, segment, schema, table, column, inner, t2, c2, row, part] = m;
    if (table !== t2 || column !== c2) return undefined;
    const identity: LobIdentity = { schema: Number(schema), table: Number(table), column: Number(column), row: Number(row) };
    if (identity.column < 1 || identity.row < 1) return undefined;
    if (part !== undefined) identity.part = part;
    return { segment: segment!, path: inner!, identity };
  }
  return undefined;
}

/** A METS record for a LOB file path with its size and checksum, or undefined when not a LOB path. */
export function lobRecordOfPath(relPath: string, size: number, checksum: string, mimeType?: string): MetsLobRecord | undefined {
  const info = lobPathInfo(relPath);
  if (!info) return undefined;
  const record: MetsLobRecord = { ...info, size, checksum };
  if (mimeType !== undefined) record.mimeType = mimeType;
  return record;
}
