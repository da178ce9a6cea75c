/** `siard-ocfl export <source> <out-dir>`: a database as `<name>.siard` plus its LOB folders. */
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { exportToDirectory, type DirectoryExportHooks } from '../siard/export-directory.js';
import { MetsIndexingSink } from '../siard/mets/indexing-sink.js';
import { METS_FILE_NAME } from '../siard/mets/types.js';
import { SIARD_DIGEST_TYPES, type SiardDigestType } from '../siard/model.js';
import type { SiardExportOptions } from '../siard/writer.js';
import { defaultArchiveName, openSource } from '../sources/open.js';
import { lobWords, parseCount, parseSize, printJson } from './common.js';
import { createProgress } from './progress.js';

export interface ExportCliOptions {
  lobLayout?: string;
  maxFiles?: number;
  maxBytes?: number;
  inlineMax?: number;
  lobFolder?: string;
  lobDigest?: string;
  name?: string;
  dataOwner?: string;
  dataOriginTimespan?: string;
  tables?: string;
  mets?: boolean;
  json?: boolean;
}

/** The export options of DESIGN section 1; `ingest` shares them. */
export function addExportOptions(command: Command): Command {
  return command
    .option('--lob-layout <layout>', 'LOB folder layout: lobseg (E-ARK, default) or siard22')
    .option('--max-files <n>', 'files per LOB segment folder (default 100000)', parseCount('--max-files'))
    .option('--max-bytes <size>', 'bytes per LOB segment folder (default 4G); larger LOBs are split; units k, M, G (1000^n) or KiB, MiB, GiB (1024^n)', parseSize('--max-bytes'))
    .option('--inline-max <size>', 'LOBs up to this size stay inline in the table XML (default 2000 bytes; units as --max-bytes)', parseSize('--inline-max'))
    .option('--lob-folder <uri>', "database-level lobFolder base URI ending in '/' (default ../, the folder of the .siard)")
    .option('--lob-digest <type>', 'LOB digest: MD5, SHA-1 or SHA-256 (default)')
    .option('--name <dbname>', "archive name (default: the database file's base name)")
    .option('--data-owner <text>', 'dataOwner in metadata.xml')
    .option('--data-origin-timespan <text>', 'dataOriginTimespan in metadata.xml')
    .option('--tables <patterns>', 'only tables matching these comma-separated patterns (* and ?)')
    .option('--mets', 'also write a METS index: mets.xml beside the .siard and one in each LOB segment folder');
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
  const out: SiardExportOptions = { name: o.name ?? defaultArchiveName(source) };
  if (o.lobLayout) out.lobLayout = o.lobLayout as 'lobseg' | 'siard22';
  if (o.maxFiles !== undefined) out.maxFiles = o.maxFiles;
  if (o.maxBytes !== undefined) out.maxBytes = o.maxBytes;
  if (o.inlineMax !== undefined) out.inlineMax = o.inlineMax;
  if (o.lobFolder !== undefined) out.lobFolder = o.lobFolder;
  if (digest) out.lobDigest = digest as SiardDigestType;
  if (o.dataOwner !== undefined) out.dataOwner = o.dataOwner;
  if (o.dataOriginTimespan !== undefined) out.dataOriginTimespan = o.dataOriginTimespan;
  return out;
}

export function register(program: Command): void {
  addExportOptions(
    program
      .command('export')
      .description('export a database to SIARD 2.2: <out-dir>/<name>.siard and its LOB folders')
      .argument('<source>', 'sqlite:<file>, a .db/.sqlite/.sqlite3 file, or postgres://...')
      .argument('<out-dir>', 'folder that receives the archive and its LOB folders'),
  )
    .option('--json', 'print a JSON summary')
    .action(async (sourceSpec: string, outDir: string, options: ExportCliOptions) => {
      const exportOptions = toSiardExportOptions(sourceSpec, options);
      const source = await openSource(sourceSpec, options.tables ? { tables: options.tables } : {});
      const progress = createProgress({ json: options.json });
      try {
        progress.start(`export ${exportOptions.name}`, 'rows');
        const hooks: DirectoryExportHooks = {};
        if (options.mets) {
          hooks.extraTopLevel = [METS_FILE_NAME];
          hooks.wrapSink = (sink) => {
            const indexing = new MetsIndexingSink(sink, { objId: exportOptions.name, checksumType: exportOptions.lobDigest ?? 'SHA-256' });
            return { sink: indexing, finish: () => indexing.finishIndex() };
          };
        }
        const summary = await exportToDirectory(source, outDir, {
          ...exportOptions,
          onPlan: (p) => progress.total({ count: p.rows }),
          onRow: () => progress.count(),
          onBytes: (n) => progress.bytes(n),
        }, hooks);
        progress.stop();
        const report = {
          siard: summary.siardFile,
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
        };
        if (options.json) printJson(report);
        else {
          process.stdout.write(
            `Exported ${report.tables} tables, ${report.rows} rows, ${lobWords(summary)} ` +
              `(${report.bytes} bytes) to ${outDir}/${report.siard}\n`,
          );
        }
      } finally {
        progress.stop();
        await source.close();
      }
    });
}
