/**
 * `check` of a package on disk: a `.siard`, a folder holding one (with its LOB folders), a
 * member of a segmented set (`x.siard.1`), or a SIARD file split as binary parts (`x.siard_part001`
 * ..., S_8.2-0: the parts read as one archive). An archive that is no ZIP, or no SIARD archive, is a
 * failed check (exit 1), not an error; a path that cannot be read is an error (exit 2).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { SiardOcflError } from '../../errors.js';
import { SiardReader } from '../reader/siard-reader.js';
import { localSegmentSet, openLocalSiard } from '../segments/segment-set-reader.js';
import { groupSegmentNames } from '../segments/segment-names.js';
import { ZipReader, type ByteSource, type ZipReadLimits } from '../zip/reader.js';
import { checkOpenedSiard, type CheckPackageOptions } from './check-package.js';
import { checkExtension, checkZipEntries } from './container.js';
import { checkMetadataSchema } from './metadata-checks.js';
import { checkPartNames, joinedParts, partsDifferFrom, splitFileOf, splitParts } from './split-siard.js';
import { loadLibxml2 } from './xsd-validator.js';
import { officialMetadataXsd } from '../writer.js';
import { CheckReport, type CheckResult } from './report.js';

/** Deflate cannot pass about 1:1032; an entry claiming more is not honest deflate. */
const CHECK_LIMITS: ZipReadLimits = { maxCompressionRatio: 1100 };

/** The archive a path names: itself, or the one .siard (or segmented set) in a folder. */
function archiveOf(target: string): string {
  let st;
  try {
    st = statSync(target);
  } catch (err) {
    if (localSegmentSet(target) || splitParts(target).length > 0) return target;
    throw new SiardOcflError(`${target} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`, {
      code: 'USAGE',
      exitCode: 2,
    });
  }
  if (!st.isDirectory()) return splitFileOf(target) ?? target;
  const names = readdirSync(target);
  const siards = names.filter((n) => /\.siard$/i.test(n));
  const sets = groupSegmentNames(names);
  // a split file whose whole is not there: its parts are the archive
  const split = [...new Set(names.map((n) => splitFileOf(n)).filter((f) => f !== undefined))].filter((f) => !siards.includes(f));
  const found = [...siards, ...sets.map((s) => s.members[0]!.name), ...split];
  if (found.length !== 1) {
    throw new SiardOcflError(
      found.length === 0
        ? `${target} holds no .siard file.`
        : `${target} holds ${found.length} SIARD files (${found.join(', ')}); name the one to check.`,
      { code: 'USAGE', exitCode: 2 },
    );
  }
  return path.join(target, found[0]!);
}

/** What cannot even be opened as a ZIP or a SIARD archive, said under its requirement. */
async function openOrReport(file: string, report: CheckReport): Promise<SiardReader | undefined> {
  await loadLibxml2();
  checkExtension(file, report);
  const parts = existsSync(file) ? [] : splitParts(file);
  const source: string | ByteSource = parts.length > 0 ? joinedParts(file, parts) : file;
  const named = parts.length > 0 ? `${path.basename(file)} (its ${parts.length} parts read as one)` : path.basename(file);
  if (!localSegmentSet(file)) {
    let zip: ZipReader;
    try {
      zip = await ZipReader.open(source, CHECK_LIMITS);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EACCES') throw err;
      report.fail('G_4.1-1', `${named} is not a readable ZIP archive: ${(err as Error).message}`, {
        entry: path.basename(file),
      });
      return undefined;
    }
    checkZipEntries(zip.entries, report);
    zip.close();
  }
  try {
    if (typeof source !== 'string') return await SiardReader.open(source, { limits: CHECK_LIMITS });
    return await openLocalSiard(file, { tolerateProblems: true, limits: CHECK_LIMITS });
  } catch (err) {
    const code = (err as SiardOcflError).code;
    const message = (err as Error).message;
    if (code === 'SIARD_NOT_SIARD') report.fail('P_4.2-5', message, { entry: 'header/metadata.xml' });
    else if (/metadata/i.test(message)) {
      report.fail('M_5.0-1', `metadata.xml cannot be read: ${message}`, { entry: 'header/metadata.xml' });
      await schemaOfUnreadableMetadata(file, report).catch(() => undefined); // its ZIP entry may be unreadable too
    } else report.fail('G_4.1-1', `${named} cannot be read as a SIARD archive: ${message}`, { entry: path.basename(file) });
    return undefined;
  }
}

/** metadata.xml the reader refuses: still validated, so its errors are said at their level (M_5.x). */
async function schemaOfUnreadableMetadata(file: string, report: CheckReport): Promise<void> {
  if (localSegmentSet(file)) return;
  const parts = existsSync(file) ? [] : splitParts(file);
  const zip = await ZipReader.open(parts.length > 0 ? joinedParts(file, parts) : file, CHECK_LIMITS);
  try {
    const entry = zip.entry('header/metadata.xml');
    if (!entry || entry.uncompressedSize > 256 * 1024 * 1024) return;
    const chunks: Buffer[] = [];
    for await (const c of (await zip.openStream(entry)) as AsyncIterable<Buffer>) chunks.push(c);
    checkMetadataSchema(Buffer.concat(chunks), officialMetadataXsd(), report);
  } finally {
    zip.close();
  }
}

export async function checkSiardPackage(target: string, options: CheckPackageOptions = {}): Promise<CheckResult> {
  const file = archiveOf(target);
  const report = new CheckReport();
  const reader = await openOrReport(file, report);
  if (reader) {
    try {
      await checkOpenedSiard(reader, report, { packageDir: path.dirname(path.resolve(file)), ...options });
    } finally {
      reader.close();
    }
  } else checkPartNames(file, report); // parts that make no readable archive: their names may say why
  await checkWholeBesideParts(file, report);
  return report.result();
}

/** A whole .siard beside its parts (S_8.2-0): the parts must be its binary split. */
async function checkWholeBesideParts(file: string, report: CheckReport): Promise<void> {
  const parts = existsSync(file) ? splitParts(file) : [];
  if (parts.length === 0) return;
  report.applies('S_8.2-0');
  const differ = await partsDifferFrom(file, parts);
  if (differ) report.fail('S_8.2-0', differ, { entry: path.basename(parts[0]!) });
}
