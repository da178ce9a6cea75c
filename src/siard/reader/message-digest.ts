/**
 * The archive-level `messageDigest` of metadata.xml (SIARD 2.x): a digest over the bytes of the
 * `.siard` from offset 0 up to the local header of the first `header/` entry, i.e. over all the
 * `content/` entries as stored. It lets the content be checked while metadata.xml (which holds the
 * digest) is rewritten, e.g. by relocate. Checked against siard2sql's encoding.siard (MD5).
 * SIARD 1.0 archives state one too, but over a range that could not be reproduced from the samples.
 */
import { createHash } from 'node:crypto';
import { NODE_HASH_OF_DIGEST_TYPE, type SiardArchive, type SiardDigestType } from '../model.js';
import type { SiardZip } from '../zip/siard-zip.js';
import type { SiardReader } from './siard-reader.js';

export interface MessageDigestCheck {
  digestType: SiardDigestType;
  /** lower-case hex as stated in metadata.xml */
  expected: string;
  /** lower-case hex computed over bytes [0, end) */
  actual: string;
  ok: boolean;
}

export interface MessageDigestResult {
  /** end of the digested range: offset of the first `header/` entry's local header */
  end: number;
  checks: MessageDigestCheck[];
}

/** Offset where the digested range ends, or undefined when the archive has no `header/` entry. */
export function messageDigestEnd(reader: { root: string; zip: Pick<SiardZip, 'entries'> }): number | undefined {
  const prefix = `${reader.root}header/`;
  const offsets = reader.zip.entries.filter((e) => e.name.startsWith(prefix)).map((e) => e.localHeaderOffset);
  return offsets.length === 0 ? undefined : Math.min(...offsets);
}

/** Recomputes every stated messageDigest in one read of the range; undefined when none is stated. */
export async function verifyArchiveMessageDigest(reader: SiardReader): Promise<MessageDigestResult | undefined> {
  return verifyZipMessageDigest(reader.zip, reader.root, reader.archive.messageDigests);
}

/**
 * The same for one ZIP file and the digests its metadata.xml states: a whole SIARD file, or one
 * segment of a segmented one (each segment digests its own bytes before its header/).
 */
export async function verifyZipMessageDigest(
  zip: Pick<SiardZip, 'entries' | 'readRange'>,
  root: string,
  stated: SiardArchive['messageDigests'],
): Promise<MessageDigestResult | undefined> {
  const end = messageDigestEnd({ root, zip });
  if (stated.length === 0 || end === undefined) return undefined;
  const types = [...new Set(stated.map((m) => m.digestType))];
  const hashes = new Map(types.map((t) => [t, createHash(NODE_HASH_OF_DIGEST_TYPE[t])]));
  if (end > 0) {
    for await (const chunk of zip.readRange(0, end - 1) as AsyncIterable<Buffer>) {
      for (const h of hashes.values()) h.update(chunk);
    }
  }
  const actual = new Map([...hashes].map(([t, h]) => [t, h.digest('hex')]));
  return {
    end,
    checks: stated.map((m) => ({
      digestType: m.digestType,
      expected: m.digest,
      actual: actual.get(m.digestType)!,
      ok: actual.get(m.digestType) === m.digest.toLowerCase(),
    })),
  };
}
