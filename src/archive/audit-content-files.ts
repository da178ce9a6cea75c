/**
 * The content files of an audited object and what the one read found in each, held compactly:
 * numbered in the manifest's order, a path and a size each in typed arrays, and per file one byte
 * saying whether the read confirmed every digest the inventory records. Only what the later steps
 * cannot get from the inventory is kept: the whole result of a file that differs or cannot be read
 * (rare), and the digests of algorithms the inventory lacks (asked for by LOB cells). Each batch
 * of results is recorded as it comes back and let go, so a million files never have a result
 * object each at once.
 */
import { digestMismatches, type ExpectedDigest } from '../ocfl/validate/digest-mismatch.js';
import type { FileDigests } from './content-hash.js';
import type { ExpectedDigests } from './expected-digests.js';
import { NumberColumn } from './number-column.js';
import { StringList } from './string-list.js';

/** What the read found in a file (0: not read). */
/** read, and every digest the inventory records for it is the one computed */
const CONFIRMED = 1;
/** read with an error, or a digest differs: its whole result is kept */
const KEPT = 2;

/** The digests of one algorithm the inventory lacks, computed for some files: bytes in file order. */
interface ExtraDigests {
  size: number;
  bytes: Buffer;
  computed: Uint8Array;
}

export class AuditContentFiles {
  private readonly paths = new StringList();
  /** bytes in storage, -1 when the file is missing */
  private readonly sizes = new NumberColumn((n) => new Float64Array(n));
  private status: Uint8Array<ArrayBuffer> = new Uint8Array(0);
  private readonly kept = new Map<number, FileDigests>();
  /** sizes the read found that differ from the storage listing (a file changed meanwhile) */
  private readonly readSizes = new Map<number, number>();
  private readonly extra = new Map<string, ExtraDigests>();
  /** algorithms the inventory lacks that the read must compute, as bits (of extraNames) per file */
  private extraWanted: Uint8Array | undefined;
  private readonly extraNames: string[] = [];
  private presentCount = 0;
  private presentBytes = 0;
  /** 1 for a file a read job of the plan reads (it needs more than per-file digests) */
  private inJob: Uint8Array | undefined;

  constructor(private readonly expected: ExpectedDigests) {}

  get length(): number {
    return this.paths.length;
  }

  /** The files present in storage, and their bytes. */
  get present(): { files: number; bytes: number } {
    return { files: this.presentCount, bytes: this.presentBytes };
  }

  add(contentPath: string): number {
    this.sizes.push(-1);
    return this.paths.push(contentPath);
  }

  path(id: number): string {
    return this.paths.get(id);
  }

  /** The number of a content path, or -1 when the manifest lacks it. */
  find(contentPath: string): number {
    return this.paths.find(contentPath);
  }

  setSize(id: number, size: number): void {
    if (this.sizes.get(id) < 0) {
      this.presentCount++;
      this.presentBytes += size;
    } else this.presentBytes += size - this.sizes.get(id);
    this.sizes.set(id, size);
  }

  /** Bytes in storage; undefined when the file is missing. */
  size(id: number): number | undefined {
    const size = this.sizes.get(id);
    return size < 0 ? undefined : size;
  }

  isPresent(id: number): boolean {
    return this.sizes.get(id) >= 0;
  }

  /** The present files outside `except`, in order of their paths (files near each other on disk read together). */
  inPathOrder(except: ReadonlySet<number>): Int32Array {
    const ids: number[] = [];
    for (let id = 0; id < this.length; id++) if (this.isPresent(id) && !except.has(id)) ids.push(id);
    return Int32Array.from(ids).sort((a, b) => this.paths.compare(a, b));
  }

  /** A digest the read must compute for a file although the inventory does not record it (a LOB cell's). */
  needAlgorithm(id: number, algorithm: string, expected: readonly ExpectedDigest[]): void {
    if (expected.some((e) => e.algorithm === algorithm)) return;
    let bit = this.extraNames.indexOf(algorithm);
    if (bit < 0) bit = this.extraNames.push(algorithm) - 1;
    if (bit >= 8) throw new Error(`Too many digest algorithms besides the inventory's: ${this.extraNames.join(', ')}.`);
    this.extraWanted ??= new Uint8Array(this.length);
    this.extraWanted[id]! |= 1 << bit;
  }

  /** Bits of the algorithms besides the inventory's that LOB cells need of a file (0: none). */
  extraBits(id: number): number {
    return this.extraWanted?.[id] ?? 0;
  }

  /** The file is read by a job of the plan (hashing it on its own would be a second read). */
  markInJob(id: number): void {
    this.inJob ??= new Uint8Array(this.length);
    this.inJob[id] = 1;
  }

  isInJob(id: number): boolean {
    return this.inJob?.[id] === 1;
  }

  /** The algorithms the read computes for a file: the inventory's, then those LOB cells need. */
  algorithmsOf(id: number, expected: readonly ExpectedDigest[]): string[] {
    const out = expected.map((e) => e.algorithm);
    const wanted = this.extraWanted?.[id] ?? 0;
    for (let bit = 0; wanted >> bit !== 0; bit++) if (wanted & (1 << bit)) out.push(this.extraNames[bit]!);
    return [...new Set(out)];
  }

  /** Records what the read found in a file (the last call for a file counts). */
  record(id: number, result: FileDigests, expected: readonly ExpectedDigest[] = this.expected.of(this.path(id))): void {
    if (this.status.length < this.length) this.status = grownTo(this.status, this.length);
    this.kept.delete(id);
    this.readSizes.delete(id);
    if (result.error !== undefined || !result.digests || digestMismatches(result.digests, expected).length > 0) {
      this.status[id] = KEPT;
      this.kept.set(id, result);
      return;
    }
    this.status[id] = CONFIRMED;
    if (result.size !== this.sizes.get(id)) this.readSizes.set(id, result.size!);
    for (const [algorithm, digest] of Object.entries(result.digests)) {
      if (!expected.some((e) => e.algorithm === algorithm)) this.keepExtra(id, algorithm, digest);
    }
  }

  private keepExtra(id: number, algorithm: string, digest: string): void {
    let kept = this.extra.get(algorithm);
    if (!kept) {
      const size = digest.length / 2;
      kept = { size, bytes: Buffer.alloc(this.length * size), computed: new Uint8Array(this.length) };
      this.extra.set(algorithm, kept);
    }
    if (digest.length !== 2 * kept.size || !/^[0-9a-f]*$/.test(digest)) throw new Error(`Unexpected ${algorithm} digest "${digest}".`);
    kept.bytes.write(digest, id * kept.size, kept.size, 'hex');
    kept.computed[id] = 1;
  }

  /** Whether the read confirmed every digest the inventory records for the file. */
  isConfirmed(id: number): boolean {
    return this.status[id] === CONFIRMED;
  }

  /** The files whose result is kept (an error, or a digest that differs), in manifest order. */
  keptIds(): number[] {
    return [...this.kept.keys()].sort((a, b) => a - b);
  }

  keptResult(id: number): FileDigests | undefined {
    return this.kept.get(id);
  }

  /** Whether the read computed the file's digests (as `digests` of its result). */
  hasDigests(id: number): boolean {
    return this.status[id] === CONFIRMED || this.kept.get(id)?.digests !== undefined;
  }

  /** The size the read found (the result's `size`). */
  readSize(id: number): number | undefined {
    if (this.status[id] === KEPT) return this.kept.get(id)!.size;
    return this.status[id] === CONFIRMED ? (this.readSizes.get(id) ?? this.sizes.get(id)) : undefined;
  }

  /** The digest the read computed for a file in an algorithm (its result's `digests[algorithm]`). */
  digest(id: number, algorithm: string): string | undefined {
    if (this.status[id] === KEPT) return this.kept.get(id)!.digests?.[algorithm];
    if (this.status[id] !== CONFIRMED) return undefined;
    const recorded = this.expected.digest(this.path(id), algorithm);
    if (recorded !== undefined) return recorded; // confirmed: the digest computed is this one
    const extra = this.extra.get(algorithm);
    return extra?.computed[id] ? extra.bytes.toString('hex', id * extra.size, (id + 1) * extra.size) : undefined;
  }
}

function grownTo(a: Uint8Array, length: number): Uint8Array<ArrayBuffer> {
  const grown = new Uint8Array(length);
  grown.set(a);
  return grown;
}
