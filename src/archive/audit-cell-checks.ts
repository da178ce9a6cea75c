/**
 * Findings of the audit's planning about one LOB cell checked at once (inside the .siard, in a
 * zipped LOB folder, or not found at all), and about files of LOB folders that no cell references.
 */
import { Readable } from 'node:stream';
import { describeLobTarget, type LobLocation, type LobPart } from '../siard/lob-location.js';
import type { LobAccess } from '../siard/reader/lob-access.js';
import { openFoundLob } from '../siard/reader/lob-open.js';
import type { SiardReader } from '../siard/reader/siard-reader.js';
import type { SiardLobCell } from '../siard/reader/types.js';
import { findUnreferencedLobFiles, pathListLister } from '../siard/reader/unreferenced.js';
import { verifyLob } from '../siard/reader/verify-lob.js';
import { METS_FILE_NAME } from '../siard/mets/types.js';
import type { ObjectAuditContext } from './audit-context.js';
import type { FindingPlace } from './audit-lobs.js';

/** Files in LOB folders, and entries of the archive, that no cell references. */
export async function reportUnreferenced(
  ctx: ObjectAuditContext,
  state: ReadonlyMap<string, string>,
  siard: SiardReader,
  logicalPath: string,
  referenced: Parameters<typeof findUnreferencedLobFiles>[1],
): Promise<void> {
  const unreferenced = await findUnreferencedLobFiles(siard, referenced, pathListLister(state.keys()));
  // The METS index (--mets) puts a mets.xml at the top of each segment folder: part of the package.
  const isSegmentMets = (p: string) => {
    const parts = p.split('/');
    return parts.at(-1) === METS_FILE_NAME && parts.length >= 2 && /(_lobseg_|^seg_?)\d+$/.test(parts.at(-2)!);
  };
  const mets = unreferenced.external.filter(isSegmentMets);
  if (mets.length > 0) {
    const message =
      `${logicalPath}: ${mets.length} segment folders hold a METS index (${METS_FILE_NAME}), ` +
      `checked with the parent METS beside the .siard.`;
    ctx.add('info', 'SIARD_METS_INDEX', message, { path: logicalPath });
  }
  for (const p of unreferenced.external.filter((x) => !isSegmentMets(x))) {
    ctx.add('warning', 'LOB_UNREFERENCED', `${p} lies in a LOB folder of ${logicalPath} but no cell references it.`, { path: p });
  }
  for (const e of unreferenced.internal) {
    ctx.add('warning', 'LOB_UNREFERENCED', `${logicalPath}: entry ${e} inside the archive is referenced by no cell.`, {
      path: logicalPath,
    });
  }
}

export function reportUnfound(
  ctx: ObjectAuditContext,
  state: ReadonlyMap<string, string>,
  location: LobLocation,
  cell: SiardLobCell,
  where: FindingPlace,
): void {
  const p = location.primary;
  const cellText = `table ${where.table}, row ${where.row}, column ${where.column}`;
  if (p.kind === 'invalid') {
    ctx.add(
      'error',
      'LOB_INVALID_LOCATION',
      `${where.path}: ${cellText}: LOB file "${cell.ref.file}" has no usable location: ${p.reason}`,
      where,
    );
  } else if (p.kind === 'outside') {
    if (p.absolutePath !== undefined) {
      const message =
        `${where.path}: ${cellText}: LOB file "${cell.ref.file}" lies outside the object ` +
        `at ${describeLobTarget(p)}; it was not verified.`;
      ctx.add('warning', 'LOB_OUTSIDE', message, where);
    } else {
      const message =
        `${where.path}: ${cellText}: LOB file "${cell.ref.file}" resolves to ${describeLobTarget(p)}, above the ` +
        `object's logical root.`;
      ctx.add('error', 'LOB_ESCAPES', message, where);
    }
  } else {
    const target = p.kind === 'internal' ? `entry ${p.entry} inside the .siard` : p.path;
    const ext = p.kind === 'external' ? p.path : undefined;
    const first = ext !== undefined ? [`${ext}.0`, `${ext}_part001`].find((x) => state.has(x)) : undefined;
    if (ext !== undefined && first) {
      const message =
        `${where.path}: ${cellText}: the split LOB ${ext} is incomplete: ${first} is ` +
        `there but a later part (or the final .z) is missing.`;
      ctx.add('error', 'LOB_SPLIT_INCOMPLETE', message, { ...where, path: ext });
    } else {
      ctx.add('error', 'LOB_MISSING', `${where.path}: ${cellText}: LOB file ${target} is missing.`, {
        ...where,
        path: p.kind === 'external' ? p.path : where.path,
      });
    }
  }
}

export async function checkInternalLob(
  ctx: ObjectAuditContext,
  siard: SiardReader,
  entries: string[],
  cell: SiardLobCell,
  where: FindingPlace,
): Promise<void> {
  const cellAt = `${where.path}: table ${where.table}, row ${where.row}, column ${where.column}`;
  try {
    const joined = (async function* () {
      for (const e of entries) for await (const c of (await siard.zip.openStream(siard.root + e)) as AsyncIterable<Buffer>) yield c;
    })();
    const v = await verifyLob(Readable.from(joined), cell.ref, { family: cell.family });
    const at = `the LOB inside the archive (${entries[0]})`;
    if (v.lengthOk === false) {
      ctx.add('error', 'LOB_LENGTH', `${cellAt}: ${at} has ${v.bytes} bytes, but the cell says length ${cell.ref.length}.`, where);
    }
    if (v.digestOk === false) {
      ctx.add('error', 'LOB_DIGEST', `${cellAt}: ${at} has ${v.digestType} ${v.digest}, but the cell says ${cell.ref.digest}.`, where);
    }
  } catch (err) {
    ctx.add('error', 'SIARD_ENTRY', `${cellAt}: ${(err as Error).message}`, where);
  }
}

export async function checkZippedLob(
  ctx: ObjectAuditContext,
  access: LobAccess,
  parts: LobPart[],
  cell: SiardLobCell,
  where: FindingPlace,
): Promise<void> {
  const first = (parts[0] as { path: string }).path;
  const cellAt = `${where.path}: table ${where.table}, row ${where.row}, column ${where.column}`;
  try {
    const found = { target: parts[0]!, parts, split: parts.length > 1 ? ('lobseg' as const) : ('whole' as const) };
    const v = await verifyLob(openFoundLob(found, access), cell.ref, { family: cell.family });
    const at = `the LOB ${first} (in its zipped LOB folder)`;
    if (v.lengthOk === false) {
      ctx.add('error', 'LOB_LENGTH', `${cellAt}: ${at} has ${v.bytes} bytes, but the cell says length ${cell.ref.length}.`, where);
    }
    if (v.digestOk === false) {
      ctx.add('error', 'LOB_DIGEST', `${cellAt}: ${at} has ${v.digestType} ${v.digest}, but the cell says ${cell.ref.digest}.`, where);
    }
  } catch (err) {
    ctx.add('error', 'LOB_ZIPPED', `${cellAt}: ${first} cannot be read from its zipped LOB folder: ${(err as Error).message}`, where);
  }
}
