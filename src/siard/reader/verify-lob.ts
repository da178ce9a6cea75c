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
import { isTextFamily, NODE_HASH_OF_DIGEST_TYPE, type SiardDigestType } from '../model.js';
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
  /** text families ('char', 'clob', 'xml') count characters as well as bytes; anything else counts bytes only */
  family?: 'blob' | 'clob' | 'xml' | 'datalink' | 'char' | undefined;
  /** also compute these digest types (e.g. for the audit's fixity block) */
  extraDigests?: SiardDigestType[];
}

export interface LobVerificationWithExtras extends LobVerification {
  digests: Partial<Record<SiardDigestType, string>>;
}

/** What a LOB's stored bytes count: bytes always; code points and UTF-16 units when counted as text. */
export interface LobCounts {
  bytes: number;
  codePoints?: number;
  utf16Units?: number;
}

/**
 * Counts a LOB's bytes, and for text (CLOB/XML) its characters both ways, chunk by chunk: the one
 * counting every verification of a stated length uses (this reader's, and the audit's one read).
 */
export class LobCounter {
  bytes = 0;
  private readonly length: TextLength = { codePoints: 0, utf16Units: 0 };
  private readonly decoder: StringDecoder | undefined;

  constructor(readonly text: boolean) {
    this.decoder = text ? new StringDecoder('utf8') : undefined;
  }

  add(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.decoder) addTextLength(this.length, this.decoder.write(chunk));
  }

  /** The counts once every chunk has been added (a character cut at the end is counted here). */
  end(): LobCounts {
    if (!this.decoder) return { bytes: this.bytes };
    addTextLength(this.length, this.decoder.end());
    return { bytes: this.bytes, codePoints: this.length.codePoints, utf16Units: this.length.utf16Units };
  }
}

/**
 * The unit in which a LOB's counts equal the cell's stated length, or undefined when none does:
 * text is accepted in code points, UTF-16 units or bytes (see the head of this file), anything else
 * in bytes. A count that was not made (undefined) matches nothing.
 */
export function lobLengthUnit(length: number, counts: LobCounts, text: boolean): LobLengthUnit | undefined {
  const matches: Array<[LobLengthUnit, number | undefined]> = text
    ? [
        ['code points', counts.codePoints],
        ['UTF-16 units', counts.utf16Units],
        ['bytes', counts.bytes],
      ]
    : [['bytes', counts.bytes]];
  return matches.find(([, n]) => n === length)?.[0];
}

/** Reads `stream` to its end; the caller owns nothing afterwards (the stream is consumed). */
export async function verifyLob(
  stream: Readable,
  ref: SiardReadLobReference,
  options: VerifyLobOptions = {},
): Promise<LobVerificationWithExtras> {
  const types = new Set<SiardDigestType>(options.extraDigests ?? []);
  if (ref.digestType) types.add(ref.digestType);
  const hashes = [...types].map((t) => ({ type: t, hash: createHash(NODE_HASH_OF_DIGEST_TYPE[t]) }));
  const text = isTextFamily(options.family);
  const counter = new LobCounter(text);
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    counter.add(chunk);
    for (const h of hashes) h.hash.update(chunk);
  }
  const counts = counter.end();

  const digests: Partial<Record<SiardDigestType, string>> = {};
  for (const h of hashes) digests[h.type] = h.hash.digest('hex');
  const result: LobVerificationWithExtras = { bytes: counts.bytes, digests, ok: true };
  if (text) {
    result.codePoints = counts.codePoints!;
    result.utf16Units = counts.utf16Units!;
  }
  if (ref.length !== undefined) {
    const unit = lobLengthUnit(ref.length, counts, text);
    result.lengthOk = unit !== undefined;
    if (unit) result.lengthUnit = unit;
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
export async function* verifiedChunks(
  stream: Readable,
  ref: SiardReadLobReference,
  options: VerifyLobOptions,
  done: (result: LobVerificationWithExtras) => void,
): AsyncGenerator<Buffer> {
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
