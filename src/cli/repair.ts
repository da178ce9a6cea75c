/**
 * `siard-ocfl repair`: finish or roll back what crashed writers left, as their next writer would
 * (see src/ocfl/commit/repair.ts). Exit 0 when nothing was needed or all was repaired, 1 when an object
 * could not be read or repaired, 2 when a live writer holds a lock (it may be mid-commit).
 */
import type { Command } from 'commander';
import { committedWorkVersion } from '../archive/resumable-ingest.js';
import { openRoot } from '../ocfl/root.js';
import type { ObjectRepairReport, RepairAction } from '../ocfl/commit/repair.js';
import { addWorkspaceOption, printJson, rootOptions, type WorkspaceCliOptions } from './common.js';

interface RepairOptions extends WorkspaceCliOptions {
  root: string;
  id?: string[];
  json?: boolean;
  discardResumable?: boolean;
}

const DID: Record<RepairAction['kind'], string> = {
  'rolled-back-version': 'rolled back the unlisted version folder',
  'aborted-uploads': 'aborted the unfinished uploads below',
  'finished-sidecar': 'finished the interrupted commit: rewrote the sidecar',
  'finished-declaration': 'finished the interrupted creation: wrote the object declaration',
  'removed-staging': 'removed the staging folder',
  'removed-dead-lock': 'removed the lock of a dead process',
  'removed-resumable': "removed an interrupted ingest's resumable work",
};

function name(o: ObjectRepairReport): string {
  if (o.id !== undefined) return `"${o.id}"`;
  return o.objectPath !== undefined ? o.objectPath : 'workspace leftovers';
}

/** A report's resumable work, with the version it had been committed as when that ingest stopped before removing it. */
type Resumable = NonNullable<ObjectRepairReport['resumable']> & { committedAs?: string };

function describe(o: ObjectRepairReport & { resumable?: Resumable }): string {
  return describeStatus(o) + (o.resumable ? `  ${resumableWords(o.status === 'locked', o.resumable)}\n` : '');
}

function describeStatus(o: ObjectRepairReport): string {
  if (o.status === 'clean') return `${name(o)}: nothing to repair\n`;
  if (o.status === 'locked') return `${name(o)}: NOT repaired, a writer holds its lock: ${o.message}\n`;
  if (o.status === 'failed') return `${name(o)}: NOT repaired: ${o.message}\n`;
  return `${name(o)}: repaired\n` + o.actions.map((a) => `  ${DID[a.kind]} ${a.path}\n`).join('');
}

/** What is kept of an interrupted ingest, and how it goes (docs/resume.md). */
function resumableWords(living: boolean, r: Resumable): string {
  if (living)
    return `kept: ${r.bytes} bytes of resumable work of the ingest at work (${r.path}); once it stops, --discard-resumable removes it.`;
  return r.committedAs !== undefined
    ? `kept: ${r.bytes} bytes of the work of an ingest already committed as ${r.committedAs}, stopped before it removed them ` +
        `(${r.path}): nothing of it is to resume; the next ingest of the object removes it, and so does repair --discard-resumable.`
    : `kept: ${r.bytes} bytes of resumable work of an interrupted ingest (${r.path}): the same ingest run again resumes it; ` +
        `repair --discard-resumable removes it.`;
}

export function register(program: Command): void {
  addWorkspaceOption(
    program
      .command('repair')
      .description("finish or roll back interrupted commits and remove crashed writers' leftovers, as the next writer would")
      .requiredOption('--root <root>', 'OCFL storage root')
      .option(
        '--id <object-id>',
        'repair only this object (repeatable); default: every object and the workspace',
        (v: string, all: string[] | undefined) => [...(all ?? []), v],
      )
      .option(
        '--discard-resumable',
        "also remove interrupted ingests' resumable work (docs/resume.md), whose writer is gone: the next ingest starts over",
      )
      .option(
        '--json',
        'print {root, workspace, objects: [{id, objectPath, status, actions, message, resumable}], repaired, locked, failed} as JSON ' +
          '(resumable: {path, bytes, committedAs when that ingest was committed})',
      ),
  ).action(async (options: RepairOptions) => {
    const root = await openRoot(options.root, rootOptions(options));
    const ids = options.id ?? [];
    const report = await root.repair(ids.length > 0 ? ids : undefined, options.discardResumable ? { discardResumable: true } : {});
    for (const o of report.objects) {
      const id = o.id;
      const committedAs = o.resumable && id !== undefined && (await committedWorkVersion(o.resumable.path, () => root.objectVersions(id)));
      if (committedAs) o.resumable = { ...o.resumable!, committedAs } as Resumable;
    }
    if (options.json) printJson(report);
    else {
      for (const o of report.objects) if (o.status !== 'clean' || o.resumable || ids.length > 0) process.stdout.write(describe(o));
      const clean = report.objects.length - report.repaired - report.locked - report.failed;
      process.stdout.write(
        `${report.objects.length} checked: ${report.repaired} repaired, ${clean} needed nothing, ${report.locked} locked by a ` +
          `writer, ${report.failed} failed.\n`,
      );
    }
    process.exitCode = report.locked > 0 ? 2 : report.failed > 0 ? 1 : 0;
  });
}
