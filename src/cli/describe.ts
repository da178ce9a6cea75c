/** `siard-ocfl describe`: print a template of an archive's descriptions, or apply one (a new version, or a described copy). */
import type { Command } from 'commander';
import { describeCopy, describeObject, describeTemplate, type DescribeResult } from '../archive/describe/describe.js';
import { describableItems } from '../archive/describe/template.js';
import { UsageError } from '../errors.js';
import { openRoot } from '../ocfl/root.js';
import { archiveSource } from './archive-source.js';
import {
  addVersionInfoOptions,
  addWorkspaceOption,
  asUnreadableInput,
  printable,
  printJson,
  rootOptions,
  versionInfo,
  type VersionInfoCliOptions,
  type WorkspaceCliOptions,
} from './common.js';
import { createProgress } from './progress.js';
import { readTemplateFileSync } from './template-file.js';

interface DescribeCliOptions extends VersionInfoCliOptions, WorkspaceCliOptions {
  template?: boolean;
  apply?: string;
  root?: string;
  id?: string;
  version?: string;
  json?: boolean;
}

async function apply(args: string[], o: DescribeCliOptions): Promise<DescribeResult> {
  const template = readTemplateFileSync(o.apply!);
  if (o.root !== undefined || o.id !== undefined) {
    if (o.root === undefined || o.id === undefined) throw new UsageError('--root and --id go together.');
    if (args.length > 0) throw new UsageError(`Give either --root and --id, or <archive> <out-dir>, not both (${args.join(' ')}).`);
    if (o.version !== undefined) throw new UsageError('--apply writes a new version after the head; --version is for --template.');
    const root = await openRoot(o.root, rootOptions(o));
    const progress = createProgress({ json: o.json });
    progress.start(`describe ${o.id}`, 'archives');
    return describeObject(root, o.id, template, {
      ...versionInfo(o),
      onPlan: (p) => progress.total({ bytes: p.bytes, count: p.archives }),
      onBytes: (n) => progress.bytes(n),
      onArchiveDone: () => progress.count(),
    }).finally(() => progress.stop());
  }
  if (args.length !== 2) throw new UsageError('describe --apply needs --root and --id, or <archive> <out-dir>.');
  return describeCopy(args[0]!, args[1]!, template);
}

function printResult(result: DescribeResult): void {
  for (const a of result.archives) {
    for (const c of a.changes) {
      const what = c.value === '' ? 'cleared' : `set (${c.value.length} characters)`;
      process.stdout.write(`${printable(a.path)}: ${printable(c.path)} ${c.field} ${what}\n`);
    }
  }
  for (const m of result.mets)
    process.stdout.write(`${m.path}: METS index updated for the new ${m.siard} (SIZE ${m.size}, ${m.checksumType} ${m.checksum}).\n`);
  for (const n of result.notes) process.stdout.write(`Note: ${n}\n`);
  if (result.file !== undefined) process.stdout.write(`Wrote the described copy ${result.file}.\n`);
  else if (result.version === undefined)
    process.stdout.write(`The template changes nothing in object "${result.id}": no version written.\n`);
  else
    process.stdout.write(
      `Committed ${result.version} of object "${result.id}": ${result.stored} file${result.stored === 1 ? '' : 's'} ` +
        'stored new, LOB files unchanged.\n',
    );
}

export function register(program: Command): void {
  addWorkspaceOption(
    addVersionInfoOptions(
      program
        .command('describe')
        .description(
          `archival descriptions: --template prints a JSON template of every describable item with its current text: ` +
            `${describableItems()}; a privilege is named as SQL grants it ("SELECT ON HR.JOBS TO OE GRANTED BY HR"). ` +
            '--apply <file.json> writes them, as a new version in which only header/metadata.xml changes (--root, --id) or ' +
            'as a described copy of a bare .siard (<archive> <out-dir>). In a template, a field left out or null is ' +
            'unchanged and "" clears it',
        )
        .usage('(--template (<archive> | --root R --id I [--version vN]) | --apply <file.json> (--root R --id I | <archive> <out-dir>))')
        .argument('[paths...]', '--template: the .siard; --apply: the .siard and the folder of its described copy')
        .option('--template', 'print the JSON template of the archive')
        .option('--apply <file.json>', 'apply a filled template')
        .option('--root <root>', 'OCFL storage root holding the archive')
        .option('--id <object-id>', 'OCFL object holding the archive')
        .option('--version <vN>', 'with --template: the object version to read (default: the head)'),
    ),
  )
    .option('--json', 'print the result as JSON')
    .action(async (args: string[], o: DescribeCliOptions) => {
      if ((o.template === true) === (o.apply !== undefined)) throw new UsageError('Give either --template or --apply <file.json>.');
      if (o.template) {
        if (args.length > 1) throw new UsageError(`describe --template reads one archive, not ${args.length}.`);
        let template;
        try {
          template = await describeTemplate(archiveSource(args[0], o));
        } catch (err) {
          throw asUnreadableInput(err);
        }
        printJson(template);
        return;
      }
      const result = await apply(args, o);
      if (o.json) printJson(result);
      else printResult(result);
    });
}
