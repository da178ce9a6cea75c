/** The export side of the library API: model, writer, sinks, LOB layouts, and the interface a database source implements. */
export * from './model.js';
export { writeSiard, officialMetadataXsd, DEFAULTS as SIARD_EXPORT_DEFAULTS, type SiardExportSummary } from './writer.js';
export type { SiardExportOptions } from './export-options.js';
export { exportToDirectory, type DirectoryExportHooks } from './export-directory.js';
export { DirectorySink, Hashes, type DigestName, type OutputFile, type OutputSink, type WrittenFile } from './output-sink.js';
export {
  createLobLayout,
  LobsegLayout,
  Siard22Layout,
  type LobAddress,
  type LobLayout,
  type LobLayoutName,
  type LobLimits,
  type LobPlacementPart,
  type LobPlacement,
} from './lob-placement.js';
export { escapeSiardText } from './xml-text.js';
export {
  isSourceArray,
  isSourceLob,
  type DatabaseSource,
  type SourceArrayElement,
  type SourceArrayValue,
  type SourceCatalog,
  type SourceLob,
  type SourceSchema,
  type SourceTable,
  type SourceValue,
} from './database-source.js';
