/** `siard-ocfl mets`: adds the METS index of the LOB segment folders to an existing object, as a new version. */
import type { Command } from 'commander';
import { addMetsIndex, type AddMetsOptions } from '../archive/mets.js';
import { UsageError } from '../errors.js';
import { printJson } from './common.js';

interface MetsCliOptions {
  root: string;
  id: string;
  message?: string;
  userName?: string;
  userAddress?: string;
  replace?: boolean;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command('mets')
    .description('add the METS index (mets.xml beside the .siard, one in each LOB segment folder) to an object as a new version; checksums come from the inventory fixity block')
    .requiredOption('--root <root>', 'OCFL storage root')
    .requiredOption('--id <object-id>', 'object id')
    .option('--message <text>', 'version message')
    .option('--user-name <name>', 'name of the user making the version')
    .option('--user-address <uri>', 'address (URI, e.g. mailto:) of the user')
    .option('--replace', 'write the index again when the head already has one')
    .option('--json', 'print a JSON summary')
    .action(async (o: MetsCliOptions) => {
      if (o.userAddress && !o.userName) throw new UsageError('--user-address needs --user-name.');
      const options: AddMetsOptions = {};
      if (o.message !== undefined) options.message = o.message;
      if (o.userName) options.user = { name: o.userName, ...(o.userAddress ? { address: o.userAddress } : {}) };
      if (o.replace) options.replace = true;
      const result = await addMetsIndex(o.root, o.id, options);
      if (o.json) {
        printJson(result);
        return;
      }
      process.stdout.write(
        `Committed ${result.version} of object "${result.id}": METS index ${result.parent} with ${result.children.length} segment METS ` +
          `listing ${result.lobFiles} LOB files (${result.checksumType}${result.rehashed > 0 ? `, ${result.rehashed} files hashed that the inventory had no ${result.checksumType} for` : ''}).\n`,
      );
    });
}
