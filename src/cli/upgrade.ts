/** `siard-ocfl upgrade`: an OCFL 1.0 object (in a new version) or storage root made OCFL 1.1. */
import type { Command } from 'commander';
import { openRoot } from '../ocfl/root.js';
import { upgradeObject, upgradeRoot } from '../ocfl/upgrade.js';
import {
  addVersionInfoOptions,
  addWorkspaceOption,
  printable,
  printJson,
  rootOptions,
  versionInfo,
  type VersionInfoCliOptions,
  type WorkspaceCliOptions,
} from './common.js';

interface UpgradeOptions extends VersionInfoCliOptions, WorkspaceCliOptions {
  root: string;
  id?: string;
  json?: boolean;
}

export function register(program: Command): void {
  const command = program
    .command('upgrade')
    .description(
      'make an OCFL 1.0 object OCFL 1.1 in a new version with the same content (earlier versions untouched, as the 1.1 ' +
        'specification allows), or without --id the storage root declaration (its objects keep their versions); ' +
        'something already 1.1 is left as it is',
    )
    .requiredOption('--root <root>', 'OCFL storage root')
    .option('--id <object-id>', 'upgrade this object (its root must be OCFL 1.1: upgrade the root first)')
    .option('--json', 'print {"id", "path", "from", "to", "version", "upgraded"} (for the root: {"root", "from", "to", "upgraded"})');
  addWorkspaceOption(addVersionInfoOptions(command)).action(async (options: UpgradeOptions) => {
    const root = await openRoot(options.root, rootOptions(options));
    if (options.id === undefined) {
      const report = await upgradeRoot(root);
      if (options.json) printJson(report);
      else if (!report.upgraded) process.stdout.write(`Storage root ${root.location} is already OCFL ${report.to}: nothing written.\n`);
      else process.stdout.write(`Storage root ${root.location}: OCFL ${report.from} -> ${report.to}; its objects keep their versions.\n`);
      return;
    }
    const report = await upgradeObject(root, options.id, versionInfo(options));
    if (options.json) printJson(report);
    else if (!report.upgraded) process.stdout.write(`Object "${printable(report.id)}" is already OCFL ${report.to}: nothing written.\n`);
    else {
      process.stdout.write(
        `Object "${printable(report.id)}" (${printable(report.path)}): OCFL ${report.from} -> ${report.to} in ${report.version}; ` +
          `its earlier versions are unchanged.\n`,
      );
    }
  });
}
