/** `siard-ocfl verify (<archive> | --root R --id I [--version vN]) <target>`: a database compared with its archive, value by value. */
import type { Command } from 'commander';
import type { VerifyResult } from '../archive/verify/verify.js';
import { verify } from '../archive/verify/verify.js';
import type { ArchiveSource } from '../archive/open-archive.js';
import { archiveAndTarget } from './archive-source.js';
import { asUnreadableInput, printable, printJson } from './common.js';
import { createProgress } from './progress.js';

interface VerifyCliOptions {
  root?: string;
  id?: string;
  version?: string;
  json?: boolean;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The result in words: one line per table, then its first differences, lossy columns and problems. */
export function printVerifyResult(result: VerifyResult, target: string): void {
  const out = (s: string) => process.stdout.write(s + '\n');
  for (const t of result.tables) {
    const found = [
      ...(t.missing ? [`${plural(t.missing, 'row')} missing`] : []),
      ...(t.extra ? [`${plural(t.extra, 'row')} only in the target`] : []),
      ...(t.changed ? [`${plural(t.changed, 'value')} different`] : []),
      ...(t.lossy.length ? [`${plural(t.lossy.length, 'lossy column')}`] : []),
      ...(t.fingerprint === 'different' ? ["the archive's rows differ from the source's fingerprint"] : []),
      ...t.problems,
    ];
    const fp = t.fingerprint === 'equal' ? ', fingerprint equal' : '';
    out(`${printable(t.table)}\t${plural(t.rows, 'row')}\t${t.equal ? `equal${fp}` : found.join('; ')}`);
    for (const d of t.differences.slice(0, 10)) {
      const key = `(${d.key.map((k) => (k === null ? 'NULL' : printable(k.length > 40 ? k.slice(0, 40) + '…' : k))).join(', ')})`;
      const what =
        d.change === 'changed'
          ? `column ${printable(d.column!)}: differs`
          : d.change === 'missing'
            ? 'missing in the target'
            : 'only in the target';
      out(`\t${key} ${what}`);
    }
    if (t.differences.length > 10) out(`\t... (--json lists the first ${t.differences.length})`);
    for (const l of t.lossy)
      out(`\tlossy: ${printable(l.column)}: ${l.reason}${l.values !== undefined ? ` (${plural(l.values, 'value')})` : ''}`);
  }
  const unequal = result.tables.filter((t) => !t.equal).length;
  out(
    result.ok
      ? `${target} holds every archived value: ${plural(result.tables.length, 'table')} equal.`
      : `${target} differs from the archive in ${unequal} of ${plural(result.tables.length, 'table')}.`,
  );
}

export function register(program: Command): void {
  program
    .command('verify')
    .description(
      'compare a database (SQLite file, postgres://, mysql://) with a SIARD archive, row by row (by primary key, as multisets ' +
        'without one) and value by value; exit 0 when every table is equal, 1 when not; for a target of another engine, ' +
        'columns whose type mapping loses something are named lossy',
    )
    .usage('[options] <archive> <target>  |  --root <root> --id <object-id> [--version vN] <target>')
    .argument('<archive>', 'a .siard file or a folder holding one (with --root and --id: leave out, give only <target>)')
    .argument('[target]', 'an SQLite file, postgres://user:pw@host/db or mysql://user:pw@host:port/db')
    .option('--root <root>', 'OCFL storage root holding the archive')
    .option('--id <object-id>', 'OCFL object holding the archive')
    .option('--version <vN>', 'object version (default: the head)')
    .option('--json', 'print {"ok", "tables": [{"table", "rows", "equal", "differences": [{"key", "column", "change"}], counts ...}]}')
    .action(async (first: string, second: string | undefined, options: VerifyCliOptions) => {
      const { source, target } = archiveAndTarget(first, second, options, 'ARCHIVE_SOURCE');
      const result = await runVerify(source, target, options.json === true);
      if (options.json) printJson(result);
      else printVerifyResult(result, target);
      process.exitCode = result.ok ? 0 : 1;
    });
}

/** verify with progress on stderr (rows of the archive compared). */
export async function runVerify(source: ArchiveSource, target: string, json: boolean): Promise<VerifyResult> {
  const progress = createProgress({ json });
  try {
    progress.start(`verify ${target}`, 'rows');
    return await verify(source, target, {
      onPlan: (p) => progress.total({ count: p.rows }),
      onRow: (n) => progress.count(n),
    });
  } catch (err) {
    throw asUnreadableInput(err);
  } finally {
    progress.stop();
  }
}
