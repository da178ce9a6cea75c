/** `siard-ocfl ls`: the objects of a storage root. */
import type { Command } from 'commander';
import { openRoot } from '../ocfl/root.js';
import { printable, printJson } from './common.js';

export function register(program: Command): void {
  program
    .command('ls')
    .description(
      'list the objects of a storage root: id, head version, object path, separated by tabs (control characters in ids shown as ' +
        '\\n, \\t, \\u00XX)',
    )
    .requiredOption('--root <root>', 'OCFL storage root')
    .option('--json', 'print a JSON array')
    .action(async (options: { root: string; json?: boolean }) => {
      const root = await openRoot(options.root);
      const rows: Array<{ id?: string; head?: string; path: string; error?: string }> = [];
      for await (const loc of root.scanObjects()) {
        try {
          const reader = await root.objectHeaderAt(loc.path);
          rows.push({ id: reader.id, head: reader.head, path: loc.path });
        } catch (err) {
          // One unreadable object must not hide the others: list it, and exit 1 at the end.
          rows.push({ path: loc.path, error: (err as Error).message });
          process.exitCode = 1;
        }
      }
      if (options.json) printJson(rows);
      else
        process.stdout.write(
          rows
            .map((r) =>
              r.error ? `?\t?\t${printable(r.path)}\t${printable(r.error)}\n` : `${printable(r.id!)}\t${r.head}\t${printable(r.path)}\n`,
            )
            .join(''),
        );
    });
}
