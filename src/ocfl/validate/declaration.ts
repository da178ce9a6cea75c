/** The NAMASTE declaration file of an object root or a storage root: one rule, two sets of codes. */
import { Findings, quote } from './findings.js';
import type { TreeEntry } from './fs-tree.js';
import { SPEC_VERSIONS, type SpecVersion } from './inventory.js';
import { readSmall } from './read.js';
import { joinPath, type ReadStorage } from '../storage/storage.js';

const KINDS = {
  object: { place: 'object root', prefix: 'ocfl_object_', names: 'OCFL object version', codes: ['E003', 'E003', 'E006', 'E007'] },
  'storage root': { place: 'storage root', prefix: 'ocfl_', names: 'OCFL version', codes: ['E069', 'E076', 'E079', 'E080'] },
} as const;

/** Checks the declaration(s) among a root's entries (none, several, a wrong name, a wrong content); the version declared. */
export async function checkDeclaration(
  fs: ReadStorage,
  dir: string,
  entries: TreeEntry[],
  kind: keyof typeof KINDS,
  findings: Findings,
  at: (rel: string) => string,
): Promise<SpecVersion | undefined> {
  const { place, prefix, names, codes } = KINDS[kind];
  const [missing, several, badName, badContent] = codes;
  const declarations = entries.filter((e) => e.name.startsWith('0='));
  if (declarations.length === 0) findings.add(missing, `The ${place} has no 0=${prefix}1.x declaration file.`, at(''));
  if (declarations.length > 1) {
    findings.add(several, `The ${place} has ${declarations.length} declaration files; exactly one is allowed.`, at(''));
  }
  let declared: SpecVersion | undefined;
  for (const d of declarations) {
    const version = d.name.startsWith(`0=${prefix}`) ? d.name.slice(2 + prefix.length) : '';
    if (!(SPEC_VERSIONS as readonly string[]).includes(version)) {
      findings.add(badName, `The declaration ${quote(d.name)} does not name ${names} 1.0 or 1.1.`, at(d.name));
      continue;
    }
    const read = await readSmall(fs, joinPath(dir, d.name), 1024);
    if (!read.ok || read.bytes.toString('utf8') !== `${prefix}${version}\n`) {
      findings.add(badContent, `The declaration ${d.name} does not contain exactly "${prefix}${version}" and a newline.`, at(d.name));
    }
    declared ??= version as SpecVersion;
  }
  return declared;
}
