/**
 * What the SIARD reader needs of the ZIP it reads: a ZipReader over one `.siard`, or the view of a
 * segmented SIARD file as one archive (segments/segment-set-zip.ts). Byte-range reads and raw
 * streams belong to a single file: a view over several refuses them.
 */
import type { Readable } from 'node:stream';
import type { ZipEntry, ZipReadLimits } from './reader.js';

export interface SiardZip {
  /** names the archive in messages */
  readonly path: string;
  readonly entries: ZipEntry[];
  readonly unsafeEntries: ZipEntry[];
  entry(name: string): ZipEntry | undefined;
  openStream(nameOrEntry: string | ZipEntry, limits?: ZipReadLimits): Promise<Readable>;
  openRawStream(nameOrEntry: string | ZipEntry): Promise<Readable>;
  readRange(start: number, end: number): Readable;
  close(): void;
}
