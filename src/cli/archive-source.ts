/**
 * The archive a reading verb works on (`tables`, `rows`): `--root R --id I [--version vN]` for an
 * object version, read in place, or a `.siard` file (or a folder holding one, or a segmented SIARD
 * file named by a member `x.siard.1` or its stem `x.siard`) given as argument.
 */
import { statSync } from 'node:fs';
import type { ArchiveSource } from '../archive/open-archive.js';
import { UsageError } from '../errors.js';
import { localSegmentSet } from '../siard/segments/segment-set-reader.js';

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
  return localArchiveSource(argument, 'ARCHIVE_SOURCE');
}

/**
 * The arguments of a verb that reads an archive into a database (`restore`, `verify`):
 * `<archive> <target>`, or `--root R --id I [--version vN] <target>`. `code` names the error of
 * an archive that does not exist.
 */
export function archiveAndTarget(
  first: string,
  second: string | undefined,
  o: ArchiveSourceOptions,
  code: string,
): { source: ArchiveSource; target: string } {
  const args = second === undefined ? [first] : [first, second];
  if (o.root !== undefined || o.id !== undefined) {
    if (o.root === undefined || o.id === undefined) throw new UsageError('--root and --id go together.');
    if (args.length !== 1) throw new UsageError('With --root and --id, give only the <target>.');
    return { source: { root: o.root, id: o.id, ...(o.version ? { version: o.version } : {}) }, target: args[0]! };
  }
  if (o.version !== undefined) throw new UsageError('--version needs --root and --id.');
  if (args.length !== 2) throw new UsageError('Give the archive (a .siard file or a folder holding one) and the <target>.');
  return { source: localArchiveSource(args[0]!, code), target: args[1]! };
}

/** A `.siard` file, a folder holding one, or a segmented SIARD file named by a member or its stem. */
function localArchiveSource(input: string, code: string): ArchiveSource {
  let isDir: boolean;
  try {
    isDir = statSync(input).isDirectory();
  } catch {
    if (localSegmentSet(input)) return { siard: input };
    throw new UsageError(`The archive ${input} does not exist.`, code);
  }
  return isDir ? { dir: input } : { siard: input };
}
