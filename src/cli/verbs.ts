/** Every verb of the command line; each module exports register(program). */
import type { Command } from 'commander';
import { register as path } from './path.js';

export const VERBS: Array<(program: Command) => void> = [
  path,
];
