/**
 * The LOB cells of an audit whose bytes lie in content files, held compactly from the plan until
 * the read is done: per cell its place (archive, table and column interned; row), its length, its
 * digest and the content files of its parts, in typed arrays. A cell's digest equal to what the
 * inventory records of its file is not kept (the inventory has it); another is kept as bytes. A
 * part's logical path is kept only when it is not the tail of its content path (as it is for a
 * file added in the version that holds it, and after `relocate`).
 */
import type { SiardDigestType } from '../siard/model.js';
import type { SiardReadLobReference } from '../siard/reader/types.js';
import type { AuditContentFiles } from './audit-content-files.js';
import type { AuditFinding } from './audit-findings.js';
import { NumberColumn } from './number-column.js';
import { StringList } from './string-list.js';

export type FindingPlace = Pick<AuditFinding, 'path' | 'table' | 'row' | 'column'>;

/** A LOB cell as the plan finds it. */
export interface PlannedLob {
  where: { path: string; table: string; row: number; column: string };
  ref: SiardReadLobReference;
  text: boolean;
  /** logical paths of the parts, in order, and their content files */
  parts: string[];
  files: number[];
  /** index into the sequential jobs, when the cell needs more than per-file digests */
  job?: number;
  /** its digest is the one the inventory records of its single file in the cell's algorithm */
  digestRecorded: boolean;
}

const DIGEST_TYPES: ReadonlyArray<SiardDigestType | undefined> = [undefined, 'MD5', 'SHA-1', 'SHA-256'];
/** bytes of a digest of each of DIGEST_TYPES */
const DIGEST_SIZES: readonly number[] = [0, 16, 20, 32];
/** bytes kept per digest: a slot holds the longest, shorter ones left-aligned */
const DIGEST_BYTES = 32;

/** flags */
const TEXT = 1;
const HAS_LENGTH = 2;
/** ref.digest is absent */
const NO_DIGEST = 0;
const DIGEST_RECORDED = 4;
const DIGEST_BYTES_KEPT = 8;
const DIGEST_STRING_KEPT = 12;
const DIGEST_MASK = 12;

export class PlannedLobs {
  private readonly placeIndex = new Map<string, number>();
  private readonly places: Array<{ path: string; table: string; column: string }> = [];
  private readonly placeOf = new NumberColumn((n) => new Int32Array(n));
  private readonly rowOf = new NumberColumn((n) => new Float64Array(n));
  private readonly lengthOf = new NumberColumn((n) => new Float64Array(n));
  private readonly flags = new NumberColumn((n) => new Uint8Array(n));
  private readonly digestTypeOf = new NumberColumn((n) => new Uint8Array(n));
  /** where the cell's digest is kept: a slot of digestBytes, or an index into digestStrings; -1 when not */
  private readonly digestAt = new NumberColumn((n) => new Int32Array(n));
  private digestBytes = Buffer.alloc(0);
  private digestSlots = 0;
  private readonly digestStrings: string[] = [];
  private readonly jobs = new Map<number, number>();
  /** the cell's parts are parts firstPart[i] .. firstPart[i + 1] - 1 */
  private readonly firstPart = new NumberColumn((n) => new Int32Array(n));
  private readonly partFile = new NumberColumn((n) => new Int32Array(n));
  /** >= 0: index into partPaths; < 0: the logical path is the content path without its first -1 - n characters */
  private readonly partPath = new NumberColumn((n) => new Int32Array(n));
  private readonly partPaths = new StringList();

  constructor(private readonly files: AuditContentFiles) {
    this.firstPart.push(0);
  }

  get length(): number {
    return this.placeOf.length;
  }

  add(lob: PlannedLob): void {
    const { where, ref } = lob;
    const key = `${where.path}\u0000${where.table}\u0000${where.column}`;
    let place = this.placeIndex.get(key);
    if (place === undefined) {
      place = this.places.push({ path: where.path, table: where.table, column: where.column }) - 1;
      this.placeIndex.set(key, place);
    }
    const i = this.placeOf.push(place);
    if (lob.job !== undefined) this.jobs.set(i, lob.job);
    this.rowOf.push(where.row);
    this.lengthOf.push(ref.length ?? 0);
    const type = DIGEST_TYPES.indexOf(ref.digestType);
    this.digestTypeOf.push(type);
    const kept = this.keepDigest(ref.digest, type, lob.digestRecorded);
    this.digestAt.push(kept.at);
    this.flags.push((lob.text ? TEXT : 0) | (ref.length !== undefined ? HAS_LENGTH : 0) | kept.flag);
    lob.parts.forEach((logicalPath, k) => {
      const file = lob.files[k]!;
      this.partFile.push(file);
      const contentPath = this.files.path(file);
      const drop = contentPath.length - logicalPath.length;
      const isTail = drop > 0 && contentPath.endsWith(logicalPath) && contentPath[drop - 1] === '/';
      this.partPath.push(isTail ? -1 - drop : this.partPaths.push(logicalPath));
    });
    this.firstPart.push(this.partFile.length);
  }

  private keepDigest(digest: string | undefined, type: number, recorded: boolean): { flag: number; at: number } {
    if (digest === undefined) return { flag: NO_DIGEST, at: -1 };
    if (recorded) return { flag: DIGEST_RECORDED, at: -1 };
    if (digest.length !== 2 * (DIGEST_SIZES[type] ?? 0) || !/^[0-9a-f]*$/.test(digest)) {
      return { flag: DIGEST_STRING_KEPT, at: this.digestStrings.push(digest) - 1 };
    }
    if (this.digestSlots * DIGEST_BYTES === this.digestBytes.length) {
      const grown = Buffer.alloc(Math.max(1024 * DIGEST_BYTES, this.digestBytes.length * 2));
      this.digestBytes.copy(grown);
      this.digestBytes = grown;
    }
    this.digestBytes.write(digest, this.digestSlots * DIGEST_BYTES, digest.length / 2, 'hex');
    return { flag: DIGEST_BYTES_KEPT, at: this.digestSlots++ };
  }

  /** The cell's place in findings (a new object each call, keys in the order findings list them). */
  where(i: number): { path: string; table: string; row: number; column: string } {
    const p = this.places[this.placeOf.get(i)]!;
    return { path: p.path, table: p.table, row: this.rowOf.get(i), column: p.column };
  }

  isText(i: number): boolean {
    return (this.flags.get(i) & TEXT) !== 0;
  }

  /** The cell's length attribute. */
  lengthAttribute(i: number): number | undefined {
    return this.flags.get(i) & HAS_LENGTH ? this.lengthOf.get(i) : undefined;
  }

  digestType(i: number): SiardDigestType | undefined {
    return DIGEST_TYPES[this.digestTypeOf.get(i)];
  }

  /** Whether the cell's digest is the one the inventory records of its file (so not kept here). */
  digestRecorded(i: number): boolean {
    return (this.flags.get(i) & DIGEST_MASK) === DIGEST_RECORDED;
  }

  /** The cell's digest (lower case); `recorded` gives the inventory's when the cell's is that one. */
  digest(i: number, recorded: () => string | undefined): string | undefined {
    const kind = this.flags.get(i) & DIGEST_MASK;
    const at = this.digestAt.get(i);
    if (kind === NO_DIGEST) return undefined;
    if (kind === DIGEST_RECORDED) return recorded();
    if (kind === DIGEST_BYTES_KEPT) {
      const size = DIGEST_SIZES[this.digestTypeOf.get(i)]!;
      return this.digestBytes.toString('hex', at * DIGEST_BYTES, at * DIGEST_BYTES + size);
    }
    return this.digestStrings[at];
  }

  job(i: number): number | undefined {
    return this.jobs.get(i);
  }

  partCount(i: number): number {
    return this.firstPart.get(i + 1) - this.firstPart.get(i);
  }

  /** The content file of part k of cell i. */
  fileOf(i: number, k: number): number {
    return this.partFile.get(this.firstPart.get(i) + k);
  }

  /** The logical path of part k of cell i. */
  partPathOf(i: number, k: number): string {
    const part = this.firstPart.get(i) + k;
    const at = this.partPath.get(part);
    return at >= 0 ? this.partPaths.get(at) : this.files.path(this.partFile.get(part)).slice(-1 - at);
  }

  /** The logical paths of the parts of cells [from, to), in order. */
  *partPathsOf(from = 0, to = this.length): Generator<string> {
    for (let i = from; i < to; i++) for (let k = 0; k < this.partCount(i); k++) yield this.partPathOf(i, k);
  }
}
