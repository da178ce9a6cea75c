/** `siard-ocfl init`: create an OCFL 1.1 storage root laid out by any registered layout extension (default 0003). */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { chooseLayout, type LayoutChoice } from '../ocfl/layout/layout-choice.js';
import { initRoot } from '../ocfl/root.js';
import { addWorkspaceOption, parseCount, rootArgument, printJson, rootOptions, type WorkspaceCliOptions } from './common.js';

interface InitOptions extends WorkspaceCliOptions {
  layout?: string;
  layoutConfig?: string;
  digestAlgorithm?: string;
  tupleSize?: number;
  numberOfTuples?: number;
  json?: boolean;
}

/** `--layout-config <file.json>`: a config.json as the extension defines it. */
function readLayoutConfigFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`Cannot read the layout configuration ${file}: ${(err as Error).message}.`, 'INVALID_LAYOUT_CONFIG', err);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`The layout configuration ${file} is not JSON: ${(err as Error).message}.`, 'INVALID_LAYOUT_CONFIG', err);
  }
}

function layoutChoice(options: InitOptions): LayoutChoice {
  const parameters: NonNullable<LayoutChoice['parameters']>[number][] = [];
  if (options.digestAlgorithm !== undefined)
    parameters.push({ name: 'digestAlgorithm', value: options.digestAlgorithm, option: '--digest-algorithm' });
  if (options.tupleSize !== undefined) parameters.push({ name: 'tupleSize', value: options.tupleSize, option: '--tuple-size' });
  if (options.numberOfTuples !== undefined)
    parameters.push({ name: 'numberOfTuples', value: options.numberOfTuples, option: '--number-of-tuples' });
  return {
    ...(options.layout !== undefined ? { extensionName: options.layout } : {}),
    ...(options.layoutConfig !== undefined
      ? { configJson: readLayoutConfigFile(options.layoutConfig), configSource: options.layoutConfig }
      : {}),
    parameters,
  };
}

export function register(program: Command): void {
  addWorkspaceOption(
    program
      .command('init')
      .description('create an OCFL 1.1 storage root laid out by a registered storage layout extension (default 0003)')
      .argument('[root]', 'the same as --root (kept for existing scripts)')
      .option('--root <root>', 'storage root to create: a new folder or an empty one, or an s3:// prefix')
      .option(
        '--layout <extension-name>',
        'storage layout extension: 0002-flat-direct-storage-layout, 0003-hash-and-id-n-tuple-storage-layout (default), ' +
          '0004-hashed-n-tuple-storage-layout, 0006-flat-omit-prefix-storage-layout, 0007-n-tuple-omit-prefix-storage-layout, ' +
          '0010-differential-n-tuple-omit-prefix-storage-layout, 0012-hash-and-no-prefix-id-n-tuple-storage-layout',
      )
      .option(
        '--layout-config <file.json>',
        "the layout's parameters as its extension's config.json holds them (missing ones take the extension's defaults)",
      )
      .option('--digest-algorithm <algorithm>', 'digest of the object id, for the layouts that hash it (default sha256)')
      .option('--tuple-size <n>', 'characters per directory level (default 3)', parseCount('--tuple-size'))
      .option('--number-of-tuples <n>', 'directory levels (default 3)', parseCount('--number-of-tuples'))
      .option('--json', 'print the root, its layout configuration and its workspace as JSON'),
  ).action(async (rootArg: string | undefined, options: InitOptions & { root?: string }) => {
    const rootDir = rootArgument(rootArg, options.root, 'storage root to create');
    // Every check of the layout comes first: a refused one leaves nothing behind.
    const layout = await chooseLayout(layoutChoice(options));
    const root = await initRoot(rootDir, layout, rootOptions(options));
    const workspace = await root.workspaceDir();
    if (options.json) printJson({ root: root.location, ocflVersion: root.ocflVersion, layout: layout.config, workspace });
    else process.stdout.write(`Created OCFL 1.1 storage root ${root.location} (layout ${layout.extensionName}, workspace ${workspace}).\n`);
  });
}
