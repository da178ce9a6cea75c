/**
 * What a re-segmented archive says about the package it came from: name, size and SHA-256 of the
 * received `.siard`, its SIARD version and producer. It goes into the database-level
 * `<description>` (the one free-text field metadata.xsd offers at that level), after the received
 * description, so a reader of metadata.xml alone can tell the archive is a repackaging and check
 * the received file against it.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';

export interface ReceivedPackage {
  /** file name of the received .siard */
  name: string;
  size: number;
  /** lower-case hex */
  sha256: string;
  siardVersion: string;
  producerApplication?: string;
}

/** Size and SHA-256 of the received .siard (one streamed read). */
export async function receivedPackageOf(
  file: string,
  siardVersion: string,
  producerApplication: string | undefined,
): Promise<ReceivedPackage> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) hash.update(chunk);
  const size = (await stat(file)).size;
  return {
    name: path.basename(file),
    size,
    sha256: hash.digest('hex'),
    siardVersion,
    ...(producerApplication !== undefined ? { producerApplication } : {}),
  };
}

/** The sentence recorded in the new archive; `mismatches` are LOB cells accepted with a wrong digest. */
export function provenanceText(received: ReceivedPackage, mismatches: { count: number; first: string[] }): string {
  let s =
    `Re-segmented by siard-ocfl from the SIARD ${received.siardVersion} package ${received.name} ` +
    `(${received.size} bytes, SHA-256 ${received.sha256}` +
    `${received.producerApplication ? `, produced by ${received.producerApplication}` : ''}); ` +
    `every LOB was copied into this archive's own LOB layout and checked against the digest its received cell gives.`;
  if (mismatches.count > 0) {
    s +=
      ` ${mismatches.count} LOB ${mismatches.count === 1 ? 'cell did' : 'cells did'} not match the received digest or length ` +
      `and ${mismatches.count === 1 ? 'was' : 'were'} kept as read (accepted on ` +
      `request): ${mismatches.first.join('; ')}${mismatches.count > mismatches.first.length ? '; ...' : ''}.`;
  }
  return s;
}
