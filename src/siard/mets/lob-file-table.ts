/**
 * The LOB files a METS index lists, for `siard-ocfl mets`, which learns them from the cells before
 * it writes any METS file: a million files is the normal case, so they are held in columns of
 * bytes and typed arrays (about 140 bytes a file) instead of an object with strings each.
 *
 * Two steps: add() each file in the order the cells first name it (a path named twice is listed
 * once), then place() gives every file, in that order, its segment folder, size and checksum.
 * segments() hands the records out grouped by segment, segments in first-seen order and files
 * in added order within each: the order the child METS files list them in.
 */
import { StringSet } from './string-list.js';
import type { LobIdentity, MetsLobRecord } from './types.js';

/** Where a file goes in the index: its segment folder, the path inside it, its size and checksum. */
export interface LobFilePlace {
  segment: string;
  /** path inside the segment folder */
  path: string;
  size: number;
  /** lower-case hex, `hexLength` digits (else kept as given, for the writer to refuse) */
  checksum: string;
}

const IDENTITY_FIELDS = 4;
const INT32 = (n: number) => (n | 0) === n;

function grown<T extends Int32Array | Float64Array>(array: T, need: number, make: (length: number) => T): T {
  if (need <= array.length) return array;
  const bigger = make(Math.max(need, 2 * array.length));
  bigger.set(array);
  return bigger;
}

export class LobFileTable {
  private readonly paths = new StringSet();
  private adding = true;
  /** schema, table, column, row of each file; a file with a part or a number beyond int32 is in `unusualIdentities` */
  private identities = new Int32Array(IDENTITY_FIELDS * 1024);
  private readonly unusualIdentities = new Map<number, LobIdentity>();
  /** index into mimeTypeNames, -1 for none */
  private mimeTypes = new Int32Array(1024);
  private readonly mimeTypeNames: string[] = [];
  private readonly mimeTypeIndex = new Map<string, number>();
  private placed?: Placed;

  get size(): number {
    return this.paths.size;
  }

  /** Adds a file unless its logical path is listed already (then answers false). */
  add(logicalPath: string, identity: LobIdentity, mimeType?: string): boolean {
    if (!this.adding) throw new Error('The LOB files are placed already; no more can be added.');
    if (!this.paths.add(logicalPath)) return false;
    const i = this.paths.size - 1;
    this.identities = grown(this.identities, IDENTITY_FIELDS * (i + 1), (n) => new Int32Array(n));
    const { schema, table, column, row } = identity;
    if (identity.part === undefined && INT32(schema) && INT32(table) && INT32(column) && INT32(row)) {
      this.identities.set([schema, table, column, row], IDENTITY_FIELDS * i);
    } else {
      this.unusualIdentities.set(i, { ...identity });
    }
    this.mimeTypes = grown(this.mimeTypes, i + 1, (n) => new Int32Array(n));
    this.mimeTypes[i] = mimeType === undefined ? -1 : this.mimeTypeNumber(mimeType);
    return true;
  }

  private mimeTypeNumber(mimeType: string): number {
    let n = this.mimeTypeIndex.get(mimeType);
    if (n === undefined) {
      n = this.mimeTypeNames.push(mimeType) - 1;
      this.mimeTypeIndex.set(mimeType, n);
    }
    return n;
  }

  logicalPath(i: number): string {
    return this.paths.at(i);
  }

  /**
   * Places every file, in added order, where `placeOf` says (it may throw to stop); answers the
   * segment folders in first-seen order. `hexLength`: the digits of a checksum of the index's type.
   */
  async place(hexLength: number, placeOf: (logicalPath: string) => Promise<LobFilePlace>): Promise<string[]> {
    this.adding = false;
    this.paths.withoutIndex(); // no more lookups: its hash table can go
    const placed = new Placed(this.size, hexLength);
    for (let i = 0; i < this.size; i++) {
      const logicalPath = this.paths.at(i);
      const where = await placeOf(logicalPath);
      if (!logicalPath.endsWith(`/${where.path}`)) throw new Error(`${where.path} is not the end of ${logicalPath}.`);
      placed.set(i, where, logicalPath.length - where.path.length);
    }
    this.placed = placed;
    return placed.segmentNames;
  }

  /** The records of each segment (in the order place() answered), each segment's files in added order. */
  *segments(): Generator<{ segment: string; records: Generator<MetsLobRecord> }> {
    const placed = this.placed;
    if (!placed) throw new Error('The LOB files are not placed yet.');
    const { order, starts } = placed.orderBySegment();
    for (let s = 0; s < placed.segmentNames.length; s++) {
      const segment = placed.segmentNames[s]!;
      yield { segment, records: this.recordsOf(segment, order.subarray(starts[s], starts[s + 1])) };
    }
  }

  private *recordsOf(segment: string, files: Int32Array): Generator<MetsLobRecord> {
    const placed = this.placed!;
    for (const i of files) {
      const record: MetsLobRecord = {
        segment,
        path: this.paths.at(i).slice(placed.innerStarts[i]),
        identity: this.identity(i),
        size: placed.sizes[i]!,
        checksum: placed.checksum(i),
      };
      if (this.mimeTypes[i]! >= 0) record.mimeType = this.mimeTypeNames[this.mimeTypes[i]!];
      yield record;
    }
  }

  private identity(i: number): LobIdentity {
    const unusual = this.unusualIdentities.get(i);
    if (unusual) return { ...unusual };
    const [schema, table, column, row] = this.identities.subarray(IDENTITY_FIELDS * i, IDENTITY_FIELDS * (i + 1));
    return { schema: schema!, table: table!, column: column!, row: row! };
  }
}

/** Segment, size and checksum of each file, by file number. */
class Placed {
  readonly segmentNames: string[] = [];
  private readonly segmentIndex = new Map<string, number>();
  readonly segments: Int32Array;
  readonly innerStarts: Int32Array;
  readonly sizes: Float64Array;
  /** checksums as bytes, hexLength / 2 a file; one that is not lower-case hex of that length is in `unusualChecksums` */
  private readonly checksums: Buffer;
  private readonly unusualChecksums = new Map<number, string>();
  private readonly hexPattern: RegExp;

  constructor(
    count: number,
    private readonly hexLength: number,
  ) {
    this.segments = new Int32Array(count);
    this.innerStarts = new Int32Array(count);
    this.sizes = new Float64Array(count);
    this.checksums = Buffer.alloc((count * hexLength) / 2);
    this.hexPattern = new RegExp(`^(?:[0-9a-f]{2}){${hexLength / 2}}$`);
  }

  set(i: number, where: LobFilePlace, innerStart: number): void {
    let s = this.segmentIndex.get(where.segment);
    if (s === undefined) {
      s = this.segmentNames.push(where.segment) - 1;
      this.segmentIndex.set(where.segment, s);
    }
    this.segments[i] = s;
    this.innerStarts[i] = innerStart;
    this.sizes[i] = where.size;
    if (this.hexPattern.test(where.checksum)) {
      this.checksums.write(where.checksum, (i * this.hexLength) / 2, 'hex');
    } else {
      this.unusualChecksums.set(i, where.checksum);
    }
  }

  checksum(i: number): string {
    const width = this.hexLength / 2;
    return this.unusualChecksums.get(i) ?? this.checksums.toString('hex', i * width, (i + 1) * width);
  }

  /** The file numbers grouped by segment (a counting sort, stable): segment s is order[starts[s], starts[s + 1]). */
  orderBySegment(): { order: Int32Array; starts: Int32Array } {
    const starts = new Int32Array(this.segmentNames.length + 1);
    for (const s of this.segments) starts[s + 1] = starts[s + 1]! + 1;
    for (let s = 0; s < this.segmentNames.length; s++) starts[s + 1] = starts[s + 1]! + starts[s]!;
    const next = starts.slice(0, this.segmentNames.length);
    const order = new Int32Array(this.segments.length);
    for (let i = 0; i < this.segments.length; i++) order[next[this.segments[i]!]!++] = i;
    return { order, starts };
  }
}
