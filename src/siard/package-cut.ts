/**
 * Where a package stands at a cut inside a table (package-writer.ts), as a resumable export's
 * journal keeps it (resume/export-journal.ts): a module of its own, which both import.
 */
import type { SegmentSums } from './zip/segmented-deflate.js';
import type { OpenEntryRecord, ZipCheckpoint } from './zip/writer.js';

/** Where a package stands at a cut inside a table: the `.siard`, and the table data held back (takeBack). */
export interface PackageCut {
  /** the `.siard` (entries: those since the last table's checkpoint) and, streamed, the table's open entry */
  zip: ZipCheckpoint & { open?: { entry: OpenEntryRecord; sums: SegmentSums } };
  /** a table taken back: its deflated data so far in the held-back file */
  aside?: { bytes: number; sha256: string; sums: SegmentSums };
}
