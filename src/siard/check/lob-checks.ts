/**
 * LOB cells against the files they name: located through the lobFolder chain (as the DILCIS
 * Board's 2024 note reads it), present, length and digest right (T_6.4-5), file URIs (G_3.4-1,
 * G_3.4-2), split parts complete and in order (S_8.1.1-0), the folder layout (L_7.1-0, S_8.1-0,
 * zipped folders L_7.1-1; DATALINK files L_7.2-0 / S_8.3-0 of the seed), and files in LOB folders
 * that no cell references (P_4.2-3 inside the SIARD file, L_7.1-0 outside).
 */
import type { LobPart, LobTarget } from '../lob-location.js';
import type { LobAccess } from '../reader/lob-access.js';
import { lookupLob, openFoundLob, packageLobAccess } from '../reader/lob-open.js';
import type { SiardReader, SiardTableRef } from '../reader/siard-reader.js';
import type { SiardLobCell } from '../reader/types.js';
import { findUnreferencedLobFiles, type PackageLister } from '../reader/unreferenced.js';
import { verifyLob } from '../reader/verify-lob.js';
import { checkFileUri } from './metadata-checks.js';
import type { CheckReport, Where } from './report.js';
import { lobDigestVerdict, lobFileLabel, lobLengthVerdict, lobNotFoundVerdict } from './verdicts.js';

export interface LobCheckOptions {
  /** how LOB files are found and read (default: the package folder on disk) */
  access?: LobAccess;
  /** how LOB folders are listed for unreferenced files (default: the package folder on disk) */
  lister?: PackageLister;
}

interface LobCheckState {
  referenced: LobPart[];
  layouts: Set<string>;
  segments: Set<string>;
}

function layoutOf(p: string): string {
  if (/(^|\/)[^/]*_lobs\/s\d+_t\d+_c\d+\/seg_\d+\//.test(p)) return 'final';
  if (/(^|\/)[^/]*_lobseg_\d+\/content\/schema\d+\//.test(p)) return 'lobseg';
  return 'other';
}

function segmentOf(p: string): string | undefined {
  return /(^|\/)([^/]*_lobseg_\d+)\//.exec(p)?.[2] ?? /(^|\/)(s\d+_t\d+_c\d+\/seg_\d+)\//.exec(p)?.[2];
}

function pathOf(p: LobPart): string {
  return p.kind === 'internal' ? p.entry : p.path;
}

function withPath(p: LobPart, to: string): LobPart {
  return p.kind === 'internal' ? { ...p, entry: to } : { ...p, path: to };
}

const pad3 = (n: number) => String(n).padStart(3, '0');

/** A LOB not found whole nor complete: its `.0`, when a split of it was begun (lobseg, seed S_8.4-0). */
export async function firstPartOfIncompleteSplit(candidates: readonly LobTarget[], access: LobAccess): Promise<LobPart | undefined> {
  for (const t of candidates) {
    if (t.kind !== 'internal' && t.kind !== 'external') continue;
    const first = withPath(t, `${pathOf(t)}.0`);
    if (await access.exists(first)) return first;
  }
  return undefined;
}

/** `_part(n+2)` beside the last part found, `_part(n)`: the parts have a gap (a missing part reads as a short LOB). */
async function partAfterGap(last: LobPart, n: number, access: LobAccess): Promise<LobPart | undefined> {
  const p = pathOf(last);
  const next = withPath(last, p.replace(/_part\d{3}$/, `_part${pad3(n + 2)}`));
  return pathOf(next) !== p && (await access.exists(next)) ? next : undefined;
}

function whereOf(t: SiardTableRef, cell: SiardLobCell): Where {
  return {
    entry: cell.ref.file,
    table: `${t.schema.name}.${t.table.name}`,
    row: cell.row,
    column: t.table.columns[cell.column - 1]?.name ?? cell.cellPath[0]!,
  };
}

async function checkCell(
  reader: SiardReader,
  access: LobAccess,
  t: SiardTableRef,
  cell: SiardLobCell,
  state: LobCheckState,
  report: CheckReport,
): Promise<void> {
  const where = whereOf(t, cell);
  report.applies('T_6.4-5', 'T_6.2-1');
  checkFileUri(cell.ref.file, 'The file attribute', report, where);
  const lookup = await lookupLob(reader, cell, access);
  if (lookup.status === 'outside') {
    const why = 'lies outside the package folder, where the check does not read';
    report.note('T_6.4-5', `LOB file "${cell.ref.file}" ${why}; its length and digest were not checked.`, where);
    return;
  }
  if (lookup.status !== 'found') {
    const first = lookup.status === 'missing' ? await firstPartOfIncompleteSplit(lookup.location.candidates, access) : undefined;
    if (first) state.referenced.push(first);
    lobNotFoundVerdict(report.fail.bind(report), cell.ref.file, lookup.location.primary, where, first && pathOf(first));
    return;
  }
  const { found } = lookup;
  const skipped = found.split === 'siard22' ? await partAfterGap(found.parts.at(-1)!, found.parts.length, access) : undefined;
  if (skipped) {
    state.referenced.push(skipped);
    report.applies('S_8.1.1-0');
    report.fail(
      'S_8.1.1-0',
      `LOB "${cell.ref.file}" has parts up to _part${pad3(found.parts.length)}, then a gap before ${pathOf(skipped)}.`,
      where,
    );
  }
  state.referenced.push(...found.parts);
  for (const p of found.parts) {
    if (p.kind !== 'external') continue;
    state.layouts.add(cell.family === 'datalink' ? `datalink:${layoutOf(p.path)}` : layoutOf(p.path));
    const seg = segmentOf(p.path);
    if (seg) state.segments.add(seg);
    if (/\.zip\//i.test(p.path)) report.applies('L_7.1-1');
  }
  if (found.parts.length > 1) {
    report.applies('S_8.1.1-0');
    if (found.split === 'lobseg')
      report.note(
        'S_8.1.1-0',
        `LOB "${cell.ref.file}" is split as .0 ... .z (seed S_8.4-0), not _part001 ... as the final text names parts.`,
        where,
      );
  }
  let v;
  try {
    v = await verifyLob(openFoundLob(found, access), cell.ref, { family: cell.family });
  } catch (err) {
    report.fail('T_6.4-5', `LOB file "${cell.ref.file}" cannot be read: ${(err as Error).message}`, where);
    return;
  }
  // the file as found (its package path), as the audit names it: one judgement, one sentence (verdicts.ts)
  const file = lobFileLabel(pathOf(found.parts[0]!), found.parts.length);
  const fail = report.fail.bind(report);
  lobLengthVerdict(fail, file, cell.ref.length, v, v.codePoints !== undefined, where);
  if (v.digestType) lobDigestVerdict(fail, file, v.digestType, v.digest, cell.ref.digest, where);
  if (cell.ref.digestTypeRaw !== undefined)
    report.fail('T_6.4-5', `digestType "${cell.ref.digestTypeRaw}" is none of MD5, SHA-1, SHA-256; the digest cannot be checked.`, where);
}

function reportLayouts(state: LobCheckState, report: CheckReport): void {
  const internal = [...state.layouts].filter((l) => !l.startsWith('datalink:'));
  const datalink = [...state.layouts].filter((l) => l.startsWith('datalink:')).map((l) => l.slice('datalink:'.length));
  if (internal.length > 0) report.applies('L_7.1-0');
  if (internal.includes('lobseg'))
    report.note(
      'L_7.1-0',
      'LOB files are in [db]_lobseg_[h]/content/schema[i]/table[j]/lob[k]/ folders (the E-ARK layout of the seed), ' +
        'not [db]_lobs/s[i]_t[j]_c[k]/seg_[s]/ as the final text recommends.',
    );
  if (internal.includes('other'))
    report.note('L_7.1-0', 'Some LOB files are not in normalised folders ([db]_lobs/s[i]_t[j]_c[k]/seg_[s]/ recommended).');
  if (datalink.length > 0) {
    report.applies('L_7.2-0');
    if (!datalink.every((l) => l === 'lobseg'))
      report.note('L_7.2-0', 'DATALINK files are not in [db]_lobseg_[h]/content/schema[i]/ folders (the seed layout).');
  }
  if (state.segments.size > 1) {
    report.applies('S_8.1-0');
    if (datalink.length > 0) report.applies('S_8.3-0');
  }
}

/**
 * The LOB checks of one package: cells handed in as a table's read finds them (cell), or read
 * again from a table (table); finish() reports the layouts and the files no cell references.
 */
export class LobChecker {
  private readonly access: LobAccess;
  private readonly state: LobCheckState = { referenced: [], layouts: new Set(), segments: new Set() };
  /** a table whose LOB cells could not all be read: a file none of the cells read names may still be referenced */
  private unread: string | undefined;

  constructor(
    private readonly reader: SiardReader,
    private readonly report: CheckReport,
    private readonly options: LobCheckOptions = {},
  ) {
    this.access = options.access ?? packageLobAccess(reader);
  }

  cell(t: SiardTableRef, cell: SiardLobCell): Promise<void> {
    return checkCell(this.reader, this.access, t, cell, this.state, this.report);
  }

  /**
   * The LOB cells of a table, read again (a column of any type may hold a LOB cell: a UDT field, a
   * producer's long VARCHAR), after its first `skipRows` rows (whose cells were handed in already).
   */
  async table(t: SiardTableRef, skipRows = 0): Promise<void> {
    try {
      for await (const cell of this.reader.lobCells(t)) if (cell.row > skipRows) await this.cell(t, cell);
    } catch {
      // A table that cannot be read is reported by its own read (T_6.0-2); its LOB cells after that point are not checked.
      const table = `${t.schema.name}.${t.table.name}`;
      this.unread ??= table;
      this.report.note('T_6.4-5', `The LOB cells of ${table} after the point where its XML cannot be read were not checked.`, {
        entry: t.xmlEntry,
        table,
      });
    }
  }

  /** Closes the LOB file access (once the cells are checked; finish() may follow). */
  close(): void {
    this.access.close?.();
  }

  async finish(): Promise<void> {
    reportLayouts(this.state, this.report);
    const unreferenced = await findUnreferencedLobFiles(
      this.reader,
      this.state.referenced,
      ...(this.options.lister ? [this.options.lister] : []),
    );
    const unreferencedFile = (id: string, e: string, folder: string) => {
      if (this.unread === undefined) this.report.fail(id, `${e} is in a ${folder} but no cell references it.`, { entry: e });
      else
        this.report.note(
          id,
          `${e} is in a ${folder} and no cell read references it (the LOB cells of ${this.unread} could not all be read).`,
          {
            entry: e,
          },
        );
    };
    for (const e of unreferenced.internal) unreferencedFile('P_4.2-3', e, 'table folder');
    for (const e of unreferenced.external) unreferencedFile('L_7.1-0', e, 'LOB folder');
  }
}
