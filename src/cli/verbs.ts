/**
 * Every verb of the command line, by name. Each module exports register(program). They are
 * loaded lazily: a command loads only its own verb's code (a cold start of every module costs
 * a third of a second, which a scheduled `validate` or `audit` of a small object should not pay);
 * the top-level --help loads them all.
 */
import type { Command } from 'commander';

export type RegisterVerb = (program: Command) => void;

export const VERBS: Record<string, () => Promise<{ register: RegisterVerb }>> = {
  init: () => import('./init.js'),
  path: () => import('./path.js'),
  put: () => import('./put.js'),
  export: () => import('./export.js'),
  ingest: () => import('./ingest.js'),
  validate: () => import('./validate.js'),
  audit: () => import('./audit.js'),
  relocate: () => import('./relocate.js'),
  checkout: () => import('./checkout.js'),
  restore: () => import('./restore.js'),
  ls: () => import('./ls.js'),
  log: () => import('./log.js'),
  show: () => import('./show.js'),
  repair: () => import('./repair.js'),
  mets: () => import('./mets.js'),
};
