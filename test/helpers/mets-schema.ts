/** Validation of METS files with xmllint against the METS 1.12 schema shipped in resources/mets (offline). */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from './shared.js';

const METS_DIR = path.join(PROJECT_ROOT, 'resources', 'mets');

/** '' when every file is valid, else xmllint's messages. */
export function metsSchemaErrors(files: string[]): string {
  const r = spawnSync('xmllint', ['--noout', '--nonet', '--schema', path.join(METS_DIR, 'mets.xsd'), ...files], {
    encoding: 'utf8',
    // The schema imports XLink from the Library of Congress; the catalog points at the copy beside it.
    env: { ...process.env, XML_CATALOG_FILES: path.join(METS_DIR, 'catalog.xml') },
  });
  return r.status === 0 ? '' : `${r.stderr}${r.error?.message ?? ''}`;
}
