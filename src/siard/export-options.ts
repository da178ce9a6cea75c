/** What an export is asked to write: names, LOB layout and limits, header texts, progress hooks (writer.ts writes it). */
import type { LobLayoutName } from './lob-placement.js';
import type { SiardArchive, SiardDigestType } from './model.js';
import type { ExportResume } from './resume/export-resume.js';

export interface SiardExportOptions {
  /** dbname and base name of the .siard file and LOB folders */
  name: string;
  lobLayout?: LobLayoutName;
  /** files per LOB segment folder (default 100,000, the recommendation's example) */
  maxFiles?: number;
  /** bytes per LOB segment folder (default 4 GB, the recommendation's example) */
  maxBytes?: number;
  /** LOBs up to this many bytes are inlined (default 2000) */
  inlineMax?: number;
  /** database-level lobFolder base URI, ending in '/' (default '../': the folder holding the .siard) */
  lobFolder?: string;
  lobDigest?: SiardDigestType;
  dataOwner?: string;
  dataOriginTimespan?: string;
  description?: string;
  archiver?: string;
  archiverContact?: string;
  /**
   * Archival descriptions applied to the archive before metadata.xml is written (`--describe`,
   * archive/describe/model.ts); it throws a UsageError, aborting the export, on a name the archive lacks.
   */
  describe?: (archive: SiardArchive) => void;
  producerApplication?: string;
  /** date of the archive (default: today, UTC) */
  archivalDate?: Date;
  /** deflate level for the table XML, 0-9 (default 1, writer.ts's DEFAULTS) */
  compressionLevel?: number;
  /**
   * Segment the SIARD file (S_8.5-0, S_8.6-0): no file larger than this many bytes, written as
   * `[name].siard.1` ... `[name].siard.z` when the archive does not fit in one (segments/).
   */
  maxSiardBytes?: number;
  /**
   * Write each LOB segment folder `[name]_lobseg_[h]/` as a ZIP file `[name]_lobseg_[h].zip`
   * (S_8.4-1; lobseg layout only; lobseg-zip-sink.ts).
   */
  lobsegZip?: boolean;
  /**
   * Write `[name].fingerprints.json` beside the .siard: each table's fingerprint taken from the
   * values as the source gave them (default true; false for a bench measuring what they cost).
   */
  fingerprints?: boolean;
  /** where a segmented export keeps table data until its entry name is known (default: the sink's, else the system's temporary folder) */
  scratchDir?: string;
  /** make the work resumable (a journal beside it), or continue interrupted work (docs/resume.md) */
  resume?: ExportResume;
  /** progress: called once per table before its rows, and per row */
  onTable?: (table: { schema: string; name: string; rows: number }) => void;
  onRow?: () => void;
  /** progress: the tables and rows the source announces, once, before the first table */
  onPlan?: (plan: { tables: number; rows: number }) => void;
  /** progress: bytes written (the .siard and LOB files), as they are written */
  onBytes?: (bytes: number) => void;
}
