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
import { verifyLob, type LobVerification } from '../siard/reader/verify-lob.js';
import { firstPartOfIncompleteSplit } from '../siard/check/lob-checks.js';
import { lobDigestVerdict, lobFileLabel, lobLengthVerdict, lobNotFoundVerdict } from '../siard/check/verdicts.js';
import { auditFail } from './audit-check.js';
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

/** A LOB cell whose file was not found: outside the object (the audit's own), else check's judgement and sentence. */
export async function reportUnfound(
  ctx: ObjectAuditContext,
  access: LobAccess,
  location: LobLocation,
  cell: SiardLobCell,
  where: FindingPlace,
): Promise<void> {
  const p = location.primary;
  const cellText = `table ${where.table}, row ${where.row}, column ${where.column}`;
  if (p.kind === 'outside') {
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
    return;
  }
  const first = p.kind === 'invalid' ? undefined : await firstPartOfIncompleteSplit(location.candidates, access);
  const split = first?.kind === 'external' ? first.path : first?.kind === 'internal' ? first.entry : undefined;
  const code = p.kind === 'invalid' ? 'LOB_INVALID_LOCATION' : split !== undefined ? 'LOB_SPLIT_INCOMPLETE' : 'LOB_MISSING';
  // a missing file is named by its path, where it applies; a split by the LOB's (its .0 is there)
  const path = p.kind === 'external' ? p.path : where.path;
  lobNotFoundVerdict(auditFail(ctx, code, `${where.path}: ${cellText}: `, { ...where, path }), cell.ref.file, p, {}, split);
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
    reportVerified(ctx, v, cell, lobFileLabel(entries[0]!, entries.length), cellAt, where);
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
    reportVerified(ctx, v, cell, lobFileLabel(first, parts.length), cellAt, where);
  } catch (err) {
    ctx.add('error', 'LOB_ZIPPED', `${cellAt}: ${first} cannot be read from its zipped LOB folder: ${(err as Error).message}`, where);
  }
}

/** A LOB read here (inside the .siard, in a zipped folder) judged by check's verdicts: its length and digest. */
function reportVerified(
  ctx: ObjectAuditContext,
  v: LobVerification,
  cell: SiardLobCell,
  file: string,
  cellAt: string,
  where: FindingPlace,
): void {
  lobLengthVerdict(auditFail(ctx, 'LOB_LENGTH', `${cellAt}: `, where), file, cell.ref.length, v, v.codePoints !== undefined, {});
  if (v.digestType) lobDigestVerdict(auditFail(ctx, 'LOB_DIGEST', `${cellAt}: `, where), file, v.digestType, v.digest, cell.ref.digest, {});
}
