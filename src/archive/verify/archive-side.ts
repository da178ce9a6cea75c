/**
 * The archive's side of a verify: each table's rows in compare form (compare-form.ts), as the
 * target's type mapping expects them (column-plan.ts), and, beside them, the table's fingerprint
 * in the form the export took it (siard/fingerprint/), to check against the source's. Every LOB
 * file is read once and checked against its cell as restore checks it (length, digest): its
 * SHA-256 is its form, its bytes too when it is short.
 */
import { SiardOcflError } from '../../errors.js';
import { isTextFamily } from '../../siard/model.js';
import { readCellForm } from '../../siard/fingerprint/cell-form.js';
import type { TableFingerprint } from '../../siard/fingerprint/row-hash.js';
import { describeLobCell, openLookedUp } from '../../siard/reader/lob-open.js';
import { lobCellsOfRow, type SiardTableRef } from '../../siard/reader/siard-reader.js';
import { isComplexValue, type SiardLobCell, type SiardReadCellValue, type SiardReadRow } from '../../siard/reader/types.js';
import { verifiedChunks, type LobVerificationWithExtras } from '../../siard/reader/verify-lob.js';
import { complexJson, type LoadComplex, type LoadValue } from '../../sources/loader.js';
import type { OpenedArchive } from '../open-archive.js';
import type { ColumnPlan } from './column-plan.js';
import { canonBytes, canonLexical, canonText, digestCanon, SHORT_BYTES } from './compare-form.js';
import { complexArchiveCanon } from './complex-form.js';
import type { Cells } from './pending-rows.js';

/** A LOB file as read: its SHA-256, its bytes when short (or when asked for whole). */
interface ReadLob {
  sha256: string;
  data?: Buffer;
  text: boolean;
}

/** Values the target's mapping changed, by column index. */
export type ExpectedChanges = number[];

/** Reads a LOB file through, checked against its cell; stops naming the cell when it does not match. */
async function readLob(archive: OpenedArchive, cell: SiardLobCell, whole: boolean): Promise<ReadLob> {
  const stream = openLookedUp(archive.reader, cell, await archive.lobs.lookup(cell), archive.access);
  let result: LobVerificationWithExtras | undefined;
  const parts: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of verifiedChunks(stream, cell.ref, { family: cell.family, extraDigests: ['SHA-256'] }, (r) => (result = r))) {
    bytes += chunk.length;
    if (whole || bytes <= SHORT_BYTES) parts.push(chunk);
  }
  const where = describeLobCell(archive.reader, cell);
  if (result!.lengthOk === false)
    throw new SiardOcflError(
      `${where}: LOB file "${cell.ref.file}" has ${result!.bytes} bytes, but the cell says length ${cell.ref.length}.`,
      {
        code: 'LOB_LENGTH',
        exitCode: 1,
      },
    );
  if (result!.digestOk === false)
    throw new SiardOcflError(
      `${where}: LOB file "${cell.ref.file}" has ${result!.digestType} digest ${result!.digest}, but the cell says ${cell.ref.digest}.`,
      { code: 'LOB_DIGEST', exitCode: 1 },
    );
  const read: ReadLob = { sha256: result!.digests['SHA-256']!, text: isTextFamily(cell.family) };
  if (whole || bytes <= SHORT_BYTES) read.data = Buffer.concat(parts);
  return read;
}

/** A LOB's compare form: its text or hex when short, else its digest. */
function lobCanon(lob: ReadLob, plan: ColumnPlan): string {
  if (lob.data === undefined || lob.data.length > SHORT_BYTES) return digestCanon(lob.sha256);
  return lob.text ? canonLexical(lob.data.toString('utf8'), plan.canon) : canonBytes(lob.data);
}

/** What a loader stores for a nested value it holds as JSON (sources/loader.ts complexJson), from the archive's cell. */
async function loaderJson(value: SiardReadCellValue, path: string, lobs: Map<string, ReadLob>): Promise<string> {
  const convert = (v: SiardReadCellValue | undefined, p: string): LoadValue => {
    if (v === null || v === undefined || typeof v === 'string' || v instanceof Uint8Array) return v ?? null;
    if (isComplexValue(v)) {
      const elements = new Map<number, LoadValue>();
      for (const [i, e] of v.elements) elements.set(i, convert(e, `${p}/${v.kind === 'array' ? 'a' : 'u'}${i}`));
      return { kind: v.kind, elements };
    }
    const data = lobs.get(p)!;
    return {
      kind: 'lob',
      text: data.text,
      chunks: (async function* () {
        yield data.data!;
      })(),
    };
  };
  return JSON.stringify(await complexJson(convert(value, path) as LoadComplex));
}

/** A row's LOB files read, and the JSON its nested values become in a target that holds them as JSON. */
interface RowExtras {
  lobs?: Map<string, ReadLob>;
  json?: Map<number, string>;
}

/** Whether a row holds only inline values (no LOB file, no ARRAY or UDT): most rows, formed without waiting. */
function isPlainRow(cells: readonly SiardReadCellValue[]): boolean {
  for (const v of cells) if (v !== null && typeof v !== 'string' && !(v instanceof Uint8Array)) return false;
  return true;
}

/** Reads what a row that is not plain needs before its forms: its LOB files, the JSON of its nested values. */
async function rowExtras(archive: OpenedArchive, t: SiardTableRef, plans: readonly ColumnPlan[], row: SiardReadRow): Promise<RowExtras> {
  const extras: RowExtras = {};
  for (const cell of lobCellsOfRow(t, row)) {
    extras.lobs ??= new Map();
    extras.lobs.set(cell.cellPath.join('/'), await readLob(archive, cell, plans[cell.column - 1]?.json ?? false));
  }
  for (let c = 0; c < plans.length; c++) {
    const v = row.cells[c] ?? null;
    if (plans[c]!.json && v !== null && isComplexValue(v))
      (extras.json ??= new Map()).set(c, await loaderJson(v, `c${c + 1}`, extras.lobs ?? new Map()));
  }
  return extras;
}

/** The compare form of cell `c`. */
function cellCanon(v: SiardReadCellValue, c: number, plan: ColumnPlan, extras: RowExtras): string | null {
  if (v === null) return null;
  if (plan.json) {
    const json = extras.json?.get(c);
    if (json !== undefined) return canonText(json);
    // an empty ARRAY cell (<cN/>) is an empty array (restore.ts), else the text as it was stored
    if (plan.shape.kind === 'array' && (v === '' || (v instanceof Uint8Array && v.length === 0))) return '[]';
  }
  if (typeof v === 'string') return plan.json ? canonText(v) : canonLexical(v, plan.canon);
  if (v instanceof Uint8Array) return canonBytes(v);
  const lobAt = (p: string) => {
    const lob = extras.lobs?.get(p);
    return lob && lobCanon(lob, plan);
  };
  if (isComplexValue(v) || plan.shape.kind !== 'scalar') return complexArchiveCanon(v, plan.shape, `c${c + 1}`, lobAt);
  return lobAt(`c${c + 1}`) ?? null;
}

/**
 * The compare forms of one archived row, each changed as the target's mapping changes it (a plan's
 * `expect`, column-plan.ts); `changed` counts per column the values so changed.
 */
export function rowCanon(
  plans: readonly ColumnPlan[],
  cells: readonly SiardReadCellValue[],
  extras: RowExtras,
  changed: ExpectedChanges,
): Cells {
  const out: Cells = new Array(plans.length);
  for (let c = 0; c < plans.length; c++) {
    const plan = plans[c]!;
    let canon = cellCanon(cells[c] ?? null, c, plan, extras);
    if (plan.expect && canon !== null) {
      const mapped = plan.expect(canon);
      if (mapped !== canon) {
        changed[c] = (changed[c] ?? 0) + 1;
        canon = mapped;
      }
    }
    out[c] = canon;
  }
  return out;
}

/** The row's cells in the form the export's fingerprint took them (siard/fingerprint/cell-form.ts). */
function fingerprintForms(cells: readonly SiardReadCellValue[], n: number, extras: RowExtras): Array<string | null> {
  const lobForm = (p: string) => {
    const lob = extras.lobs?.get(p);
    return lob && '#' + lob.sha256;
  };
  const forms = new Array<string | null>(n);
  for (let c = 0; c < n; c++) forms[c] = readCellForm(cells[c] ?? null, `c${c + 1}`, lobForm) ?? null;
  return forms;
}

const NO_EXTRAS: RowExtras = {};

/** fingerprintForms of a plain row: text as it is, bytes as hex. */
function plainForms(cells: readonly SiardReadCellValue[], n: number): Array<string | null> {
  if (cells.length === n && cells.every((v) => !(v instanceof Uint8Array))) return cells as Array<string | null>;
  const forms = new Array<string | null>(n);
  for (let c = 0; c < n; c++) {
    const v = cells[c] ?? null;
    forms[c] = v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex') : (v as string | null);
  }
  return forms;
}

/** The table's rows in compare form, batch by batch as the reader gives them. */
export async function* archiveRows(
  archive: OpenedArchive,
  t: SiardTableRef,
  plans: readonly ColumnPlan[],
  changed: ExpectedChanges,
  fingerprint?: TableFingerprint,
): AsyncGenerator<Cells[]> {
  for await (const batch of archive.reader.rowBatches(t)) {
    const out: Cells[] = new Array(batch.length);
    for (let r = 0; r < batch.length; r++) {
      const row = batch[r]!;
      const extras = isPlainRow(row.cells) ? NO_EXTRAS : await rowExtras(archive, t, plans, row);
      out[r] = rowCanon(plans, row.cells, extras, changed);
      fingerprint?.add(extras === NO_EXTRAS ? plainForms(row.cells, plans.length) : fingerprintForms(row.cells, plans.length, extras));
    }
    yield out;
  }
}
