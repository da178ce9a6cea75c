/** `siard-ocfl purge`: an object removed from a root entirely, every version. */
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { openRoot } from '../ocfl/root.js';
import { printJson } from './common.js';

export function register(program: Command): void {
  program
    .command('purge')
    .description(
      'remove an object entirely, every version (retention ended, a legal removal): its declaration first, so an ' +
        'interrupted purge leaves no object, only a folder that running the same purge again removes; each step on stderr',
    )
    .requiredOption('--root <root>', 'OCFL storage root')
    .requiredOption('--id <object-id>', 'object id')
    .option('--yes', 'do it: without it nothing is removed')
    .option('--json', 'print {"id", "path", "resumed"}')
    .action(async (options: { root: string; id: string; yes?: boolean; json?: boolean }) => {
      const root = await openRoot(options.root);
      if (!options.yes) {
        const where = await root.findObject(options.id);
        const what = where === undefined ? `object "${options.id}" (not found there now)` : `object "${options.id}" at ${where}`;
        throw new UsageError(`purge removes ${what} with every version for good; add --yes to do it. Nothing was removed.`, 'CONFIRM');
      }
      const report = await root.purge(options.id, (sentence) => process.stderr.write(`siard-ocfl purge: ${sentence}\n`));
      if (options.json) printJson(report);
      else process.stdout.write(`Purged object "${report.id}" (${report.path}) from ${root.location}.\n`);
    });
}
