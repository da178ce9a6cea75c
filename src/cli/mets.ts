/** `siard-ocfl mets`: adds the METS index of the LOB segment folders to an existing object, as a new version. */
import type { Command } from 'commander';
import { addMetsIndex, type AddMetsOptions } from '../archive/mets.js';
import { openRoot } from '../ocfl/root.js';
import {
  addVersionInfoOptions,
  addWorkspaceOption,
  printJson,
  rootOptions,
  versionInfo,
  type VersionInfoCliOptions,
  type WorkspaceCliOptions,
} from './common.js';

interface MetsCliOptions extends VersionInfoCliOptions, WorkspaceCliOptions {
  root: string;
  id: string;
  replace?: boolean;
  json?: boolean;
}

export function register(program: Command): void {
  addWorkspaceOption(
    addVersionInfoOptions(
      program
        .command('mets')
        .description(
          'add the METS index (mets.xml beside the .siard, one in each LOB segment folder) to an object as a new version; ' +
            'checksums come from the inventory fixity block',
        )
        .requiredOption('--root <root>', 'OCFL storage root')
        .requiredOption('--id <object-id>', 'object id'),
    ),
  )
    .option('--replace', 'write the index again when the head already has one')
    .option('--json', 'print a JSON summary')
    .action(async (o: MetsCliOptions) => {
      const options: AddMetsOptions = versionInfo(o);
      if (o.replace) options.replace = true;
      const result = await addMetsIndex(await openRoot(o.root, rootOptions(o)), o.id, options);
      if (o.json) {
        printJson(result);
        return;
      }
      const rehashed = result.rehashed > 0 ? `, ${result.rehashed} files hashed that the inventory had no ${result.checksumType} for` : '';
      process.stdout.write(
        `Committed ${result.version} of object "${result.id}": METS index ${result.parent} with ${result.children.length} segment METS ` +
          `listing ${result.lobFiles} LOB files (${result.checksumType}${rehashed}).\n`,
      );
      for (const n of result.notes) process.stdout.write(`NOTE ${n}\n`);
    });
}
