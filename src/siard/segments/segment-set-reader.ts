/**
 * Opens a segmented SIARD file (`[db].siard.1` ... `.z`) as one SiardReader: named by any member or
 * by the set's stem (`[db].siard`), on disk or as ByteSources (segments kept in an OCFL object).
 * Besides what SegmentSetZip finds in the parts, the set is checked for a missing segment and
 * for segments whose metadata.xml disagree (apart from each one's own messageDigest). A set with
 * such problems is refused, unless `tolerateProblems` (audit reports them as findings).
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { SiardOcflError } from '../../errors.js';
import { parseSiardMetadata } from '../reader/metadata.js';
import { SiardReader, type OpenSiardOptions } from '../reader/siard-reader.js';
import { ZipReader, type ByteSource } from '../zip/reader.js';
import { describeSetGaps, groupSegmentNames, parseSegmentName, type SegmentSetNames } from './segment-names.js';
import { SegmentSetZip, type SegmentMember, type SetProblem } from './segment-set-zip.js';

export interface OpenSegmentsOptions extends OpenSiardOptions {
  /** open a set with problems (they are in `setProblems(reader)`) instead of refusing it */
  tolerateProblems?: boolean;
}

/** The problems found in a segmented set opened with tolerateProblems (none for a plain .siard). */
export function setProblems(reader: SiardReader): SetProblem[] {
  return reader.zip instanceof SegmentSetZip ? reader.zip.problems : [];
}

/** Whether the reader reads a segmented SIARD file. */
export function isSegmentedReader(reader: SiardReader): reader is SiardReader & { zip: SegmentSetZip } {
  return reader.zip instanceof SegmentSetZip;
}

/**
 * Opens the members of `set` (sources in part order as `open` gives them). `siardPath` (default
 * the first member's name) places the set in its package for LOB resolution.
 */
export async function openSiardSegments(
  set: SegmentSetNames,
  open: (name: string) => string | ByteSource | Promise<string | ByteSource>,
  options: OpenSegmentsOptions & { packageDir?: string; label?: string },
): Promise<SiardReader> {
  if (set.members.length === 0) throw new SiardOcflError(`${set.base}: no segment of it exists.`, { code: 'SIARD_SEGMENTS', exitCode: 1 });
  const members: SegmentMember[] = [];
  let packageDir = options.packageDir;
  try {
    for (const m of set.members) {
      const source = await open(m.name);
      packageDir ??= typeof source === 'string' ? path.dirname(path.resolve(source)) : path.posix.dirname(source.name);
      members.push({ name: m.name, part: m.part, zip: await ZipReader.open(source, options.limits ?? {}) });
    }
  } catch (err) {
    for (const m of members) m.zip.close();
    throw err;
  }
  const label = options.label ?? `${set.base}.1 ... .z`;
  const view = new SegmentSetZip(label, members);
  for (const gap of describeSetGaps(set)) {
    view.problems.push({ code: /last segment/.test(gap) ? 'SIARD_SEGMENT_LAST_MISSING' : 'SIARD_SEGMENT_MISSING', message: gap });
  }
  const siardPath = (options.siardPath ?? path.posix.basename(set.members[0]!.name)).split(path.sep).join('/');
  const reader = await SiardReader.fromZip(view, label, siardPath, packageDir!, options);
  try {
    await checkMetadataAgreement(reader, view);
    const problems = view.problems;
    if (problems.length > 0 && !options.tolerateProblems) {
      const what = problems.map((p) => p.message).join('; ');
      throw new SiardOcflError(`${label} is not a complete segmented SIARD file: ${what}.`, { code: 'SIARD_SEGMENTS', exitCode: 1 });
    }
    return reader;
  } catch (err) {
    reader.close();
    throw err;
  }
}

/** Every segment's metadata.xml must describe the same archive; only the messageDigest differs. */
async function checkMetadataAgreement(reader: SiardReader, view: SegmentSetZip): Promise<void> {
  const strip = (a: object) => JSON.stringify({ ...a, messageDigests: undefined });
  const first = strip(reader.archive);
  for (const m of view.members.slice(1)) {
    const name = `${reader.root}header/metadata.xml`;
    if (!m.zip.entry(name)) {
      view.problems.push({ code: 'SIARD_SEGMENT_METADATA', message: `${m.name} has no ${name}` });
      continue;
    }
    const chunks: Buffer[] = [];
    const stream = await m.zip.openStream(name, { maxUncompressedSize: 256 * 1024 * 1024 });
    for await (const c of stream as AsyncIterable<Buffer>) chunks.push(c);
    let archive;
    try {
      archive = parseSiardMetadata(Buffer.concat(chunks).toString('utf8'), `${m.name}: ${name}`).archive;
    } catch (err) {
      view.problems.push({ code: 'SIARD_SEGMENT_METADATA', message: `${m.name}: ${(err as Error).message}` });
      continue;
    }
    if (strip(archive) !== first) {
      const why = firstDifference(reader.archive, archive);
      const message = `the metadata.xml of ${m.name} describes another archive than that of ${view.members[0]!.name} (${why})`;
      view.problems.push({ code: 'SIARD_SEGMENT_METADATA', message });
    }
  }
}

/** Names the first top-level field (or table) where two archives differ. */
function firstDifference(a: object, b: object): string {
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  for (const k of new Set([...Object.keys(ra), ...Object.keys(rb)])) {
    if (k === 'messageDigests' || JSON.stringify(ra[k]) === JSON.stringify(rb[k])) continue;
    return `they differ in ${k}`;
  }
  return 'they differ';
}

/**
 * The segmented set a local path names: a member (`x.siard.2`), or the stem `x.siard` where no such
 * file exists but segments do. Undefined when the path is not that.
 */
export function localSegmentSet(file: string): SegmentSetNames | undefined {
  const parsed = parseSegmentName(path.basename(file));
  const base = parsed ? parsed.base : path.basename(file);
  if (!parsed) {
    if (!/\.siard$/i.test(base)) return undefined;
    try {
      if (statSync(file).isFile()) return undefined;
    } catch {
      // no such file: perhaps its segments
    }
  }
  const dir = path.dirname(file);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  const set = groupSegmentNames(names).find((s) => s.base === base);
  if (!set) return undefined;
  return { ...set, base: path.join(dir, set.base), members: set.members.map((m) => ({ ...m, name: path.join(dir, m.name) })) };
}

/** A `.siard` on disk, or a segmented set named by a member or its stem. */
export async function openLocalSiard(file: string, options: OpenSegmentsOptions = {}): Promise<SiardReader> {
  const set = localSegmentSet(file);
  if (!set) return SiardReader.open(file, options);
  return openSiardSegments(set, (name) => name, { ...options, packageDir: path.dirname(path.resolve(file)) });
}
