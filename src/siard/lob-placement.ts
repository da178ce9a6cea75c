/**
 * Where an externalised LOB goes, for the two layouts we write.
 *
 * A LOB inside a UDT or ARRAY value goes below its column by its element path:
 * `lob[k]/u2/record[n].bin` in lobseg, `t[j]_c[k]_u2_r[l].bin` in siard22.
 *
 * lobseg (E-ARK recommendation, the default): segment folders `[db]_lobseg_[h]` shared by every
 * column and filled in export order. A new folder starts when the file-count limit is reached or
 * the next file would push the folder over the size limit. A LOB larger than the size limit is
 * split: `.0` fills the rest of the current folder, `.1`, `.2` ... take whole folders, the last
 * part is `.z`, and later LOBs continue in the folder of `.z`.
 *
 * siard22 (SIARD 2.2 final, chapters 7-8): `[db]_lobs/s[i]_t[j]_c[k]/seg_[s]/t[j]_c[k]_r[l].bin`,
 * the same limits applied per column folder, parts `_part001`, `_part002` ...
 *
 * In both, the cell `file` names the unsplit file in the folder of the first part; `length` and
 * `digest` in the cell cover the whole LOB.
 */

export type LobLayoutName = 'lobseg' | 'siard22';

export interface LobLimits {
  /** files per segment folder */
  maxFiles: number;
  /** bytes per segment folder */
  maxBytes: number;
}

export interface LobPlacementPart {
  /** path relative to the folder holding the .siard */
  relPath: string;
  /** bytes of the LOB this part holds */
  length: number;
}

export interface LobPlacement {
  /** the cell's `file` attribute (relative to the column's lobFolder) */
  cellFile: string;
  /** one part for an unsplit LOB, else the parts in order */
  parts: LobPlacementPart[];
}

export interface LobAddress {
  /** 0-based schema, table indexes; 1-based column and row numbers (as in c[k] and row l) */
  schema: number;
  table: number;
  column: number;
  row: number;
  /** 'bin' for BLOB, 'txt' for CLOB */
  extension: string;
  /**
   * A LOB inside a UDT or ARRAY value: its element path in the cell, e.g. "u2" or "u2/u3" or
   * "u4/a1"; the LOB goes into a subfolder of that path (lobseg) or gets it in its name (siard22).
   */
  field?: string;
  /** bytes in the file */
  size: number;
}

export interface LobLayout {
  readonly name: LobLayoutName;
  /** Database-level lobFolder for a given base URI (ending in '/'). */
  databaseLobFolder(base: string): string;
  /** Column-level lobFolder of an externalised column. */
  columnLobFolder(schema: number, table: number, column: number): string;
  /** Decides the files for the next LOB; calls must follow export order. */
  place(lob: LobAddress): LobPlacement;
  /** Top-level folder names used so far (beside the .siard). */
  topLevelFolders(): string[];
  /** Number of segment folders used so far. */
  segmentCount(): number;
  /** Number of LOB files placed so far, each part of a split LOB counted. */
  fileCount(): number;
  /** The counters, as JSON, for a resumable export's journal (docs/resume.md). */
  snapshot(): LayoutSnapshot;
  /** Continues from counters a snapshot() of the same layout and limits gave. */
  restore(state: LayoutSnapshot): void;
  /** The schema and table indexes a LOB file of this layout belongs to; undefined for any other path. */
  tableOfFile(relPath: string): { schema: number; table: number } | undefined;
}

/** A filler's counters: segment index, files and bytes in it, whether any LOB was placed. */
type FillerState = [index: number, files: number, bytes: number, used: boolean];

export interface LayoutSnapshot {
  files: number;
  /** lobseg: one filler under ""; siard22: one per column folder */
  fillers: Record<string, FillerState>;
}

/** Fills folders in order under the limits; shared by both layouts (one per column in siard22). */
class SegmentFiller {
  index = 0;
  private files = 0;
  private bytes = 0;
  used = false;

  constructor(private readonly limits: LobLimits) {}

  state(): FillerState {
    return [this.index, this.files, this.bytes, this.used];
  }

  load([index, files, bytes, used]: FillerState): void {
    Object.assign(this, { index, files, bytes, used });
  }

  /** Sizes of the parts and the segment index of each, for a file of `size` bytes. */
  allocate(size: number): Array<{ segment: number; length: number }> {
    const { maxFiles, maxBytes } = this.limits;
    const full = () => this.files >= maxFiles || this.bytes >= maxBytes;
    const next = () => {
      this.index++;
      this.files = 0;
      this.bytes = 0;
    };
    if (this.used && full()) next();
    this.used = true;
    if (size <= maxBytes) {
      if (this.files > 0 && this.bytes + size > maxBytes) next();
      this.files++;
      this.bytes += size;
      return [{ segment: this.index, length: size }];
    }
    // Split: fill the current folder, then whole folders, the rest in the last one.
    const parts: Array<{ segment: number; length: number }> = [];
    let left = size;
    while (left > 0) {
      if (full()) next();
      const take = Math.min(left, maxBytes - this.bytes);
      parts.push({ segment: this.index, length: take });
      this.files++;
      this.bytes += take;
      left -= take;
    }
    return parts;
  }
}

function checkLimits(limits: LobLimits): void {
  if (!Number.isSafeInteger(limits.maxFiles) || limits.maxFiles < 1) throw new Error('--max-files must be at least 1.');
  if (!Number.isSafeInteger(limits.maxBytes) || limits.maxBytes < 1) throw new Error('--max-bytes must be at least 1.');
}

export class LobsegLayout implements LobLayout {
  private files = 0;
  readonly name = 'lobseg' as const;
  private readonly filler: SegmentFiller;

  constructor(
    private readonly dbName: string,
    limits: LobLimits,
  ) {
    checkLimits(limits);
    this.filler = new SegmentFiller(limits);
  }

  databaseLobFolder(base: string): string {
    return base;
  }

  columnLobFolder(): string {
    return './';
  }

  place(lob: LobAddress): LobPlacement {
    const field = lob.field ? `${lob.field}/` : '';
    const name = `content/schema${lob.schema}/table${lob.table}/lob${lob.column}/${field}record${lob.row - 1}.${lob.extension}`;
    const segments = this.filler.allocate(lob.size);
    const folder = (s: number) => `${this.dbName}_lobseg_${s}`;
    const parts =
      segments.length === 1
        ? [{ relPath: `${folder(segments[0]!.segment)}/${name}`, length: segments[0]!.length }]
        : segments.map((p, i) => ({
            relPath: `${folder(p.segment)}/${name}.${i === segments.length - 1 ? 'z' : String(i)}`,
            length: p.length,
          }));
    this.files += parts.length;
    return { cellFile: `${folder(segments[0]!.segment)}/${name}`, parts };
  }

  fileCount(): number {
    return this.files;
  }

  snapshot(): LayoutSnapshot {
    return { files: this.files, fillers: { '': this.filler.state() } };
  }

  restore(state: LayoutSnapshot): void {
    this.files = state.files;
    this.filler.load(state.fillers['']!);
  }

  tableOfFile(relPath: string): { schema: number; table: number } | undefined {
    const m = /^(.*)_lobseg_\d+\/content\/schema(\d+)\/table(\d+)\/lob\d+\//.exec(relPath);
    return m && m[1] === this.dbName ? { schema: Number(m[2]), table: Number(m[3]) } : undefined;
  }

  topLevelFolders(): string[] {
    return this.filler.used ? Array.from({ length: this.filler.index + 1 }, (_, h) => `${this.dbName}_lobseg_${h}`) : [];
  }

  segmentCount(): number {
    return this.filler.used ? this.filler.index + 1 : 0;
  }
}

export class Siard22Layout implements LobLayout {
  private files = 0;
  readonly name = 'siard22' as const;
  private readonly fillers = new Map<string, SegmentFiller>();

  constructor(
    private readonly dbName: string,
    private readonly limits: LobLimits,
  ) {
    checkLimits(limits);
  }

  private get root(): string {
    return `${this.dbName}_lobs`;
  }

  databaseLobFolder(base: string): string {
    return `${base}${this.root}/`;
  }

  columnLobFolder(schema: number, table: number, column: number): string {
    return `s${schema}_t${table}_c${column}/`;
  }

  place(lob: LobAddress): LobPlacement {
    const columnFolder = `s${lob.schema}_t${lob.table}_c${lob.column}`;
    let filler = this.fillers.get(columnFolder);
    if (!filler) this.fillers.set(columnFolder, (filler = new SegmentFiller(this.limits)));
    const field = lob.field ? `_${lob.field.replace(/\//g, '_')}` : '';
    const name = `t${lob.table}_c${lob.column}${field}_r${lob.row}.${lob.extension}`;
    const segments = filler.allocate(lob.size);
    const parts =
      segments.length === 1
        ? [{ relPath: `${this.root}/${columnFolder}/seg_${segments[0]!.segment}/${name}`, length: segments[0]!.length }]
        : segments.map((p, i) => ({
            relPath: `${this.root}/${columnFolder}/seg_${p.segment}/${name}_part${String(i + 1).padStart(3, '0')}`,
            length: p.length,
          }));
    this.files += parts.length;
    return { cellFile: `seg_${segments[0]!.segment}/${name}`, parts };
  }

  fileCount(): number {
    return this.files;
  }

  snapshot(): LayoutSnapshot {
    return { files: this.files, fillers: Object.fromEntries([...this.fillers].map(([k, f]) => [k, f.state()])) };
  }

  restore(state: LayoutSnapshot): void {
    this.files = state.files;
    this.fillers.clear();
    for (const [k, counters] of Object.entries(state.fillers)) {
      const filler = new SegmentFiller(this.limits);
      filler.load(counters);
      this.fillers.set(k, filler);
    }
  }

  tableOfFile(relPath: string): { schema: number; table: number } | undefined {
    const m = /^(.*)_lobs\/s(\d+)_t(\d+)_c\d+\/seg_\d+\/[^/]+$/.exec(relPath);
    return m && m[1] === this.dbName ? { schema: Number(m[2]), table: Number(m[3]) } : undefined;
  }

  topLevelFolders(): string[] {
    return this.fillers.size > 0 ? [this.root] : [];
  }

  segmentCount(): number {
    let n = 0;
    for (const f of this.fillers.values()) n += f.index + 1;
    return n;
  }
}

export function createLobLayout(name: LobLayoutName, dbName: string, limits: LobLimits): LobLayout {
  return name === 'siard22' ? new Siard22Layout(dbName, limits) : new LobsegLayout(dbName, limits);
}
