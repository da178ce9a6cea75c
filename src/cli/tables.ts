/** `siard-ocfl tables`: the tables of an archive in an object (or a .siard), without checking it out. */
import type { Command } from 'commander';
import { listTables } from '../archive/tables.js';
import type { TableSummary } from '../siard/reader/table-summary.js';
import { archiveSource, type ArchiveSourceOptions } from './archive-source.js';
import { asUnreadableInput, printable, printJson } from './common.js';
import { createProgress } from './progress.js';

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** `3 LOB cells (1200 bytes, 40 characters), 2 inline LOBs (31 bytes)` or `no LOBs` */
function lobText(t: TableSummary): string {
  const parts: string[] = [];
  if (t.lobCells > 0) {
    const sizes = [
      ...(t.lobBytes > 0 || t.lobCharacters === 0 ? [plural(t.lobBytes, 'byte')] : []),
      ...(t.lobCharacters > 0 ? [plural(t.lobCharacters, 'character')] : []),
      ...(t.lobCellsWithoutLength > 0 ? [`${t.lobCellsWithoutLength} without length`] : []),
    ];
    parts.push(`${plural(t.lobCells, 'LOB cell')} (${sizes.join(', ')})`);
  }
  if (t.inlineLobs > 0) parts.push(`${plural(t.inlineLobs, 'inline LOB')} (${plural(t.inlineLobBytes, 'byte')})`);
  return parts.length > 0 ? parts.join(', ') : 'no LOBs';
}

export function register(program: Command): void {
  program
    .command('tables')
    .description(
      'list the tables of a SIARD archive inside an object version (or in a .siard) without checking it out: schema.table, ' +
        'rows, LOBs, then one line per column: name, type, original type; a description (describe) ends its line; ' +
        'LOB sizes are what the cells state (bytes for BLOB, characters for CLOB); LOB files are not opened',
    )
    .usage('[options] (--root <root> --id <object-id> [--version vN] | <archive>)')
    .argument('[archive]', 'a .siard file (or a folder holding one) instead of --root and --id')
    .option('--root <root>', 'OCFL storage root holding the archive')
    .option('--id <object-id>', 'OCFL object holding the archive')
    .option('--version <vN>', 'object version (default: the head)')
    .option('--json', 'print a JSON document')
    .action(async (argument: string | undefined, options: ArchiveSourceOptions & { json?: boolean }) => {
      const source = archiveSource(argument, options);
      const progress = createProgress({ json: options.json });
      let result;
      try {
        result = await listTables(source, {
          onScan: (t) => {
            progress.stop();
            progress.start(`LOBs of ${t.schema}.${t.name}`, 'rows', { count: t.rows });
          },
          onRow: () => progress.count(),
        });
      } catch (err) {
        throw asUnreadableInput(err);
      } finally {
        progress.stop();
      }
      if (options.json) {
        printJson(result);
        return;
      }
      for (const t of result.tables) {
        // A description, when metadata.xml has one, is the line's last field (newlines shown as \n).
        const described = (d: string | undefined) => (d ? `\t${printable(d)}` : '');
        process.stdout.write(
          `${printable(t.schema)}.${printable(t.name)}\t${plural(t.rows, 'row')}\t${lobText(t)}${described(t.description)}\n`,
        );
        for (const c of t.columns) {
          const type = c.type ?? [c.typeSchema, c.typeName].filter((s) => s !== undefined).join('.');
          process.stdout.write(
            `\t${printable(c.name)}\t${printable(type)}\t${printable(c.typeOriginal ?? '')}${described(c.description)}\n`,
          );
        }
      }
      for (const w of result.warnings) process.stderr.write(`warning: ${w}\n`);
    });
}
