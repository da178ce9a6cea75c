/** `siard-ocfl cat`: the bytes of one logical file of an object's version, to stdout. */
import type { Command } from 'commander';
import { pipeline } from 'node:stream/promises';
import { catLogicalFile } from '../archive/cat.js';
import { openRoot } from '../ocfl/root.js';

interface CatOptions {
  root: string;
  id: string;
  version?: string;
  joinChunks?: boolean;
}

export function register(program: Command): void {
  program
    .command('cat')
    .description(
      "write a logical file of an object's version (default head) to stdout, its bytes checked against the manifest digest as " +
        'they pass (a mismatch stops with exit 1)',
    )
    .argument('<logical-path>', 'the file, as `show` lists it')
    .requiredOption('--root <root>', 'OCFL storage root')
    .requiredOption('--id <object-id>', 'object id')
    .option('--version <vN>', 'version to read (default: head)')
    .option('--join-chunks', 'name a split LOB by its whole name (record7.bin) and write its parts (.0 ... .z, _part001 ...) joined')
    .action(async (logicalPath: string, options: CatOptions) => {
      // Only the version read is loaded (its state and content paths), not the whole inventory.
      const reader = await (await openRoot(options.root)).openObjectVersion(options.id, options.version ?? 'head');
      const file = await catLogicalFile(reader, logicalPath, { version: options.version, joinChunks: options.joinChunks });
      await pipeline(file.stream, process.stdout, { end: false });
    });
}
