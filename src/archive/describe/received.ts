/**
 * `ingest --describe` of a SIARD package stored as received. The package's bytes are what was
 * received, so the description does not rewrite them: the ingest stores the package as received
 * (its version as ever), and the template is then applied as the next version, in which only
 * header/metadata.xml of the .siard changes (describeObject: one new content file, no LOB file
 * read or stored again). The history keeps both, as it keeps a received absolute lobFolder before
 * a relocate.
 *
 * The template is applied to the package's metadata.xml before anything is stored, so a name the
 * package does not hold, or a text metadata.xml cannot carry, is refused (exit 2) with nothing written.
 */
import { SiardOcflError } from '../../errors.js';
import type { OcflStorageRoot } from '../../ocfl/root.js';
import { openLocalSiard } from '../../siard/segments/segment-set-reader.js';
import type { VersionInfoOptions } from '../version-info.js';
import { metadataText } from '../metadata-version.js';
import { describeMetadata } from './apply.js';
import { describeObject } from './describe.js';

/** What the version after the received one holds: its name (none when the template changed nothing) and the texts set. */
export interface DescribedAfterIngest {
  version?: string;
  /** texts set or cleared */
  texts: number;
  /** files stored new by the described version (the .siard, and a METS index beside it) */
  stored: number;
}

/** Applies `template` to the metadata.xml of the package `siardFile` in memory: throws (exit 2) on what it cannot apply. */
export async function checkTemplateOnPackage(siardFile: string, template: unknown): Promise<void> {
  const reader = await openLocalSiard(siardFile);
  try {
    const what = `${siardFile}: header/metadata.xml`;
    await describeMetadata(await metadataText(reader, what), template, what);
  } finally {
    reader.close();
  }
}

/**
 * The version after the one of object `id` that holds the package as received (`received`, or the
 * head when the ingest found it unchanged): the template applied to it.
 */
export async function describeAfterIngest(
  root: string | OcflStorageRoot,
  id: string,
  received: string,
  template: unknown,
  options: Pick<VersionInfoOptions, 'user'>,
): Promise<{ described: DescribedAfterIngest; notes: string[] }> {
  let described;
  try {
    described = await describeObject(root, id, template, options.user ? { user: options.user } : {});
  } catch (err) {
    const e = err as SiardOcflError;
    throw new SiardOcflError(
      `Object "${id}" ${received} holds the package as received, but describing it failed, so no described version was ` +
        `written (run describe --apply on the object): ${e.message}`,
      { code: e.code ?? 'DESCRIBE_AFTER_INGEST', exitCode: e.exitCode ?? 2, cause: err },
    );
  }
  const texts = new Set(described.archives.flatMap((a) => a.changes.map((c) => `${c.path}.${c.field}`))).size;
  return {
    described: { ...(described.version !== undefined ? { version: described.version } : {}), texts, stored: described.stored },
    notes: described.notes,
  };
}
