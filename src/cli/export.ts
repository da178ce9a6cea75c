/** `siard-ocfl export <source> <out-dir>`: a database as `<name>.siard` plus its LOB folders. */
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { exportToDirectory, notResumable, type DirectoryExportHooks, type DirectoryResume } from '../siard/export-directory.js';
import { MetsIndexingSink } from '../siard/mets/indexing-sink.js';
import { METS_FILE_NAME } from '../siard/mets/types.js';
import { SIARD_DIGEST_TYPES, type SiardDigestType } from '../siard/model.js';
import type { SiardExportOptions } from '../siard/export-options.js';
import { defaultArchiveName, openSource, type OpenSourceOptions } from '../sources/open.js';
import { sourceForms } from '../sources/dialects.js';
import { SiardSource } from '../sources/siard/siard-source.js';
import { describeWidened } from '../siard/database-source.js';
import { lobWords, parseCount, parseSize, printJson } from './common.js';
import { groupDigits } from './group-digits.js';
import { createProgress } from './progress.js';
import { readTemplateFileSync } from './template-file.js';
import { describeArchiveModel } from '../archive/describe/model.js';
import { keyWords } from '../sources/row-key.js';

export interface ExportCliOptions {
  lobLayout?: string;
  maxFiles?: number;
  maxBytes?: number;
  maxSiardBytes?: number;
  lobsegZip?: boolean;
  inlineMax?: number;
  lobFolder?: string;
  lobDigest?: string;
  name?: string;
  dataOwner?: string;
  dataOriginTimespan?: string;
  describe?: string;
  tables?: string;
  excludeTables?: string;
  strict?: boolean;
  password?: string;
  mets?: boolean;
  acceptDigestMismatch?: boolean;
  json?: boolean;
}

/** The options that shape an export (LOB layout, size limits, table selection, ...); `ingest` shares them. */
export function addExportOptions(command: Command): Command {
  return command
    .option('--lob-layout <layout>', 'LOB folder layout: lobseg (E-ARK, default) or siard22')
    .option('--max-files <n>', 'files per LOB segment folder (default 100000)', parseCount('--max-files'))
    .option(
      '--max-bytes <size>',
      'bytes per LOB segment folder (default 4G); larger LOBs are split; units k, M, G (1000^n) or KiB, MiB, GiB (1024^n)',
      parseSize('--max-bytes'),
    )
    .option(
      '--max-siard-bytes <size>',
      'segment the SIARD file: no file larger than this; written as <name>.siard.1, .2, ... .z when it does not fit in one, a ' +
        'table larger than a segment split into tableN.xml.1 ... .z (units as --max-bytes; docs/segmented-siard.md)',
      parseSize('--max-siard-bytes'),
    )
    .option(
      '--lobseg-zip',
      'write each LOB folder <name>_lobseg_<h>/ as a ZIP file <name>_lobseg_<h>.zip (S_8.4-1; docs/segmented-siard.md)',
    )
    .option(
      '--inline-max <size>',
      'LOBs up to this size stay inline in the table XML (default 2000 bytes; units as --max-bytes)',
      parseSize('--inline-max'),
    )
    .option('--lob-folder <uri>', "database-level lobFolder base URI ending in '/' (default ../, the folder of the .siard)")
    .option('--lob-digest <type>', 'LOB digest: MD5, SHA-1 or SHA-256 (default)')
    .option('--name <dbname>', "archive name (default: the database file's base name)")
    .option('--data-owner <text>', 'dataOwner in metadata.xml')
    .option('--data-origin-timespan <text>', 'dataOriginTimespan in metadata.xml')
    .option('--describe <file.json>', 'archival descriptions: a template as `describe --template` prints it, filled in')
    .option(
      '--tables <patterns>',
      'only tables matching these comma-separated patterns (* and ?; name or schema.name); one matching nothing is an error',
    )
    .option('--exclude-tables <patterns>', 'leave out tables matching these comma-separated patterns (* and ?; name or schema.name)')
    .option('--strict', 'refuse (listing every such column) instead of widening a column whose values do not fit its declared type')
    .option('--password <password>', 'an Access file (.mdb, .accdb): its database password or encryption password')
    .option('--mets', 'also write a METS index: mets.xml beside the .siard and one in each LOB segment folder')
    .option(
      '--accept-digest-mismatch',
      'a .siard source: keep LOBs whose bytes differ from their received cell digest or length, recording them in the new ' +
        'archive, instead of stopping',
    );
}

/** The options that choose what a source reads. */
export function sourceOptionsOf(o: ExportCliOptions): OpenSourceOptions {
  const out: OpenSourceOptions = {};
  if (o.tables !== undefined) out.tables = o.tables;
  if (o.excludeTables !== undefined) out.excludeTables = o.excludeTables;
  if (o.strict) out.strict = true;
  if (o.password !== undefined) out.password = o.password;
  return out;
}

/** Checks the CLI values and turns them into writer options. */
export function toSiardExportOptions(source: string, o: ExportCliOptions): SiardExportOptions {
  if (o.lobLayout !== undefined && o.lobLayout !== 'lobseg' && o.lobLayout !== 'siard22') {
    throw new UsageError(`--lob-layout must be lobseg or siard22, not "${o.lobLayout}".`);
  }
  const digest = o.lobDigest?.toUpperCase();
  if (digest !== undefined && !SIARD_DIGEST_TYPES.includes(digest as SiardDigestType)) {
    throw new UsageError(`--lob-digest must be MD5, SHA-1 or SHA-256, not "${o.lobDigest}".`);
  }
  if (o.maxFiles === 0 || o.maxBytes === 0) throw new UsageError('--max-files and --max-bytes must be at least 1.');
  if (o.lobsegZip && o.lobLayout === 'siard22') {
    throw new UsageError('--lobseg-zip zips lobseg folders; it cannot be used with --lob-layout siard22.');
  }
  if (o.lobsegZip && o.mets) {
    throw new UsageError('--lobseg-zip cannot be used with --mets yet: the METS index would need a mets.xml inside each LOB ZIP file.');
  }
  if (o.maxSiardBytes === 0) throw new UsageError('--max-siard-bytes must be at least 1.');
  const out: SiardExportOptions = { name: o.name ?? defaultArchiveName(source) };
  if (o.lobLayout) out.lobLayout = o.lobLayout as 'lobseg' | 'siard22';
  if (o.maxFiles !== undefined) out.maxFiles = o.maxFiles;
  if (o.maxBytes !== undefined) out.maxBytes = o.maxBytes;
  if (o.maxSiardBytes !== undefined) out.maxSiardBytes = o.maxSiardBytes;
  if (o.lobsegZip) out.lobsegZip = true;
  if (o.inlineMax !== undefined) out.inlineMax = o.inlineMax;
  if (o.lobFolder !== undefined) out.lobFolder = o.lobFolder;
  if (digest) out.lobDigest = digest as SiardDigestType;
  if (o.dataOwner !== undefined) out.dataOwner = o.dataOwner;
  if (o.dataOriginTimespan !== undefined) out.dataOriginTimespan = o.dataOriginTimespan;
  if (o.describe !== undefined) out.describe = describeArchiveModel(readTemplateFileSync(o.describe));
  return out;
}

/** " ... Northwind.siard.z (3 segments of at most N bytes)" for a segmented SIARD file. */
export function segmentWords(segments: Array<{ file: string }> | undefined): string {
  if (!segments || segments.length < 2) return '';
  return ` ... ${segments.at(-1)!.file} (a segmented SIARD file of ${segments.length} segments)`;
}

/** --mets: the METS index written beside the archive, from the digests of the export's own pass. */
function metsHooks(exportOptions: SiardExportOptions): DirectoryExportHooks {
  return {
    extraTopLevel: [METS_FILE_NAME],
    wrapSink: (sink) => {
      const indexing = new MetsIndexingSink(sink, { objId: exportOptions.name, checksumType: exportOptions.lobDigest ?? 'SHA-256' });
      return { sink: indexing, finish: () => indexing.finishIndex() };
    },
  };
}

/** One line at the start of a run that an interruption would send back to the beginning (docs/resume.md). */
export function noteStartsOver(verb: string, option: string | undefined): void {
  if (option)
    process.stderr.write(`note: an ${verb} with ${option} is not resumable: if it is interrupted, it starts over (docs/resume.md).\n`);
}

/**
 * Where the resume line says the table in progress goes on: after the key of its last durable
 * cut, or from its first row (a table without a key, or a source that reads none, docs/resume.md).
 */
export function resumeWithin(within: { key: string; rows: number } | undefined): string {
  return within ? ` after its row of key ${keyWords(within.key)} (${groupDigits(within.rows)} of its rows kept)` : ' from its first row';
}

/** The resume of an export to a folder: one line when it resumes, a note for work removed (docs/resume.md). */
function directoryResume(name: string, outDir: string, options: ExportCliOptions & { restart?: boolean }): DirectoryResume {
  return {
    ...(options.restart ? { restart: true } : {}),
    sourceOptions: sourceOptionsOf(options),
    say: (sentence) => process.stderr.write(`note: ${sentence}\n`),
    onResume: (r) =>
      process.stderr.write(
        `Resuming the interrupted export of "${name}" in ${outDir}: ${r.kept} of ${r.tables} tables kept (${r.rows} rows)` +
          `${r.next !== undefined ? `, going on with ${r.next}${resumeWithin(r.within)}` : ''}.\n`,
      ),
  };
}

/** Long because: the verb's options are declared one per line, in the order --help shows them. */
export function register(program: Command): void {
  addExportOptions(
    program
      .command('export')
      .description('export a database to SIARD 2.2: <out-dir>/<name>.siard and its LOB folders')
      .argument('<source>', `${sourceForms()}; or a SIARD 2.1/2.2 .siard file (its LOB folders beside it) to re-segment`)
      .argument('<out-dir>', 'folder that receives the archive and its LOB folders'),
  )
    .option('--restart', 'throw away the work of an interrupted export of this name in <out-dir> instead of resuming it (docs/resume.md)')
    .option('--json', 'print a JSON summary')
    .action(async (sourceSpec: string, outDir: string, options: ExportCliOptions & { restart?: boolean }) => {
      const exportOptions = toSiardExportOptions(sourceSpec, options);
      const source = await openSource(sourceSpec, {
        ...sourceOptionsOf(options),
        ...(options.acceptDigestMismatch ? { acceptDigestMismatch: true } : {}),
      });
      const progress = createProgress({ json: options.json });
      noteStartsOver('export', notResumable({ ...exportOptions, ...(options.mets ? { mets: true } : {}) }));
      try {
        const catalog = await source.catalog();
        const widened = catalog.widened ?? [];
        progress.start(`export ${exportOptions.name}`, 'rows');
        const hooks = options.mets ? metsHooks(exportOptions) : {};
        const summary = await exportToDirectory(
          source,
          outDir,
          {
            ...exportOptions,
            onPlan: (p) => progress.total({ count: p.rows }),
            onRow: () => progress.count(),
            onBytes: (n) => progress.bytes(n),
          },
          hooks,
          directoryResume(exportOptions.name, outDir, options),
        );
        progress.stop();
        const report = {
          siard: summary.siardFile,
          ...(summary.segmentFiles ? { siardSegments: summary.segmentFiles } : {}),
          ...(summary.fingerprintsFile ? { fingerprints: summary.fingerprintsFile } : {}),
          outDir,
          lobFolders: summary.lobFolders,
          tables: summary.tables,
          rows: summary.rows,
          lobs: summary.lobs,
          lobFiles: summary.lobFiles,
          segments: summary.segments,
          lobBytes: summary.lobBytes,
          siardBytes: summary.siardBytes,
          bytes: summary.lobBytes + summary.siardBytes,
          messageDigest: { digestType: 'SHA-256', digest: summary.messageDigest },
          widened: widened.map((w) => ({ ...w, message: describeWidened(w) })),
          notExported: catalog.notExported ?? [],
        };
        const mismatches = source instanceof SiardSource ? source.mismatches : undefined;
        const received = source instanceof SiardSource ? source.receivedPackage : undefined;
        const warnings =
          mismatches && mismatches.count > 0
            ? [
                `${mismatches.count} LOB cells did not match the received digest or length and were kept as read (recorded in ` +
                  `the archive's description): ${mismatches.first.join('; ')}.`,
              ]
            : [];
        warnings.push(...(summary.warnings ?? []));
        if (options.json) printJson({ ...report, ...(received ? { received } : {}), warnings });
        else {
          process.stdout.write(
            `Exported ${report.tables} tables, ${report.rows} rows, ${lobWords(summary)} ` +
              `(${report.bytes} bytes) to ${outDir}/${report.siard}${segmentWords(summary.segmentFiles)}\n`,
          );
          if (received)
            process.stdout.write(
              `Re-segmented from ${received.name} (SIARD ${received.siardVersion}, ${received.size} bytes, SHA-256 ${received.sha256}).\n`,
            );
          for (const w of warnings) process.stdout.write(`WARNING ${w}\n`);
          for (const w of widened) process.stdout.write(`widened: ${describeWidened(w)}\n`);
          const left = catalog.notExported ?? [];
          if (left.length > 0) process.stdout.write(`not exported: ${left.join(', ')}.\n`);
        }
      } finally {
        progress.stop();
        await source.close();
      }
    });
}
