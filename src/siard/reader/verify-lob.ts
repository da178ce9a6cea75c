/**
 * Streams a LOB once, computing its digest and length, and compares them with the cell.
 *
 * Length: bytes for BLOB (and DATALINK); for CLOB/XML the specification says characters, and
 * producers differ: SiardGui counts characters (UTF-16 units, Java), DBPTK and Full Convert count
 * bytes, our writer counts Unicode code points. A CLOB length is accepted when it equals any of
 * the three, and the result says which one matched. Digest: over the stored bytes (case-insensitive
 * compare; SiardGui writes upper-case MD5).
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { NODE_HASH_OF_DIGEST_TYPE, type SiardDigestType } from '../model.js';
import type { SiardReadLobReference } from './types.js';
import { addTextLength, type TextLength } from '../text-length.js';

export type LobLengthUnit = 'bytes' | 'code points' | 'UTF-16 units';

export interface LobVerification {
  bytes: number;
  /** Unicode code points, when counted (CLOB/XML) */
  codePoints?: number;
  /** UTF-16 code units (Java String.length), when counted */
  utf16Units?: number;
  /** the digest computed with the cell's digestType (lower-case hex), if it has one we know */
  digest?: string;
  digestType?: SiardDigestType;
  /** true / false when the cell states a length; undefined when it does not */
  lengthOk?: boolean;
  /** which count matched the stated length */
  lengthUnit?: LobLengthUnit;
  /** true / false when the cell states a digest we can compute; undefined otherwise */
  digestOk?: boolean;
  /** lengthOk !== false && digestOk !== false */
  ok: boolean;
}

export interface VerifyLobOptions {
  /** 'clob' / 'xml' count characters as well as bytes; anything else counts bytes only */
  family?: 'blob' | 'clob' | 'xml' | 'datalink' | undefined;
  /** also compute these digest types (e.g. for the audit's fixity block) */
  extraDigests?: SiardDigestType[];
}

export interface LobVerificationWithExtras extends LobVerification {
  digests: Partial<Record<SiardDigestType, string>>;
}

/** Reads `stream` to its end; the caller owns nothing afterwards (the stream is consumed). */
export async function verifyLob(stream: Readable, ref: SiardReadLobReference, options: VerifyLobOptions = {}): Promise<LobVerificationWithExtras> {
  const types = new Set<SiardDigestType>(options.extraDigests ?? []);
  if (ref.digestType) types.add(ref.digestType);
  const hashes = [...types].map((t) => ({ type: t, hash: createHash(NODE_HASH_OF_DIGEST_TYPE[t]) }));
  const text = options.family === 'clob' || options.family === 'xml';
  const decoder = text ? new StringDecoder('utf8') : undefined;
  let bytes = 0;
  const length: TextLength = { codePoints: 0, utf16Units: 0 };
  const countText = (t: string): void => addTextLength(length, t);
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    for (const h of hashes) h.hash.update(chunk);
    if (decoder) countText(decoder.write(chunk));
  }
  if (decoder) countText(decoder.end());

  const digests: Partial<Record<SiardDigestType, string>> = {};
  for (const h of hashes) digests[h.type] = h.hash.digest('hex');
  const result: LobVerificationWithExtras = { bytes, digests, ok: true };
  if (text) {
    result.codePoints = length.codePoints;
    result.utf16Units = length.utf16Units;
  }
  if (ref.length !== undefined) {
    const matches: Array<[LobLengthUnit, number]> = text
      ? [
          ['code points', length.codePoints],
          ['UTF-16 units', length.utf16Units],
          ['bytes', bytes],
        ]
      : [['bytes', bytes]];
    const hit = matches.find(([, n]) => n === ref.length);
    result.lengthOk = hit !== undefined;
    if (hit) result.lengthUnit = hit[0];
  }
  if (ref.digestType) {
    result.digestType = ref.digestType;
    result.digest = digests[ref.digestType]!;
    if (ref.digest !== undefined) result.digestOk = ref.digest.toLowerCase() === result.digest;
  }
  result.ok = result.lengthOk !== false && result.digestOk !== false;
  return result;
}

/**
 * The chunks of a LOB stream, handed on as they are read while verifyLob checks them; once the
 * stream has been read through, `done` receives the verification (the caller decides whether a
 * mismatch stops it). The stream is destroyed when the consumer stops early.
 */
export async function* verifiedChunks(stream: Readable, ref: SiardReadLobReference, options: VerifyLobOptions, done: (result: LobVerificationWithExtras) => void): AsyncGenerator<Buffer> {
  const tee = new PassThrough();
  const check = verifyLob(tee, ref, options);
  check.catch(() => {});
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (!tee.write(chunk)) await once(tee, 'drain');
      yield chunk;
    }
  } finally {
    stream.destroy();
  }
  tee.end();
  done(await check);
}
