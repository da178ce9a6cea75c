/**
 * The judgements `check` shares with the audit of an object: each takes what was found, however it
 * was read (check streams a LOB file itself; the audit takes the sizes and digests of its one read
 * of the object's content), and reports a failure under its requirement id in one sentence. One
 * implementation, so the two cannot disagree on what is wrong or how it is said; the audit adds
 * its own code and the archive's place in front (archive/audit-check.ts).
 */
import { describeLobTarget, type LobTarget } from '../lob-location.js';
import { lobLengthUnit, type LobCounts } from '../reader/verify-lob.js';
import type { Where } from './report.js';

/** Where a failure goes: CheckReport.fail, or the audit's findings. */
export type Fail = (id: string, message: string, where: Where) => void;

/** A LOB file in messages: its first part, and how many more a split LOB has. */
export function lobFileLabel(first: string, parts: number): string {
  return parts > 1 ? `${first} (+${parts - 1} parts)` : first;
}

/**
 * The cell's `length` against the LOB's counts (T_6.4-5): bytes, or for text any of the ways
 * producers count characters. No stated length, nothing to judge.
 */
export function lobLengthVerdict(
  fail: Fail,
  file: string,
  stated: number | undefined,
  counts: LobCounts,
  text: boolean,
  where: Where,
): void {
  if (stated === undefined || lobLengthUnit(stated, counts, text) !== undefined) return;
  const counted =
    text && counts.codePoints !== undefined ? `${counts.codePoints} characters (${counts.bytes} bytes)` : `${counts.bytes} bytes`;
  fail('T_6.4-5', `LOB file ${file} has ${counted}, but the cell says length ${stated}.`, where);
}

/** The cell's `digest` against the one computed over the file's bytes (T_6.4-5; hex compared case-insensitively). */
export function lobDigestVerdict(
  fail: Fail,
  file: string,
  digestType: string,
  computed: string | undefined,
  stated: string | undefined,
  where: Where,
): void {
  if (computed === undefined || stated === undefined || computed.toLowerCase() === stated.toLowerCase()) return;
  fail('T_6.4-5', `LOB file ${file} has ${digestType} ${computed}, but the cell says ${stated}.`, where);
}

/**
 * A LOB cell whose file is not found at a usable place (T_6.4-5: no usable location, or missing
 * where its lobFolder chain leads), or whose split as .0 ... .z was begun and is not complete
 * (`splitBegun`, its first part: S_8.1.1-0). Not for a file outside the package (not a failure).
 */
export function lobNotFoundVerdict(fail: Fail, file: string, primary: LobTarget, where: Where, splitBegun?: string): void {
  if (primary.kind === 'invalid') fail('T_6.4-5', `LOB file "${file}" has no usable location: ${primary.reason}.`, where);
  else if (splitBegun !== undefined)
    fail('S_8.1.1-0', `LOB "${file}" is split as .0 ... .z, but a part or the closing .z is missing (${splitBegun} is there).`, where);
  else fail('T_6.4-5', `LOB file "${file}" is missing: nothing at ${describeLobTarget(primary)}.`, where);
}

/** The rows a table's XML holds against metadata.xml's `<rows>` (P_4.3-10). */
export function rowCountVerdict(fail: Fail, table: string, xmlEntry: string, rows: number, stated: number): void {
  if (rows === stated) return;
  fail('P_4.3-10', `Table ${table} has ${rows} rows in ${xmlEntry}, but metadata.xml says <rows>${stated}</rows>.`, {
    entry: xmlEntry,
    table,
  });
}

/**
 * The messageDigest metadata.xml states against the one computed over the archive's bytes before
 * header/ (M_5.1-1); `segment` names the segment of a segmented SIARD file whose own it is.
 */
export function messageDigestVerdict(fail: Fail, digestType: string, stated: string, computed: string, segment?: string): void {
  if (computed.toLowerCase() === stated.toLowerCase()) return;
  const [file, bytes] = segment === undefined ? ['metadata.xml', "the archive's"] : [`the metadata.xml of ${segment}`, `${segment}'s`];
  const message = `The messageDigest (${digestType}) in ${file} is ${stated}, but ${bytes} bytes before header/ give ${computed}.`;
  fail('M_5.1-1', message, { entry: 'header/metadata.xml' });
}
