/**
 * The OCFL inventory: its model and a parser that names what is wrong. Its deterministic
 * serialisation is inventory/chunks.ts.
 */
import { SiardOcflError } from '../../errors.js';
import { digestSync, isDigestAlgorithm } from '../digest.js';
import {
  arrayLength,
  objectMembers,
  objectValues,
  parseJsonBytes,
  parseJsonRange,
  parseTopLevelMembers,
  topLevelObject,
} from './large-json.js';

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

/** id, head, type and digestAlgorithm of inventory bytes, the rest left unparsed (see parseTopLevelMembers). */
export function parseInventoryHeader(bytes: Uint8Array, where = 'inventory.json'): InventoryHeader {
  let data: Record<string, unknown>;
  try {
    data = parseTopLevelMembers(bytes, ['id', 'head', 'type', 'digestAlgorithm']);
  } catch (err) {
    throw new InventoryError(`${where} is not valid JSON (${(err as Error).message}).`);
  }
  return inventoryHeaderOf(data, where);
}

/** What identifies an object: read without its manifest and states (ls, purge, repair). */
export interface InventoryHeader {
  id: string;
  head: string;
  type: string;
  digestAlgorithm: string;
}

/** The header fields of parsed inventory JSON (whole or a plain inventory's skeleton), checked as parseInventory checks them. */
export function inventoryHeaderOf(data: Record<string, unknown>, where: string): InventoryHeader {
  for (const key of ['id', 'type', 'digestAlgorithm', 'head'] as const) {
    if (typeof data[key] !== 'string' || data[key] === '') throw new InventoryError(`${where} lacks the string field "${key}".`);
  }
  if (data.digestAlgorithm !== 'sha512' && data.digestAlgorithm !== 'sha256') {
    throw new InventoryError(`${where} uses digestAlgorithm "${data.digestAlgorithm as string}"; OCFL allows sha512 or sha256.`);
  }
  if (!VERSION_RE.test(data.head as string))
    throw new InventoryError(`${where} names head ${data.head as string}, which is not a version name.`);
  return { id: data.id as string, head: data.head as string, type: data.type as string, digestAlgorithm: data.digestAlgorithm as string };
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

/** What `log` and recovery read of an inventory: its header and each version's metadata and file count. */
export type InventorySummary = InventoryHeader & { versions: InventoryVersionSummary[] };

/** A version's created, message or user member, checked into `summary` as parseInventory checks it (other members are let be). */
function summaryField(summary: Partial<InventoryVersionSummary>, key: string, value: unknown, where: string): void {
  const name = summary.version!;
  if (key === 'user') {
    const u = value as { name?: unknown; address?: unknown } | null;
    if (typeof u !== 'object' || u === null || typeof u.name !== 'string')
      throw new InventoryError(`${where} version ${name} user has no name.`);
    if (u.address !== undefined && typeof u.address !== 'string')
      throw new InventoryError(`${where} version ${name} user address is not a string.`);
    summary.user = u.address === undefined ? { name: u.name } : { name: u.name, address: u.address };
  } else if (key === 'created' || key === 'message') {
    if (typeof value !== 'string')
      throw new InventoryError(`${where} version ${name} ${key === 'created' ? 'lacks "created"' : 'message is not a string'}.`);
    summary[key] = value;
  }
}

/** The version's summary once its members are read (undefined files: it had no state), keys in the full reader's order. */
function summaryDone(summary: Partial<InventoryVersionSummary>, files: number | undefined, where: string): InventoryVersionSummary {
  const { version, created, message, user } = summary as InventoryVersionSummary;
  if (created === undefined) throw new InventoryError(`${where} version ${version} lacks "created".`);
  if (files === undefined) throw new InventoryError(`${where} version ${version} state is not a JSON object.`);
  return versionSummary(version, { created, message, user }, files);
}

/** The summaries in version order, once the head is known to be among them. */
function summaryOf(header: InventoryHeader, versions: InventoryVersionSummary[], where: string): InventorySummary {
  if (versions.length === 0) throw new InventoryError(`${where} has no "versions" object.`);
  if (!versions.some((v) => v.version === header.head))
    throw new InventoryError(`${where} names head ${header.head}, which is not among its versions.`);
  versions.sort((a, b) => versionNumber(a.version) - versionNumber(b.version));
  return { ...header, versions };
}

/**
 * The summary of a plain inventory (inventory/plain.ts) from its skeleton and each state's path
 * count: what parseInventoryVersions answers on its bytes, without them (a million-file inventory
 * streamed by InventoryWindows, its states counted, never kept).
 */
export function summaryOfSkeleton(
  skeleton: Record<string, unknown>,
  fileCount: (version: string) => number,
  where: string,
): InventorySummary {
  const header = inventoryHeaderOf(skeleton, where);
  const versions: InventoryVersionSummary[] = [];
  for (const [name, v] of Object.entries(skeleton.versions as Record<string, Record<string, unknown>>)) {
    if (!VERSION_RE.test(name)) throw new InventoryError(`${where} has a version named "${name}", not vN.`);
    const summary: Partial<InventoryVersionSummary> = { version: name };
    for (const [key, value] of Object.entries(v)) summaryField(summary, key, value, where);
    versions.push(summaryDone(summary, fileCount(name), where));
  }
  return summaryOf(header, versions, where);
}

/**
 * id, head, type, digestAlgorithm and each version's metadata and file count, the states counted
 * without being built and the manifest and fixity skipped: `log` of a million-file object needs
 * none of them. The fields read are checked as parseInventory checks them.
 */
export function parseInventoryVersions(bytes: Uint8Array, where = 'inventory.json'): InventorySummary {
  const header = parseInventoryHeader(bytes, where);
  const versions: InventoryVersionSummary[] = [];
  try {
    const top = topLevelObject(bytes);
    const block = objectMembers(bytes, top.start, top.end).find((m) => m.key === 'versions');
    if (!block || bytes[block.start] !== 0x7b) throw new InventoryError(`${where} has no "versions" object.`);
    for (const v of objectMembers(bytes, block.start, block.end)) {
      if (!VERSION_RE.test(v.key)) throw new InventoryError(`${where} has a version named "${v.key}", not vN.`);
      if (bytes[v.start] !== 0x7b) throw new InventoryError(`${where} version ${v.key} is not a JSON object.`);
      const summary: Partial<InventoryVersionSummary> = { version: v.key };
      let files: number | undefined;
      for (const f of objectMembers(bytes, v.start, v.end)) {
        if (f.key === 'state') {
          if (bytes[f.start] !== 0x7b) throw new InventoryError(`${where} version ${v.key} state is not a JSON object.`);
          files = 0;
          for (const entry of objectValues(bytes, f.start, f.end)) {
            if (bytes[entry.start] !== 0x5b)
              throw new InventoryError(`${where} version ${v.key} state has an entry that is not a list of paths.`);
            files += arrayLength(bytes, entry.start, entry.end);
          }
        } else if (f.key === 'created' || f.key === 'message' || f.key === 'user')
          summaryField(summary, f.key, parseJsonRange(bytes, f.start, f.end), where);
      }
      versions.push(summaryDone(summary, files, where));
    }
  } catch (err) {
    if (err instanceof InventoryError) throw err;
    throw new InventoryError(`${where} is not valid JSON (${(err as Error).message}).`);
  }
  return summaryOf(header, versions, where);
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
