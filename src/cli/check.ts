/** `siard-ocfl check`: a SIARD package (or the archive in an object) against the SIARD 2.2 requirements, by requirement id. */
import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { checkObject } from '../archive/check-object.js';
import { UsageError } from '../errors.js';
import { checkSiardPackage } from '../siard/check/check-siard.js';
import { renderHtml } from '../siard/check/render-html.js';
import { renderText } from '../siard/check/render-text.js';
import { printJson } from './common.js';

interface CheckCliOptions {
  root?: string;
  id?: string;
  version?: string;
  json?: boolean;
  html?: string;
}

export function register(program: Command): void {
  program
    .command('check')
    .description(
      "check a SIARD package against every requirement id of SIARD 2.2 (and the seed's LOB rules): passed, failed, " +
        'not-applicable or not-checked per id; exit 0 conformant, 1 not conformant, 2 could not run',
    )
    .argument(
      '[archive]',
      'a .siard, a folder holding one with its LOB folders, x.siard.1 of a segmented set, or x.siard_part001 of a split one',
    )
    .option('--root <root>', 'OCFL storage root (with --id): check the archive of an object version')
    .option('--id <object-id>', 'object to check (with --root)')
    .option('--version <vN>', 'version of the object (default: head)')
    .option('--json', 'print {ok, requirements: [{id, status, source, findings: [{message, entry, table, row, column}]}]}')
    .option('--html <file>', 'also write one self-contained HTML report to this file')
    .action(async (archive: string | undefined, options: CheckCliOptions) => {
      if (archive !== undefined && options.root !== undefined) throw new UsageError('Give an archive or --root with --id, not both.');
      if (options.root !== undefined && options.id === undefined) throw new UsageError('--root needs --id (the object to check).');
      if (archive === undefined && options.root === undefined) throw new UsageError('Name the archive to check, or give --root and --id.');
      const result =
        archive !== undefined ? await checkSiardPackage(archive) : await checkObject(options.root!, options.id!, options.version);
      const target = archive ?? `${options.id} ${options.version ?? '(head)'} in ${options.root}`;
      if (options.html) writeFileSync(options.html, renderHtml(target, result));
      if (options.json) printJson(result);
      else process.stdout.write(renderText(target, result));
      process.exitCode = result.ok ? 0 : 1;
    });
}
