/** Every verb of the command line; each module exports register(program). */
import type { Command } from 'commander';
import { register as path } from './path.js';
import { register as init } from './init.js';
import { register as put } from './put.js';
import { register as ls } from './ls.js';
import { register as log } from './log.js';
import { register as show } from './show.js';
import { register as checkout } from './checkout.js';
import { register as exportVerb } from './export.js';
import { register as validate } from './validate.js';
import { register as ingest } from './ingest.js';
import { register as audit } from './audit.js';
import { register as relocate } from './relocate.js';
import { register as restoreVerb } from './restore.js';

export const VERBS: Array<(program: Command) => void> = [
  path,
  init,
  put,
  ls,
  log,
  show,
  checkout,
  exportVerb,
  validate,
  ingest,
  audit,
  relocate,
  restoreVerb,
];
