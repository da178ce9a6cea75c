/**
 * The content files the validator found, version by version in walk order, held compactly: per
 * version folder the paths below its content folder as UTF-8 in one buffer, their sizes, and a
 * hash table for lookups. A Map of a million path strings (and the walk's strings it kept) was
 * ~200 MB; this is ~90 bytes a file.
 */
import { RangeTable, textAt, type Arena } from '../inventory/arena.js';
import type { WalkedFile } from '../storage/storage.js';

interface WalkedFolder {
  /** "vN/content/": what every path of this folder starts with. */
  prefix: string;
  /** The paths below `prefix`, in walk order. */
  paths: Arena;
  sizes: Float64Array;
  table: RangeTable;
}

export class ExistingFiles {
  private readonly folders: WalkedFolder[] = [];

  /** Adds the files of one walk (paths relative to `prefix`, which ends with '/'), in their order. */
  add(prefix: string, files: readonly WalkedFile[]): void {
    let total = 0;
    for (const f of files) total += Buffer.byteLength(f.relative, 'utf8');
    const bytes = Buffer.allocUnsafe(total);
    const start = new Uint32Array(files.length);
    const end = new Uint32Array(files.length);
    const sizes = new Float64Array(files.length);
    const table = new RangeTable(files.length, bytes, start, end);
    let at = 0;
    let count = 0;
    for (const f of files) {
      start[count] = at;
      end[count] = at + bytes.write(f.relative, at, 'utf8');
      // A walk lists each file once; a repeat would only update the size, as a Map's set does.
      const earlier = table.add(count);
      if (earlier >= 0) sizes[earlier] = f.size;
      else {
        sizes[count] = f.size;
        at = end[count]!;
        count++;
      }
    }
    const paths = { bytes, start: start.subarray(0, count), end: end.subarray(0, count) };
    this.folders.push({ prefix, paths, sizes: sizes.subarray(0, count), table });
  }

  /** Whether the walks found the content path `p`. */
  has(p: string): boolean {
    for (const f of this.folders) {
      if (!p.startsWith(f.prefix)) continue;
      const q = Buffer.from(p.slice(f.prefix.length), 'utf8');
      if (f.table.find(q, 0, q.length) >= 0) return true;
    }
    return false;
  }

  /** Every content path found, its size (NaN when not known yet) and its number, in walk order (version by version). */
  *entries(): Generator<[string, number, number]> {
    let n = 0;
    for (const f of this.folders) {
      for (let i = 0; i < f.sizes.length; i++) yield [f.prefix + textAt(f.paths, i), f.sizes[i]!, n++];
    }
  }

  /** Sets the size of the file numbered `n` (entries' third member), learnt after the walk (by reading it). */
  setSize(n: number, size: number): void {
    for (const f of this.folders) {
      if (n < f.sizes.length) {
        f.sizes[n] = size;
        return;
      }
      n -= f.sizes.length;
    }
  }

  /** Sizes still unknown (a walk without sizes, files not read since), each from `sizeOf` of its path. */
  async fillSizes(sizeOf: (p: string) => Promise<number>): Promise<void> {
    for (const f of this.folders) {
      for (let i = 0; i < f.sizes.length; i++) if (Number.isNaN(f.sizes[i])) f.sizes[i] = await sizeOf(f.prefix + textAt(f.paths, i));
    }
  }

  get files(): number {
    let n = 0;
    for (const f of this.folders) n += f.sizes.length;
    return n;
  }

  get bytes(): number {
    let n = 0;
    for (const f of this.folders) for (const s of f.sizes) n += s;
    return n;
  }
}
