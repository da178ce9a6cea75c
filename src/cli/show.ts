/** `siard-ocfl show`: the files of one version of an object. */
import type { Command } from 'commander';
import { forEachConcurrent } from '../ocfl/concurrent.js';
import { openRoot } from '../ocfl/root.js';
import { printJson } from './common.js';
import { naturalSort } from './natural-order.js';

export function register(program: Command): void {
  program
    .command('show')
    .description('list the logical files of a version (default head) in natural order (lobseg_2 before lobseg_10): logical path, content path, digest, size in bytes, separated by tabs')
    .requiredOption('--root <root>', 'OCFL storage root')
    .requiredOption('--id <object-id>', 'object id')
    .option('--version <vN>', 'version to show (default: head)')
    .option('--json', 'print a JSON document')
    .action(async (options: { root: string; id: string; version?: string; json?: boolean }) => {
      const reader = await (await openRoot(options.root)).openObject(options.id);
      const version = options.version ?? reader.head;
      const files = naturalSort(
        [...reader.state(version)].map(([logicalPath, digest]) => ({ logicalPath, digest, contentPath: reader.contentPathOfDigest(digest), size: 0 })),
        (f) => f.logicalPath,
      );
      // Sizes are not in the inventory: asked of the storage, many at once (one round trip each).
      await forEachConcurrent(files, 32, async (f) => {
        f.size = (await reader.storage.stat(reader.storagePath(f.contentPath)))?.size ?? -1;
      });
      if (options.json) {
        printJson({ id: reader.id, version, digestAlgorithm: reader.inventory.digestAlgorithm, files });
        return;
      }
      // Lines gathered into writes of about 64 KiB: one write per file is a system call per file.
      let text = '';
      for (const f of files) {
        text += `${f.logicalPath}\t${f.contentPath}\t${f.digest}\t${f.size < 0 ? 'missing' : f.size}\n`;
        if (text.length >= 1 << 16) {
          process.stdout.write(text);
          text = '';
        }
      }
      process.stdout.write(text);
    });
}
