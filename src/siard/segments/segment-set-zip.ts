/**
 * A segmented SIARD file (`[db].siard.1` ... `.z`) seen as one archive, so that the SIARD reader,
 * and every verb built on it, reads a set as it reads a `.siard`: an entry is found in whichever
 * segment holds it, and a table file split into `tableN.xml.1` ... `.z` across segments is one
 * virtual entry `tableN.xml` whose stream is its parts' streams one after the other (each part
 * inflated and CRC-checked by its own segment's ZipReader; nothing is held in memory). `header/`
 * entries are those of the first segment.
 *
 * What is wrong with the parts is collected in `problems` (a part missing, parts out of order or
 * not in consecutive segments, a table both whole and split): the reader refuses such a set unless
 * the caller (audit) reports them itself.
 */
import { Readable } from 'node:stream';
import { SiardOcflError } from '../../errors.js';
import type { ZipEntry, ZipReader, ZipReadLimits } from '../zip/reader.js';
import type { SiardZip } from '../zip/siard-zip.js';
import { comparePartNumbers, parseTablePartName, partName, type PartNumber } from './segment-names.js';

export interface SegmentMember {
  /** names the segment in messages (a file, or a logical path) */
  name: string;
  part: PartNumber;
  zip: ZipReader;
}

export interface SetProblem {
  code:
    | 'SIARD_SEGMENT_MISSING'
    | 'SIARD_SEGMENT_LAST_MISSING'
    | 'SIARD_TABLE_PART_MISSING'
    | 'SIARD_TABLE_PART_ORDER'
    | 'SIARD_SEGMENT_METADATA';
  message: string;
}

interface PartAt {
  member: number;
  part: PartNumber;
  entry: ZipEntry;
}

export class SegmentSetZip implements SiardZip {
  private readonly owner = new WeakMap<ZipEntry, ZipReader>();
  private readonly joined = new Map<string, { entry: ZipEntry; parts: PartAt[] }>();
  /** `member/entry name` of each split table's first part -> the table file's name */
  private readonly firstPartOf = new Map<string, string>();
  readonly problems: SetProblem[] = [];

  constructor(
    readonly path: string,
    readonly members: SegmentMember[],
  ) {
    const parts = new Map<string, PartAt[]>();
    members.forEach((m, member) => {
      for (const entry of m.zip.entries) {
        const p = entry.unsafeReason === null && !entry.isDirectory ? parseTablePartName(entry.name) : undefined;
        if (!p) continue;
        (parts.get(p.base) ?? parts.set(p.base, []).get(p.base)!).push({ member, part: p.part, entry });
      }
    });
    for (const [base, found] of parts) this.join(base, found);
  }

  /** The parts of one table file checked (numbered 1.. then z, in consecutive segments) and joined. */
  private join(base: string, found: PartAt[]): void {
    const where = (p: PartAt) => `${partName(base, p.part)} (in ${this.members[p.member]!.name})`;
    const byPart = [...found].sort((a, b) => comparePartNumbers(a.part, b.part));
    const numbers = byPart.map((p) => p.part).filter((n): n is number => n !== 'z');
    const present = new Set(numbers);
    const missing: string[] = [];
    for (let n = 1; n <= Math.max(1, ...numbers); n++) if (!present.has(n)) missing.push(partName(base, n));
    if (!byPart.some((p) => p.part === 'z')) missing.push(partName(base, 'z'));
    if (missing.length > 0) {
      const message = `${this.path}: the split table file ${base} lacks ${missing.join(', ')}`;
      this.problems.push({ code: 'SIARD_TABLE_PART_MISSING', message });
    }
    for (let i = 1; i < byPart.length; i++) {
      const [a, b] = [byPart[i - 1]!, byPart[i]!];
      if (b.member !== a.member + 1) {
        const why = b.member <= a.member ? 'comes before or with' : 'is not in the segment right after';
        this.problems.push({ code: 'SIARD_TABLE_PART_ORDER', message: `${this.path}: ${where(b)} ${why} ${where(a)}` });
      }
    }
    const whole = this.members.find((m) => m.zip.entry(base));
    if (whole) {
      const message = `${this.path}: ${base} is both whole (in ${whole.name}) and split into parts`;
      this.problems.push({ code: 'SIARD_TABLE_PART_ORDER', message });
    }
    const first = byPart[0]!.entry;
    const entry: ZipEntry = {
      ...first,
      name: base,
      compressedSize: byPart.reduce((n, p) => n + p.entry.compressedSize, 0),
      uncompressedSize: byPart.reduce((n, p) => n + p.entry.uncompressedSize, 0),
      crc32: 0,
      localHeaderOffset: -1,
    };
    this.joined.set(base, { entry, parts: byPart });
    this.firstPartOf.set(`${byPart[0]!.member}/${first.name}`, base);
  }

  /** The parts a table file was joined from (empty when it is whole in one segment). */
  partsOf(name: string): Array<{ segment: string; entry: string }> {
    return (this.joined.get(name)?.parts ?? []).map((p) => ({ segment: this.members[p.member]!.name, entry: p.entry.name }));
  }

  get entries(): ZipEntry[] {
    const out: ZipEntry[] = [];
    this.members.forEach((m, i) => {
      for (const e of m.zip.entries) {
        const joinedName = this.firstPartOf.get(`${i}/${e.name}`);
        if (joinedName !== undefined) {
          out.push(this.joined.get(joinedName)!.entry);
          continue;
        }
        if (e.unsafeReason === null && !e.isDirectory && parseTablePartName(e.name)) continue; // a later part
        if (i > 0 && e.name.startsWith('header/')) continue;
        this.owner.set(e, m.zip);
        out.push(e);
      }
    });
    return out;
  }

  get unsafeEntries(): ZipEntry[] {
    return this.members.flatMap((m) => m.zip.unsafeEntries);
  }

  entry(name: string): ZipEntry | undefined {
    const joined = this.joined.get(name);
    if (joined) return joined.entry;
    for (const m of this.members) {
      const e = m.zip.entry(name);
      if (e) {
        this.owner.set(e, m.zip);
        return e;
      }
    }
    return undefined;
  }

  async openStream(nameOrEntry: string | ZipEntry, limits: ZipReadLimits = {}): Promise<Readable> {
    const name = typeof nameOrEntry === 'string' ? nameOrEntry : nameOrEntry.name;
    const joined = this.joined.get(name);
    if (joined) {
      const members = this.members;
      const parts = joined.parts;
      return Readable.from(
        (async function* () {
          for (const p of parts) yield* (await members[p.member]!.zip.openStream(p.entry, limits)) as AsyncIterable<Buffer>;
        })(),
        { objectMode: false },
      );
    }
    const [zip, entry] = this.locate(nameOrEntry);
    return zip.openStream(entry, limits);
  }

  async openRawStream(nameOrEntry: string | ZipEntry): Promise<Readable> {
    const name = typeof nameOrEntry === 'string' ? nameOrEntry : nameOrEntry.name;
    if (this.joined.has(name)) {
      throw new SiardOcflError(`${this.path}: ${name} is split across segments; it has no single raw stream.`, { code: 'ZIP_SEGMENTED' });
    }
    const [zip, entry] = this.locate(nameOrEntry);
    return zip.openRawStream(entry);
  }

  readRange(): Readable {
    throw new SiardOcflError(`${this.path} is a segmented SIARD file: byte ranges are read from each segment.`, { code: 'ZIP_SEGMENTED' });
  }

  close(): void {
    for (const m of this.members) m.zip.close();
  }

  private locate(nameOrEntry: string | ZipEntry): [ZipReader, ZipEntry] {
    if (typeof nameOrEntry !== 'string') {
      const zip = this.owner.get(nameOrEntry);
      if (zip) return [zip, nameOrEntry];
    }
    const name = typeof nameOrEntry === 'string' ? nameOrEntry : nameOrEntry.name;
    for (const m of this.members) {
      const e = m.zip.entry(name);
      if (e) return [m.zip, e];
    }
    throw new SiardOcflError(`The segmented SIARD file ${this.path} has no entry ${JSON.stringify(name)}.`, {
      code: 'ZIP_NO_ENTRY',
      exitCode: 1,
    });
  }
}
