/**
 * Shared vocabulary of the METS index (seed 002, "Recommendation for using METS to index folders
 * containing BLOBS"): a parent `mets.xml` beside the `.siard` and a child `mets.xml` in each LOB
 * segment folder. Pure data; the writers, the reader and the checker use these shapes.
 */
import { ALGORITHM_OF_DIGEST_NAME, type DigestName } from '../digest-names.js';

export const METS_NS = 'http://www.loc.gov/METS/';
export const XLINK_NS = 'http://www.w3.org/1999/xlink';
export const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';

/** Name of the METS file in the parent folder and in every segment folder. */
export const METS_FILE_NAME = 'mets.xml';

/** `USE` of the parent's fileGrp that lists the child METS files (seed spelling). */
export const CHILD_IP_USE = 'child IP';

/**
 * CHECKSUMTYPE values we compute, spelled as the METS schema enumerates them. The SIARD LOB
 * digests (MD5, SHA-1, SHA-256) are a subset, so a cell digest is written unchanged.
 */
export type MetsChecksumType = DigestName;
const METS_CHECKSUM_TYPES: readonly MetsChecksumType[] = ['MD5', 'SHA-1', 'SHA-256', 'SHA-384', 'SHA-512'];

/** CHECKSUMTYPE -> node:crypto (and OCFL digest registry) name. */
export const NODE_HASH_OF_CHECKSUM_TYPE: Readonly<Record<MetsChecksumType, string>> = ALGORITHM_OF_DIGEST_NAME;

export function isMetsChecksumType(value: string): value is MetsChecksumType {
  return (METS_CHECKSUM_TYPES as readonly string[]).includes(value);
}

/**
 * Which cell a LOB file belongs to, numbered as in the lobseg paths: schema and table from 0,
 * column and row from 1 (row 1 is `record0`). `part` names one part of a split LOB
 * (`0`, `1`, ... `z` in lobseg; `001` ... in siard22).
 */
export interface LobIdentity {
  schema: number;
  table: number;
  column: number;
  row: number;
  part?: string;
}

/** One LOB file in a segment folder, as the child METS lists it. */
export interface MetsLobFile {
  /** path inside the segment folder, '/'-separated, e.g. `content/schema0/table2/lob4/record0.bin` */
  path: string;
  identity: LobIdentity;
  size: number;
  /** lower-case hex, in the index's checksum type */
  checksum: string;
  /** IANA media type when the caller knows it (MIMETYPE is left out otherwise) */
  mimeType?: string;
}

/** A LOB file record with its segment, as export / ingest produce them (input of writeMetsIndex). */
export interface MetsLobRecord extends MetsLobFile {
  /** segment folder relative to the parent METS folder, e.g. `Northwind_lobseg_0` */
  segment: string;
}

/** Size and checksum of a file the parent lists (the .siard, each child METS). */
export interface MetsFileFacts {
  size: number;
  /** lower-case hex, in the index's checksum type */
  checksum: string;
}

// ---------------------------------------------------------------------------------------------
// Parsed METS (reader output): plain data, attribute values as written.

export interface ParsedFLocat {
  locType?: string;
  otherLocType?: string;
  href?: string;
}

export interface ParsedTransformFile {
  type?: string;
  algorithm?: string;
  order?: string;
}

export interface ParsedMetsFile {
  id?: string;
  ownerId?: string;
  mimeType?: string;
  /** SIZE as written (a decimal string), undefined when absent */
  size?: string;
  checksum?: string;
  checksumType?: string;
  /** USE of the nearest enclosing fileGrp that has one */
  use?: string;
  /** IDs of the enclosing fileGrps, outermost first (shared between files: do not modify) */
  groupIds: readonly string[];
  flocats: ParsedFLocat[];
  transforms: ParsedTransformFile[];
}

export interface ParsedMptr {
  id?: string;
  href?: string;
  locType?: string;
  otherLocType?: string;
  title?: string;
}

export interface ParsedFptr {
  fileId?: string;
  contentIds?: string;
}

export interface ParsedStructMap {
  type?: string;
  label?: string;
  mptrs: ParsedMptr[];
  fptrs: ParsedFptr[];
}

export interface ParsedMets {
  objId?: string;
  id?: string;
  type?: string;
  label?: string;
  profile?: string;
  createDate?: string;
  lastModDate?: string;
  /** text of metsHdr/agent/name (the first agent's) */
  agentName?: string;
  files: ParsedMetsFile[];
  structMaps: ParsedStructMap[];
}
