/** The library API of siard-ocfl. */
export * from './errors.js';
export * from './ocfl/digest.js';
export * from './ocfl/layout/index.js';
export * from './ocfl/inventory.js';
export * from './ocfl/logical-path.js';
export * from './ocfl/object.js';
export * from './ocfl/root.js';
export * from './ocfl/stage.js';
export * from './ocfl/lock.js';
export * from './ocfl/workspace.js';
export * from './ocfl/checkout.js';
export * from './ocfl/validate/index.js';
export * from './siard/reader/index.js';
export * from './siard/export-api.js';
export * from './siard/mets/index.js';
export * from './archive/index.js';
