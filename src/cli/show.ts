/** `siard-ocfl show`: the files of one version of an object. */
import type { Command } from 'commander';
import { openRoot } from '../ocfl/root.js';
import { printJson } from './common.js';

export function register(program: Command): void {
  program
    .command('show')
    .description('list the logical files of a version (default head) with digest and content path')
    .requiredOption('--root <root>', 'OCFL storage root')
    .requiredOption('--id <object-id>', 'object id')
    .option('--version <vN>', 'version to show (default: head)')
    .option('--json', 'print a JSON document')
    .action(async (options: { root: string; id: string; version?: string; json?: boolean }) => {
      const reader = await (await openRoot(options.root)).openObject(options.id);
      const version = options.version ?? reader.head;
      const files = [...reader.state(version)].map(([logicalPath, digest]) => ({
        logicalPath,
        digest,
        contentPath: reader.contentPathOfDigest(digest),
      }));
      if (options.json) {
        printJson({ id: reader.id, version, digestAlgorithm: reader.inventory.digestAlgorithm, files });
        return;
      }
      for (const f of files) process.stdout.write(`${f.logicalPath}\t${f.contentPath}\t${f.digest}\n`);
    });
}
