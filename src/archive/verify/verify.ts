/**
 * verify: a database compared with the archive it was restored from (or any database meant to hold
 * the same rows), table by table, row by row and value by value in compare form (compare-form.ts).
 * Both sides are streamed at once and paired as they come (row-matcher.ts): by primary key, or as
 * multisets of rows for a table without one; rows read in different orders wait on disk once they
 * are many (pending-rows.ts), so memory stays bounded whatever the table's size.
 *
 * For a target of another engine, values are compared after the target's documented type mapping,
 * and each column whose mapping loses something is named lossy with the reason (column-plan.ts),
 * never equal. Where the object (or the folder) holds the export's table fingerprints beside the
 * .siard, the archive's rows are also checked against them: the archive holds what the source gave.
 */
import path from 'node:path';
import {
  fingerprintIndex,
  fingerprintsFileOf,
  parseFingerprints,
  type TableFingerprintEntry,
} from '../../siard/fingerprint/fingerprint-file.js';
import { TableFingerprint } from '../../siard/fingerprint/row-hash.js';
import type { SiardArchive } from '../../siard/model.js';
import type { SiardTableRef } from '../../siard/reader/siard-reader.js';
import { openArchive, type ArchiveSource, type OpenedArchive } from '../open-archive.js';
import { archiveRows, type ExpectedChanges } from './archive-side.js';
import { columnPlans, lossyColumns, type ColumnPlan, type LossyColumn } from './column-plan.js';
import { loadSpillDriver, PendingRows } from './pending-rows.js';
import { matchSides, RowMatcher, type RowDifference } from './row-matcher.js';
import { targetRows } from './target-side.js';
import { openTarget, type OpenedTarget, type TargetTable } from './target-tables.js';

export interface VerifiedTable {
  /** "schema.table" */
  table: string;
  /** rows of the archive */
  rows: number;
  /** no difference, no lossy column, nothing missing, fingerprint not different */
  equal: boolean;
  /** the first 100 differences */
  differences: RowDifference[];
  /** rows the target lacks, rows only the target has, cells that differ */
  missing: number;
  extra: number;
  changed: number;
  /** rows of the target */
  targetRows: number;
  /** columns whose mapping into the target loses something */
  lossy: LossyColumn[];
  /** the archive's rows against the source's fingerprint: 'absent' when the export took none */
  fingerprint: 'equal' | 'different' | 'absent';
  /** what stopped a comparison or makes it partial: a table or column the target lacks ... */
  problems: string[];
}

export interface VerifyResult {
  ok: boolean;
  tables: VerifiedTable[];
}

export interface VerifyOptions {
  /** differences listed per table (default 100; the counts are always whole) */
  limit?: number;
  /** bytes of unmatched rows held in memory before they move to a temporary file (tests use small values) */
  memoryBytes?: number;
  /** the folder of that file (default: the system's temporary folder) */
  scratchDir?: string;
  /** called with each table before its rows, and per archived row */
  onTable?: (table: { schema: string; name: string; rows: number }) => void;
  onRow?: (n: number) => void;
  /** the tables and rows to compare, once, before the first */
  onPlan?: (plan: { tables: number; rows: number }) => void;
}

/** The fingerprints the export stored beside the .siard, by "schema\u0000table"; undefined when there are none. */
async function storedFingerprints(archive: OpenedArchive): Promise<Map<string, TableFingerprintEntry> | undefined> {
  const base = path.posix.basename(archive.reader.siardPath).replace(/\.siard\.(\d+|z)$/i, '.siard');
  const bytes = await archive.besideFile(fingerprintsFileOf(base));
  if (bytes === undefined) return undefined;
  const parsed = parseFingerprints(bytes.toString('utf8'));
  return 'error' in parsed ? new Map() : fingerprintIndex(parsed);
}

/** Each archived column's place in the target table (-1: none), and what the target's columns say about it. */
function columnPlaces(plans: readonly ColumnPlan[], target: TargetTable, problems: string[]): number[] {
  const names = target.table.columns.map((c) => c.name);
  const at = plans.map((p) => {
    const exact = names.indexOf(p.name);
    return exact >= 0 ? exact : names.findIndex((n) => n.toLowerCase() === p.name.toLowerCase());
  });
  plans.forEach((p, i) => {
    if (at[i]! < 0) problems.push(`the target table has no column ${p.name}`);
  });
  for (const [j, n] of names.entries()) if (!at.includes(j)) problems.push(`the target table has a column ${n} the archive does not`);
  return at;
}

async function verifyTable(
  archive: OpenedArchive,
  target: OpenedTarget,
  ref: SiardTableRef,
  fingerprints: Map<string, TableFingerprintEntry> | undefined,
  options: VerifyOptions,
): Promise<VerifiedTable> {
  const name = `${ref.schema.name}.${ref.table.name}`;
  options.onTable?.({ schema: ref.schema.name, name: ref.table.name, rows: ref.table.rows });
  const plans = columnPlans(target.kind, archive.reader.archive as SiardArchive, ref);
  const problems: string[] = [];
  const there = target.find(ref);
  if (!there) problems.push(`the target has no table ${ref.table.name}`);
  const at = there ? columnPlaces(plans, there, problems) : [];
  const key = ref.table.primaryKey?.columns.map((c) => ref.table.columns.findIndex((col) => col.name === c));
  const pending = new PendingRows(options.memoryBytes, options.scratchDir);
  const matcher = new RowMatcher(
    plans.map((p) => p.name),
    key && key.length > 0 && key.every((i) => i >= 0) ? key : undefined,
    pending,
    options.limit ?? 100,
  );
  const expected: ExpectedChanges = [];
  const stored = fingerprints?.get(`${ref.schema.name}\u0000${ref.table.name}`);
  const fingerprint = stored ? new TableFingerprint() : undefined;
  try {
    const left = archiveRows(archive, ref, plans, expected, fingerprint);
    await matchSides(matcher, left, there ? targetRows(there, plans, at, target.kind === 'sqlite') : undefined, (n, side) => {
      if (side === 0) options.onRow?.(n);
    });
  } finally {
    pending.close();
  }
  if (fingerprints !== undefined && !stored) problems.push('the fingerprints file has no entry for this table');
  const lossy = lossyColumns(plans, expected);
  const fingerprintState =
    !fingerprint || !stored
      ? 'absent'
      : fingerprint.hex() === stored.fingerprint && fingerprint.rows === stored.rows
        ? 'equal'
        : 'different';
  const { missing, extra, changed, rows } = matcher.counts;
  return {
    table: name,
    rows: rows[0],
    equal: missing + extra + changed === 0 && lossy.length === 0 && problems.length === 0 && fingerprintState !== 'different',
    differences: matcher.differences,
    missing,
    extra,
    changed,
    targetRows: rows[1],
    lossy,
    fingerprint: fingerprintState,
    problems,
  };
}

/** Compares the database `target` with the archive of `source`, every table. */
export async function verify(source: ArchiveSource, target: string, options: VerifyOptions = {}): Promise<VerifyResult> {
  const archive = await openArchive(source, { purpose: 'verify against', verb: 'read' });
  try {
    const refs = archive.reader.tables();
    const opened = await openTarget(
      target,
      refs,
      (archive.reader.archive as SiardArchive).schemas.map((s) => s.name),
    );
    try {
      await loadSpillDriver();
      const fingerprints = await storedFingerprints(archive);
      options.onPlan?.({ tables: refs.length, rows: refs.reduce((n, r) => n + r.table.rows, 0) });
      const tables: VerifiedTable[] = [];
      for (const ref of refs) tables.push(await verifyTable(archive, opened, ref, fingerprints, options));
      return { ok: tables.every((t) => t.equal), tables };
    } finally {
      await opened.close();
    }
  } finally {
    archive.access.close?.();
    archive.reader.close();
  }
}
