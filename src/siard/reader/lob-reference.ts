/**
 * A LOB file cell's reference from its attributes (`file`, `length`, `digestType`, `digest`,
 * `dlurlpathonly`): one rule for every reader of table XML (saxes's, the fast paths of the reader
 * and of `check`), so they give the same value.
 */
import { SiardOcflError } from '../../errors.js';
import { normaliseSiardDigestType } from './metadata.js';
import type { SiardReadLobReference } from './types.js';

export function lobReference(attributes: Record<string, string>, where: () => string): SiardReadLobReference {
  const ref: SiardReadLobReference = { file: attributes['file']! };
  const length = attributes['length'];
  if (length !== undefined) {
    const t = length.trim();
    if (!/^\d+$/.test(t) || !Number.isSafeInteger(Number(t))) {
      throw new SiardOcflError(`${where()}: LOB length "${length}" is not a non-negative integer.`, { code: 'SIARD_TABLE', exitCode: 1 });
    }
    ref.length = Number(t);
  }
  const rawType = attributes['digestType'];
  if (rawType !== undefined) {
    const digestType = normaliseSiardDigestType(rawType);
    if (digestType) ref.digestType = digestType;
    else ref.digestTypeRaw = rawType;
  }
  if (attributes['digest'] !== undefined) ref.digest = attributes['digest'].trim().toLowerCase();
  if (attributes['dlurlpathonly'] !== undefined) ref.dlurlpathonly = attributes['dlurlpathonly'];
  return ref;
}
