/**
 * The library API of siard-ocfl: every name here is a promise, each with one line on what it is;
 * every other module of src/ is internal and may change without notice. The command line's verbs
 * are these functions. `siard-ocfl/ocfl-js-plugin` (package.json "exports") is the one other entry.
 */

export {
  /** Creates an OCFL 1.1 storage root (a folder, or an s3:// location) with a registered layout: 0003 or any of docs/layouts.md. */
  initRoot,
  /** Opens an existing storage root. */
  openRoot,
  /** An open storage root: objectPath(id), openObject(id), objectVersions(id), scanObjects(), repair(). */
  OcflStorageRoot,
  /** Where a root stages versions and keeps its locks (workspace folder), for initRoot and openRoot. */
  type RootOptions,
} from './ocfl/root.js';
export {
  /** An object's inventory as read: versions(), state(version), openLogical(path, version). */
  type OcflObjectReader,
} from './ocfl/object/object.js';

export {
  /** Exports a source (sqlite:<file>, a .db file, postgres://, mysql://, a .siard) into a new version of an object. */
  ingest,
  /** The same from a DatabaseSource of your own; it takes IngestOptions (their package hooks aside). */
  ingestDatabase,
  /** Options of ingest: the source's table selection, SIARD export options, the version's message, user and digest. */
  type IngestOptions,
  /** What ingest wrote: the object, its new version (or none when unchanged), the export's summary. */
  type IngestResult,
} from './archive/ingest.js';

export {
  /** Audits objects of a root (OCFL validation with fixity and every SIARD check); throws only when it cannot run. */
  audit,
  /** Which objects, which version, a shard of the root, progress hooks. */
  type AuditOptions,
  /** ok, the objects audited, the findings, and their counts. */
  type AuditResult,
  /** One finding: code, severity, message, object, and path, table, row, column where they apply. */
  type AuditFinding,
} from './archive/audit.js';

export {
  /** Writes a new version whose .siard differs only in its database-level lobFolder (content copied raw). */
  relocate,
  /** The new lobFolder URI, and the version's message and user. */
  type RelocateOptions,
  /** The version written and what it holds. */
  type RelocateResult,
} from './archive/relocate.js';

export {
  /** Writes an object version into a local folder (zip-slip safe), split LOBs and segments joined on request. */
  checkoutArchive,
  /** Version, joinChunks, joinSegments. */
  type ArchiveCheckoutOptions,
  /** The files written. */
  type ArchiveCheckoutResult,
} from './archive/checkout.js';

export {
  /** Restores an archive into SQLite, PostgreSQL or MariaDB/MySQL, verifying every LOB on the way; all or nothing. */
  restore,
  /** Progress hooks, and a server target's create / intoExisting. */
  type RestoreOptions,
  /** Tables and rows restored, LOBs verified, and what the target did not get. */
  type RestoreSummary,
} from './archive/restore.js';
export {
  /** Compares a database (SQLite file, postgres://, mysql://) with an archive, row by row and value by value. */
  verify,
  /** Differences listed per table, scratch folder and memory for unpaired rows, progress hooks. */
  type VerifyOptions,
  /** ok, and per table: equal, the differences by key and column with their counts, lossy columns, the fingerprint. */
  type VerifyResult,
} from './archive/verify/verify.js';
export {
  /** What changed between two versions of an object: files, and per archived table rows (by key) and columns. */
  diff,
  /** Row changes kept per table, scratch folder and memory for unpaired rows, progress and per-row hooks. */
  type DiffOptions,
  /** Per table: added, removed, changed rows (the first rowLimit listed) and columns; the files added, removed, changed. */
  type DiffResult,
} from './archive/diff/diff.js';
export {
  /** Where an archive is read from: { siard: file }, { dir: folder } or { root, id, version? }. */
  type ArchiveSource,
} from './archive/open-archive.js';

export {
  /** The schemas, tables, columns and row counts of an archive; its options are two progress hooks (onScan, onRow). */
  listTables,
  /** What listTables answers. */
  type TablesResult,
} from './archive/tables.js';
export {
  /** The rows of one table, streamed; LOB cells opened on request, each checked against its digest. */
  openTableRows,
  /** The table, the rows wanted. */
  type RowsOptions,
  /** The open table: its columns and its rows. */
  type TableRows,
} from './archive/rows.js';

export {
  /** Adds a parent METS and a child METS per LOB segment folder to an object, as a new version. */
  addMetsIndex,
  /** Options of addMetsIndex. */
  type AddMetsOptions,
  /** What addMetsIndex wrote. */
  type AddMetsResult,
} from './archive/mets.js';

export {
  /** Validates a storage root or an object root against OCFL 1.0/1.1 (E/W codes), content digests included by default. */
  validatePath,
  /** fixity (default true) and progress hooks. */
  type ValidateOptions,
  /** valid, and the findings. */
  type ValidationResult,
  /** One finding: its code, severity, path and message. */
  type Finding,
} from './ocfl/validate/index.js';

export {
  /** Opens an export source from its spec (a file path or URL; see sources/dialects.ts); close() it when done. */
  openSource,
  /** The table selection, --strict, and a SIARD package's acceptDigestMismatch. */
  type OpenSourceOptions,
} from './sources/open.js';
export {
  /** Writes a source as <name>.siard and its LOB folders into a local folder (no OCFL). */
  exportToDirectory,
} from './siard/export-directory.js';
export {
  /** The export's name, LOB layout and limits, header texts and progress hooks. */
  type SiardExportOptions,
} from './siard/export-options.js';
export {
  /** What an export wrote: files, tables, rows, LOBs, the messageDigest. */
  type SiardExportSummary,
} from './siard/writer.js';
export {
  /** What a database source implements to be exported: its catalogue, then the rows of each table. */
  type DatabaseSource,
} from './siard/database-source.js';

export {
  /** Every error the library throws on purpose: one sentence, a code, the exit status the command line gives. */
  SiardOcflError,
  /** Bad arguments or input (exit status 2). */
  UsageError,
  /** Another writer holds the object's lock (exit status 2). */
  LockHeldError,
} from './errors.js';
