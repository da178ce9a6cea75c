/** `siard-ocfl log`: the versions of an object. */
import type { Command } from 'commander';
import { openRoot } from '../ocfl/root.js';
import { printable, printJson } from './common.js';

export function register(program: Command): void {
  program
    .command('log')
    .description('list the versions of an object, newest first: version, date, file count, user, message, separated by tabs')
    .requiredOption('--root <root>', 'OCFL storage root')
    .requiredOption('--id <object-id>', 'object id')
    .option('--json', 'print a JSON array')
    .action(async (options: { root: string; id: string; json?: boolean }) => {
      // The versions alone: the manifest and states of a million-file object are not built.
      const versions = await (await openRoot(options.root)).objectVersions(options.id);
      if (options.json) {
        printJson(versions);
        return;
      }
      for (const v of [...versions].reverse()) {
        // Always five tab-separated columns (empty when absent), so `cut -f4` is the user.
        const user = v.user ? `${v.user.name}${v.user.address ? ` <${v.user.address}>` : ''}` : '';
        process.stdout.write([v.version, v.created, `${v.fileCount} files`, user, v.message ?? ''].map(printable).join('\t') + '\n');
      }
    });
}
