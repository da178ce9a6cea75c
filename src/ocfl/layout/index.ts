/** Storage layouts: the registered extensions and the registry that reads a storage root's layout. */
export * from './storage-layout.js';
export * from './extensions.js';
export * from './registry.js';
