/**
 * The fingerprints file an export writes beside its `.siard` (`<name>.fingerprints.json`): one
 * fingerprint per table, taken from the values as the source gave them (docs/fingerprints.md).
 * Its bytes depend only on the values, so the same database exported twice gives the same file.
 */

/** Format name and version, the first field of the file. */
export const FINGERPRINTS_FORMAT = 'siard-ocfl table fingerprints 1';

export interface TableFingerprintEntry {
  schema: string;
  table: string;
  rows: number;
  /** 16 hex digits (row-hash.ts) */
  fingerprint: string;
}

export interface FingerprintsFile {
  format: typeof FINGERPRINTS_FORMAT;
  /** the .siard the fingerprints belong to (its file name; a segmented file's base name) */
  siard: string;
  tables: TableFingerprintEntry[];
}

/** `x.siard` -> `x.fingerprints.json` (in the same folder). */
export function fingerprintsFileOf(siardPath: string): string {
  return siardPath.replace(/\.siard$/i, '') + '.fingerprints.json';
}

export function fingerprintsJson(siard: string, tables: TableFingerprintEntry[]): string {
  const file: FingerprintsFile = { format: FINGERPRINTS_FORMAT, siard, tables };
  return JSON.stringify(file, null, 1) + '\n';
}

/** The file's content, or one sentence saying why it is not a fingerprints file. */
export function parseFingerprints(text: string): FingerprintsFile | { error: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { error: `it is not JSON (${(err as Error).message})` };
  }
  const f = data as Partial<FingerprintsFile>;
  if (f === null || typeof f !== 'object' || f.format !== FINGERPRINTS_FORMAT)
    return { error: `its format is not "${FINGERPRINTS_FORMAT}"` };
  if (!Array.isArray(f.tables)) return { error: 'it lists no tables' };
  for (const t of f.tables) {
    if (
      typeof t !== 'object' ||
      t === null ||
      typeof t.schema !== 'string' ||
      typeof t.table !== 'string' ||
      !Number.isSafeInteger(t.rows) ||
      typeof t.fingerprint !== 'string' ||
      !/^[0-9a-f]{16}$/.test(t.fingerprint)
    )
      return { error: 'a table entry lacks schema, table, rows or a 16-digit fingerprint' };
  }
  return f as FingerprintsFile;
}

/** Fingerprints by "schema\u0000table". */
export function fingerprintIndex(file: FingerprintsFile): Map<string, TableFingerprintEntry> {
  return new Map(file.tables.map((t) => [`${t.schema}\u0000${t.table}`, t]));
}
