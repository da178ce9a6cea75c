/** The SIARD reader: archive model, streamed rows, LOB location, LOB bytes and their verification. */
export * from './types.js';
export * from './escape.js';
export * from './metadata.js';
export * from './table-rows.js';
export * from './siard-reader.js';
export * from './table-choice.js';
export * from './table-summary.js';
export * from './lob-open.js';
export * from './verify-lob.js';
export * from './unreferenced.js';
export * from './message-digest.js';
export * from '../lob-location.js';
