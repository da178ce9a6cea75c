/** `siard-ocfl restore <siard | dir | --root R --id I [--version vN]> <target>`: SIARD -> SQLite, PostgreSQL or MariaDB / MySQL. */
import type { Command } from 'commander';
import { describeNotRecreated, restore } from '../archive/restore.js';
import { targetDialect } from '../sources/dialects.js';
import { UsageError } from '../errors.js';
import { asUnreadableInput, printJson } from './common.js';
import { archiveAndTarget } from './archive-source.js';
import { createProgress } from './progress.js';

interface RestoreCliOptions {
  root?: string;
  id?: string;
  version?: string;
  json?: boolean;
  create?: boolean;
  intoExisting?: boolean;
  verify?: boolean;
}

export function register(program: Command): void {
  program
    .command('restore')
    .description('restore a SIARD archive into an SQLite file, a PostgreSQL or a MariaDB/MySQL database, checking every LOB on the way')
    .usage('[options] <archive> <target>  |  --root <root> --id <object-id> [--version vN] <target>')
    .argument(
      '<archive>',
      'a .siard file or a folder holding one, or a segmented SIARD file named by x.siard.1 or its stem x.siard (with --root and ' +
        '--id: leave out, give only <target>)',
    )
    .argument('[target]', 'an SQLite file path (created), postgres://user:pw@host/db or mysql://user:pw@host:port/db')
    .option('--root <root>', 'OCFL storage root holding the archive')
    .option('--id <object-id>', 'OCFL object holding the archive')
    .option('--version <vN>', 'object version (default: the head)')
    .option('--create', 'PostgreSQL, MariaDB/MySQL: create the target database (it must not exist; dropped again if the restore fails)')
    .option('--into-existing', 'PostgreSQL, MariaDB/MySQL: restore into a database that already holds other tables or views')
    .option('--verify', 'then compare the restored database with the archive, value by value (as `verify` does; exit 1 when not equal)')
    .option('--json', 'print a JSON summary')
    .action(async (first: string, second: string | undefined, options: RestoreCliOptions) => {
      const { source, target } = archiveAndTarget(first, second, options, 'RESTORE_SOURCE');
      if ((options.create || options.intoExisting) && !targetDialect(target).server) {
        throw new UsageError('--create and --into-existing apply to a postgres:// or mysql:// target only.');
      }
      const targetOptions = { ...(options.create ? { create: true } : {}), ...(options.intoExisting ? { intoExisting: true } : {}) };
      const progress = createProgress({ json: options.json });
      try {
        progress.start(`restore ${target}`, 'rows');
        const summary = await restore(source, target, {
          onPlan: (p) => progress.total({ count: p.rows }),
          onRow: () => progress.count(),
          target: targetOptions,
        });
        progress.stop();
        const verified = options.verify ? await (await import('./verify.js')).runVerify(source, target, options.json === true) : undefined;
        if (verified) process.exitCode = verified.ok ? 0 : 1;
        if (options.json) printJson(verified ? { ...summary, verify: verified } : summary);
        else {
          process.stdout.write(
            `Restored ${summary.tables.length} tables, ${summary.rows} rows, ${summary.lobFiles} LOB files ` +
              `(${summary.digestsVerified} digests verified) from ${summary.siard} into ${summary.target}\n`,
          );
          process.stdout.write(`${describeNotRecreated(summary.notRecreated)}\n`);
          for (const n of summary.notes) process.stderr.write(`note: ${n}\n`);
          for (const w of summary.warnings) process.stderr.write(`warning: ${w}\n`);
          if (verified) (await import('./verify.js')).printVerifyResult(verified, summary.target);
        }
      } catch (err) {
        throw asUnreadableInput(err);
      } finally {
        progress.stop();
      }
    });
}
