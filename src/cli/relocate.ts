/** `siard-ocfl relocate`: a new version whose .siard names another database-level lobFolder. */
import type { Command } from 'commander';
import { relocate } from '../archive/relocate.js';
import { UsageError } from '../errors.js';
import { printJson } from './common.js';

export function register(program: Command): void {
  program
    .command('relocate')
    .description("new version of an object in which each .siard differs only in header/metadata.xml (database-level lobFolder); content entries and LOB files are not stored again, the archive messageDigest stays valid")
    .requiredOption('--root <root>', 'OCFL storage root')
    .requiredOption('--id <object-id>', 'object id')
    .requiredOption('--lob-folder <uri>', "new database-level lobFolder, a URI ending in '/' (e.g. file:///Archives/Northwind/ or ../)")
    .option('--message <text>', 'version message')
    .option('--user-name <name>', 'name of the user making the version')
    .option('--user-address <uri>', 'address (URI, e.g. mailto:) of the user')
    .option('--json', 'print the result as JSON')
    .action(async (o: { root: string; id: string; lobFolder: string; message?: string; userName?: string; userAddress?: string; json?: boolean }) => {
      if (o.userAddress && !o.userName) throw new UsageError('--user-address needs --user-name.');
      const result = await relocate(o.root, o.id, {
        lobFolder: o.lobFolder,
        ...(o.message !== undefined ? { message: o.message } : {}),
        ...(o.userName ? { user: { name: o.userName, ...(o.userAddress ? { address: o.userAddress } : {}) } } : {}),
      });
      if (o.json) {
        printJson(result);
        return;
      }
      for (const a of result.archives) process.stdout.write(`${a.path}: lobFolder ${a.from ?? '(none)'} -> ${a.to}; first ${a.messageDigestRangeBytes} bytes copied unchanged.\n`);
      process.stdout.write(`Committed ${result.version} of object "${result.id}": ${result.stored} file${result.stored === 1 ? '' : 's'} stored new, LOB files unchanged.\n`);
    });
}
