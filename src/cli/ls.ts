/** `siard-ocfl ls`: the objects of a storage root. */
import type { Command } from 'commander';
import { openRoot } from '../ocfl/root.js';
import { printJson } from './common.js';

export function register(program: Command): void {
  program
    .command('ls')
    .description('list the objects of a storage root: id, head version, object path')
    .requiredOption('--root <root>', 'OCFL storage root')
    .option('--json', 'print a JSON array')
    .action(async (options: { root: string; json?: boolean }) => {
      const root = await openRoot(options.root);
      const rows: Array<{ id: string; head: string; path: string }> = [];
      for await (const loc of root.scanObjects()) {
        const reader = await root.openObjectAt(loc.path);
        rows.push({ id: reader.id, head: reader.head, path: loc.path });
      }
      if (options.json) printJson(rows);
      else process.stdout.write(rows.map((r) => `${r.id}\t${r.head}\t${r.path}\n`).join(''));
    });
}
