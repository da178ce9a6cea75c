/**
 * Validation of one OCFL object root (OCFL 1.0 and 1.1): declaration, inventories and their
 * sidecars, version folders, content files against every manifest, and (unless asked not to)
 * the digests of every content file against every manifest and fixity block that names it.
 * It keeps going after each finding and never reads outside the object root.
 */
import { digestSync, isDigestAlgorithm } from '../digest.js';
import { isRegisteredExtension } from './extensions.js';
import { explainInterruptedCommit } from './interrupted-commit.js';
import { Findings, quote } from './findings.js';
import { displayJoin, listDir, walk, type TreeEntry } from './fs-tree.js';
import { describePath, joinPath, type ReadStorage } from '../storage.js';
import { hashStored } from './hash-stored.js';
import { HashPool, type HashResult } from './hash-pool.js';
import {
  checkInventory,
  parseVersionName,
  SPEC_VERSIONS,
  specVersionOfType,
  type Inventory,
  type SpecVersion,
  type VersionBlock,
} from './inventory.js';
import { type BytesFingerprint, fingerprintOf, parseJson, readSmall, sameBytes, MAX_INVENTORY_BYTES } from './read.js';

export interface ObjectCheckOptions {
  /** Verify content and fixity digests (default true). */
  fixity?: boolean;
  /** A shared pool of hashing threads; one is made (and closed) when absent. */
  pool?: HashPool;
  /** How the object root is named in findings (default: its path). */
  display?: string;
  /** Called before hashing with the files and bytes about to be read. */
  onPlan?: (files: number, bytes: number) => void;
  /** Called as content files are hashed. */
  onHashed?: (files: number, bytes: number) => void;
}

export interface ObjectCheck {
  findings: Findings;
  id?: string;
  /** Version declared by 0=ocfl_object_x.y, when readable. */
  specVersion?: SpecVersion;
  files: number;
  bytes: number;
}

interface Expectation {
  algorithm: string;
  digest: string;
  block: 'manifest' | 'fixity';
  where: string;
}

/** Reads the object declaration(s); returns the declared specification version. */
async function checkDeclaration(fs: ReadStorage, dir: string, entries: TreeEntry[], findings: Findings, at: (rel: string) => string): Promise<SpecVersion | undefined> {
  const declarations = entries.filter((e) => e.name.startsWith('0='));
  if (declarations.length === 0) findings.add('E003', 'The object root has no 0=ocfl_object_1.x declaration file.', at(''));
  if (declarations.length > 1) {
    findings.add('E003', `The object root has ${declarations.length} declaration files; exactly one is allowed.`, at(''));
  }
  let declared: SpecVersion | undefined;
  for (const d of declarations) {
    const m = /^0=ocfl_object_(\d+\.\d+)$/.exec(d.name);
    if (!m || !(SPEC_VERSIONS as readonly string[]).includes(m[1])) {
      findings.add('E006', `The declaration ${quote(d.name)} does not name OCFL object version 1.0 or 1.1.`, at(d.name));
      continue;
    }
    const read = await readSmall(fs, joinPath(dir, d.name), 1024);
    const expected = `ocfl_object_${m[1]}\n`;
    if (!read.ok || read.bytes.toString('utf8') !== expected) {
      findings.add('E007', `The declaration ${d.name} does not contain exactly "ocfl_object_${m[1]}" and a newline.`, at(d.name));
    }
    declared ??= m[1] as SpecVersion;
  }
  return declared;
}

/** Checks the sidecar of an inventory in `dirRel` ('' for the root). Returns the sidecar name looked for. */
async function checkSidecar(
  fs: ReadStorage,
  dir: string,
  dirRel: string,
  entries: TreeEntry[],
  inventoryBytes: Buffer,
  algorithm: string | undefined,
  findings: Findings,
  at: (rel: string) => string,
): Promise<string | undefined> {
  const rel = (name: string) => (dirRel ? `${dirRel}/${name}` : name);
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
  const text = read.ok ? read.bytes.toString('utf8') : '';
  const m = /^([0-9a-fA-F]+)[ \t]+inventory\.json[ \t]*\r?\n?$/.exec(text);
  if (!m) {
    findings.add('E061', `The sidecar ${name} does not read "<digest> inventory.json".`, at(rel(name)));
    return name;
  }
  if (isDigestAlgorithm(algorithm)) {
    let actual: string | undefined;
    try {
      actual = digestSync(algorithm, inventoryBytes);
    } catch {
      actual = undefined; // algorithms only computable asynchronously are not used for inventories in practice
    }
    if (actual !== undefined && actual !== m[1].toLowerCase()) {
      findings.add('E060', `The sidecar ${name} records ${m[1]} but the inventory's ${algorithm} digest is ${actual}.`, at(rel(name)));
    }
  }
  return name;
}

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

/** E066 and W011: a version block of an earlier inventory against the root inventory's one. */
function compareVersionBlocks(prior: Inventory, root: Inventory, priorWhere: string, findings: Findings): void {
  const rootBlocks = new Map(root.versions.map((v) => [v.name, v]));
  for (const block of prior.versions) {
    const rb = rootBlocks.get(block.name);
    if (!rb) {
      findings.add('E066', `It records version ${block.name}, which the root inventory does not have.`, priorWhere);
      continue;
    }
    const differences = stateDifferences(block, prior, rb, root);
    if (differences.length > 0) {
      findings.add('E066', `Its version ${block.name} state differs from the root inventory's at ${differences.slice(0, 3).map((p) => quote(p)).join(', ')}${differences.length > 3 ? ' and more' : ''}.`, priorWhere);
    }
    for (const key of ['created', 'message', 'user'] as const) {
      if (!sameJson(block[key], rb[key])) {
        findings.add('W011', `Its version ${block.name} has a different ${key} from the root inventory's.`, priorWhere);
      }
    }
  }
}

/** Logical paths whose content differs between two version blocks (each read with its own inventory). */
function stateDifferences(a: VersionBlock, invA: Inventory, b: VersionBlock, invB: Inventory): string[] {
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

export async function checkObject(fs: ReadStorage, dir: string, options: ObjectCheckOptions = {}): Promise<ObjectCheck> {
  const findings = new Findings();
  const display = options.display ?? describePath(fs, dir);
  const at = (rel: string) => displayJoin(display, rel);
  const result: ObjectCheck = { findings, files: 0, bytes: 0 };
  const entries = await listDir(fs, dir);
  if (!entries) {
    findings.add('E003', 'The object root cannot be read as a folder.', at(''));
    return result;
  }
  const declared = await checkDeclaration(fs, dir, entries, findings, at);
  result.specVersion = declared;

  // Root inventory
  let inv: Inventory | undefined;
  // The root inventory's bytes are not kept (a gigabyte at a million files): a fingerprint
  // answers "does this other inventory hold the same bytes?".
  let rootBytes: BytesFingerprint | undefined;
  let rootSidecar: string | undefined;
  let codesSpec: SpecVersion = declared ?? '1.1';
  if (!entries.some((e) => e.name === 'inventory.json')) {
    findings.add('E063', 'The object root has no inventory.json.', at(''));
  } else {
    const read = await readSmall(fs, joinPath(dir, 'inventory.json'), MAX_INVENTORY_BYTES);
    if (!read.ok) findings.add('E033', `The root inventory.json cannot be read (${read.reason}).`, at('inventory.json'));
    else {
      rootBytes = fingerprintOf(read.bytes);
      const parsed = parseJson(read.bytes);
      if (!parsed.ok) findings.add('E033', `The root inventory.json ${parsed.problem}.`, at('inventory.json'));
      else {
        const typed = typeof parsed.value === 'object' && parsed.value !== null ? specVersionOfType((parsed.value as { type?: unknown }).type) : undefined;
        codesSpec = declared ?? typed ?? '1.1';
        inv = checkInventory(parsed.value, { findings, where: at('inventory.json'), specVersion: codesSpec, expectTypeFor: declared });
      }
      rootSidecar = await checkSidecar(fs, dir, '', entries, read.bytes, inv?.digestAlgorithm, findings, at);
    }
  }
  result.id = inv?.id;

  // Object root entries
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
  if (!inv) {
    // Without a usable root inventory only the version inventories can still be checked.
    for (const v of [...versionDirs].sort((a, b) => parseVersionName(a)!.number - parseVersionName(b)!.number)) {
      const vEntries = (await listDir(fs, joinPath(dir, v))) ?? [];
      if (!vEntries.some((e) => e.name === 'inventory.json')) continue;
      const read = await readSmall(fs, joinPath(dir, v, 'inventory.json'), MAX_INVENTORY_BYTES);
      const parsed = read.ok ? parseJson(read.bytes) : undefined;
      if (!parsed?.ok) {
        findings.add('E033', `The inventory of ${v} cannot be read as JSON.`, at(`${v}/inventory.json`));
        continue;
      }
      const vinv = checkInventory(parsed.value, { findings, where: at(`${v}/inventory.json`), specVersion: codesSpec });
      if (read.ok) await checkSidecar(fs, dir, v, vEntries, read.bytes, vinv?.digestAlgorithm, findings, at);
    }
    return result;
  }
  for (const v of inv.versions) {
    if (!versionDirs.has(v.name)) {
      findings.add('E046', `The root inventory lists version ${v.name} but the object has no folder ${v.name}.`, at(''));
      if (v !== inv.versions[inv.versions.length - 1]) findings.add('E010', `The version folders skip ${v.name}.`, at(''));
    }
  }

  // Version folders, oldest first
  const existing = new Map<string, number>(); // content path -> size
  const expectations = new Map<string, Expectation[]>();
  const rootManifest = inv.manifest;
  const hashing = options.fixity !== false;
  const expect = (p: string, e: Expectation) => {
    // Without hashing, only a path that no root manifest entry backs is looked at again (below):
    // a million files' expectations are not kept for nothing.
    if (!hashing && (rootManifest.has(p) || expectations.has(p))) return;
    const list = expectations.get(p);
    if (list) list.push(e);
    else expectations.set(p, [e]);
  };
  const rootWhere = at('inventory.json');
  if (inv.digestAlgorithm) for (const [p, d] of inv.manifest) expect(p, { algorithm: inv.digestAlgorithm, digest: d.toLowerCase(), block: 'manifest', where: rootWhere });
  for (const [alg, entriesOf] of inv.fixity) for (const [p, d] of entriesOf) expect(p, { algorithm: alg, digest: d, block: 'fixity', where: rootWhere });

  const cd = inv.contentDirectory;
  const headBlock = inv.versions[inv.versions.length - 1];
  let previousSpec: SpecVersion | undefined;
  let firstContentDirectorySet: boolean | undefined;
  let contentDirectoryE019 = false;
  for (const v of inv.versions) {
    if (!versionDirs.has(v.name)) continue;
    const vdir = joinPath(dir, v.name);
    const vEntries = (await listDir(fs, vdir)) ?? [];
    const isHead = v === headBlock;

    // This version's inventory
    let vinv: Inventory | undefined;
    let vSidecar: string | undefined;
    let thisSpec: SpecVersion | undefined = isHead ? codesSpec : undefined;
    const vWhere = at(`${v.name}/inventory.json`);
    if (!vEntries.some((e) => e.name === 'inventory.json' && e.kind === 'file')) {
      findings.add('W010', `Version ${v.name} has no inventory of its own.`, at(v.name));
    } else {
      const read = await readSmall(fs, joinPath(vdir, 'inventory.json'), MAX_INVENTORY_BYTES);
      if (!read.ok) findings.add('E033', `The inventory of ${v.name} cannot be read (${read.reason}).`, vWhere);
      else if (isHead && rootBytes && sameBytes(read.bytes, rootBytes)) {
        vinv = inv;
        vSidecar = await checkSidecar(fs, dir, v.name, vEntries, read.bytes, inv.digestAlgorithm, findings, at);
      } else {
        if (isHead) findings.add('E064', `The inventory of the latest version ${v.name} differs from the root inventory.`, vWhere);
        const parsed = parseJson(read.bytes);
        if (!parsed.ok) findings.add('E033', `The inventory of ${v.name} ${parsed.problem}.`, vWhere);
        else {
          const typed = typeof parsed.value === 'object' && parsed.value !== null ? specVersionOfType((parsed.value as { type?: unknown }).type) : undefined;
          thisSpec = typed ?? thisSpec;
          vinv = checkInventory(parsed.value, { findings, where: vWhere, specVersion: typed ?? codesSpec });
          vSidecar = await checkSidecar(fs, dir, v.name, vEntries, read.bytes, vinv?.digestAlgorithm, findings, at);
          if (vinv) crossCheckVersionInventory(v, vinv, inv, vWhere, codesSpec, findings);
        }
      }
    }
    if (thisSpec && previousSpec && thisSpec < previousSpec) {
      findings.add('E103', `Version ${v.name} follows OCFL ${thisSpec}, older than the OCFL ${previousSpec} of the version before it.`, vWhere);
    }
    if (thisSpec) previousSpec = thisSpec;

    // contentDirectory must be set from the first version and never change (E019, E020)
    if (vinv && vinv !== inv) {
      if (firstContentDirectorySet === undefined) {
        firstContentDirectorySet = vinv.contentDirectorySet;
        if (vinv.contentDirectory !== inv.contentDirectory) {
          contentDirectoryE019 = true;
          findings.add('E019', `The first version's inventory has contentDirectory ${quote(vinv.contentDirectory)}, not the ${quote(inv.contentDirectory)} of the root inventory.`, vWhere);
          if (vinv.contentDirectorySet) findings.add('E020', `contentDirectory changes from ${quote(vinv.contentDirectory)} to ${quote(inv.contentDirectory)}.`, vWhere);
        }
      } else {
        if (!firstContentDirectorySet && vinv.contentDirectorySet && !contentDirectoryE019) {
          contentDirectoryE019 = true;
          findings.add('E019', `contentDirectory is set in ${v.name} but not in the first version.`, vWhere);
        }
        if (vinv.contentDirectory !== inv.contentDirectory) {
          findings.add('E020', `The inventory of ${v.name} has contentDirectory ${quote(vinv.contentDirectory)}, not ${quote(inv.contentDirectory)}.`, vWhere);
        }
      }
    } else if (firstContentDirectorySet === undefined && v.number === 1) {
      // The first version has no inventory of its own (or is the head): the root one speaks for it.
      firstContentDirectorySet = inv.contentDirectorySet;
    }

    // Entries of the version folder
    const sidecarName = vSidecar ?? (inv.digestAlgorithm ? `inventory.json.${inv.digestAlgorithm}` : undefined);
    let hasContent = false;
    for (const e of vEntries) {
      const rel = `${v.name}/${e.name}`;
      if (e.kind === 'link' || e.kind === 'other') findings.add('E090', `${quote(rel)} is a link or special file, which an object must not hold.`, at(rel));
      else if (e.kind === 'file') {
        if (e.name === 'inventory.json' || e.name === sidecarName) continue;
        findings.add('E015', `${quote(rel)} is a file other than the version's inventory and sidecar.`, at(rel));
      } else if (e.name === cd) hasContent = true;
      else findings.add('W002', `${quote(rel)} is a folder other than the content folder ${quote(cd)}.`, at(rel));
    }
    if (hasContent) {
      const walked = await walk(fs, joinPath(vdir, cd));
      for (const f of walked.files) {
        const p = `${v.name}/${cd}/${f.relative}`;
        existing.set(p, f.size);
        if (!inv.manifest.has(p)) findings.add('E023', `The file ${quote(p)} is not in the manifest of the root inventory.`, at(p));
      }
      for (const d of walked.emptyDirs) findings.add('E024', `The content folder holds the empty folder ${quote(`${v.name}/${cd}/${d}`)}.`, at(`${v.name}/${cd}/${d}`));
      for (const l of walked.links) findings.add('E090', `${quote(`${v.name}/${cd}/${l}`)} is a link or special file, which an object must not hold.`, at(`${v.name}/${cd}/${l}`));
      if (walked.files.length === 0 && walked.links.length === 0) {
        findings.add('W003', `Version ${v.name} has a content folder with no file in it.`, at(`${v.name}/${cd}`));
      }
    }

    // An earlier inventory lists every content file stored up to its version (E023)
    if (vinv && vinv !== inv) {
      for (const p of existing.keys()) {
        if (!vinv.manifest.has(p)) findings.add('E023', `The inventory of ${v.name} does not list the content file ${quote(p)}.`, vWhere);
      }
      if (vinv.digestAlgorithm) {
        for (const [p, d] of vinv.manifest) expect(p, { algorithm: vinv.digestAlgorithm, digest: d.toLowerCase(), block: 'manifest', where: vWhere });
      }
      for (const [alg, entriesOf] of vinv.fixity) for (const [p, d] of entriesOf) expect(p, { algorithm: alg, digest: d, block: 'fixity', where: vWhere });
    }
  }

  if (inv.contentDirectorySet && firstContentDirectorySet === false && !contentDirectoryE019) {
    findings.add('E019', 'The root inventory sets contentDirectory, but the first version did not.', rootWhere);
  }

  // Manifest entries without a file
  for (const p of inv.manifest.keys()) {
    if (existing.has(p)) continue;
    findings.add('E092', `The manifest names the content file ${quote(p)}, which does not exist.`, at(p));
    for (const [alg, entriesOf] of inv.fixity) {
      if (entriesOf.has(p)) findings.add('E093', `The ${alg} fixity block names ${quote(p)}, which does not exist.`, at(p));
    }
  }
  for (const [p, list] of expectations) {
    if (existing.has(p) || inv.manifest.has(p)) continue;
    const e = list[0];
    findings.add(e.block === 'manifest' ? 'E092' : 'E093', `An earlier inventory names the content file ${quote(p)}, which does not exist.`, e.where);
  }

  if (rootBytes) await explainInterruptedCommit(fs, dir, { inv, rootBytes, unlisted, spec: codesSpec }, findings, at);

  for (const size of existing.values()) {
    result.files++;
    result.bytes += size;
  }
  if (hashing) await verifyDigests(fs, dir, existing, expectations, findings, at, options);
  return result;
}

function crossCheckVersionInventory(v: VersionBlock, vinv: Inventory, inv: Inventory, vWhere: string, spec: SpecVersion, findings: Findings): void {
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
    else if (!isRegisteredExtension(e.name)) findings.add('W013', `extensions/${e.name} is not the name of a registered extension.`, at(e.name));
  }
}

/** Files hashed per batch: the tasks and results of a million files at once are gigabytes. */
const HASH_BATCH = 20_000;

async function verifyDigests(
  fs: ReadStorage,
  dir: string,
  existing: Map<string, number>,
  expectations: Map<string, Expectation[]>,
  findings: Findings,
  at: (rel: string) => string,
  options: ObjectCheckOptions,
): Promise<void> {
  let files = 0;
  let bytes = 0;
  for (const [p, size] of existing) {
    if (!expectations.has(p)) continue;
    files++;
    bytes += size;
  }
  if (files === 0) return;
  options.onPlan?.(files, bytes);
  const pool = options.pool ?? new HashPool();
  const toHash = (function* () {
    for (const [p, size] of existing) if (expectations.has(p)) yield [p, size] as const;
  })();
  const hashBatch = async (): Promise<{ paths: string[]; results: HashResult[] } | undefined> => {
    const paths: string[] = [];
    const algorithmsOf: string[][] = [];
    const sizes: number[] = [];
    while (paths.length < HASH_BATCH) {
      const next = toHash.next();
      if (next.done) break;
      const [p, size] = next.value;
      paths.push(p);
      algorithmsOf.push([...new Set(expectations.get(p)!.map((e) => e.algorithm))]);
      sizes.push(size);
    }
    return paths.length === 0 ? undefined : { paths, results: await hashStored(fs, dir, paths, algorithmsOf, sizes, pool, options.onHashed) };
  };
  try {
    let pending = hashBatch();
    for (let batch = await pending; batch; batch = await pending) {
      // The next batch is hashed while this one is compared.
      pending = hashBatch();
      batch.results.forEach((r, i) => {
        const p = batch!.paths[i]!;
        if (!r.digests) {
          findings.add('E092', `The content file ${quote(p)} cannot be read (${r.error ?? 'unknown error'}).`, at(p));
          return;
        }
        for (const e of expectations.get(p)!) {
          const actual = r.digests[e.algorithm];
          if (actual === undefined || actual === e.digest) continue;
          const code = e.block === 'manifest' ? 'E092' : 'E093';
          findings.add(code, `The ${e.algorithm} digest of ${quote(p)} is ${actual}, but the ${e.block} of ${e.where} records ${e.digest}.`, at(p));
        }
      });
    }
  } finally {
    if (!options.pool) await pool.close();
  }
}
