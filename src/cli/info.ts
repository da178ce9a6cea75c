/** `siard-ocfl info`: what a storage root, or one object in it, is. */
import type { Command } from 'commander';
import { objectInfo, rootInfo, type ObjectInfo, type RootInfo } from '../archive/info.js';
import { openRoot } from '../ocfl/root.js';
import { printable, printJson } from './common.js';
import { groupDigits } from './group-digits.js';

export function register(program: Command): void {
  program
    .command('info')
    .description(
      'describe a storage root (OCFL version, layout and its parameters, extensions, object count and bytes) or, with --id, ' +
        'an object (OCFL version, versions, files and bytes, digest and fixity algorithms, SIARD archives)',
    )
    .requiredOption('--root <root>', 'OCFL storage root')
    .option('--id <object-id>', 'describe this object instead of the root')
    .option('--json', 'print a JSON document')
    .action(async (options: { root: string; id?: string; json?: boolean }) => {
      const root = await openRoot(options.root);
      const info = options.id === undefined ? await rootInfo(root) : await objectInfo(root, options.id);
      if (options.json) printJson(info);
      else process.stdout.write('id' in info ? objectText(info) : rootText(info));
    });
}

function rootText(info: RootInfo): string {
  const layout = info.layout
    ? `${info.layout.extension} ${JSON.stringify(info.layout.config)}`
    : 'none siard-ocfl reads (objects are found by scanning)';
  return (
    `Storage root ${info.root}\n` +
    `  OCFL version: ${info.ocflVersion}\n` +
    `  layout: ${layout}\n` +
    `  extensions: ${info.extensions.length > 0 ? info.extensions.map(printable).join(', ') : 'none'}\n` +
    `  objects: ${groupDigits(info.objects)}, ${groupDigits(info.bytes)} bytes\n`
  );
}

function objectText(info: ObjectInfo): string {
  const lines = [
    `Object "${printable(info.id)}" at ${printable(info.path)}`,
    `  OCFL version: ${info.ocflVersion}`,
    `  versions: ${info.versions.length} (head ${info.head})`,
    `  head: ${groupDigits(info.files)} files; the object: ${groupDigits(info.bytes)} bytes`,
    `  digest algorithm: ${info.digestAlgorithm}; fixity: ${info.fixityAlgorithms.length > 0 ? info.fixityAlgorithms.join(', ') : 'none'}`,
    `  SIARD archives: ${info.siardArchives.length > 0 ? info.siardArchives.map(printable).join(', ') : 'none'}`,
  ];
  for (const v of info.versions) {
    const user = v.user ? `${v.user.name}${v.user.address ? ` <${v.user.address}>` : ''}` : '';
    lines.push(`  ${v.version}\t${v.created}\t${v.fileCount} files\t${printable(user)}\t${printable(v.message ?? '')}`);
  }
  return lines.join('\n') + '\n';
}
