/** `siard-ocfl show`: the files of one version of an object. */
import type { Command } from 'commander';
import { forEachConcurrent } from '../ocfl/concurrent.js';
import { JsonPieces } from '../ocfl/inventory/large-json.js';
import { openRoot } from '../ocfl/root.js';
import { naturalSort } from './natural-order.js';

/** Files stat'ed and printed per step: a million-file version is never held as a million records. */
const CHUNK = 4096;

interface ShownFile {
  logicalPath: string;
  contentPath: string;
  digest: string;
  size: number;
}

export function register(program: Command): void {
  program
    .command('show')
    .description(
      'list the logical files of a version (default head) in natural order (lobseg_2 before lobseg_10): logical path, content ' +
        'path, digest, size in bytes, separated by tabs',
    )
    .requiredOption('--root <root>', 'OCFL storage root')
    .requiredOption('--id <object-id>', 'object id')
    .option('--version <vN>', 'version to show (default: head)')
    .option('--json', 'print a JSON document')
    .action(async (options: { root: string; id: string; version?: string; json?: boolean }) => {
      const reader = await (await openRoot(options.root)).openObject(options.id);
      const version = options.version ?? reader.head;
      const state = reader.state(version);
      const paths = naturalSort([...state.keys()], (p) => p);
      // Written as it goes, in pieces of a few MB (stdout to a file or pipe blocks, so nothing piles up).
      const out = new JsonPieces((piece) => process.stdout.write(piece));
      if (options.json) {
        out.put(
          `{\n  "id": ${JSON.stringify(reader.id)},\n  "version": ${JSON.stringify(version)},\n  ` +
            `"digestAlgorithm": ${JSON.stringify(reader.digestAlgorithm)},\n  "files": `,
        );
        out.put(paths.length === 0 ? '[]' : '[\n');
      }
      for (let i = 0; i < paths.length; i += CHUNK) {
        const files: ShownFile[] = paths.slice(i, i + CHUNK).map((logicalPath) => {
          const digest = state.get(logicalPath)!;
          return { logicalPath, digest, contentPath: reader.contentPathOfDigest(digest), size: 0 };
        });
        // Sizes are not in the inventory: asked of the storage, many at once (one round trip each).
        await forEachConcurrent(files, 32, async (f) => {
          f.size = (await reader.storage.stat(reader.storagePath(f.contentPath)))?.size ?? -1;
        });
        files.forEach((f, k) => {
          if (options.json) {
            out.put('    ');
            out.value(f, '    ');
            out.put(i + k < paths.length - 1 ? ',\n' : '\n  ]');
          } else out.put(`${f.logicalPath}\t${f.contentPath}\t${f.digest}\t${f.size < 0 ? 'missing' : f.size}\n`);
        });
      }
      if (options.json) out.put('\n}\n');
      out.done();
    });
}
