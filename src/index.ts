/** The library API of siard-ocfl. */
export * from './errors.js';
export * from './ocfl/digest.js';
export * from './ocfl/layout/index.js';
