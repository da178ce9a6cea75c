/**
 * `describe`: the template of an archive's describable texts, and a template applied either as a
 * new object version in which only header/metadata.xml of each .siard changes (metadata-version.ts,
 * as relocate: content entries copied byte for byte, LOB files neither read nor stored again), or
 * as a described copy of a bare .siard in another folder.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../../errors.js';
import type { OcflStorageRoot } from '../../ocfl/root.js';
import { DirectorySink } from '../../siard/output-sink.js';
import { SiardReader } from '../../siard/reader/siard-reader.js';
import type { VersionInfoOptions } from '../version-info.js';
import { metadataText, rewriteArchive, rewriteMetadataVersion, type MetsRewritten } from '../metadata-version.js';
import { openArchive, type ArchiveSource } from '../open-archive.js';
import { describeMetadata, type DescribedChange } from './apply.js';
import { templateOf, type DescribeTemplate } from './template.js';
import { placedTree } from './xml-positions.js';

export type { DescribeTemplate } from './template.js';

/** The template of the archive at `source`, with its current texts. */
export async function describeTemplate(source: ArchiveSource): Promise<DescribeTemplate> {
  const archive = await openArchive(source);
  try {
    const what = `${archive.name}: header/metadata.xml`;
    return templateOf(placedTree(await metadataText(archive.reader, what), what));
  } finally {
    archive.reader.close();
  }
}

export interface DescribeResult {
  id?: string;
  /** the version committed; undefined when the template changed nothing (no version written) */
  version?: string;
  /** the described copy of a bare archive */
  file?: string;
  archives: Array<{ path: string; changes: DescribedChange[]; messageDigestRangeBytes: number }>;
  stored: number;
  mets: MetsRewritten[];
  notes: string[];
}

export interface DescribeOptions extends VersionInfoOptions {
  onPlan?: (plan: { archives: number; bytes: number }) => void;
  onBytes?: (bytes: number) => void;
  onArchiveDone?: () => void;
}

function versionMessage(changes: DescribedChange[]): string {
  const paths = [...new Set(changes.map((c) => (c.field === 'description' ? c.path : `${c.path}.${c.field}`)))];
  const shown = paths.slice(0, 5).join(', ') + (paths.length > 5 ? ` and ${paths.length - 5} more` : '');
  return `siard-ocfl describe: ${paths.length} text${paths.length === 1 ? '' : 's'} (${shown})`;
}

/** Applies `template` to every .siard of object `id` as a new version; none when nothing changes. */
export async function describeObject(
  root: string | OcflStorageRoot,
  id: string,
  template: unknown,
  options: DescribeOptions = {},
): Promise<DescribeResult> {
  const result = await rewriteMetadataVersion(root, id, {
    verb: 'describe',
    edit: async (xml, logicalPath) => {
      const described = await describeMetadata(xml, template, `${logicalPath}: header/metadata.xml`);
      return { xml: described.changes.length > 0 ? described.xml : undefined, report: described.changes };
    },
    // Segments repeat one metadata.xml: the message names each text once.
    defaultMessage: (reports) => versionMessage(reports[0] ?? []),
    ...options,
  });
  return {
    id,
    ...(result.version !== undefined ? { version: result.version } : {}),
    archives: result.archives.map((a) => ({ path: a.path, changes: a.report, messageDigestRangeBytes: a.messageDigestRangeBytes })),
    stored: result.stored,
    mets: result.mets,
    notes: result.notes,
  };
}

/**
 * A described copy of the bare .siard `siard` in `outDir`, under the same name. LOB folders
 * outside the .siard are not copied: the copy names them relative to itself as the original did.
 */
export async function describeCopy(siard: string, outDir: string, template: unknown): Promise<DescribeResult> {
  const name = path.basename(siard);
  if (path.resolve(path.dirname(siard)) === path.resolve(outDir))
    throw new UsageError(`The described copy of ${siard} would replace it; give another out-dir.`, 'DESCRIBE_OUTPUT');
  const reader = await SiardReader.open(siard);
  try {
    const what = `${name}: header/metadata.xml`;
    const described = await describeMetadata(await metadataText(reader, what), template, what);
    await mkdir(outDir, { recursive: true });
    const sink = new DirectorySink(outDir);
    await sink.assertAbsent([name]);
    let written;
    try {
      written = await rewriteArchive(reader, sink, name, Buffer.from(described.xml, 'utf8'));
      await sink.commit();
    } catch (err) {
      await sink.abort().catch(() => undefined);
      throw err;
    }
    const notes = reader.archive.schemas.some((s) => s.tables.some((t) => t.columns.some((c) => c.lobFolder !== undefined)))
      ? [`LOB files outside ${name} were not copied: the copy names them as the original does, relative to its own folder.`]
      : [];
    return {
      file: path.join(outDir, name),
      archives: [{ path: name, changes: described.changes, messageDigestRangeBytes: written.end }],
      stored: 1,
      mets: [],
      notes,
    };
  } finally {
    reader.close();
  }
}
