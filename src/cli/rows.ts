/**
 * `siard-ocfl rows`: one table of an archive in an object (or a .siard) as CSV on stdout, streamed;
 * reading stops after --limit rows. The cell conventions are in src/archive/rows.ts.
 */
import type { Command } from 'commander';
import { once } from 'node:events';
import { csvRecord } from '../archive/csv.js';
import { openTableRows } from '../archive/rows.js';
import { archiveSource, type ArchiveSourceOptions } from './archive-source.js';
import { asUnreadableInput, parseCount } from './common.js';

interface RowsCliOptions extends ArchiveSourceOptions {
  table: string;
  schema?: string;
  limit?: number;
}

export function register(program: Command): void {
  program
    .command('rows')
    .description(
      'print the rows of a table of a SIARD archive inside an object version (or in a .siard) as CSV (RFC 4180, CRLF): a header ' +
        'of column names, ' +
        'NULL as an empty field, the empty string as "", binary values in hex, a LOB in a file as its path inside the object; ' +
        'streamed, and reading stops after --limit',
    )
    .usage('[options] --table <name> (--root <root> --id <object-id> [--version vN] | <archive>)')
    .argument('[archive]', 'a .siard file (or a folder holding one) instead of --root and --id')
    .option('--root <root>', 'OCFL storage root holding the archive')
    .option('--id <object-id>', 'OCFL object holding the archive')
    .option('--version <vN>', 'object version (default: the head)')
    .requiredOption('--table <name>', 'the table, as `tables` lists it')
    .option('--schema <name>', 'its schema, when the table name is in several')
    .option('--limit <n>', 'print at most this many rows', parseCount('--limit'))
    .action(async (argument: string | undefined, options: RowsCliOptions) => {
      const source = archiveSource(argument, options);
      let table;
      try {
        table = await openTableRows(source, {
          table: options.table,
          ...(options.schema !== undefined ? { schema: options.schema } : {}),
          ...(options.limit !== undefined ? { limit: options.limit } : {}),
          onWarning: (s) => process.stderr.write(`warning: ${s}\n`),
        });
      } catch (err) {
        throw asUnreadableInput(err);
      }
      // Backpressure: a slow reader holds us at one buffer of output. A reader that stops early
      // (`| head`) ends the process through bin/siard-ocfl's EPIPE handler, as for every verb.
      // Records are gathered into writes of about 64 KiB (one write per row costs more than the parse).
      const out = process.stdout;
      let pending = '';
      const flush = async (): Promise<void> => {
        const text = pending;
        pending = '';
        if (text !== '' && !out.write(text)) await once(out, 'drain');
      };
      try {
        pending = csvRecord(table.columns.map((c) => c.name));
        // the header goes out at once: a reader sees the columns before a long table is read
        await flush();
        for await (const fields of table.rows) {
          pending += csvRecord(fields);
          if (pending.length >= 65536) await flush();
        }
        await flush();
        const note = table.note();
        if (note !== undefined) process.stderr.write(`note: ${note}\n`);
      } catch (err) {
        throw asUnreadableInput(err);
      } finally {
        table.close();
      }
    });
}
