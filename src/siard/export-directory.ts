/**
 * Export into a folder on disk: `<out-dir>/<name>.siard` and its LOB folders, all or nothing.
 * Everything is written into a hidden staging folder inside `<out-dir>` and moved into place at
 * the end; on any failure the staging folder is removed and `<out-dir>` is as before.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors.js';
import type { DatabaseSource } from '../sources/source.js';
import { DirectorySink } from './output-sink.js';
import { checkArchiveName, DEFAULTS, plannedTopLevelNames, writeSiard, type SiardExportOptions, type SiardExportSummary } from './writer.js';

export async function exportToDirectory(source: DatabaseSource, outDir: string, options: SiardExportOptions): Promise<SiardExportSummary> {
  checkArchiveName(options.name);
  const stat = await fsp.stat(outDir).catch(() => undefined);
  if (stat && !stat.isDirectory()) throw new UsageError(`The out-dir ${outDir} exists and is not a folder.`, 'OUTPUT_NOT_DIR');
  const { siard, lobPrefix } = plannedTopLevelNames(options.name, options.lobLayout ?? DEFAULTS.lobLayout);
  if (stat) {
    await DirectorySink.removeStaleStaging(outDir);
    const clash = (await fsp.readdir(outDir)).find((n) => n === siard || n === lobPrefix || (lobPrefix.endsWith('_') && n.startsWith(lobPrefix)));
    if (clash) {
      throw new UsageError(`${path.join(outDir, clash)} already exists: the out-dir already holds an archive named "${options.name}".`, 'OUTPUT_EXISTS');
    }
  }
  const sink = new DirectorySink(outDir);
  try {
    const summary = await writeSiard(source, sink, options);
    await sink.commit();
    return summary;
  } catch (err) {
    await sink.abort().catch(() => undefined);
    if (!stat) await fsp.rmdir(outDir).catch(() => undefined); // we created it; leave nothing behind
    throw err;
  }
}
