/** METS index of the LOB segment folders (seed 002): writers, reader, checker. */
export * from './types.js';
export { BufferWriter, type ByteWriter, type MetsOutputFile, type MetsOutputSink, type WrittenMets } from './output.js';
export type { ChildMetsOptions, WrittenChildMets } from './child-writer.js';
export { writeParentMets, type ParentMetsOptions, type ParentMetsChild, type ParentMetsSiardFile } from './parent-writer.js';
export { writeMetsIndex, type MetsIndexOptions, type WrittenMetsIndex, type WrittenMetsFile } from './index-writer.js';
export { parseMets, type MetsInput } from './reader.js';
export {
  checkMetsIndex,
  auditMetsIndex,
  type MetsFinding,
  type MetsFindingCode,
  type MetsFileFactsSource,
  type MetsIndexToCheck,
  type MetsIndexSource,
} from './checker.js';
export type { MetsIndexWriterOptions } from './index-writer.js';
export { lobPathInfo, type LobPathInfo } from './lob-paths.js';
export { MetsIndexingSink, type MetsIndexingOptions } from './indexing-sink.js';
export { planParentMetsUpdate, writeUpdatedParentMets, ParentMetsNotUpdatable, type ParentMetsUpdatePlan } from './parent-update.js';
