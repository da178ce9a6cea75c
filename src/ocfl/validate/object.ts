/**
 * Validation of one OCFL object root (OCFL 1.0 and 1.1): declaration, inventories and their
 * sidecars, version folders, content files against every manifest, and (unless asked not to)
 * the digests of every content file against every manifest and fixity block that names it.
 * It keeps going after each finding and never reads outside the object root.
 */
import { isDigestAlgorithm } from '../digest.js';
import { checkDeclaration } from './declaration.js';
import { isRegisteredExtension } from './extensions.js';
import { explainInterruptedCommit } from './interrupted-commit.js';
import { Findings, quote } from './findings.js';
import { displayJoin, listDir, type TreeEntry } from './fs-tree.js';
import { describePath, joinPath, type ReadStorage } from '../storage/storage.js';
import { hashStored } from './hash-stored.js';
import { digestMismatches } from './digest-mismatch.js';
import { ExistingFiles } from './existing-files.js';
import { Expectations, type Expectation } from './expectations.js';
import type { HashPool, HashResult } from './hash-pool.js';
import {
  checkInventory,
  parseVersionName,
  specVersionOfType,
  stateDifferences,
  type CheckedInventory,
  type SpecVersion,
  type VersionBlock,
} from './inventory.js';
import { type BytesFingerprint, readSmall, sameJson, sameStoredBytes, sidecarDigest } from './read.js';
import { readInventoryFile, type InventoryFileRead } from './plain-inventory.js';

export interface ObjectCheckOptions {
  /** Verify content and fixity digests (default true). */
  fixity?: boolean;
  /** The hashing threads, shared by every object checked (their owner closes them). */
  pool: HashPool;
  /** How the object root is named in findings (default: its path). */
  display?: string;
  /** Called before hashing with the files and bytes about to be read. */
  onPlan?: (files: number, bytes: number) => void;
  /** Called as content files are hashed. */
  onHashed?: (files: number, bytes: number) => void;
  /**
   * The content files' sizes from their hashing (one read each) instead of a stat each in the
   * walk, where every file is hashed here anyway (object-worker.ts); onPlan then tells every
   * content file found (not only those some inventory names: a pass over them all cost 4% of a
   * root of small files) and 0 bytes. Ignored without fixity.
   */
  sizesFromHashing?: boolean;
}

export interface ObjectCheck {
  findings: Findings;
  id?: string;
  /** Version declared by 0=ocfl_object_x.y, when readable. */
  specVersion?: SpecVersion;
  files: number;
  bytes: number;
}

/** Checks the sidecar of an inventory in `dirRel` ('' for the root). Returns the sidecar name looked for. */
async function checkSidecar(
  scan: ObjectScan,
  dirRel: string,
  entries: TreeEntry[],
  inventoryDigest: (algorithm: string) => string | undefined,
  algorithm: string | undefined,
): Promise<string | undefined> {
  const { fs, dir, findings, at } = scan;
  const rel = (name: string) => joinPath(dirRel, name);
  if (!algorithm) {
    if (!entries.some((e) => e.name.startsWith('inventory.json.'))) {
      findings.add('E058', 'The inventory has no sidecar digest file.', at(rel('inventory.json')));
    }
    return undefined;
  }
  const name = `inventory.json.${algorithm}`;
  if (!entries.some((e) => e.name === name && e.kind === 'file')) {
    findings.add('E058', `The inventory has no sidecar ${name}.`, at(rel('inventory.json')));
    return name;
  }
  const read = await readSmall(fs, joinPath(dir, dirRel, name), 4096);
  const stated = read.ok ? sidecarDigest(read.bytes) : undefined;
  if (stated === undefined) {
    findings.add('E061', `The sidecar ${name} does not read "<digest> inventory.json".`, at(rel(name)));
    return name;
  }
  if (isDigestAlgorithm(algorithm)) {
    const actual = inventoryDigest(algorithm);
    if (actual !== undefined && actual !== stated.toLowerCase()) {
      findings.add('E060', `The sidecar ${name} records ${stated} but the inventory's ${algorithm} digest is ${actual}.`, at(rel(name)));
    }
  }
  return name;
}

/** E066 and W011: a version block of an earlier inventory against the root inventory's one. */
function compareVersionBlocks(prior: CheckedInventory, root: CheckedInventory, priorWhere: string, findings: Findings): void {
  const rootBlocks = new Map(root.versions.map((v) => [v.name, v]));
  for (const block of prior.versions) {
    const rb = rootBlocks.get(block.name);
    if (!rb) {
      findings.add('E066', `It records version ${block.name}, which the root inventory does not have.`, priorWhere);
      continue;
    }
    const differences = stateDifferences(block, prior, rb, root);
    if (differences.length > 0) {
      findings.add(
        'E066',
        `Its version ${block.name} state differs from the root inventory's at ${differences
          .slice(0, 3)
          .map((p) => quote(p))
          .join(', ')}${differences.length > 3 ? ' and more' : ''}.`,
        priorWhere,
      );
    }
    for (const key of ['created', 'message', 'user'] as const) {
      if (!sameJson(block[key], rb[key])) {
        findings.add('W011', `Its version ${block.name} has a different ${key} from the root inventory's.`, priorWhere);
      }
    }
  }
}

/** What every step of checkObject shares: where the object is and where findings go. */
interface ObjectScan {
  fs: ReadStorage;
  dir: string;
  findings: Findings;
  at: (rel: string) => string;
  /** Whether the walks stat each content file (see ObjectCheckOptions.sizesFromHashing). */
  sizes: boolean;
}

interface RootInventory {
  inv?: CheckedInventory;
  /**
   * The root inventory's bytes are not kept (a gigabyte at a million files): a fingerprint
   * answers "does this other inventory hold the same bytes?".
   */
  rootBytes?: BytesFingerprint;
  /** A small root inventory's bytes (up to KEEP_ROOT_BYTES) and their digests: the head's copy is compared with them. */
  rootCopy?: { bytes: Buffer; digestOf: (algorithm: string) => string | undefined };
  rootSidecar?: string;
  /** The specification whose codes apply: declared, else the inventory's type, else 1.1. */
  codesSpec: SpecVersion;
}

/**
 * A root inventory up to this size is kept as bytes while its object is checked: the head's copy
 * is then compared byte for byte, not hashed again (100,000 files in objects of 1,000 hashed 31 MB
 * more for it). A larger one is never held beside its model (a gigabyte at a million files).
 */
const KEEP_ROOT_BYTES = 8 * 1024 * 1024;

/** The inventory of `dirRel` ('' for the root's), read unless given: E033 when it cannot be read or parsed, what
 * checkInventory finds (codes of `declared`, else of its type, else `codes`), then its sidecar. */
async function checkInventoryFile(
  scan: ObjectScan,
  dirRel: string,
  entries: TreeEntry[],
  spec: { codes: SpecVersion; declared?: SpecVersion },
  read?: InventoryFileRead,
): Promise<{ read: InventoryFileRead; inv?: CheckedInventory; typed?: SpecVersion; sidecar?: string }> {
  const { fs, dir, findings, at } = scan;
  const where = at(joinPath(dirRel, 'inventory.json'));
  const label = dirRel ? `The inventory of ${dirRel}` : 'The root inventory.json';
  read ??= await readInventoryFile(fs, joinPath(dir, dirRel, 'inventory.json'));
  if (!read.ok) {
    findings.add('E033', `${label} cannot be read (${read.reason}).`, where);
    return { read };
  }
  const parsed = read.parsed;
  let inv: CheckedInventory | undefined;
  let typed: SpecVersion | undefined;
  if (!parsed.ok) findings.add('E033', `${label} ${parsed.problem}.`, where);
  else {
    typed = specVersionOfType((parsed.value as { type?: unknown } | null)?.type);
    const ctx = { findings, where, specVersion: spec.declared ?? typed ?? spec.codes, expectTypeFor: spec.declared };
    inv = checkInventory(parsed.value, ctx, parsed.plain);
  }
  return { read, inv, typed, sidecar: await checkSidecar(scan, dirRel, entries, read.digestOf, inv?.digestAlgorithm) };
}

/** The root inventory and its sidecar (E063, and what checkInventoryFile finds). */
async function readRootInventory(scan: ObjectScan, entries: TreeEntry[], declared: SpecVersion | undefined): Promise<RootInventory> {
  if (!entries.some((e) => e.name === 'inventory.json')) {
    scan.findings.add('E063', 'The object root has no inventory.json.', scan.at(''));
    return { codesSpec: declared ?? '1.1' };
  }
  const { read, inv, typed, sidecar } = await checkInventoryFile(scan, '', entries, { codes: '1.1', declared });
  const out: RootInventory = { inv, rootSidecar: sidecar, codesSpec: declared ?? typed ?? '1.1' };
  if (!read.ok) return out;
  out.rootBytes = read.fingerprint;
  if (read.bytes && read.bytes.length <= KEEP_ROOT_BYTES) out.rootCopy = { bytes: read.bytes, digestOf: read.digestOf };
  return out;
}

/** The entries of the object root: version folders (listed or not), extensions, anything not allowed. */
async function checkRootEntries(
  scan: ObjectScan,
  entries: TreeEntry[],
  root: RootInventory,
): Promise<{ versionDirs: Set<string>; unlisted: string[] }> {
  const { fs, dir, findings, at } = scan;
  const { inv, rootSidecar } = root;
  const versionDirs = new Set<string>();
  const unlisted: string[] = [];
  for (const e of entries) {
    const name = e.name;
    if (e.kind === 'link' || e.kind === 'other') {
      findings.add('E090', `${quote(name)} is a link or special file, which an object must not hold.`, at(name));
      continue;
    }
    if (name.startsWith('0=') || name === 'inventory.json') continue;
    if (name === rootSidecar || (!rootSidecar && name.startsWith('inventory.json.'))) continue;
    if (e.kind === 'dir' && name === 'logs') continue;
    if (e.kind === 'dir' && name === 'extensions') {
      await checkObjectExtensions(fs, joinPath(dir, name), findings, (n) => at(`extensions/${n}`));
      continue;
    }
    if (e.kind === 'dir' && parseVersionName(name)) {
      // Without a usable versions block (already reported) every version folder is taken as is.
      if (!inv || inv.versions.length === 0 || inv.versionNames.has(name)) versionDirs.add(name);
      else {
        unlisted.push(name);
        findings.add('E046', `The folder ${name} looks like a version but the root inventory does not list it.`, at(name));
      }
      continue;
    }
    findings.add('E001', `${quote(name)} is not allowed in an object root.`, at(name));
  }
  return { versionDirs, unlisted };
}

/** Without a usable root inventory only the version inventories can still be checked. */
async function checkVersionInventoriesAlone(scan: ObjectScan, versionDirs: Set<string>, codesSpec: SpecVersion): Promise<void> {
  const { fs, dir } = scan;
  for (const v of [...versionDirs].sort((a, b) => parseVersionName(a)!.number - parseVersionName(b)!.number)) {
    const vEntries = (await listDir(fs, joinPath(dir, v))) ?? [];
    if (vEntries.some((e) => e.name === 'inventory.json')) await checkInventoryFile(scan, v, vEntries, { codes: codesSpec });
  }
}

/** Whether an inventory read holds the bytes of a fingerprint (false when it cannot tell). */
function sameAs(read: InventoryFileRead & { ok: true }, fingerprint: BytesFingerprint): boolean {
  return read.fingerprint.length === fingerprint.length && read.digestOf(fingerprint.algorithm) === fingerprint.digest;
}

/** A version's own inventory: the root one when the bytes are the same (head), else parsed and cross-checked. */
async function readVersionInventory(
  scan: ObjectScan,
  v: VersionBlock,
  vEntries: TreeEntry[],
  root: RootInventory & { inv: CheckedInventory },
  isHead: boolean,
): Promise<{ vinv?: CheckedInventory; vSidecar?: string; spec?: SpecVersion }> {
  const { fs, dir, findings, at } = scan;
  const { inv, rootBytes, codesSpec } = root;
  const vWhere = at(`${v.name}/inventory.json`);
  const spec = isHead ? codesSpec : undefined;
  if (!vEntries.some((e) => e.name === 'inventory.json' && e.kind === 'file')) {
    findings.add('W010', `Version ${v.name} has no inventory of its own.`, at(v.name));
    return { spec };
  }
  const file = joinPath(dir, v.name, 'inventory.json');
  /** The head's copy holds the root inventory's bytes: the root's model speaks for it; its sidecar against `digestOf`. */
  const rootCopy = async (digestOf: (algorithm: string) => string | undefined) => {
    const vSidecar = await checkSidecar(scan, v.name, vEntries, digestOf, inv.digestAlgorithm);
    return { vinv: inv, vSidecar, spec };
  };
  if (isHead && root.rootCopy) {
    const copy = await readSmall(fs, file, root.rootCopy.bytes.length);
    if (copy.ok && copy.bytes.equals(root.rootCopy.bytes)) return rootCopy(root.rootCopy.digestOf);
  }
  // The head's copy is usually the root inventory's bytes: compared streamed, it is never held beside the root's model.
  const streamed = isHead && rootBytes && inv.digestAlgorithm ? await sameStoredBytes(fs, file, rootBytes, inv.digestAlgorithm) : undefined;
  if (streamed?.same) return rootCopy((a) => (a === inv.digestAlgorithm ? streamed.digest : undefined));
  const read = await readInventoryFile(fs, file);
  if (isHead && read.ok && rootBytes && sameAs(read, rootBytes)) return rootCopy(read.digestOf);
  if (isHead && read.ok) findings.add('E064', `The inventory of the latest version ${v.name} differs from the root inventory.`, vWhere);
  const checked = await checkInventoryFile(scan, v.name, vEntries, { codes: codesSpec }, read);
  if (checked.inv) crossCheckVersionInventory(v, checked.inv, inv, vWhere, codesSpec, findings);
  return { vinv: checked.inv, vSidecar: checked.sidecar, spec: checked.typed ?? spec };
}

/** contentDirectory is set from the first version on and never changes (E019, E020), seen version by version. */
class ContentDirectoryRule {
  private firstSet: boolean | undefined;
  private e019 = false;

  constructor(
    private readonly inv: CheckedInventory,
    private readonly findings: Findings,
  ) {}

  see(v: VersionBlock, vinv: CheckedInventory | undefined, vWhere: string): void {
    const { inv, findings } = this;
    if (!vinv || vinv === inv) {
      // The first version has no inventory of its own (or is the head): the root one speaks for it.
      if (this.firstSet === undefined && v.number === 1) this.firstSet = inv.contentDirectorySet;
      return;
    }
    if (this.firstSet === undefined) {
      this.firstSet = vinv.contentDirectorySet;
      if (vinv.contentDirectory !== inv.contentDirectory) {
        this.e019 = true;
        findings.add(
          'E019',
          `The first version's inventory has contentDirectory ${quote(vinv.contentDirectory)}, not ` +
            `the ${quote(inv.contentDirectory)} of the root inventory.`,
          vWhere,
        );
        if (vinv.contentDirectorySet)
          findings.add('E020', `contentDirectory changes from ${quote(vinv.contentDirectory)} to ${quote(inv.contentDirectory)}.`, vWhere);
      }
      return;
    }
    if (!this.firstSet && vinv.contentDirectorySet && !this.e019) {
      this.e019 = true;
      findings.add('E019', `contentDirectory is set in ${v.name} but not in the first version.`, vWhere);
    }
    if (vinv.contentDirectory !== inv.contentDirectory) {
      findings.add(
        'E020',
        `The inventory of ${v.name} has contentDirectory ${quote(vinv.contentDirectory)}, not ${quote(inv.contentDirectory)}.`,
        vWhere,
      );
    }
  }

  finish(rootWhere: string): void {
    if (this.inv.contentDirectorySet && this.firstSet === false && !this.e019) {
      this.findings.add('E019', 'The root inventory sets contentDirectory, but the first version did not.', rootWhere);
    }
  }
}

/**
 * The entries of a version folder (E015, W002, E090) and the files of its content folder, added to
 * `existing` and checked against the root manifest (E023, E024, W003). Answers how many of its
 * files the root manifest lists.
 */
async function checkVersionFolder(
  scan: ObjectScan,
  v: VersionBlock,
  vEntries: TreeEntry[],
  inv: CheckedInventory,
  vSidecar: string | undefined,
  existing: ExistingFiles,
): Promise<number> {
  const { fs, dir, findings, at } = scan;
  const cd = inv.contentDirectory;
  const sidecarName = vSidecar ?? (inv.digestAlgorithm ? `inventory.json.${inv.digestAlgorithm}` : undefined);
  let hasContent = false;
  for (const e of vEntries) {
    const rel = `${v.name}/${e.name}`;
    if (e.kind === 'link' || e.kind === 'other')
      findings.add('E090', `${quote(rel)} is a link or special file, which an object must not hold.`, at(rel));
    else if (e.kind === 'file') {
      if (e.name === 'inventory.json' || e.name === sidecarName) continue;
      findings.add('E015', `${quote(rel)} is a file other than the version's inventory and sidecar.`, at(rel));
    } else if (e.name === cd) hasContent = true;
    else findings.add('W002', `${quote(rel)} is a folder other than the content folder ${quote(cd)}.`, at(rel));
  }
  if (!hasContent) return 0;
  const walked = await fs.walk(joinPath(dir, v.name, cd), { sizes: scan.sizes });
  const prefix = `${v.name}/${cd}/`;
  let listed = 0;
  for (const f of walked.files) {
    const p = prefix + f.relative;
    if (inv.manifest.has(p)) listed++;
    else findings.add('E023', `The file ${quote(p)} is not in the manifest of the root inventory.`, at(p));
  }
  existing.add(prefix, walked.files);
  for (const d of walked.emptyDirs)
    findings.add('E024', `The content folder holds the empty folder ${quote(`${v.name}/${cd}/${d}`)}.`, at(`${v.name}/${cd}/${d}`));
  for (const l of walked.links)
    findings.add(
      'E090',
      `${quote(`${v.name}/${cd}/${l}`)} is a link or special file, which an object must not hold.`,
      at(`${v.name}/${cd}/${l}`),
    );
  if (walked.files.length === 0 && walked.links.length === 0) {
    findings.add('W003', `Version ${v.name} has a content folder with no file in it.`, at(`${v.name}/${cd}`));
  }
  return listed;
}

/**
 * Manifest and fixity entries, of the root or an earlier inventory, whose file does not exist (E092, E093).
 * `listed`: how many files found the root manifest lists; when all of its paths, none of them is looked up.
 */
function reportMissingContent(
  scan: ObjectScan,
  inv: CheckedInventory,
  existing: ExistingFiles,
  expectations: Expectations,
  listed: number,
): void {
  const { findings, at } = scan;
  for (const p of listed === inv.manifest.size ? [] : inv.manifest.keys()) {
    if (existing.has(p)) continue;
    findings.add('E092', `The manifest names the content file ${quote(p)}, which does not exist.`, at(p));
    for (const [alg, entriesOf] of inv.fixity) {
      if (entriesOf.has(p)) findings.add('E093', `The ${alg} fixity block names ${quote(p)}, which does not exist.`, at(p));
    }
  }
  for (const [p, e] of expectations.unbacked((p) => existing.has(p))) {
    findings.add(
      e.block === 'manifest' ? 'E092' : 'E093',
      `An earlier inventory names the content file ${quote(p)}, which does not exist.`,
      e.where,
    );
  }
}

export async function checkObject(fs: ReadStorage, dir: string, options: ObjectCheckOptions): Promise<ObjectCheck> {
  const findings = new Findings();
  const display = options.display ?? describePath(fs, dir);
  const hashing = options.fixity !== false;
  const sizes = !(hashing && options.sizesFromHashing);
  const scan: ObjectScan = { fs, dir, findings, at: (rel: string) => displayJoin(display, rel), sizes };
  const { at } = scan;
  const result: ObjectCheck = { findings, files: 0, bytes: 0 };
  const entries = await listDir(fs, dir);
  if (!entries) {
    findings.add('E003', 'The object root cannot be read as a folder.', at(''));
    return result;
  }
  const declared = await checkDeclaration(fs, dir, entries, 'object', findings, at);
  result.specVersion = declared;
  const root = await readRootInventory(scan, entries, declared);
  const { inv, codesSpec } = root;
  result.id = inv?.id;
  const { versionDirs, unlisted } = await checkRootEntries(scan, entries, root);
  if (!inv) {
    await checkVersionInventoriesAlone(scan, versionDirs, codesSpec);
    return result;
  }
  for (const v of inv.versions) {
    if (!versionDirs.has(v.name)) {
      findings.add('E046', `The root inventory lists version ${v.name} but the object has no folder ${v.name}.`, at(''));
      if (v !== inv.versions[inv.versions.length - 1]) findings.add('E010', `The version folders skip ${v.name}.`, at(''));
    }
  }

  // Version folders, oldest first
  const existing = new ExistingFiles();
  const rootWhere = at('inventory.json');
  const expectations = new Expectations(inv, rootWhere, hashing);
  const contentDirectory = new ContentDirectoryRule(inv, findings);
  const headBlock = inv.versions[inv.versions.length - 1];
  let previousSpec: SpecVersion | undefined;
  /** Files found that the root manifest lists (reportMissingContent). */
  let listed = 0;
  for (const v of inv.versions) {
    if (!versionDirs.has(v.name)) continue;
    const vEntries = (await listDir(fs, joinPath(dir, v.name))) ?? [];
    const vWhere = at(`${v.name}/inventory.json`);
    const { vinv, vSidecar, spec } = await readVersionInventory(scan, v, vEntries, { ...root, inv }, v === headBlock);
    if (spec && previousSpec && spec < previousSpec) {
      findings.add('E103', `Version ${v.name} follows OCFL ${spec}, older than the OCFL ${previousSpec} of the version before it.`, vWhere);
    }
    if (spec) previousSpec = spec;
    contentDirectory.see(v, vinv, vWhere);
    listed += await checkVersionFolder(scan, v, vEntries, inv, vSidecar, existing);
    // An earlier inventory lists every content file stored up to its version (E023)
    if (vinv && vinv !== inv) {
      for (const [p] of existing.entries()) {
        if (!vinv.manifest.has(p)) findings.add('E023', `The inventory of ${v.name} does not list the content file ${quote(p)}.`, vWhere);
      }
      expectations.addInventory(vinv, vWhere);
    }
  }
  contentDirectory.finish(rootWhere);
  reportMissingContent(scan, inv, existing, expectations, listed);

  if (root.rootBytes) await explainInterruptedCommit(fs, dir, { inv, rootBytes: root.rootBytes, unlisted, spec: codesSpec }, findings, at);

  if (hashing) await verifyDigests(fs, dir, existing, expectations, findings, at, options);
  // Files no inventory expects anything of, or that could not be read, were not sized by their hashing.
  if (!sizes) await existing.fillSizes(async (p) => (await fs.stat(joinPath(dir, p)).catch(() => undefined))?.size ?? 0);
  result.files = existing.files;
  result.bytes = existing.bytes;
  return result;
}

function crossCheckVersionInventory(
  v: VersionBlock,
  vinv: CheckedInventory,
  inv: CheckedInventory,
  vWhere: string,
  spec: SpecVersion,
  findings: Findings,
): void {
  if (vinv.id !== undefined && inv.id !== undefined && vinv.id !== inv.id) {
    findings.add('E037', `The inventory of ${v.name} has id ${quote(vinv.id)}, not the object's id ${quote(inv.id)}.`, vWhere);
    if (spec === '1.1') findings.add('E110', `The object id changes from ${quote(vinv.id)} in ${v.name} to ${quote(inv.id)}.`, vWhere);
  }
  if (vinv.head !== undefined && vinv.head !== v.name) {
    findings.add('E040', `The inventory in folder ${v.name} has head ${quote(vinv.head)}.`, vWhere);
  }
  compareVersionBlocks(vinv, inv, vWhere, findings);
}

async function checkObjectExtensions(fs: ReadStorage, dir: string, findings: Findings, at: (name: string) => string): Promise<void> {
  for (const e of (await listDir(fs, dir)) ?? []) {
    if (e.kind !== 'dir') findings.add('E067', `extensions/${e.name} is not an extension folder.`, at(e.name));
    else if (!isRegisteredExtension(e.name))
      findings.add('W013', `extensions/${e.name} is not the name of a registered extension.`, at(e.name));
  }
}

/**
 * Files hashed per batch: a batch's tasks, results and expectations are held until it is compared
 * (a few MB at this size); the files themselves are only walked, never listed all at once.
 */
const HASH_BATCH = 4096;

interface HashedBatch {
  paths: string[];
  /** Each file's number among the existing ones (its size is set from its hashing when unknown). */
  numbers: number[];
  /** As walked: NaN where the walk did not stat. */
  sizes: number[];
  expected: Expectation[][];
  results: HashResult[];
}

/** The next HASH_BATCH files some inventory expects digests of, hashed; undefined when none is left. */
async function hashBatch(
  files: Iterator<[string, number, number]>,
  expectations: Expectations,
  hash: (paths: string[], algorithmsOf: string[][], sizes: number[]) => Promise<HashResult[]>,
): Promise<HashedBatch | undefined> {
  const paths: string[] = [];
  const numbers: number[] = [];
  const expected: Expectation[][] = [];
  const algorithmsOf: string[][] = [];
  const sizes: number[] = [];
  while (paths.length < HASH_BATCH) {
    const next = files.next();
    if (next.done) break;
    const [p, size, n] = next.value;
    const list = expectations.get(p);
    if (!list) continue;
    paths.push(p);
    numbers.push(n);
    expected.push(list);
    algorithmsOf.push(list.length === 1 ? [list[0]!.algorithm] : [...new Set(list.map((e) => e.algorithm))]);
    sizes.push(size);
  }
  return paths.length === 0 ? undefined : { paths, numbers, sizes, expected, results: await hash(paths, algorithmsOf, sizes) };
}

/** A hashed batch against what the inventories expect (E092 when unreadable, digest mismatches); sizes learnt set. */
function compareBatch(batch: HashedBatch, existing: ExistingFiles, findings: Findings, at: (rel: string) => string): void {
  const { paths, expected, numbers } = batch;
  batch.results.forEach((r, i) => {
    const p = paths[i]!;
    if (!r.digests) {
      findings.add('E092', `The content file ${quote(p)} cannot be read (${r.error ?? 'unknown error'}).`, at(p));
      return;
    }
    if (r.size !== undefined && Number.isNaN(batch.sizes[i])) existing.setSize(numbers[i]!, r.size);
    for (const m of digestMismatches(r.digests, expected[i]!)) {
      findings.add(
        m.code,
        `The ${m.algorithm} digest of ${quote(p)} is ${m.actual}, but the ${m.block} of ${m.where} records ${m.digest}.`,
        at(p),
      );
    }
  });
}

async function verifyDigests(
  fs: ReadStorage,
  dir: string,
  existing: ExistingFiles,
  expectations: Expectations,
  findings: Findings,
  at: (rel: string) => string,
  options: ObjectCheckOptions,
): Promise<void> {
  if (options.sizesFromHashing) {
    if (existing.files === 0) return;
    options.onPlan?.(existing.files, 0);
  } else {
    let files = 0;
    let bytes = 0;
    for (const [p, size] of existing.entries()) {
      if (!expectations.has(p)) continue;
      files++;
      bytes += size;
    }
    if (files === 0) return;
    options.onPlan?.(files, bytes);
  }
  const toHash = existing.entries();
  const hash = (paths: string[], algorithmsOf: string[][], sizes: number[]) =>
    hashStored(fs, dir, paths, algorithmsOf, sizes, options.pool, options.onHashed);
  let pending = hashBatch(toHash, expectations, hash);
  for (let batch = await pending; batch; batch = await pending) {
    // The next batch is hashed while this one is compared.
    pending = hashBatch(toHash, expectations, hash);
    compareBatch(batch, existing, findings, at);
  }
}
