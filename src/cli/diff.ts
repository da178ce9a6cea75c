/**
 * `siard-ocfl diff --root R --id I <vA> <vB> [--json]`: what changed from one version of an object
 * to another, files and archived rows. Every row change is put out as it is found (text or JSON
 * made piece by piece) into a HeldOutput, which keeps what is beyond 1 MiB in a temporary file, so
 * the output of a table of millions of changed rows is never held in memory; it reaches stdout once
 * the diff is done, so a failure half-way leaves no partial output.
 */
import type { Command } from 'commander';
import { diff, type DiffResult } from '../archive/diff/diff.js';
import type { RowChange, TableDiff } from '../archive/diff/table-diff.js';
import { SiardOcflError } from '../errors.js';
import { asUnreadableInput, printable } from './common.js';
import { HeldOutput } from './held-output.js';
import { createProgress } from './progress.js';

interface DiffCliOptions {
  root: string;
  id: string;
  json?: boolean;
}

const SIGN: Record<RowChange['change'], string> = { added: '+', removed: '-', changed: '~' };

function keyText(key: Array<string | null>): string {
  return `(${key.map((k) => (k === null ? 'NULL' : printable(k.length > 60 ? k.slice(0, 60) + '…' : k))).join(', ')})`;
}

/** A table's summary line: its rows and columns, or 'unchanged'. */
function tableSummary(t: TableDiff): string {
  if (t.change === 'unchanged') return '\tunchanged';
  const parts = [
    `rows: ${t.added} added, ${t.removed} removed, ${t.changed} changed`,
    ...(t.columns.added.length ? [`columns added: ${t.columns.added.map(printable).join(', ')}`] : []),
    ...(t.columns.removed.length ? [`columns removed: ${t.columns.removed.map(printable).join(', ')}`] : []),
    ...t.columns.retyped.map((r) => `column ${printable(r.column)} retyped: ${printable(r.from)} -> ${printable(r.to)}`),
  ];
  return `\t${t.change === 'changed' ? '' : `table ${t.change}; `}${parts.join('; ')}`;
}

function filesText(out: HeldOutput, result: DiffResult): void {
  const { added, removed, changed } = result.files;
  out.put(`files: ${added.length} added, ${removed.length} removed, ${changed.length} changed\n`);
  for (const [list, sign] of [
    [added, '+'],
    [removed, '-'],
    [changed, '~'],
  ] as const)
    for (const p of list) out.put(`\t${sign} ${printable(p)}\n`);
}

/** Whether anything differs between the two versions. */
function differs(result: DiffResult): boolean {
  const f = result.files;
  return f.added.length + f.removed.length + f.changed.length > 0 || result.tables.some((t) => t.change !== 'unchanged');
}

/** Prints as the diff goes: text lines, or the JSON of the issue ({"tables": [...], "files": {...}}) piece by piece. */
function printer(
  json: boolean,
  out: HeldOutput,
): {
  table: (name: string) => void;
  row: (row: RowChange) => void;
  tableEnd: (t: TableDiff) => void;
  end: (result: DiffResult) => void;
} {
  let tables = 0;
  let rows = 0;
  if (json) out.put('{"tables":[');
  return {
    table(name) {
      if (json) out.put(`${tables++ ? ',' : ''}{"table":${JSON.stringify(name)},"rows":[`);
      else out.put(`${printable(name)}\n`);
      rows = 0;
    },
    row(row) {
      if (json) out.put(`${rows++ ? ',' : ''}${JSON.stringify(row)}`);
      else out.put(`\t${SIGN[row.change]} ${keyText(row.key)}${row.columns ? ' ' + row.columns.map(printable).join(', ') : ''}\n`);
    },
    tableEnd(t) {
      if (json) {
        const rest = { change: t.change, added: t.added, removed: t.removed, changed: t.changed, columns: t.columns };
        out.put(`],${JSON.stringify(rest).slice(1)}`);
      } else out.put(tableSummary(t) + '\n');
    },
    end(result) {
      if (json) out.put(`],"files":${JSON.stringify(result.files)}}\n`);
      else filesText(out, result);
    },
  };
}

/**
 * Exit 1 says the versions differ; a failure (a LOB file whose digest does not match, ...) is exit 2,
 * as for diff(1), so a script never takes a damaged version for a changed one.
 */
function couldNotCompare(err: unknown): unknown {
  if (err instanceof SiardOcflError && err.exitCode === 1)
    return new SiardOcflError(err.message, { code: err.code, exitCode: 2, cause: err });
  return err;
}

export function register(program: Command): void {
  program
    .command('diff')
    .description(
      'what changed from version <vA> to version <vB> of an object: files added, removed and changed; per archived table, rows ' +
        'added, removed and changed (by primary key; as multisets of whole rows without one) and columns added, removed or ' +
        'retyped; every row change listed; exit 0 when nothing differs, 1 when something does, 2 when the versions could not be ' +
        'compared (output only once the diff is done)',
    )
    .usage('--root <root> --id <object-id> <vA> <vB> [--json]')
    .argument('<vA>', 'the version compared from (v1, v2, ...)')
    .argument('<vB>', 'the version compared to')
    .requiredOption('--root <root>', 'OCFL storage root')
    .requiredOption('--id <object-id>', 'the object')
    .option(
      '--json',
      'print {"tables": [{"table", "added", "removed", "changed", "rows": [{"key": [...], "change": "added"|"removed"|"changed"}], ' +
        '"columns": {"added", "removed", "retyped"}}], "files": {"added": [...], "removed": [...], "changed": [...]}}',
    )
    .action(async (a: string, b: string, options: DiffCliOptions) => {
      const json = options.json === true;
      const progress = createProgress({ json });
      const out = new HeldOutput();
      const print = printer(json, out);
      let result: DiffResult;
      try {
        progress.start(`diff ${a} ${b}`, 'rows');
        result = await diff(options.root, options.id, a, b, {
          rowLimit: 0,
          onPlan: (p) => progress.total({ count: p.rows }),
          onRows: (n) => progress.count(n),
          onTable: (name) => print.table(name),
          onRow: (_table, row) => print.row(row),
          onTableDone: (t) => print.tableEnd(t),
        });
      } catch (err) {
        out.discard();
        throw couldNotCompare(asUnreadableInput(err));
      } finally {
        progress.stop();
      }
      print.end(result);
      await out.emit();
      process.exitCode = differs(result) ? 1 : 0;
    });
}
