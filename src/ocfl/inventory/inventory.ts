/**
 * The OCFL inventory: its model and a parser that names what is wrong. Its deterministic
 * serialisation is inventory/chunks.ts.
 */
import { SiardOcflError } from '../../errors.js';
import { digestSync, isDigestAlgorithm } from '../digest.js';
import { parseJsonBytes } from './large-json.js';

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

/** The error of a version the object lacks (NO_SUCH_VERSION). */
export function noSuchVersion(id: string, version: string, head: string): SiardOcflError {
  return new SiardOcflError(`Object "${id}" has no version ${version} (head is ${head}).`, { code: 'NO_SUCH_VERSION' });
}

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

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks a digest -> paths block in place and returns it (no copy: it may hold a million entries). */
function pathMap(value: unknown, where: string): Record<string, string[]> {
  if (!isRecord(value)) throw new InventoryError(`${where} is not a JSON object.`);
  for (const digest in value) {
    const paths = value[digest];
    if (!Array.isArray(paths)) throw new InventoryError(`${where} entry "${digest}" is not a list of paths.`);
    for (const p of paths) if (typeof p !== 'string') throw new InventoryError(`${where} entry "${digest}" is not a list of paths.`);
  }
  return value as Record<string, string[]>;
}

/**
 * Parses inventory bytes. `where` names the file in messages. Checks structure (what the rest of
 * the code relies on), not every rule of the specification: that is the validator's work.
 */
export function parseInventory(bytes: Uint8Array | string, where = 'inventory.json'): Inventory {
  let data: unknown;
  try {
    // Bytes are parsed in slices: a million-file inventory is more than one string can hold.
    data = typeof bytes === 'string' ? JSON.parse(bytes) : parseJsonBytes(bytes);
  } catch (err) {
    throw new InventoryError(`${where} is not valid JSON (${(err as Error).message}).`);
  }
  return inventoryFromJson(data, where);
}

/** An inventory from its parsed JSON (see parseInventory; `where` names the file in messages). */
export function inventoryFromJson(data: unknown, where = 'inventory.json'): Inventory {
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
  if (!((data.head as string) in versions))
    throw new InventoryError(`${where} names head ${data.head as string}, which is not among its versions.`);
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

/** One version as `log` shows it: its metadata and how many logical files it has. */
export interface InventoryVersionSummary {
  version: string;
  created: string;
  message?: string;
  user?: User;
  fileCount: number;
}

/** A version's summary from its metadata, keys in the order `log --json` prints them. */
export function versionSummary(version: string, info: Omit<InventoryVersion, 'state'>, fileCount: number): InventoryVersionSummary {
  const summary: InventoryVersionSummary = { version, created: info.created, fileCount };
  if (info.message !== undefined) summary.message = info.message;
  if (info.user !== undefined) summary.user = info.user;
  return summary;
}

/** Contents of `inventory.json.<alg>` for inventory bytes of this digest. */
export function sidecarOfDigest(digest: string): string {
  return `${digest} inventory.json\n`;
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
