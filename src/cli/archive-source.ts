/**
 * The archive a reading verb works on (`tables`, `rows`): `--root R --id I [--version vN]` for an
 * object version, read in place, or a `.siard` file (or a folder holding one) given as argument.
 */
import { statSync } from 'node:fs';
import type { ArchiveSource } from '../archive/open-archive.js';
import { UsageError } from '../errors.js';

export interface ArchiveSourceOptions {
  root?: string;
  id?: string;
  version?: string;
}

export function archiveSource(argument: string | undefined, o: ArchiveSourceOptions): ArchiveSource {
  if (o.root !== undefined || o.id !== undefined) {
    if (o.root === undefined || o.id === undefined) throw new UsageError('--root and --id go together.');
    if (argument !== undefined) throw new UsageError(`Give the archive once: either --root and --id, or the .siard file ${argument}.`);
    return { root: o.root, id: o.id, ...(o.version !== undefined ? { version: o.version } : {}) };
  }
  if (o.version !== undefined) throw new UsageError('--version needs --root and --id.');
  if (argument === undefined) throw new UsageError('Give the archive: --root <root> --id <object-id>, or a .siard file.');
  let isDir: boolean;
  try {
    isDir = statSync(argument).isDirectory();
  } catch {
    throw new UsageError(`The archive ${argument} does not exist.`, 'ARCHIVE_SOURCE');
  }
  return isDir ? { dir: argument } : { siard: argument };
}
