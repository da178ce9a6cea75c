/**
 * A parent METS written again for a new `.siard` (after relocate rewrote its metadata.xml): the
 * same document with the SIARD file's SIZE and CHECKSUM replaced, a LASTMODDATE added, and
 * nothing else changed. The child METS it lists are not touched, so their entries (IDs, hrefs,
 * sizes, checksums) are carried over as they are.
 *
 * The parent is read back (reader.ts) into the writer's options and written again with its old
 * facts first: only when that reproduces the old bytes exactly is the new document written, so
 * the result is what writeParentMets would write for the new `.siard` and provably differs from
 * the old one in those attributes alone. A parent this writer did not write (another tool, hand
 * edits) is refused with the reason; the caller decides what to do (nothing is guessed).
 *
 * FLocat hrefs stay relative to the parent METS: they locate the files in the package the index
 * describes, independent of the database-level lobFolder (the seed's own example lists
 * `file:///Northwind_lobseg_0/mets.xml` beside a lobFolder `file:///S:/Archives/Northwind/`).
 */
import path from 'node:path/posix';
import { BufferWriter, type WrittenMets } from './output.js';
import { writeParentMets, type ParentMetsOptions } from './parent-writer.js';
import { parseMets } from './reader.js';
import { CHILD_IP_USE, METS_FILE_NAME, isMetsChecksumType, type MetsChecksumType, type MetsFileFacts } from './types.js';
import { decodeRelativeUrl } from './xml-text.js';

export interface ParentMetsUpdatePlan {
  /** the writer's options that reproduce the old parent byte for byte */
  options: ParentMetsOptions;
  checksumType: MetsChecksumType;
  /** path of the `.siard` relative to the parent METS folder, as its FLocat names it */
  siardPath: string;
  /** number of child METS the parent lists (carried over unchanged) */
  children: number;
}

export class ParentMetsNotUpdatable extends Error {}

/**
 * Reads `bytes` (a parent METS) into the options writeParentMets reproduces it from, or throws
 * ParentMetsNotUpdatable saying why it cannot be written again.
 */
export async function planParentMetsUpdate(bytes: Uint8Array, what: string): Promise<ParentMetsUpdatePlan> {
  const no = (why: string): never => {
    throw new ParentMetsNotUpdatable(why);
  };
  let parsed;
  try {
    parsed = await parseMets(bytes, what);
  } catch (err) {
    return no((err as Error).message.replace(/\.$/, ''));
  }
  const hrefOf = (file: (typeof parsed.files)[number], label: string): string => {
    const href = file.flocats.length === 1 ? file.flocats[0]!.href : undefined;
    if (href === undefined) return no(`${label} has no single FLocat`);
    const decoded = decodeRelativeUrl(href);
    if ('problem' in decoded) return no(`the FLocat "${href}" of ${label} cannot be used: ${decoded.problem}`);
    return decoded.path;
  };
  const siards = parsed.files.filter((f) => f.use !== CHILD_IP_USE);
  if (siards.length !== 1) no(`it lists ${siards.length} files outside the "${CHILD_IP_USE}" group, not one .siard`);
  const siard = siards[0]!;
  const checksumType = siard.checksumType ?? '';
  if (!isMetsChecksumType(checksumType)) return no(`the CHECKSUMTYPE "${checksumType}" of its .siard is not one this tool computes`);
  if (parsed.objId === undefined) return no('it has no OBJID');
  const date = (value: string | undefined, name: string): Date | undefined => {
    if (value === undefined) return undefined;
    const d = new Date(value);
    if (Number.isNaN(d.getTime())) no(`its ${name} "${value}" is not a date`);
    return d;
  };
  const numberOf = (size: string | undefined, label: string): number =>
    size !== undefined && /^\d+$/.test(size) ? Number(size) : no(`${label} has no usable SIZE`);
  const children = parsed.files
    .filter((f) => f.use === CHILD_IP_USE)
    .map((f) => {
      const label = `the child METS entry ${f.id ?? '(no ID)'}`;
      const p = hrefOf(f, label);
      if (path.basename(p) !== METS_FILE_NAME || !p.includes('/')) no(`${label} does not name a ${METS_FILE_NAME} in a segment folder`);
      return { segment: path.dirname(p), size: numberOf(f.size, label), checksum: f.checksum ?? no(`${label} has no CHECKSUM`) };
    });
  const siardPath = hrefOf(siard, 'its .siard entry');
  const createDate = date(parsed.createDate, 'CREATEDATE');
  const lastModDate = date(parsed.lastModDate, 'LASTMODDATE');
  const options: ParentMetsOptions = {
    objId: parsed.objId,
    checksumType,
    siard: {
      path: siardPath,
      size: numberOf(siard.size, 'its .siard entry'),
      checksum: siard.checksum ?? no('its .siard entry has no CHECKSUM'),
      ...(siard.transforms[0]?.algorithm !== undefined ? { transformAlgorithm: siard.transforms[0].algorithm } : {}),
    },
    children,
    ...(createDate ? { createDate } : {}),
    ...(lastModDate ? { lastModDate } : {}),
    ...(parsed.agentName !== undefined ? { agentName: parsed.agentName } : {}),
  };
  let again: Buffer;
  try {
    const out = new BufferWriter();
    await writeParentMets(out, options);
    again = out.bytes();
  } catch (err) {
    return no((err as Error).message.replace(/\.$/, ''));
  }
  if (!again.equals(Buffer.from(bytes)))
    no('it is not in the form this tool writes, so it cannot be written again without losing something');
  return { options, checksumType, siardPath, children: children.length };
}

/** The parent of `plan` for a new `.siard`: its SIZE and CHECKSUM, and LASTMODDATE `now`. */
export async function writeUpdatedParentMets(
  plan: ParentMetsUpdatePlan,
  siard: MetsFileFacts,
  now: Date,
): Promise<{ bytes: Buffer } & WrittenMets> {
  const out = new BufferWriter();
  const written = await writeParentMets(out, {
    ...plan.options,
    siard: { ...plan.options.siard, size: siard.size, checksum: siard.checksum },
    lastModDate: now,
  });
  return { bytes: out.bytes(), ...written };
}
