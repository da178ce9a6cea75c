/**
 * A SIARD file split as binary parts (SIARD 2.2 S_8.2-0: `x.siard_part001`, `x.siard_part002`, ...):
 * the parts found beside a name, the parts read one after another as one archive (a ByteSource,
 * so `check` reads the archive inside as it reads a whole .siard, nothing joined on disk), and a
 * whole file that stands beside its parts compared with them byte for byte.
 */
import { createReadStream, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { ByteSource } from '../zip/reader.js';
import type { CheckReport } from './report.js';

/** `x.siard_partNNN`: the name of the split file and the part's number */
const PART = /^(.+)_part(\d{3,})$/;

/** The split file a part's name belongs to (`x.siard` of `x.siard_part002`), or undefined. */
export function splitFileOf(part: string): string | undefined {
  const m = PART.exec(path.basename(part));
  return m && /\.siard$/i.test(m[1]!) ? path.join(path.dirname(part), m[1]!) : undefined;
}

/** The parts of the split file `file` in its folder, in the order of their numbers; [] when there are none. */
export function splitParts(file: string): string[] {
  const dir = path.dirname(file);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const base = path.basename(file);
  return names
    .map((n) => ({ n, m: PART.exec(n) }))
    .filter((x) => x.m?.[1] === base)
    .sort((a, b) => Number(a.m![2]) - Number(b.m![2]))
    .map((x) => path.join(dir, x.n));
}

/** The parts read one after another, as one archive named `file`. */
export function joinedParts(file: string, parts: string[]): ByteSource {
  const sizes = parts.map((p) => statSync(p).size);
  const starts: number[] = [];
  let size = 0;
  for (const s of sizes) {
    starts.push(size);
    size += s;
  }
  async function* range(start: number, end: number): AsyncGenerator<Buffer> {
    for (let i = 0; i < parts.length; i++) {
      const first = starts[i]!;
      const last = first + sizes[i]! - 1;
      if (last < start || first > end) continue;
      const from = Math.max(start, first) - first;
      const to = Math.min(end, last) - first;
      yield* createReadStream(parts[i]!, { start: from, end: to, highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>;
    }
  }
  return { name: path.resolve(file), size, readRange: (start, end) => Readable.from(range(start, end)) };
}

/**
 * Where the parts joined first differ from the whole file beside them: a sentence, or undefined
 * when they are its binary split. Both are read once, a chunk at a time.
 */
export async function partsDifferFrom(file: string, parts: string[]): Promise<string | undefined> {
  const joined = joinedParts(file, parts);
  const whole = statSync(file).size;
  const what = `${path.basename(parts[0]!)} ... ${path.basename(parts[parts.length - 1]!)}`;
  if (joined.size !== whole)
    return `The parts ${what} hold ${joined.size} bytes together, ${path.basename(file)} ${whole}: they are not its split.`;
  const a = joined.readRange(0, whole - 1)[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let offset = 0;
  let held: Buffer = Buffer.alloc(0);
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    let at = 0;
    while (at < chunk.length) {
      if (held.length === 0) {
        const next = await a.next();
        if (next.done) break;
        held = next.value;
      }
      const n = Math.min(held.length, chunk.length - at);
      if (!held.subarray(0, n).equals(chunk.subarray(at, at + n))) {
        const where = `within bytes ${offset} to ${offset + n - 1}`;
        return `The parts ${what} joined differ from ${path.basename(file)} ${where}: they are not its split.`;
      }
      held = held.subarray(n);
      at += n;
      offset += n;
    }
  }
  await a.return?.();
  return undefined;
}

/** S_8.2-0's names: `x.siard_part001`, `_part002`, ... without gaps, beside `file`. */
export function checkPartNames(file: string, report: CheckReport): void {
  const base = path.basename(file);
  let names: string[];
  try {
    names = readdirSync(path.dirname(file));
  } catch {
    return;
  }
  const parts = names.filter((n) => n.startsWith(`${base}_part`)).sort();
  if (parts.length === 0) return;
  report.applies('S_8.2-0');
  parts.forEach((p, i) => {
    const want = `${base}_part${String(i + 1).padStart(3, '0')}`;
    if (p !== want)
      report.fail('S_8.2-0', `Split part ${p} found where ${want} was expected: parts are _part001, _part002, ... without gaps.`, {
        entry: p,
      });
  });
}
