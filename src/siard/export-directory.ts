/**
 * Export into a folder on disk: `<out-dir>/<name>.siard` and its LOB folders, all or nothing.
 * Everything is written into a hidden staging folder inside `<out-dir>` and moved into place at
 * the end; on any failure the staging folder is removed and `<out-dir>` is as before.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors.js';
import type { DatabaseSource } from './database-source.js';
import { DirectorySink, type OutputSink } from './output-sink.js';
import { parseSegmentName } from './segments/segment-names.js';
import { checkArchiveName, DEFAULTS, plannedTopLevelNames, writeSiard, type SiardExportSummary } from './writer.js';
import type { SiardExportOptions } from './export-options.js';
import { fingerprintsFileOf } from './fingerprint/fingerprint-file.js';

export interface DirectoryExportHooks {
  /**
   * Wraps the directory sink, e.g. in a METS indexing sink; `finish` runs after the archive is
   * written and before anything is moved into place.
   */
  wrapSink?: (sink: OutputSink) => { sink: OutputSink; finish?: () => Promise<unknown> };
  /** further top-level names the export will create (refused when they exist), e.g. "mets.xml" */
  extraTopLevel?: string[];
}

export async function exportToDirectory(
  source: DatabaseSource,
  outDir: string,
  options: SiardExportOptions,
  hooks: DirectoryExportHooks = {},
): Promise<SiardExportSummary> {
  checkArchiveName(options.name);
  const stat = await fsp.stat(outDir).catch(() => undefined);
  if (stat && !stat.isDirectory()) throw new UsageError(`The out-dir ${outDir} exists and is not a folder.`, 'OUTPUT_NOT_DIR');
  const { siard, lobPrefix } = plannedTopLevelNames(options.name, options.lobLayout ?? DEFAULTS.lobLayout);
  const exact = new Set([siard, lobPrefix, fingerprintsFileOf(siard), ...(hooks.extraTopLevel ?? [])]);
  if (stat) {
    await DirectorySink.removeStaleStaging(outDir);
    const clash = (await fsp.readdir(outDir)).find(
      (n) => exact.has(n) || (lobPrefix.endsWith('_') && n.startsWith(lobPrefix)) || parseSegmentName(n)?.base === siard,
    );
    if (clash) {
      throw new UsageError(
        `${path.join(outDir, clash)} already exists: the out-dir already holds an archive named "${options.name}".`,
        'OUTPUT_EXISTS',
      );
    }
  }
  const sink = new DirectorySink(outDir);
  try {
    const wrapped = hooks.wrapSink?.(sink);
    const summary = await writeSiard(source, wrapped?.sink ?? sink, options);
    await wrapped?.finish?.();
    await sink.commit();
    return summary;
  } catch (err) {
    await sink.abort().catch(() => undefined);
    if (!stat) await fsp.rmdir(outDir).catch(() => undefined); // we created it; leave nothing behind
    throw err;
  }
}
