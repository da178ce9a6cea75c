/** Every verb of the command line; each module exports register(program). */
import type { Command } from 'commander';

export const VERBS: Array<(program: Command) => void> = [];
