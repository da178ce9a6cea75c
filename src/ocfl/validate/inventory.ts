/**
 * Checks one inventory's JSON against the structure OCFL 1.0/1.1 requires and extracts what the
 * object checks need. It never recurses into the input, so absurdly nested JSON costs nothing
 * beyond the parse, and it only ever reads the keys the specification defines.
 */
import { inventoryOcflVersion } from '../declaration.js';
import { isDigestAlgorithm } from '../digest.js';
import { Findings, quote } from './findings.js';
import { isRfc3339, looksLikeUri } from './paths.js';
import { checkStateUse, contentPathShapeOk } from './block-checks.js';
import { type Add, isWellFormedDigest } from './check-block.js';
import { BlockContext, checkFixity as checkFixityBlock, checkManifest as checkManifestBlock, checkState } from './block-maps.js';
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
 * The maps are compact maps (block-maps.ts) over the blocks however they were read, Maps when a block is missing.
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

/** The specification version an inventory's `type` names, when it is one this validator knows. */
export function specVersionOfType(type: unknown): SpecVersion | undefined {
  const version = typeof type === 'string' ? inventoryOcflVersion(type) : undefined;
  return (SPEC_VERSIONS as readonly (string | undefined)[]).includes(version) ? (version as SpecVersion) : undefined;
}

/** Parses a version name: number and zero-padding width (0 when not padded), or undefined. */
export function parseVersionName(name: string): { number: number; padding: number } | undefined {
  const m = /^v(\d{1,15})$/.exec(name);
  if (!m) return undefined;
  return { number: Number(m[1]), padding: m[1].startsWith('0') ? m[1].length : 0 };
}

/** Logical paths whose content differs between two version blocks (each read with its own inventory). */
export function stateDifferences(a: VersionBlock, invA: CheckedInventory, b: VersionBlock, invB: CheckedInventory): string[] {
  const out: string[] = [];
  const sameAlgorithm = invA.digestAlgorithm === invB.digestAlgorithm;
  for (const [logical, digestA] of a.logical) {
    const digestB = b.logical.get(logical);
    if (digestB === undefined) {
      out.push(logical);
      continue;
    }
    if (sameAlgorithm) {
      if (digestA.toLowerCase() !== digestB.toLowerCase()) out.push(logical);
    } else {
      // Different algorithms: the two must point at the same stored file.
      const pathsA = invA.manifestDigests.get(digestA) ?? [];
      const pathsB = new Set(invB.manifestDigests.get(digestB) ?? []);
      if (!pathsA.some((p) => pathsB.has(p))) out.push(logical);
    }
  }
  for (const logical of b.logical.keys()) if (!a.logical.has(logical)) out.push(logical);
  return out;
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

  const manifestKeyCheck = digestKeyCheck(
    inv.digestAlgorithm,
    'E025',
    (digest) => `The manifest digest ${quote(digest)} is not a ${inv.digestAlgorithm} digest.`,
    'E096',
    (digest) => `The manifest lists the digest ${quote(digest)} more than once (ignoring case).`,
  );
  const blocks = BlockContext.of(plain, value.manifest, manifestKeyCheck);
  checkVersions(value, inv, add, blocks);
  checkManifest(value, inv, add, spec11, blocks);
  checkStates(inv, value, add, blocks);
  checkFixity(value, inv, add, spec11, blocks);
  return inv;
}

type VersionName = { name: string; number: number; padding: number };

/** The version names: numbered from 1 without gaps, padded alike (E104, E105, E009, W001, E010-E013, E040); sorted. */
function checkVersionNames(names: string[], inv: CheckedInventory, add: Add): VersionName[] {
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
function checkVersionUser(user: unknown, vAdd: Add): void {
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

/** One version block: its keys, created, message, user and state (E047-E050, E094, E102, W007). */
function checkVersionBlock(block: unknown, info: VersionBlock, vAdd: Add, blocks: BlockContext): void {
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
  else info.logical = checkState(blocks, info.name, block.state, vAdd);
}

function checkVersions(value: Record<string, unknown>, inv: CheckedInventory, add: Add, blocks: BlockContext): void {
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
    const vAdd = (code: string, message: string) => add(code, `Version ${v.name}: ${message}`);
    checkVersionBlock(versions[v.name], info, vAdd, blocks);
  }
}

function checkManifest(value: Record<string, unknown>, inv: CheckedInventory, add: Add, spec11: boolean, blocks: BlockContext): void {
  if (!('manifest' in value)) {
    add('E041', 'The inventory has no manifest block.');
    return;
  }
  if (!isObject(value.manifest)) {
    add(spec11 ? 'E106' : 'E041', 'The manifest is not a JSON object.');
    return;
  }
  Object.assign(
    inv,
    checkManifestBlock(blocks, add, (p) => checkContentPath(p, inv, add)),
  );
}

/** Checks of a manifest content path; true when it is safe to use as a file path inside the object. */
function checkContentPath(p: string, inv: CheckedInventory, add: Add): boolean {
  if (!contentPathShapeOk(p, 'manifest', add)) return false;
  // "vN/<contentDirectory>/..." with at least one element below: read without splitting the path.
  const first = p.indexOf('/');
  const second = first < 0 ? -1 : p.indexOf('/', first + 1);
  if (second < 0 || !inv.versionNames.has(p.slice(0, first)) || p.slice(first + 1, second) !== inv.contentDirectory) {
    add(
      'E042',
      `The manifest content path ${quote(p)} is not inside the ${quote(inv.contentDirectory)} folder of a version of this inventory.`,
    );
  }
  return true;
}

function checkStates(inv: CheckedInventory, value: Record<string, unknown>, add: Add, blocks: BlockContext): void {
  if (!isObject(value.manifest)) return;
  // A plain read's keys are digests of its algorithm; parsed ones are checked.
  const algorithm = inv.digestAlgorithm;
  const wellFormed = algorithm && !blocks.isPlain ? (digest: string) => isWellFormedDigest(algorithm, digest) : undefined;
  const uses = inv.versions.flatMap((v) => blocks.uses.get(v.name) ?? []);
  checkStateUse(uses, blocks.manifestBlock!, blocks.listed ?? new Uint32Array(0), add, wellFormed, algorithm);
}

function checkFixity(value: Record<string, unknown>, inv: CheckedInventory, add: Add, spec11: boolean, blocks: BlockContext): void {
  if (!('fixity' in value)) return;
  const fixity = value.fixity;
  if (!isObject(fixity)) {
    add(spec11 ? 'E111' : 'E056', 'The fixity block is not a JSON object.');
    return;
  }
  for (const algorithm of Object.keys(fixity)) {
    const value = fixity[algorithm];
    if (!isObject(value)) {
      add('E057', `The fixity block for ${quote(algorithm)} is not a JSON object.`);
      continue;
    }
    // Algorithms we do not know are ignored, as the specification asks of clients (E028).
    const known = isDigestAlgorithm(algorithm);
    const keyCheck = digestKeyCheck(
      known ? algorithm : undefined,
      'E057',
      (digest) => `The fixity digest ${quote(digest)} is not a ${algorithm} digest.`,
      'E097',
      (digest) => `The ${algorithm} fixity block lists the digest ${quote(digest)} more than once (ignoring case).`,
    );
    const entries = checkFixityBlock(blocks, algorithm, value, add, keyCheck, known);
    if (known) inv.fixity.set(algorithm, entries);
  }
}
