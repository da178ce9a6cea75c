/**
 * relocate: a new version of an object in which each `.siard` differs from the previous one only
 * in `header/metadata.xml`, whose database-level `lobFolder` names the new base URI
 * (metadata-version.ts does the rewriting, as for `describe`).
 *
 * metadata.xml is edited as text: only the content of the database-level <lobFolder> changes (or
 * one is inserted after <dataOriginTimespan>), and the result is parsed back to prove that nothing
 * else changed.
 *
 * A METS index beside a .siard keeps locating the segment folders relative to itself, where the
 * object keeps them, whatever lobFolder metadata.xml names (a note says so for an absolute URI).
 */
import { SiardOcflError, UsageError } from '../errors.js';
import type { OcflStorageRoot } from '../ocfl/root.js';
import type { MetsChecksumType } from '../siard/mets/types.js';
import { parseSiardMetadata } from '../siard/reader/metadata.js';
import { checkLobFolderBase } from '../siard/writer.js';
import { escapeXml } from '../siard/xml-text.js';
import type { VersionInfoOptions } from './ingest.js';
import { rewriteMetadataVersion } from './metadata-version.js';
import { isAbsoluteUri } from './storage-base.js';
import type { SiardArchive } from '../siard/model.js';

export interface RelocateOptions extends VersionInfoOptions {
  /** new database-level lobFolder: a URI ending in '/', e.g. file:///Archives/Northwind/ */
  lobFolder: string;
  /** progress: the bytes of the .siard files to copy, once, before the first */
  onPlan?: (plan: { archives: number; bytes: number }) => void;
  /** progress: bytes of the new .siard files written */
  onBytes?: (bytes: number) => void;
  /** progress: after each .siard */
  onArchiveDone?: () => void;
}

export interface RelocateResult {
  id: string;
  version: string;
  /** logical paths of the rewritten .siard files, with their old and new lobFolder */
  archives: Array<{ path: string; from?: string; to: string; messageDigestRangeBytes: number }>;
  /** files stored new in this version (the rewritten .siard files and METS parents) */
  stored: number;
  /** METS indexes (parent mets.xml beside a .siard) written again for the new .siard */
  mets: Array<{ path: string; siard: string; checksumType: MetsChecksumType; size: number; checksum: string; childrenUnchanged: number }>;
  /** what the user should know about the result that is not a problem */
  notes: string[];
}

/**
 * metadata.xml with its database-level lobFolder set to `uri`; every other byte unchanged.
 * The database-level element is the one before <schemas> (column lobFolders lie inside it).
 */
export function rewriteDatabaseLobFolder(xml: string, uri: string, what = 'metadata.xml'): string {
  const encoding = /^\s*<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/.exec(xml)?.[1];
  if (encoding && !/^utf-?8$/i.test(encoding))
    throw new SiardOcflError(`${what} is encoded in ${encoding}; only UTF-8 metadata can be rewritten.`, { code: 'RELOCATE_ENCODING' });
  const schemas = /<([\w.-]+:)?schemas[\s>/]/.exec(xml);
  const head = schemas ? xml.slice(0, schemas.index) : xml;
  const value = escapeXml(uri);
  const existing = /<([\w.-]+:)?lobFolder(\s[^>]*)?>([\s\S]*?)<\/([\w.-]+:)?lobFolder\s*>|<([\w.-]+:)?lobFolder(\s[^>]*)?\/>/.exec(head);
  if (existing) {
    const prefix = existing[1] ?? existing[5] ?? '';
    const replacement = `<${prefix}lobFolder>${value}</${prefix}lobFolder>`;
    return xml.slice(0, existing.index) + replacement + xml.slice(existing.index + existing[0].length);
  }
  const after = /<\/([\w.-]+:)?dataOriginTimespan\s*>/.exec(head);
  if (!after)
    throw new SiardOcflError(`${what} has no <dataOriginTimespan> to place a database-level <lobFolder> after.`, {
      code: 'RELOCATE_METADATA',
    });
  const prefix = after[1] ?? '';
  const lineStart = xml.lastIndexOf('\n', after.index);
  const indent = /^[ \t]*/.exec(xml.slice(lineStart + 1))![0];
  const at = after.index + after[0].length;
  return `${xml.slice(0, at)}\n${indent}<${prefix}lobFolder>${value}</${prefix}lobFolder>${xml.slice(at)}`;
}

/** Rewrites the database-level lobFolder of every .siard in the head of object `id`, as a new version. */
export async function relocate(rootArg: string | OcflStorageRoot, id: string, options: RelocateOptions): Promise<RelocateResult> {
  try {
    checkLobFolderBase(options.lobFolder);
  } catch (err) {
    throw new UsageError((err as Error).message, 'BAD_LOB_FOLDER');
  }
  const { lobFolder, onPlan, onBytes, onArchiveDone, message, user } = options;
  const result = await rewriteMetadataVersion(rootArg, id, {
    verb: 'relocate',
    edit: async (xml, logicalPath) => {
      const { newXml, before } = relocatedMetadata(xml, logicalPath, lobFolder);
      return { xml: newXml, report: before.lobFolder };
    },
    defaultMessage: () => `siard-ocfl relocate: lobFolder ${lobFolder}`,
    metsNote: (parentPath) =>
      isAbsoluteUri(lobFolder)
        ? `${parentPath}: the METS index still locates the segment folders relative to itself, where the object keeps ` +
          `them, not at ${lobFolder}, which only metadata.xml names.`
        : undefined,
    ...(message !== undefined ? { message } : {}),
    ...(user !== undefined ? { user } : {}),
    ...(onPlan ? { onPlan } : {}),
    ...(onBytes ? { onBytes } : {}),
    ...(onArchiveDone ? { onArchiveDone } : {}),
  });
  return {
    id,
    version: result.version!,
    archives: result.archives.map((a) => ({
      path: a.path,
      ...(a.report !== undefined ? { from: a.report } : {}),
      to: lobFolder,
      messageDigestRangeBytes: a.messageDigestRangeBytes,
    })),
    stored: result.stored,
    mets: result.mets,
    notes: result.notes,
  };
}

/**
 * The archive's header/metadata.xml with its database lobFolder set to `lobFolder`, checked by
 * parsing both back: nothing else of the archive may change.
 */
function relocatedMetadata(oldXml: string, logicalPath: string, lobFolder: string): { newXml: string; before: SiardArchive } {
  const newXml = rewriteDatabaseLobFolder(oldXml, lobFolder, `${logicalPath}: header/metadata.xml`);
  const before = parseSiardMetadata(oldXml, logicalPath).archive;
  const after = parseSiardMetadata(newXml, logicalPath).archive;
  if (
    after.lobFolder !== lobFolder ||
    JSON.stringify({ ...after, lobFolder: undefined }) !== JSON.stringify({ ...before, lobFolder: undefined })
  ) {
    throw new SiardOcflError(
      `${logicalPath}: rewriting the lobFolder of header/metadata.xml would change more than the lobFolder; nothing was written.`,
      {
        code: 'RELOCATE_METADATA',
      },
    );
  }
  return { newXml, before };
}
