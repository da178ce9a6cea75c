/**
 * `cat`: the bytes of one logical file of an object's version. With `joinChunks`, a split LOB is
 * named by the whole file's name (`record7.bin`) and its parts (`record7.bin.0` ... `.z` across
 * lobseg folders, or `_part001` ... across `seg_` folders) are streamed one after another, found
 * among the version's logical paths by the same rule the SIARD reader uses (lob-location.ts).
 * Every byte read is checked against the manifest digest of its file: a damaged file fails the
 * stream (the caller stops with an error) instead of passing on wrong bytes silently.
 */
import { Readable } from 'node:stream';
import { SiardOcflError } from '../errors.js';
import { MultiHasher } from '../ocfl/digest.js';
import type { OcflObjectReader } from '../ocfl/object/object.js';
import { findLob, type LobLocation } from '../siard/lob-location.js';

export interface CatOptions {
  /** version to read (default: head) */
  version?: string;
  /** name a split LOB by its whole name and stream its parts joined */
  joinChunks?: boolean;
}

export interface CatFile {
  /** the version read */
  version: string;
  /** the logical files streamed, in order (one, or the parts of a split LOB) */
  parts: string[];
  /** the bytes, each part checked against its manifest digest as it is read */
  stream: Readable;
}

/** Opens a logical file (or a split LOB's parts joined) of a version; one sentence when there is none. */
export async function catLogicalFile(reader: OcflObjectReader, logicalPath: string, options: CatOptions = {}): Promise<CatFile> {
  const version = options.version ?? reader.head;
  if (!reader.hasVersion(version)) {
    throw new SiardOcflError(`Object "${reader.id}" has no version ${version} (its head is ${reader.head}).`, {
      code: 'NO_SUCH_VERSION',
    });
  }
  const state = reader.state(version);
  let parts = [logicalPath];
  if (!state.has(logicalPath)) {
    const split = options.joinChunks ? await splitParts(logicalPath, (p) => state.has(p)) : undefined;
    if (!split) {
      const hint =
        !options.joinChunks && (state.has(`${logicalPath}.0`) || state.has(`${logicalPath}_part001`))
          ? ' (it is split: add --join-chunks to read its parts joined)'
          : '';
      throw new SiardOcflError(`Object "${reader.id}" version ${version} has no file "${logicalPath}"${hint}.`, {
        code: 'NO_SUCH_FILE',
      });
    }
    parts = split;
  }
  const id = reader.id;
  const stream = Readable.from(
    (async function* () {
      for (const part of parts) {
        const expected = reader.digestOf(part, version).toLowerCase();
        const hash = await MultiHasher.create([reader.digestAlgorithm]);
        for await (const chunk of reader.openLogical(part, version) as AsyncIterable<Buffer>) {
          hash.update(chunk);
          yield chunk;
        }
        const got = Object.values(hash.digests())[0];
        if (got !== expected) {
          throw new SiardOcflError(
            `Object "${id}" version ${version} file "${part}": its bytes have digest ${got}, ` +
              `not the manifest's ${expected}; the output is incomplete.`,
            { code: 'DIGEST_MISMATCH', exitCode: 1 },
          );
        }
      }
    })(),
    { objectMode: false },
  );
  return { version, parts, stream };
}

/** The parts of a split LOB named by its whole name, in order, or undefined when it is not split (or incomplete). */
async function splitParts(logicalPath: string, exists: (path: string) => boolean): Promise<string[] | undefined> {
  const target = { kind: 'external' as const, path: logicalPath, rule: 'database-folder' as const };
  const location: LobLocation = { primary: target, candidates: [target], warnings: [] };
  const found = await findLob(location, (part) => part.kind === 'external' && exists(part.path));
  if (!found || found.split === 'whole') return undefined;
  return found.parts.map((p) => (p.kind === 'external' ? p.path : p.entry));
}
