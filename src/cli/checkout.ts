/** `siard-ocfl checkout`: one version of an object as plain files in a new folder. */
import type { Command } from 'commander';
import { checkoutArchive } from '../archive/checkout.js';
import { openRoot } from '../ocfl/root.js';
import { printJson } from './common.js';
import { createProgress } from './progress.js';

function joinedWords(sets: Array<{ siard: string; segments: string[] }> | undefined): string {
  if (!sets) return '';
  return (
    `, ${sets.length} segmented SIARD file${sets.length === 1 ? '' : 's'} ` +
    `joined${sets.map((s) => ` (${s.siard} from ${s.segments.length} segments)`).join('')}`
  );
}

export function register(program: Command): void {
  program
    .command('checkout')
    .description('copy a version (default head) of an object into an empty folder, verifying every digest')
    .argument('<dest>', 'destination folder (created; must be empty if it exists)')
    .requiredOption('--root <root>', 'OCFL storage root')
    .requiredOption('--id <object-id>', 'object id')
    .option('--version <vN>', 'version to check out (default: head)')
    .option('--join-chunks', 'write split LOBs (record.bin.0 ... .z, _part001 ...) back as whole files')
    .option(
      '--join-segments',
      'write a segmented SIARD file (x.siard.1 ... .z) back as one x.siard (split table files joined, a new messageDigest)',
    )
    .option('--json', 'print the result as JSON')
    .action(
      async (
        dest: string,
        options: { root: string; id: string; version?: string; joinChunks?: boolean; joinSegments?: boolean; json?: boolean },
      ) => {
        const reader = await (await openRoot(options.root)).openObject(options.id);
        const version = options.version ?? reader.head;
        const progress = createProgress({ json: options.json });
        progress.start(`checkout ${options.id} ${version}`, 'files');
        try {
          const result = await checkoutArchive(reader, dest, {
            version,
            joinChunks: options.joinChunks ?? false,
            joinSegments: options.joinSegments ?? false,
            onPlan: (p) => progress.total({ bytes: p.bytes, count: p.files }),
            onFile: (_p, size) => (progress.bytes(size), progress.count()),
          });
          progress.stop();
          if (options.json) printJson({ id: reader.id, ...result, dest });
          else
            process.stdout.write(
              `Checked out ${result.version} of object "${reader.id}": ${result.files} files, ${result.bytes} ` +
                `bytes${options.joinChunks ? `, ${result.joined} split LOBs joined` : ''}${joinedWords(result.joinedSegments)}.\n`,
            );
        } finally {
          progress.stop();
        }
      },
    );
}
