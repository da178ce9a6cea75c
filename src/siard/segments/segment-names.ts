/**
 * Names of a segmented SIARD file (SIARD 2.2 draft S_8.5-0, S_8.6-0): `[db].siard.1`, `[db].siard.2`,
 * ... `[db].siard.z`, and of a table file split across segments: `tableN.xml.1`, ... `tableN.xml.z`.
 * The last member of either sequence is `.z`, as for split LOBs (S_8.4-0). One place for the rules,
 * shared by the writer, the reader and every verb that looks for archives among file names.
 */

/** The part suffix of a member: 1, 2, ... or 'z' (the last). */
export type PartNumber = number | 'z';

const SEGMENT_NAME = /^(.*\.siard)\.([1-9]\d*|z)$/i;
const TABLE_PART_NAME = /^(.*\.xml)\.([1-9]\d*|z)$/;

/** `base` (e.g. "Northwind.siard") with the part suffix: "Northwind.siard.2", "Northwind.siard.z". */
export function partName(base: string, part: PartNumber): string {
  return `${base}.${part}`;
}

/** A segment's name split into the name of the whole archive and its part, or undefined. */
export function parseSegmentName(name: string): { base: string; part: PartNumber } | undefined {
  const m = SEGMENT_NAME.exec(name);
  if (!m) return undefined;
  return { base: m[1]!, part: m[2]!.toLowerCase() === 'z' ? 'z' : Number(m[2]) };
}

/** Whether `name` is a member of a segmented SIARD file (`x.siard.1` ... `x.siard.z`). */
export function isSiardSegmentName(name: string): boolean {
  return SEGMENT_NAME.test(name);
}

/** A ZIP entry name of a table file part (`content/schema0/table2/table2.xml.3`), or undefined. */
export function parseTablePartName(entry: string): { base: string; part: PartNumber } | undefined {
  const m = TABLE_PART_NAME.exec(entry);
  if (!m || (!m[1]!.startsWith('content/') && !m[1]!.includes('/content/'))) return undefined;
  return { base: m[1]!, part: m[2] === 'z' ? 'z' : Number(m[2]) };
}

/** Orders parts 1, 2, ..., z. */
export function comparePartNumbers(a: PartNumber, b: PartNumber): number {
  return (a === 'z' ? Number.POSITIVE_INFINITY : a) - (b === 'z' ? Number.POSITIVE_INFINITY : b);
}

/** One segmented SIARD file found among names: its members in part order, and what is wrong with the sequence. */
export interface SegmentSetNames {
  /** the whole archive's name, e.g. "data/Northwind.siard" (no file of that name need exist) */
  base: string;
  /** the members present, in part order */
  members: Array<{ name: string; part: PartNumber }>;
  /** parts 2 .. n-1 (or 1) absent between those present */
  missing: number[];
  /** no `.z` member */
  lastMissing: boolean;
}

/**
 * Groups the segment names among `names` (paths or logical paths) by the archive they belong to.
 * Names that are not segments are ignored. Sets are returned in order of their base names.
 */
export function groupSegmentNames(names: Iterable<string>): SegmentSetNames[] {
  const sets = new Map<string, Array<{ name: string; part: PartNumber }>>();
  for (const name of names) {
    const parsed = parseSegmentName(name);
    if (!parsed) continue;
    const list = sets.get(parsed.base) ?? sets.set(parsed.base, []).get(parsed.base)!;
    list.push({ name, part: parsed.part });
  }
  return [...sets.keys()].sort().map((base) => {
    const members = sets.get(base)!.sort((a, b) => comparePartNumbers(a.part, b.part));
    const numbers = members.map((m) => m.part).filter((p): p is number => p !== 'z');
    const highest = numbers.length > 0 ? numbers[numbers.length - 1]! : 0;
    const present = new Set(numbers);
    const missing: number[] = [];
    for (let p = 1; p < highest; p++) if (!present.has(p)) missing.push(p);
    const lastMissing = !members.some((m) => m.part === 'z');
    // A set with a `.z` but no numbered member still lacks `.1` (a one-segment set is a plain .siard).
    if (!lastMissing && highest === 0) missing.push(1);
    return { base, members, missing, lastMissing };
  });
}

/** The problems of a set's sequence of names, in words (empty when complete). */
export function describeSetGaps(set: SegmentSetNames): string[] {
  const out: string[] = [];
  if (set.missing.length > 0) {
    const many = set.missing.length > 1;
    const names = set.missing.map((p) => partName(set.base, p)).join(', ');
    out.push(`${set.base}: segment${many ? 's' : ''} ${names} ${many ? 'are' : 'is'} missing`);
  }
  if (set.lastMissing) out.push(`${set.base}: the last segment ${partName(set.base, 'z')} is missing`);
  return out;
}
