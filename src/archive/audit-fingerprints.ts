/**
 * The audit's check of the table fingerprints an export took from its source (`x.fingerprints.json`
 * beside `x.siard`, docs/fingerprints.md): while the planning step reads every row of the archive,
 * each table's fingerprint is taken again from the rows as the archive holds them, and compared.
 * A LOB in a file counts by the SHA-256 its cell states, which the audit checks against the file's
 * bytes on its own; a cell whose digest is of another type cannot be counted, and its table is said
 * to be unchecked (info), not wrong.
 */
import {
  fingerprintIndex,
  fingerprintsFileOf,
  parseFingerprints,
  type TableFingerprintEntry,
} from '../siard/fingerprint/fingerprint-file.js';
import { readCellForm } from '../siard/fingerprint/cell-form.js';
import { TableFingerprint } from '../siard/fingerprint/row-hash.js';
import type { SiardTableRef } from '../siard/reader/siard-reader.js';
import type { SiardLobCell, SiardReadRow } from '../siard/reader/types.js';
import type { ObjectAuditContext, OpenedObject } from './audit-context.js';

interface TableCheck {
  ref: SiardTableRef;
  fingerprint: TableFingerprint;
  /** a cell whose LOB digest is not SHA-256: the table cannot be checked */
  uncountable?: string;
}

export class AuditFingerprints {
  private readonly checked: TableCheck[] = [];
  private current: TableCheck | undefined;

  private constructor(
    private readonly ctx: ObjectAuditContext,
    private readonly file: string,
    private readonly stored: Map<string, TableFingerprintEntry>,
  ) {}

  /** The fingerprints stored beside the archive at `siardPath`, or undefined when there are none (an error when unreadable). */
  static async load(ctx: ObjectAuditContext, obj: OpenedObject, siardPath: string): Promise<AuditFingerprints | undefined> {
    const file = fingerprintsFileOf(siardPath.replace(/\.siard\.(\d+|z)$/i, '.siard'));
    const cp = obj.contentOf(file);
    if (cp === undefined || obj.presentFile(cp) < 0) return undefined;
    let parsed;
    try {
      parsed = parseFingerprints((await ctx.root.storage.readFile(ctx.stored(cp))).toString('utf8'));
    } catch (err) {
      parsed = { error: (err as Error).message };
    }
    if ('error' in parsed) {
      ctx.add('error', 'SIARD_FINGERPRINTS_UNREADABLE', `${file} cannot be read as table fingerprints: ${parsed.error}.`, { path: file });
      return undefined;
    }
    return new AuditFingerprints(ctx, file, fingerprintIndex(parsed));
  }

  /** The rows of `ref` follow. */
  startTable(ref: SiardTableRef): void {
    this.current = { ref, fingerprint: new TableFingerprint() };
    this.checked.push(this.current);
  }

  /** A row of the current table, with its LOB cells (lobCellsOfRow: the planner walks them once for both). */
  row(row: SiardReadRow, lobCells: readonly SiardLobCell[]): void {
    const t = this.current!;
    const n = t.ref.table.columns.length;
    let lobs: Map<string, string> | undefined;
    for (const cell of lobCells) {
      const { ref } = cell;
      const where = cell.cellPath.join('/');
      if (ref.digestType === 'SHA-256' && ref.digest !== undefined) (lobs ??= new Map()).set(where, '#' + ref.digest.toLowerCase());
      else t.uncountable ??= `row ${row.index}, cell ${where}: its LOB digest is ${ref.digestType ?? 'not given'}, not SHA-256`;
    }
    const forms = new Array<string | null>(n);
    for (let c = 0; c < n; c++) forms[c] = readCellForm(row.cells[c] ?? null, `c${c + 1}`, (p) => lobs?.get(p)) ?? null;
    t.fingerprint.add(forms);
  }

  /** Compares every table with its stored fingerprint; a mismatch is an error naming the table. */
  finish(logicalPath: string): void {
    const seen = new Set<string>();
    for (const t of this.checked) {
      const key = `${t.ref.schema.name}\u0000${t.ref.table.name}`;
      const table = `${t.ref.schema.name}.${t.ref.table.name}`;
      seen.add(key);
      const stored = this.stored.get(key);
      const where = { path: logicalPath, table };
      if (!stored) {
        this.ctx.add('error', 'SIARD_FINGERPRINT', `${logicalPath}: table ${table} has no fingerprint in ${this.file}.`, where);
      } else if (t.uncountable) {
        this.ctx.add(
          'info',
          'SIARD_FINGERPRINT_UNCHECKED',
          `${logicalPath}: table ${table}: fingerprint not checked (${t.uncountable}).`,
          where,
        );
      } else if (stored.rows !== t.fingerprint.rows || stored.fingerprint !== t.fingerprint.hex()) {
        this.ctx.add(
          'error',
          'SIARD_FINGERPRINT',
          `${logicalPath}: table ${table}: its rows as archived (${t.fingerprint.rows} rows, fingerprint ${t.fingerprint.hex()}) are ` +
            `not those the export read from the source (${stored.rows} rows, fingerprint ${stored.fingerprint}, ${this.file}).`,
          where,
        );
      }
    }
    for (const [key, entry] of this.stored) {
      if (seen.has(key)) continue;
      const table = `${entry.schema}.${entry.table}`;
      this.ctx.add(
        'error',
        'SIARD_FINGERPRINT',
        `${logicalPath}: ${this.file} has a fingerprint of table ${table}, which the archive lacks.`,
        {
          path: logicalPath,
          table,
        },
      );
    }
  }
}
