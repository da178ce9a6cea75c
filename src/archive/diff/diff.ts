/**
 * diff: what changed between two versions of an object. Its files (logical paths added, removed,
 * or with other content, from the two versions' states), and, for the archive each version holds,
 * per table: rows added, removed and changed (by primary key; as multisets of whole rows where the
 * table has none, so a changed row there is one removed and one added), columns added, removed and
 * retyped (table-diff.ts, column-changes.ts). Tables are paired by schema and name; a table only
 * one version has is added or removed with every row.
 */
import { isSiardFileName } from '../../siard/siard-file-name.js';
import { groupSegmentNames } from '../../siard/segments/segment-names.js';
import { openRoot } from '../../ocfl/root.js';
import type { OcflObjectReader } from '../../ocfl/object/object.js';
import { UsageError } from '../../errors.js';
import { diffVersions } from '../browse.js';
import { openObjectArchive, type OpenedArchive } from '../open-archive.js';
import { loadSpillDriver } from '../verify/pending-rows.js';
import { diffTable, type TableDiff, type TableDiffOptions, type TableSide } from './table-diff.js';

export interface FilesDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

export interface DiffResult {
  tables: TableDiff[];
  files: FilesDiff;
}

export interface DiffOptions extends TableDiffOptions {
  /** each table before its rows are read, and once compared */
  onTable?: (table: string) => void;
  onTableDone?: (table: TableDiff) => void;
  /** the rows to read (both versions), once, before the first */
  onPlan?: (plan: { tables: number; rows: number }) => void;
}

function checkVersion(object: OcflObjectReader, version: string): void {
  const versions = object.versions().map((v) => v.version);
  if (!versions.includes(version))
    throw new UsageError(`Object "${object.id}" has no version ${version} (it has ${versions.join(', ')}).`, 'NO_VERSION');
}

/** The archive of a version, or undefined when the version holds no .siard (its tables: none). */
async function versionArchive(object: OcflObjectReader, version: string): Promise<OpenedArchive | undefined> {
  const names = [...object.state(version).keys()];
  if (!names.some(isSiardFileName) && groupSegmentNames(names).length === 0) return undefined;
  return openObjectArchive(object, version, 'compared');
}

/** Each table of an archive by "schema.table". */
function tablesOf(archive: OpenedArchive | undefined): Map<string, TableSide> {
  const out = new Map<string, TableSide>();
  for (const ref of archive?.reader.tables() ?? []) out.set(`${ref.schema.name}.${ref.table.name}`, { archive: archive!, ref });
  return out;
}

function close(archive: OpenedArchive | undefined): void {
  if (!archive) return;
  archive.access.close?.();
  archive.reader.close();
}

/** Compares version `a` of object `id` with version `b`: files, then every table's columns and rows. */
export async function diff(root: string, id: string, a: string, b: string, options: DiffOptions = {}): Promise<DiffResult> {
  const object = await (await openRoot(root)).openObject(id, { fixity: false });
  checkVersion(object, a);
  checkVersion(object, b);
  const files = diffVersions(object, a, b);
  const before = await versionArchive(object, a);
  let after: OpenedArchive | undefined;
  try {
    after = await versionArchive(object, b);
    await loadSpillDriver();
    const sidesA = tablesOf(before);
    const sidesB = tablesOf(after);
    const names = [...sidesA.keys(), ...[...sidesB.keys()].filter((n) => !sidesA.has(n))];
    const rows = (s: Map<string, TableSide>) => [...s.values()].reduce((n, t) => n + t.ref.table.rows, 0);
    options.onPlan?.({ tables: names.length, rows: rows(sidesA) + rows(sidesB) });
    const tables: TableDiff[] = [];
    for (const name of names) {
      options.onTable?.(name);
      const t = await diffTable(name, sidesA.get(name), sidesB.get(name), options);
      options.onTableDone?.(t);
      tables.push(t);
    }
    return { tables, files: { added: files.added, removed: files.removed, changed: files.changed } };
  } finally {
    close(before);
    close(after);
  }
}
