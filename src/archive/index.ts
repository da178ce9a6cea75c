/** The archive API: SIARD archives as OCFL objects (ingest, audit, relocate, checkout, tables, rows). */
export {
  ingest,
  ingestDatabase,
  ingestSiardPackage,
  planSiardPackage,
  type IngestOptions,
  type IngestDatabaseOptions,
  type IngestPackageOptions,
  type IngestResult,
  type PackagePlan,
  type VersionInfoOptions,
} from './ingest.js';
export { audit, type AuditOptions, type AuditResult, type ObjectAuditSummary, type SiardAuditSummary } from './audit.js';
export type { AuditFinding, AuditSeverity } from './audit-findings.js';
export { relocate, rewriteDatabaseLobFolder, type RelocateOptions, type RelocateResult } from './relocate.js';
export { checkoutArchive, joinSplitLobs, type ArchiveCheckoutOptions, type ArchiveCheckoutResult } from './checkout.js';
export { StagedVersionSink, OCFL_ALGORITHM_OF_DIGEST_TYPE } from './ocfl-sink.js';
export { addMetsIndex, type AddMetsOptions, type AddMetsResult } from './mets.js';
export { openArchive, type ArchiveSource, type OpenedArchive, type OpenArchiveOptions } from './open-archive.js';
export { listTables, type TablesResult, type TablesOptions } from './tables.js';
export { openTableRows, type RowsOptions, type TableRows } from './rows.js';
export { csvField, csvRecord } from './csv.js';
