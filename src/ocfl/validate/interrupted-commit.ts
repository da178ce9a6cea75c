/**
 * Recognises the two states a writer killed in the middle of a commit leaves (see
 * src/ocfl/commit/commit.ts), and says so in the finding. The codes stay: such an object IS invalid OCFL
 * until repaired; but it is not damage, and the message tells what settles it.
 *   - an unlisted version folder v(N+1) whose own inventory is a valid successor of the root
 *     inventory, with a matching sidecar (killed after placing the version folder, before the
 *     inventory switch): E046, rolled back by repair;
 *   - a root sidecar that does not match the root inventory, where the root inventory has the
 *     bytes of the head version's inventory and that version's sidecar matches (killed between
 *     replacing the inventory and its sidecar): E060, completed by repair.
 */
import { isDigestAlgorithm } from '../digest.js';
import { Findings } from './findings.js';
import { checkInventory, parseVersionName, stateDifferences, type CheckedInventory, type SpecVersion } from './inventory.js';
import { listDir } from './fs-tree.js';
import { joinPath, type ReadStorage } from '../storage/storage.js';
import { type BytesFingerprint, readSmall, sameJson, sameStoredBytes, sidecarDigest } from './read.js';
import { readInventoryFile } from './plain-inventory.js';

const REPAIR = '`siard-ocfl repair` (or the next write of this object)';

export interface CommitState {
  /** The root inventory as checked, and a fingerprint of its bytes. */
  inv: CheckedInventory;
  rootBytes: BytesFingerprint;
  /** Version-like folders of the object root that the root inventory does not list. */
  unlisted: string[];
  spec: SpecVersion;
}

/** True when `rel`/inventory.json.<alg> in the object holds the inventory's digest (`digestOf`). */
async function sidecarMatches(
  fs: ReadStorage,
  dir: string,
  rel: string,
  digestOf: (algorithm: string) => string | undefined,
  algorithm: string,
): Promise<boolean> {
  if (!isDigestAlgorithm(algorithm)) return false;
  const read = await readSmall(fs, joinPath(dir, rel, `inventory.json.${algorithm}`), 4096);
  const stated = read.ok ? sidecarDigest(read.bytes) : undefined;
  return stated !== undefined && stated.toLowerCase() === digestOf(algorithm);
}

/** The name of the version after `head`, in the same zero-padding. */
function successorName(head: string): string | undefined {
  const parsed = parseVersionName(head);
  if (!parsed) return undefined;
  const next = String(parsed.number + 1);
  if (parsed.padding === 0) return `v${next}`;
  return next.length < parsed.padding ? `v${next.padStart(parsed.padding, '0')}` : undefined;
}

/** Is `name`/inventory.json a valid inventory of the next version of `inv`, with its sidecar? */
async function isSuccessor(fs: ReadStorage, dir: string, name: string, inv: CheckedInventory, spec: SpecVersion): Promise<boolean> {
  if (!inv.head || !inv.digestAlgorithm || successorName(inv.head) !== name) return false;
  const read = await readInventoryFile(fs, joinPath(dir, name, 'inventory.json'));
  if (!read.ok) return false;
  const parsed = read.parsed;
  if (!parsed.ok) return false;
  const scratch = new Findings();
  const next = checkInventory(parsed.value, { findings: scratch, where: name, specVersion: spec }, parsed.plain);
  if (!next || scratch.errors.length > 0) return false;
  if (next.id !== inv.id || next.head !== name || next.digestAlgorithm !== inv.digestAlgorithm) return false;
  if (next.contentDirectory !== inv.contentDirectory || next.versions.length !== inv.versions.length + 1) return false;
  for (let i = 0; i < inv.versions.length; i++) {
    const a = inv.versions[i];
    const b = next.versions[i];
    if (a.name !== b.name || stateDifferences(a, inv, b, next).length > 0) return false;
    if (!sameJson(a.created, b.created) || !sameJson(a.message, b.message) || !sameJson(a.user, b.user)) return false;
  }
  // Earlier content stays where it was; new content lies only in the new version's folder.
  for (const [p, d] of inv.manifest) if (next.manifest.get(p)?.toLowerCase() !== d.toLowerCase()) return false;
  for (const p of next.manifest.keys()) if (!inv.manifest.has(p) && !p.startsWith(`${name}/`)) return false;
  return sidecarMatches(fs, dir, name, read.digestOf, inv.digestAlgorithm);
}

/** Is the root inventory the head version's own (same bytes, matching sidecar there)? */
async function rootIsHeadInventory(fs: ReadStorage, dir: string, state: CommitState): Promise<boolean> {
  const { inv, rootBytes } = state;
  if (!inv.head || !inv.digestAlgorithm || !parseVersionName(inv.head)) return false;
  if (!(await listDir(fs, joinPath(dir, inv.head)))) return false;
  // Streamed, never held beside the root's model (a fingerprint is in the algorithm the inventory declares: see readInventoryFile).
  const copy = await sameStoredBytes(fs, joinPath(dir, inv.head, 'inventory.json'), rootBytes, inv.digestAlgorithm);
  if (!copy?.same) return false;
  return sidecarMatches(fs, dir, inv.head, () => copy.digest, inv.digestAlgorithm);
}

/** Adds the interrupted-commit explanation to the E046 / E060 findings these states produce. */
export async function explainInterruptedCommit(
  fs: ReadStorage,
  dir: string,
  state: CommitState,
  findings: Findings,
  at: (rel: string) => string,
): Promise<void> {
  const amend = (code: string, where: string, text: string) => {
    for (const f of findings.errors) if (f.code === code && f.path === where) f.message = `${f.message} ${text}`;
  };
  const { inv } = state;
  const name =
    state.unlisted.length === 1 && (await isSuccessor(fs, dir, state.unlisted[0], inv, state.spec)) ? state.unlisted[0] : undefined;
  if (name) {
    amend(
      'E046',
      at(name),
      `It looks like an interrupted commit of ${name} (its inventory is a valid successor of the root inventory): ${REPAIR} rolls it back.`,
    );
  }
  const sidecar = `inventory.json.${inv.digestAlgorithm}`;
  if (findings.errors.some((f) => f.code === 'E060' && f.path === at(sidecar)) && (await rootIsHeadInventory(fs, dir, state))) {
    // Both at once only after a power loss that kept the sidecar's rename but not the inventory's.
    const text = name
      ? `It looks like an interrupted commit of ${name} whose new sidecar outlived its inventory switch (the root inventory ` +
        `is ${inv.head}'s own): ${REPAIR} rolls it back.`
      : `It looks like an interrupted commit of ${inv.head} (the root inventory is that version's own, whose sidecar ` +
        `matches): ${REPAIR} completes it.`;
    amend('E060', at(sidecar), text);
  }
}
