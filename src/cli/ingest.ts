/** `siard-ocfl ingest`: a database (exported straight into the object) or a SIARD package as received. */
import type { Command } from 'commander';
import { EXPORT_ONLY_OPTIONS, ingest, type IngestOptions, type IngestResult } from '../archive/ingest.js';
import { notResumable } from '../siard/export-directory.js';
import { UsageError } from '../errors.js';
import { openRoot } from '../ocfl/root.js';
import {
  addVersionInfoOptions,
  asUnreadableInput,
  checkObjectId,
  lobWords,
  addWorkspaceOption,
  contentDigest,
  printJson,
  rootOptions,
  versionInfo,
  type VersionInfoCliOptions,
  type WorkspaceCliOptions,
} from './common.js';
import {
  addExportOptions,
  noteStartsOver,
  resumeWithin,
  segmentWords,
  sourceOptionsOf,
  toSiardExportOptions,
  type ExportCliOptions,
} from './export.js';
import { createProgress } from './progress.js';
import { sourceForms } from '../sources/dialects.js';
import { isSiardFileName } from '../siard/siard-file-name.js';
import { localSegmentSet } from '../siard/segments/segment-set-reader.js';
import { readTemplateFileSync } from './template-file.js';

interface IngestCliOptions extends ExportCliOptions, VersionInfoCliOptions, WorkspaceCliOptions {
  root: string;
  id: string;
  digest?: string;
  allowMissingLobs?: boolean;
  allowUnchanged?: boolean;
  resegment?: boolean;
  keepReceived?: boolean;
  restart?: boolean;
}

export function register(program: Command): void {
  addWorkspaceOption(
    addVersionInfoOptions(
      addExportOptions(
        program
          .command('ingest')
          .description(
            'store a database (exported to SIARD 2.2 straight into the object) or a received SIARD package as a new version of an ' +
              'object. A package stored as received keeps its bytes: --describe (and --data-owner, --data-origin-timespan) ' +
              'describe it in the version after, in which only its header/metadata.xml changes',
          )
          .argument(
            '<source>',
            `${sourceForms()}; or a .siard file (its LOB folders beside it; a segmented one named x.siard.1 or x.siard)`,
          ),
      )
        .requiredOption('--root <root>', 'OCFL storage root')
        .requiredOption('--id <object-id>', 'object id'),
    ),
  )
    .option('--digest <algorithm>', 'content digest of a new object: sha512 (default) or sha256')
    .option(
      '--allow-missing-lobs',
      'a received .siard package: store it even though LOB files its cells reference are missing or outside its folder (each ' +
        'reported; exit status 1)',
    )
    .option(
      '--resegment',
      'a received .siard package: re-segment its LOBs (internal or external) into the export layout and upgrade it to SIARD ' +
        '2.2, instead of storing it as received; export options apply',
    )
    .option('--keep-received', 'with --resegment: keep the package as received too, under received/ in the same version')
    .option(
      '--allow-unchanged',
      'make a new version even when it holds the same files as the head (by default none is made: "unchanged, no new version")',
    )
    .option(
      '--restart',
      'a database: throw away the work of an interrupted ingest into this object instead of resuming it (docs/resume.md)',
    )
    .option('--json', 'print a JSON summary; "unchanged": true when no version was made')
    .action(runIngest);
}

/**
 * A package stored as received: --describe, and --data-owner / --data-origin-timespan (texts of
 * the same metadata.xml; refused where the template gives the text otherwise), described in the
 * version after it.
 */
function receivedDescription(o: IngestCliOptions): IngestOptions {
  const template = o.describe !== undefined ? readTemplateFileSync(o.describe) : {};
  const given = { dataOwner: o.dataOwner, dataOriginTimespan: o.dataOriginTimespan };
  if (given.dataOwner === undefined && given.dataOriginTimespan === undefined)
    return o.describe !== undefined ? { describeAfter: template } : {};
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  // A template of the wrong shape goes as it is, for the template's own check to name what is wrong.
  if (!isObject(template)) return { describeAfter: template };
  const templateDatabase = template['database'];
  if (templateDatabase !== undefined && templateDatabase !== null && !isObject(templateDatabase)) return { describeAfter: template };
  const database: Record<string, unknown> = { ...(templateDatabase as Record<string, unknown> | null | undefined) };
  for (const [k, v] of Object.entries(given)) {
    if (v === undefined) continue;
    const held = database[k] ?? null;
    if (held !== null && held !== v)
      throw new UsageError(
        `--${k === 'dataOwner' ? 'data-owner' : 'data-origin-timespan'} and the template's database.${k} differ; give one.`,
      );
    database[k] = v;
  }
  return { describeAfter: { ...template, database } };
}

/** The ingest options of the command line's, each combination that does not apply refused in one sentence before any work. */
function ingestOptionsOf(
  sourceSpec: string,
  o: IngestCliOptions,
  isPackage: boolean,
  digestAlgorithm: IngestOptions['digestAlgorithm'],
): IngestOptions {
  if (!isPackage && o.resegment) throw new UsageError(`--resegment applies to a .siard package, not to ${sourceSpec}.`);
  if (!o.resegment && (o.keepReceived || o.acceptDigestMismatch)) {
    throw new UsageError(
      `${o.keepReceived ? '--keep-received' : '--accept-digest-mismatch'} applies to ingest --resegment of a .siard package.`,
    );
  }
  const resegment = isPackage && o.resegment === true;
  // A package stored as received keeps its bytes: its description is the version after it (describe/received.ts).
  const options: IngestOptions =
    isPackage && !resegment
      ? receivedDescription(o)
      : { ...toSiardExportOptions(sourceSpec, o), ...sourceOptionsOf(o), ...(o.mets ? { mets: true } : {}) };
  if (resegment) {
    options.resegment = true;
    if (o.keepReceived) options.keepReceived = true;
    if (o.acceptDigestMismatch) options.acceptDigestMismatch = true;
  }
  if (isPackage && !resegment) {
    const exportOnly = EXPORT_ONLY_OPTIONS.filter((k) => o[k as keyof IngestCliOptions] !== undefined);
    if (exportOnly.length)
      throw new UsageError(
        `${sourceSpec} is a SIARD package, stored as received: export options do not apply (--resegment re-segments it).`,
      );
  }
  if (o.allowMissingLobs) {
    if (!isPackage) throw new UsageError(`--allow-missing-lobs applies to a received .siard package, not to ${sourceSpec}.`);
    options.allowMissingLobs = true;
  }
  if (digestAlgorithm) options.digestAlgorithm = digestAlgorithm;
  if (o.allowUnchanged) options.allowUnchanged = true;
  if (!isPackage || resegment) options.resumable = ingestResume(o);
  else if (o.restart) throw new UsageError(`--restart applies to an ingest of a database; ${sourceSpec} is stored as received.`);
  return options;
}

/** The resume of an ingest: one line when it resumes, a note for work removed (docs/resume.md). */
function ingestResume(o: IngestCliOptions): NonNullable<IngestOptions['resumable']> {
  return {
    ...(o.restart ? { restart: true } : {}),
    say: (sentence) => process.stderr.write(`note: ${sentence}\n`),
    onResume: (r) =>
      process.stderr.write(
        `Resuming the interrupted ingest into object "${o.id}": ${r.kept} of ${r.tables} tables kept (${r.rows} rows)` +
          `${r.next !== undefined ? `, going on with ${r.next}${resumeWithin(r.within)}` : ''}.\n`,
      ),
  };
}

async function runIngest(sourceSpec: string, o: IngestCliOptions): Promise<void> {
  checkObjectId(o.id);
  const digestAlgorithm = contentDigest(o.digest);
  const version = versionInfo(o);
  const isPackage = isSiardFileName(sourceSpec) || localSegmentSet(sourceSpec) !== undefined;
  const options = ingestOptionsOf(sourceSpec, o, isPackage, digestAlgorithm);
  const asReceived = isPackage && !options.resegment;
  // what the resume said on stderr (work removed, work that starts over) is also in --json's notes
  const said: string[] = [];
  const resumable = options.resumable;
  if (resumable) options.resumable = { ...resumable, say: (sentence) => (said.push(sentence), resumable.say(sentence)) };
  const root = await openRoot(o.root, rootOptions(o));
  // A database: bytes written and rows of the catalogue's count; a package: its bytes and files.
  if (!asReceived) noteStartsOver('ingest', notResumable(options));
  const progress = createProgress({ json: o.json });
  progress.start(`ingest ${o.id}`, asReceived ? 'files' : 'rows');
  const hooks: IngestOptions = asReceived
    ? {
        onPackagePlan: (p) => progress.total({ bytes: p.bytes, count: p.files }),
        onFile: (_p, size) => (progress.bytes(size), progress.count()),
      }
    : { onPlan: (p) => progress.total({ count: p.rows }), onRow: () => progress.count(), onBytes: (n) => progress.bytes(n) };
  const result = await ingest(sourceSpec, root, o.id, { ...options, ...version, ...hooks })
    .catch((err: unknown) => {
      throw asReceived ? asUnreadableInput(err) : err;
    })
    .finally(() => progress.stop());
  // A received package whose LOBs were not all stored is a problem found, even when asked for.
  if (result.missingLobs > 0) process.exitCode = 1;
  if (o.json) printJson({ ...result, notes: [...said, ...result.notes] });
  else printIngested(result, sourceSpec);
}

function printIngested(result: IngestResult, sourceSpec: string): void {
  if (result.unchanged) {
    process.stdout.write(
      `Object "${result.id}" (${result.objectPath}) is unchanged, no new version: ${sourceSpec} gives the ` +
        `same ${result.files} files as ${result.version} (--allow-unchanged makes one anyway).\n`,
    );
    if (result.described) printDescribed(result.id, result.described);
    for (const w of result.warnings) process.stdout.write(`WARNING ${w}\n`);
    return;
  }
  const segments = result.export && segmentWords(result.export.segmentFiles).replace(' ... ', ', SIARD file ' + result.siardFile + ' ... ');
  const what = result.export
    ? `${result.export.tables} tables, ${result.export.rows} rows, ${lobWords(result.export)}${segments}`
    : 'SIARD package as received';
  process.stdout.write(
    `Committed ${result.version} of object "${result.id}" (${result.objectPath}): ${what}; ` +
      `the version holds ${result.files} files (${result.bytes} bytes), ${result.stored} stored new (${result.storedBytes} bytes).\n`,
  );
  if (result.received) {
    process.stdout.write(
      `Re-segmented from ${result.received.name} (SIARD ${result.received.siardVersion}, ${result.received.size} bytes, ` +
        `SHA-256 ${result.received.sha256})${result.receivedFolder ? `; kept as received under ${result.receivedFolder}/` : ''}.\n`,
    );
  }
  if (result.described) printDescribed(result.id, result.described);
  for (const n of result.notes) process.stdout.write(`NOTE ${n}\n`);
  for (const w of result.warnings) process.stdout.write(`WARNING ${w}\n`);
}

function printDescribed(id: string, d: NonNullable<IngestResult['described']>): void {
  process.stdout.write(
    d.version === undefined
      ? `The --describe template changes nothing in object "${id}": no described version written.\n`
      : `Described it in ${d.version}: ${d.texts} text${d.texts === 1 ? '' : 's'} set or cleared, only header/metadata.xml ` +
          `changed (${d.stored} file${d.stored === 1 ? '' : 's'} stored new, LOB files unchanged).\n`,
  );
}
