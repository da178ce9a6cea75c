/**
 * The OCFL inventory: its model, a parser that names what is wrong, and a deterministic
 * serialisation (keys sorted at every level, versions in numeric order, path lists sorted,
 * 2-space indentation, as the OCFL fixtures and ocfl-py write them).
 */
import { SiardOcflError } from '../errors.js';
import { digestSync, isDigestAlgorithm } from './digest.js';

export const INVENTORY_TYPE_1_1 = 'https://ocfl.io/1.1/spec/#inventory';
export const INVENTORY_TYPE_1_0 = 'https://ocfl.io/1.0/spec/#inventory';

export interface User {
  name: string;
  address?: string;
}

export interface InventoryVersion {
  created: string;
  message?: string;
  user?: User;
  /** digest -> logical paths */
  state: Record<string, string[]>;
}

export interface Inventory {
  id: string;
  type: string;
  digestAlgorithm: string;
  head: string;
  contentDirectory?: string;
  /** digest -> content paths */
  manifest: Record<string, string[]>;
  versions: Record<string, InventoryVersion>;
  /** algorithm -> digest -> content paths */
  fixity?: Record<string, Record<string, string[]>>;
}

export class InventoryError extends SiardOcflError {
  constructor(message: string) {
    super(message, { code: 'BAD_INVENTORY', exitCode: 1 });
    this.name = 'InventoryError';
  }
}

const VERSION_RE = /^v(\d+)$/;

export function versionNumber(name: string): number {
  const m = VERSION_RE.exec(name);
  if (!m) throw new InventoryError(`"${name}" is not a version name (v1, v2, ... or zero-padded).`);
  return Number(m[1]);
}

/** Name of the version after `name`, keeping zero-padding (v009 -> v010); refuses to overflow the padding. */
export function nextVersionName(name: string | undefined): string {
  if (name === undefined) return 'v1';
  const digits = name.slice(1);
  const n = versionNumber(name) + 1;
  if (digits.startsWith('0')) {
    const next = String(n).padStart(digits.length, '0');
    if (next.length > digits.length) {
      throw new SiardOcflError(`Version ${name} is the last one its zero-padded numbering allows.`, { code: 'VERSION_OVERFLOW' });
    }
    return 'v' + next;
  }
  return 'v' + n;
}

/** Version names of an inventory in numeric order. */
export function versionNames(inv: Inventory): string[] {
  return Object.keys(inv.versions).sort((a, b) => versionNumber(a) - versionNumber(b));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function pathMap(value: unknown, where: string): Record<string, string[]> {
  if (!isRecord(value)) throw new InventoryError(`${where} is not a JSON object.`);
  const out: Record<string, string[]> = {};
  for (const [digest, paths] of Object.entries(value)) {
    if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string')) {
      throw new InventoryError(`${where} entry "${digest}" is not a list of paths.`);
    }
    out[digest] = paths as string[];
  }
  return out;
}

/**
 * Parses inventory bytes. `where` names the file in messages. Checks structure (what the rest of
 * the code relies on), not every rule of the specification: that is the validator's work.
 */
export function parseInventory(bytes: Uint8Array | string, where = 'inventory.json'): Inventory {
  let data: unknown;
  try {
    data = JSON.parse(typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('utf8'));
  } catch (err) {
    throw new InventoryError(`${where} is not valid JSON (${(err as Error).message}).`);
  }
  if (!isRecord(data)) throw new InventoryError(`${where} does not hold a JSON object.`);
  for (const key of ['id', 'type', 'digestAlgorithm', 'head'] as const) {
    if (typeof data[key] !== 'string' || data[key] === '') throw new InventoryError(`${where} lacks the string field "${key}".`);
  }
  const digestAlgorithm = data.digestAlgorithm as string;
  if (digestAlgorithm !== 'sha512' && digestAlgorithm !== 'sha256') {
    throw new InventoryError(`${where} uses digestAlgorithm "${digestAlgorithm}"; OCFL allows sha512 or sha256.`);
  }
  if (!isRecord(data.versions) || Object.keys(data.versions).length === 0) {
    throw new InventoryError(`${where} has no "versions" object.`);
  }
  const versions: Record<string, InventoryVersion> = {};
  for (const [name, v] of Object.entries(data.versions)) {
    if (!VERSION_RE.test(name)) throw new InventoryError(`${where} has a version named "${name}", not vN.`);
    if (!isRecord(v)) throw new InventoryError(`${where} version ${name} is not a JSON object.`);
    if (typeof v.created !== 'string') throw new InventoryError(`${where} version ${name} lacks "created".`);
    const version: InventoryVersion = { created: v.created, state: pathMap(v.state, `${where} version ${name} state`) };
    if (v.message !== undefined) {
      if (typeof v.message !== 'string') throw new InventoryError(`${where} version ${name} message is not a string.`);
      version.message = v.message;
    }
    if (v.user !== undefined) {
      if (!isRecord(v.user) || typeof v.user.name !== 'string') throw new InventoryError(`${where} version ${name} user has no name.`);
      version.user = { name: v.user.name };
      if (v.user.address !== undefined) {
        if (typeof v.user.address !== 'string') throw new InventoryError(`${where} version ${name} user address is not a string.`);
        version.user.address = v.user.address;
      }
    }
    versions[name] = version;
  }
  if (!(data.head as string in versions)) throw new InventoryError(`${where} names head ${data.head as string}, which is not among its versions.`);
  const inv: Inventory = {
    id: data.id as string,
    type: data.type as string,
    digestAlgorithm,
    head: data.head as string,
    manifest: pathMap(data.manifest, `${where} manifest`),
    versions,
  };
  if (data.contentDirectory !== undefined) {
    if (typeof data.contentDirectory !== 'string' || data.contentDirectory === '' || /[/]|^\.\.?$/.test(data.contentDirectory)) {
      throw new InventoryError(`${where} has an unusable contentDirectory.`);
    }
    inv.contentDirectory = data.contentDirectory;
  }
  if (data.fixity !== undefined) {
    if (!isRecord(data.fixity)) throw new InventoryError(`${where} fixity is not a JSON object.`);
    inv.fixity = {};
    for (const [alg, block] of Object.entries(data.fixity)) inv.fixity[alg] = pathMap(block, `${where} fixity ${alg}`);
  }
  return inv;
}

function sortedPathMap(map: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const key of Object.keys(map).sort()) out[key] = [...map[key]].sort();
  return out;
}

function sortedKeys<T extends object>(obj: T): T {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(obj).sort()) {
    const value = (obj as Record<string, unknown>)[key];
    if (value !== undefined) out[key] = value;
  }
  return out as T;
}

/** The canonical bytes of an inventory: same inventory, same bytes. */
export function serializeInventory(inv: Inventory): Buffer {
  const versions: Record<string, InventoryVersion> = {};
  for (const name of versionNames(inv)) {
    const v = inv.versions[name];
    versions[name] = sortedKeys({
      created: v.created,
      message: v.message,
      state: sortedPathMap(v.state),
      user: v.user ? sortedKeys({ ...v.user }) : undefined,
    });
  }
  let fixity: Inventory['fixity'];
  if (inv.fixity && Object.keys(inv.fixity).length > 0) {
    fixity = {};
    for (const alg of Object.keys(inv.fixity).sort()) fixity[alg] = sortedPathMap(inv.fixity[alg]);
  }
  const out = sortedKeys({
    contentDirectory: inv.contentDirectory,
    digestAlgorithm: inv.digestAlgorithm,
    fixity,
    head: inv.head,
    id: inv.id,
    manifest: sortedPathMap(inv.manifest),
    type: inv.type,
    versions,
  });
  return Buffer.from(JSON.stringify(out, null, 2), 'utf8');
}

/** Contents of `inventory.json.<alg>`: the digest, one space, the file name (as the OCFL fixtures write it). */
export function sidecarContent(inventoryBytes: Uint8Array, digestAlgorithm: string): string {
  return `${digestSync(digestAlgorithm, inventoryBytes)} inventory.json\n`;
}

/** The digest a sidecar file records (first whitespace-separated token), or undefined when malformed. */
export function parseSidecar(text: string): string | undefined {
  const m = /^([0-9a-fA-F]+)[ \t]+inventory\.json\s*$/.exec(text);
  return m ? m[1].toLowerCase() : undefined;
}

/** Whether the inventory bytes match the digest their sidecar records. */
export function sidecarMatches(inventoryBytes: Uint8Array, sidecarText: string, digestAlgorithm: string): boolean {
  if (!isDigestAlgorithm(digestAlgorithm)) return false;
  return parseSidecar(sidecarText) === digestSync(digestAlgorithm, inventoryBytes);
}

/** Digest -> first content path, for looking content up case-insensitively (digests are hex). */
export function manifestIndex(inv: Inventory): Map<string, string[]> {
  const index = new Map<string, string[]>();
  for (const [digest, paths] of Object.entries(inv.manifest)) index.set(digest.toLowerCase(), paths);
  return index;
}

/** logical path -> digest (lower-case) of one version's state. */
export function logicalState(inv: Inventory, version = inv.head): Map<string, string> {
  const v = inv.versions[version];
  if (!v) throw new SiardOcflError(`Object "${inv.id}" has no version ${version} (head is ${inv.head}).`, { code: 'NO_SUCH_VERSION' });
  const state = new Map<string, string>();
  for (const [digest, paths] of Object.entries(v.state)) for (const p of paths) state.set(p, digest.toLowerCase());
  return new Map([...state].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
