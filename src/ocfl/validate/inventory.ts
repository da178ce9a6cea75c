/**
 * Checks one inventory's JSON against the structure OCFL 1.0/1.1 requires and extracts what the
 * object checks need. It never recurses into the input, so absurdly nested JSON costs nothing
 * beyond the parse, and it only ever reads the keys the specification defines.
 */
import { DIGEST_HEX_LENGTH, isDigestAlgorithm } from '../digest.js';
import { Findings, quote } from './findings.js';
import { conflictingPaths, isRfc3339, looksLikeUri } from './paths.js';
import {
  checkFixityBlock,
  checkManifestBlock,
  checkStateBlock,
  checkStateUse,
  contentPathShapeOk,
  type Add,
  type PathBlock,
  type StateUse,
} from './block-checks.js';
import { checkPlainFixity, checkPlainManifest, checkPlainState, checkPlainStates, PlainContext } from './plain-checks.js';
import type { PlainBlocks } from '../inventory/plain.js';

export type SpecVersion = '1.0' | '1.1';
export const SPEC_VERSIONS: readonly SpecVersion[] = ['1.0', '1.1'];

export interface VersionBlock {
  name: string;
  number: number;
  created?: unknown;
  message?: unknown;
  user?: unknown;
  /** Logical path -> digest exactly as written in the state. */
  logical: ReadonlyMap<string, string>;
}

/**
 * An inventory as the validator reads it: every field optional or defaulted, so that a broken
 * inventory is still checked as far as it goes (the readers' model is `Inventory` in ../inventory.ts).
 * The maps are Maps after a full parse and compact maps (inventory/compact-maps.ts) after a plain read.
 */
export interface CheckedInventory {
  id?: string;
  /** Specification version named by `type`, when it names one we know. */
  specVersion?: SpecVersion;
  digestAlgorithm?: string;
  head?: string;
  contentDirectory: string;
  contentDirectorySet: boolean;
  /** Content path -> digest exactly as written in the manifest. */
  manifest: ReadonlyMap<string, string>;
  /** Digest as written -> content paths. */
  manifestDigests: ReadonlyMap<string, readonly string[]>;
  /** Version blocks in version order (only those with a usable name). */
  versions: VersionBlock[];
  versionNames: Set<string>;
  /** Algorithm -> content path -> lower-case digest (only well-formed entries of known algorithms). */
  fixity: Map<string, ReadonlyMap<string, string>>;
}

const INVENTORY_KEYS = new Set(['id', 'type', 'digestAlgorithm', 'head', 'contentDirectory', 'fixity', 'manifest', 'versions']);
const VERSION_KEYS = new Set(['created', 'state', 'message', 'user']);
const USER_KEYS = new Set(['name', 'address']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Hex of the algorithm's length (either case). A loop: called once or twice per content file. */
function isWellFormedDigest(algorithm: string, digest: string): boolean {
  const len = DIGEST_HEX_LENGTH[algorithm];
  if (len === undefined || digest.length !== len) return false;
  for (let i = 0; i < len; i++) {
    const c = digest.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) return false;
  }
  return true;
}

/** A parsed digest -> paths block as the checks walk it (block-checks.ts): its values may be anything. */
class ParsedBlock implements PathBlock {
  readonly keys: string[];
  readonly keyCount: number;
  readonly pathCount: number;
  private readonly arrays: Uint8Array;
  private readonly first: Uint32Array;
  private readonly paths: unknown[] = [];
  private keyIndex?: Map<string, number>;

  readonly checkKey?: (k: number, add: Add) => void;

  constructor(block: Record<string, unknown>, checkDigest?: (digest: string, add: Add) => void) {
    if (checkDigest) this.checkKey = (k, add) => checkDigest(this.keys[k]!, add);
    this.keys = Object.keys(block);
    this.keyCount = this.keys.length;
    this.arrays = new Uint8Array(this.keyCount);
    this.first = new Uint32Array(this.keyCount + 1);
    for (let k = 0; k < this.keyCount; k++) {
      this.first[k] = this.paths.length;
      const value = block[this.keys[k]!];
      if (!Array.isArray(value)) continue;
      this.arrays[k] = 1;
      for (const p of value as unknown[]) this.paths.push(p);
    }
    this.first[this.keyCount] = this.paths.length;
    this.pathCount = this.paths.length;
  }

  keyText(k: number): string {
    return this.keys[k]!;
  }

  /** The number of key `key`, or -1. */
  keyNumber(key: string): number {
    this.keyIndex ??= new Map(this.keys.map((key, k) => [key, k]));
    return this.keyIndex.get(key) ?? -1;
  }

  isArray(k: number): boolean {
    return this.arrays[k] === 1;
  }

  firstPath(k: number): number {
    return this.first[k]!;
  }

  path(p: number): unknown {
    return this.paths[p];
  }

  pathSet() {
    const seen = new Set<string>();
    return {
      add: (p: number) => {
        const path = this.paths[p] as string;
        if (seen.has(path)) return false;
        seen.add(path);
        return true;
      },
    };
  }

  conflicts(list: Uint32Array): Array<[string, string]> {
    return conflictingPaths(Array.from(list, (p) => this.paths[p] as string));
  }
}

/**
 * The key check of a manifest or fixity block: a digest of a known `algorithm` must have its
 * shape (`shapeCode`), and no digest may repeat ignoring case (`repeatCode`).
 */
function digestKeyCheck(
  algorithm: string | undefined,
  shapeCode: string,
  shape: (digest: string) => string,
  repeatCode: string,
  repeat: (digest: string) => string,
): (digest: string, add: Add) => void {
  const seen = new Set<string>();
  return (digest, add) => {
    if (algorithm && !isWellFormedDigest(algorithm, digest)) add(shapeCode, shape(digest));
    const lower = digest.toLowerCase();
    if (seen.has(lower)) add(repeatCode, repeat(digest));
    seen.add(lower);
  };
}

export function specVersionOfType(type: unknown): SpecVersion | undefined {
  if (typeof type !== 'string') return undefined;
  const m = /^https:\/\/ocfl\.io\/(\d+\.\d+)\/spec\/#inventory$/.exec(type);
  return m && (SPEC_VERSIONS as readonly string[]).includes(m[1]) ? (m[1] as SpecVersion) : undefined;
}

/** Parses a version name: number and zero-padding width (0 when not padded), or undefined. */
export function parseVersionName(name: string): { number: number; padding: number } | undefined {
  const m = /^v(\d{1,15})$/.exec(name);
  if (!m) return undefined;
  return { number: Number(m[1]), padding: m[1].startsWith('0') ? m[1].length : 0 };
}

export interface InventoryContext {
  findings: Findings;
  /** Path of the inventory file, for findings. */
  where: string;
  /** Specification version of the object (from its declaration), used for version-specific codes. */
  specVersion: SpecVersion;
  /** The root inventory's `type` must name the declared version (E038). */
  expectTypeFor?: SpecVersion;
}

/**
 * Checks an inventory. `plain`: the value is the skeleton of a plain read (plain-inventory.ts) and
 * these are its scanned blocks, checked in place of the empty objects standing for them.
 */
export function checkInventory(value: unknown, ctx: InventoryContext, plain?: PlainBlocks): CheckedInventory | undefined {
  const { findings, where } = ctx;
  const spec11 = ctx.specVersion === '1.1';
  const add = (code: string, message: string) => findings.add(code, message, where);
  if (!isObject(value)) {
    add('E033', 'The inventory is not a JSON object.');
    return undefined;
  }
  const inv: CheckedInventory = {
    contentDirectory: 'content',
    contentDirectorySet: false,
    manifest: new Map(),
    manifestDigests: new Map(),
    versions: [],
    versionNames: new Set(),
    fixity: new Map(),
  };
  for (const key of Object.keys(value)) {
    if (!INVENTORY_KEYS.has(key)) add('E102', `The inventory has the key ${quote(key)}, which the specification does not define.`);
  }

  // id
  if (!('id' in value)) add('E036', 'The inventory has no id.');
  else if (typeof value.id !== 'string' || value.id === '') add('E037', `The inventory id ${quote(value.id)} is not a non-empty string.`);
  else {
    inv.id = value.id;
    if (!looksLikeUri(value.id)) add('W005', `The object id ${quote(value.id)} is not a URI.`);
  }

  // type
  if (!('type' in value)) add('E036', 'The inventory has no type.');
  else {
    inv.specVersion = specVersionOfType(value.type);
    if (!inv.specVersion) add('E038', `The inventory type ${quote(value.type)} is not the inventory URI of an OCFL specification version.`);
    else if (ctx.expectTypeFor && inv.specVersion !== ctx.expectTypeFor) {
      add('E038', `The inventory type names OCFL ${inv.specVersion} but the object declares OCFL ${ctx.expectTypeFor}.`);
    }
  }

  // digestAlgorithm
  if (!('digestAlgorithm' in value)) add('E036', 'The inventory has no digestAlgorithm.');
  else if (value.digestAlgorithm === 'sha512' || value.digestAlgorithm === 'sha256') {
    inv.digestAlgorithm = value.digestAlgorithm;
    if (value.digestAlgorithm === 'sha256') add('W004', 'The inventory uses sha256 for content addressing; sha512 is recommended.');
  } else {
    add('E025', `The digestAlgorithm ${quote(value.digestAlgorithm)} is neither sha512 nor sha256.`);
    if (typeof value.digestAlgorithm === 'string' && isDigestAlgorithm(value.digestAlgorithm)) inv.digestAlgorithm = value.digestAlgorithm;
  }

  // head
  if (!('head' in value)) add('E036', 'The inventory has no head.');
  else if (typeof value.head !== 'string') add('E040', `The head ${quote(value.head)} is not a version name.`);
  else inv.head = value.head;

  // contentDirectory
  if ('contentDirectory' in value) {
    const cd = value.contentDirectory;
    if (typeof cd !== 'string' || cd === '' || cd.includes('/'))
      add('E017', `The contentDirectory ${quote(cd)} is not a single folder name.`);
    else if (cd === '.' || cd === '..') add('E018', `The contentDirectory ${quote(cd)} is not allowed.`);
    else {
      inv.contentDirectory = cd;
      inv.contentDirectorySet = true;
    }
  }

  const plainContext = plain && new PlainContext(plain);
  const parsed: ParsedContext = { states: [] };
  checkVersions(value, inv, ctx, plainContext, parsed);
  checkManifest(value, inv, ctx, plainContext, parsed);
  checkStates(inv, value, ctx, plainContext, parsed);
  checkFixity(value, inv, ctx, spec11, plainContext);
  return inv;
}

type VersionName = { name: string; number: number; padding: number };

/** The version names: numbered from 1 without gaps, padded alike (E104, E105, E009, W001, E010-E013, E040); sorted. */
function checkVersionNames(names: string[], inv: CheckedInventory, add: (code: string, message: string) => void): VersionName[] {
  const parsed: VersionName[] = [];
  for (const name of names) {
    const p = parseVersionName(name);
    if (!p) add('E104', `The version name ${quote(name)} is not v followed by a number.`);
    else if (p.number < 1) add('E105', `The version name ${quote(name)} does not carry a positive number.`);
    else parsed.push({ name, ...p });
  }
  parsed.sort((a, b) => a.number - b.number);
  const first = parsed[0];
  if (parsed.length > 0 && first.number !== 1) add('E009', `The versions start at ${quote(first.name)}, not at version 1.`);
  const padding = first?.padding ?? 0;
  if (padding > 0) add('W001', `The version names are zero-padded (${quote(first.name)}).`);
  for (let i = 0; i < parsed.length; i++) {
    const v = parsed[i];
    if (i > 0 && v.number === parsed[i - 1].number) {
      add('E012', `The versions ${quote(parsed[i - 1].name)} and ${quote(v.name)} carry the same number.`);
      continue;
    }
    if (i > 0 && v.number !== parsed[i - 1].number + 1) {
      add('E010', `The versions jump from ${quote(parsed[i - 1].name)} to ${quote(v.name)}.`);
    }
    if (padding > 0 && v.name.length === padding + 1 && !v.name.startsWith('v0')) {
      add('E011', `The version ${quote(v.name)} does not fit the zero-padded names, which start with v0.`);
      add('E013', `The version ${quote(v.name)} does not follow the naming of the earlier versions.`);
    } else if (v.padding !== padding && v.name.length !== padding + 1 && (padding > 0 || v.padding > 0)) {
      add('E012', `The version ${quote(v.name)} is padded differently from ${quote(first.name)}.`);
      add('E013', `The version ${quote(v.name)} does not follow the naming of the earlier versions.`);
    }
  }
  const highest = parsed[parsed.length - 1];
  if (inv.head !== undefined && highest && inv.head !== highest.name) {
    add('E040', `The head ${quote(inv.head)} is not the highest version ${quote(highest.name)}.`);
  }
  return parsed;
}

/** A version's user block (E054, E102, W008, W009). */
function checkVersionUser(user: unknown, vAdd: (code: string, message: string) => void): void {
  if (!isObject(user)) {
    vAdd('E054', 'user is not a JSON object.');
    return;
  }
  for (const key of Object.keys(user)) {
    if (!USER_KEYS.has(key)) vAdd('E102', `user has the key ${quote(key)}, which the specification does not define.`);
  }
  if (typeof user.name !== 'string') vAdd('E054', 'user has no string name.');
  if (!('address' in user)) vAdd('W008', 'user has no address.');
  else if (typeof user.address !== 'string') vAdd('E054', 'the user address is not a string.');
  else if (!looksLikeUri(user.address)) vAdd('W009', `the user address ${quote(user.address)} is not a URI.`);
}

/** What the block checks of one parsed inventory pass on (a plain one's is its PlainContext). */
interface ParsedContext {
  states: StateUse[];
  manifest?: ParsedBlock;
  listed?: Uint32Array;
}

/** A version's state (checkStateBlock): its logical paths, each to its digest as written. */
function checkVersionState(state: Record<string, unknown>, info: VersionBlock, vAdd: Add, parsed: ParsedContext): void {
  const block = new ParsedBlock(state);
  const checked = checkStateBlock(block, vAdd);
  const logical = new Map<string, string>();
  for (const p of checked.order) logical.set(block.path(p) as string, block.keyText(checked.keyOfPath[p]!));
  info.logical = logical;
  parsed.states.push({
    name: info.name,
    state: checked,
    block,
    manifestKeyOf: (k) => parsed.manifest?.keyNumber(block.keyText(k)) ?? -1,
  });
}

/** One version block: its keys, created, message, user and state (E047-E050, E094, E102, W007). */
function checkVersionBlock(
  block: unknown,
  info: VersionBlock,
  vAdd: (code: string, message: string) => void,
  plain: PlainContext | undefined,
  parsed: ParsedContext,
): void {
  if (!isObject(block)) {
    vAdd('E047', 'the version block is not a JSON object.');
    return;
  }
  for (const key of Object.keys(block)) {
    if (!VERSION_KEYS.has(key)) vAdd('E102', `the key ${quote(key)} is not defined by the specification.`);
  }
  if (!('created' in block)) vAdd('E048', 'created is missing.');
  else if (typeof block.created !== 'string' || !isRfc3339(block.created)) {
    vAdd('E049', `created ${quote(block.created)} is not an RFC 3339 date-time with seconds and time zone.`);
  }
  info.created = block.created;
  if ('message' in block) {
    info.message = block.message;
    if (typeof block.message !== 'string') vAdd('E094', 'message is not a JSON string.');
  }
  if ('user' in block) {
    info.user = block.user;
    checkVersionUser(block.user, vAdd);
  }
  if (!('message' in block) || !('user' in block)) vAdd('W007', `the version has no ${'message' in block ? 'user' : 'message'}.`);
  if (!('state' in block)) vAdd('E048', 'state is missing.');
  else if (!isObject(block.state)) vAdd('E050', 'state is not a JSON object.');
  else if (plain) info.logical = checkPlainState(plain, info.name, vAdd);
  else checkVersionState(block.state, info, vAdd, parsed);
}

function checkVersions(
  value: Record<string, unknown>,
  inv: CheckedInventory,
  ctx: InventoryContext,
  plain: PlainContext | undefined,
  parsed: ParsedContext,
): void {
  const add = (code: string, message: string) => ctx.findings.add(code, message, ctx.where);
  if (!('versions' in value)) {
    add('E043', 'The inventory has no versions block.');
    add('E041', 'The inventory lacks the versions block.');
    return;
  }
  const versions = value.versions;
  if (!isObject(versions)) {
    add('E045', 'The versions block is not a JSON object.');
    return;
  }
  const names = Object.keys(versions);
  if (names.length === 0) {
    add('E008', 'The inventory records no version.');
    return;
  }
  for (const v of checkVersionNames(names, inv, add)) {
    inv.versionNames.add(v.name);
    const info: VersionBlock = { name: v.name, number: v.number, logical: new Map() };
    inv.versions.push(info);
    const vAdd = (code: string, message: string) => ctx.findings.add(code, `Version ${v.name}: ${message}`, ctx.where);
    checkVersionBlock(versions[v.name], info, vAdd, plain, parsed);
  }
}

function checkManifest(
  value: Record<string, unknown>,
  inv: CheckedInventory,
  ctx: InventoryContext,
  plain: PlainContext | undefined,
  parsed: ParsedContext,
): void {
  const add = (code: string, message: string) => ctx.findings.add(code, message, ctx.where);
  if (!('manifest' in value)) {
    add('E041', 'The inventory has no manifest block.');
    return;
  }
  const manifest = value.manifest;
  if (!isObject(manifest)) {
    add(ctx.specVersion === '1.1' ? 'E106' : 'E041', 'The manifest is not a JSON object.');
    return;
  }
  const contentPathOk = (p: string) => checkContentPath(p, inv, add);
  if (plain) {
    Object.assign(inv, checkPlainManifest(plain, add, contentPathOk));
    return;
  }
  const block = new ParsedBlock(
    manifest,
    digestKeyCheck(
      inv.digestAlgorithm,
      'E025',
      (digest) => `The manifest digest ${quote(digest)} is not a ${inv.digestAlgorithm} digest.`,
      'E096',
      (digest) => `The manifest lists the digest ${quote(digest)} more than once (ignoring case).`,
    ),
  );
  const { order, keyOfPath, listed } = checkManifestBlock(block, add, contentPathOk);
  parsed.manifest = block;
  parsed.listed = listed;
  const map = new Map<string, string>();
  for (const p of order) map.set(block.path(p) as string, block.keyText(keyOfPath[p]!));
  const digests = new Map<string, string[]>();
  for (const k of listed) digests.set(block.keyText(k), manifest[block.keyText(k)] as string[]);
  inv.manifest = map;
  inv.manifestDigests = digests;
}

/** Checks of a manifest content path; true when it is safe to use as a file path inside the object. */
function checkContentPath(p: string, inv: CheckedInventory, add: Add): boolean {
  if (!contentPathShapeOk(p, 'manifest', add)) return false;
  const [versionDir, contentDir] = p.split('/');
  if (!inv.versionNames.has(versionDir) || contentDir !== inv.contentDirectory || p.split('/').length < 3) {
    add(
      'E042',
      `The manifest content path ${quote(p)} is not inside the ${quote(inv.contentDirectory)} folder of a version of this inventory.`,
    );
  }
  return true;
}

function checkStates(
  inv: CheckedInventory,
  value: Record<string, unknown>,
  ctx: InventoryContext,
  plain: PlainContext | undefined,
  parsed: ParsedContext,
): void {
  const add = (code: string, message: string) => ctx.findings.add(code, message, ctx.where);
  if (!isObject(value.manifest)) return;
  if (plain) {
    checkPlainStates(
      plain,
      inv.versions.map((v) => v.name),
      add,
    );
    return;
  }
  const algorithm = inv.digestAlgorithm;
  const wellFormed = algorithm ? (digest: string) => isWellFormedDigest(algorithm, digest) : undefined;
  checkStateUse(parsed.states, parsed.manifest!, parsed.listed!, add, wellFormed, algorithm);
}

function checkFixity(
  value: Record<string, unknown>,
  inv: CheckedInventory,
  ctx: InventoryContext,
  spec11: boolean,
  plain?: PlainContext,
): void {
  const add = (code: string, message: string) => ctx.findings.add(code, message, ctx.where);
  if (!('fixity' in value)) return;
  const fixity = value.fixity;
  if (!isObject(fixity)) {
    add(spec11 ? 'E111' : 'E056', 'The fixity block is not a JSON object.');
    return;
  }
  for (const algorithm of Object.keys(fixity)) {
    if (plain) {
      inv.fixity.set(algorithm, checkPlainFixity(plain, algorithm, add));
      continue;
    }
    const value = fixity[algorithm];
    if (!isObject(value)) {
      add('E057', `The fixity block for ${quote(algorithm)} is not a JSON object.`);
      continue;
    }
    // Algorithms we do not know are ignored, as the specification asks of clients (E028).
    const known = isDigestAlgorithm(algorithm);
    const block = new ParsedBlock(
      value,
      digestKeyCheck(
        known ? algorithm : undefined,
        'E057',
        (digest) => `The fixity digest ${quote(digest)} is not a ${algorithm} digest.`,
        'E097',
        (digest) => `The ${algorithm} fixity block lists the digest ${quote(digest)} more than once (ignoring case).`,
      ),
    );
    const entries = new Map<string, string>();
    checkFixityBlock(block, algorithm, add, {
      manifestPathOf: (_p, path) => (inv.manifest.has(path) ? 0 : -1),
      keep: (_m, k, path) => entries.set(path, block.keyText(k).toLowerCase()),
      keeps: (k) => known && isWellFormedDigest(algorithm, block.keyText(k)),
    });
    if (known) inv.fixity.set(algorithm, entries);
  }
}
