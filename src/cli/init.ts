/** `siard-ocfl init`: create an OCFL 1.1 storage root laid out by extension 0003. */
import type { Command } from 'commander';
import { loadLayout0003, type Layout0003Config } from '../ocfl/layout/hash-and-id-n-tuple-layout.js';
import { initRoot } from '../ocfl/root.js';
import { addWorkspaceOption, parseCount, rootArgument, printJson, rootOptions, type WorkspaceCliOptions } from './common.js';

interface InitOptions extends WorkspaceCliOptions {
  digestAlgorithm?: string;
  tupleSize?: number;
  numberOfTuples?: number;
  json?: boolean;
}

export function register(program: Command): void {
  addWorkspaceOption(
    program
      .command('init')
      .description('create an OCFL 1.1 storage root with the 0003 hash-and-id n-tuple layout')
      .argument('[root]', 'the same as --root (kept for existing scripts)')
      .option('--root <root>', 'storage root to create: a new folder or an empty one')
      .option('--digest-algorithm <algorithm>', 'digest of the object id for the layout (default sha256)')
      .option('--tuple-size <n>', 'characters per directory level (default 3)', parseCount('--tuple-size'))
      .option('--number-of-tuples <n>', 'directory levels (default 3)', parseCount('--number-of-tuples'))
      .option('--json', 'print the root, its layout configuration and its workspace as JSON'),
  ).action(async (rootArg: string | undefined, options: InitOptions & { root?: string }) => {
    const rootDir = rootArgument(rootArg, options.root, 'storage root to create');
    const given: Partial<Layout0003Config> = {};
    if (options.digestAlgorithm !== undefined) given.digestAlgorithm = options.digestAlgorithm;
    if (options.tupleSize !== undefined) given.tupleSize = options.tupleSize;
    if (options.numberOfTuples !== undefined) given.numberOfTuples = options.numberOfTuples;
    const layout = await loadLayout0003(given);
    const root = await initRoot(rootDir, layout, rootOptions(options));
    const workspace = await root.workspaceDir();
    if (options.json) printJson({ root: root.location, ocflVersion: root.ocflVersion, layout: layout.config, workspace });
    else process.stdout.write(`Created OCFL 1.1 storage root ${root.location} (layout ${layout.extensionName}, workspace ${workspace}).\n`);
  });
}
