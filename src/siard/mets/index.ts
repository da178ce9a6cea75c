/** METS index of the LOB segment folders (seed 002): writers, reader, checker. */
export * from './types.js';
export { childMetsObjId, lobFileId, lobOwnerId, parseLobOwnerId } from './ids.js';
export { METS_INDEX_TYPE, METS_SCHEMA_LOCATION } from './header.js';
export { BufferWriter, type ByteWriter, type MetsOutputFile, type MetsOutputSink, type WrittenMets } from './output.js';
export { ChildMetsWriter, writeChildMets, type ChildMetsOptions, type WrittenChildMets } from './child-writer.js';
export {
  writeParentMets,
  SIARD_FILE_ID,
  SIARD_MIMETYPE,
  METS_MIMETYPE,
  type ParentMetsOptions,
  type ParentMetsChild,
  type ParentMetsSiardFile,
} from './parent-writer.js';
export { writeMetsIndex, type MetsIndexOptions, type WrittenMetsIndex, type WrittenMetsFile } from './index-writer.js';
export { parseMets, MAX_METS_BYTES, type MetsInput } from './reader.js';
export {
  checkMetsIndex,
  auditMetsIndex,
  childMetsPaths,
  type MetsFinding,
  type MetsFindingCode,
  type MetsFileFactsSource,
  type MetsIndexToCheck,
  type MetsIndexSource,
} from './checker.js';
export { MetsIndexWriter, type MetsIndexWriterOptions } from './index-writer.js';
export { lobPathInfo, lobRecordOfPath, type LobPathInfo } from './lob-paths.js';
export { MetsIndexingSink, type MetsIndexingOptions } from './indexing-sink.js';
export { planParentMetsUpdate, writeUpdatedParentMets, ParentMetsNotUpdatable, type ParentMetsUpdatePlan } from './parent-update.js';
