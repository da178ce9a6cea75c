/**
 * What reading LOBs needs of where they are stored: a package on disk (lob-open.ts), zipped LOB
 * folders (zipped-lob-folders.ts) or an OCFL object version (archive/).
 */
import type { Readable } from 'node:stream';
import type { LobPart } from '../lob-location.js';

/** How LOB parts are tested and read; the OCFL audit supplies its own over logical paths. */
export interface LobAccess {
  exists(part: LobPart): Promise<boolean>;
  open(part: LobPart): Promise<Readable>;
  /** size in bytes of a part (for the internal entries: the declared uncompressed size) */
  size(part: LobPart): Promise<number>;
  /** Releases what the access keeps open (the ZIPs of zipped LOB folders); optional. */
  close?(): void;
}
