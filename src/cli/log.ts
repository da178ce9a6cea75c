/** `siard-ocfl log`: the versions of an object. */
import type { Command } from 'commander';
import { openRoot } from '../ocfl/root.js';
import { printJson } from './common.js';

export function register(program: Command): void {
  program
    .command('log')
    .description('list the versions of an object: name, date, user, message')
    .requiredOption('--root <root>', 'OCFL storage root')
    .requiredOption('--id <object-id>', 'object id')
    .option('--json', 'print a JSON array')
    .action(async (options: { root: string; id: string; json?: boolean }) => {
      const reader = await (await openRoot(options.root)).openObject(options.id);
      const versions = reader.versions();
      if (options.json) {
        printJson(versions);
        return;
      }
      for (const v of [...versions].reverse()) {
        const user = v.user ? ` ${v.user.name}${v.user.address ? ` <${v.user.address}>` : ''}` : '';
        process.stdout.write(`${v.version}\t${v.created}\t${v.fileCount} files${user}${v.message ? `\t${v.message}` : ''}\n`);
      }
    });
}
