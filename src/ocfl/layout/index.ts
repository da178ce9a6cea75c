/** Storage layouts: extension 0003 and the registry that reads a storage root's layout. */
export * from './storage-layout.js';
export * from './hash-and-id-n-tuple-layout.js';
export * from './registry.js';
