/**
 * Issue 12: the validator keeps what earlier inventories expect of each content file compactly
 * (src/ocfl/validate/expectations.ts: a path whose expectations repeat the root inventory's is one
 * bit) and the walked files in arenas (existing-files.ts). Held here to the way it stands in for:
 * every manifest and fixity entry of every inventory added one by one to a Map of path -> list (the
 * reference below, as object.ts kept them before), on random sets of inventories, root read plain
 * or parsed in full, with and without hashing; and end to end, a copied multi-version fixture
 * object damaged (a file missing, an extra file, a file of an earlier version changed, an earlier
 * inventory recording another digest or naming a file that is gone) gives the findings the
 * specification's reading gives, in order.
 */
import test from 'ava';
import { cpSync, mkdtempSync, rmSync, unlinkSync, writeFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { digestSync } from '../../../../src/ocfl/digest.js';
import { ExistingFiles } from '../../../../src/ocfl/validate/existing-files.js';
import { Expectations, type Expectation } from '../../../../src/ocfl/validate/expectations.js';
import { Findings } from '../../../../src/ocfl/validate/findings.js';
import { checkInventory, type CheckedInventory } from '../../../../src/ocfl/validate/inventory.js';
import { parseJson } from '../../../../src/ocfl/validate/read.js';
import { plainInventory } from '../../../../src/ocfl/inventory/plain.js';
import { PathMap } from '../../../../src/ocfl/validate/block-maps.js';
import { validateObject } from '../../../../src/ocfl/validate/index.js';
import { rng } from '../../../../fixtures/northwind.js';
import { reference, sharedTest } from '../../../helpers/shared.js';

/** The reference: every entry of each inventory other than the root's added one by one (the validator's former Map). */
class ReferenceExpectations {
  readonly byPath = new Map<string, Expectation[]>();
  constructor(
    private readonly root: CheckedInventory,
    private readonly rootWhere: string,
    private readonly hashing: boolean,
  ) {}

  has(p: string): boolean {
    if (this.byPath.has(p) || (this.root.digestAlgorithm && this.root.manifest.has(p))) return true;
    for (const entriesOf of this.root.fixity.values()) if (entriesOf.has(p)) return true;
    return false;
  }

  get(p: string): Expectation[] | undefined {
    const { root, rootWhere: where } = this;
    const out: Expectation[] = [];
    const digest = root.digestAlgorithm ? root.manifest.get(p) : undefined;
    if (digest !== undefined) out.push({ algorithm: root.digestAlgorithm!, digest: digest.toLowerCase(), block: 'manifest', where });
    for (const [alg, entriesOf] of root.fixity) {
      const d = entriesOf.get(p);
      if (d !== undefined) out.push({ algorithm: alg, digest: d, block: 'fixity', where });
    }
    out.push(...(this.byPath.get(p) ?? []));
    return out.length > 0 ? out : undefined;
  }

  private add(p: string, e: Expectation): void {
    if (!this.hashing && (this.root.manifest.has(p) || this.byPath.has(p))) return;
    const list = this.byPath.get(p);
    if (list) list.push(e);
    else this.byPath.set(p, [e]);
  }

  addInventory(inv: CheckedInventory, where: string): void {
    if (inv.digestAlgorithm)
      for (const [p, d] of inv.manifest) this.add(p, { algorithm: inv.digestAlgorithm, digest: d.toLowerCase(), block: 'manifest', where });
    for (const [alg, entriesOf] of inv.fixity)
      for (const [p, d] of entriesOf) this.add(p, { algorithm: alg, digest: d, block: 'fixity', where });
  }

  /** What reportMissingContent reported from the earlier inventories. */
  unbacked(exists: (p: string) => boolean): Array<[string, Expectation]> {
    const out: Array<[string, Expectation]> = [];
    for (const [p, list] of this.byPath) if (!exists(p) && !this.root.manifest.has(p)) out.push([p, list[0]!]);
    return out;
  }
}

const hex = (r: () => number, n: number) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(r() * 16)]).join('');

interface FileRecord {
  path: string;
  digest: Record<string, string>;
}

/** An inventory listing `files` (content path -> digests) in `algorithm`, with the fixity blocks `fixity`. */
function inventoryText(files: FileRecord[], algorithm: string, fixity: string[], head: number, r: () => number): Buffer {
  const manifest: Record<string, string[]> = {};
  for (const f of files) (manifest[f.digest[algorithm]!] ??= []).push(f.path);
  const versions: Record<string, unknown> = {};
  for (let v = 1; v <= head; v++) {
    const state: Record<string, string[]> = {};
    for (const f of files) if (Number(/^v(\d+)\//.exec(f.path)![1]) <= v) (state[f.digest[algorithm]!] ??= []).push(f.path.slice(3));
    versions[`v${v}`] = { created: '2026-11-26T00:00:00Z', state };
  }
  const inv: Record<string, unknown> = {
    id: 'urn:x:expect',
    type: 'https://ocfl.io/1.1/spec/#inventory',
    digestAlgorithm: algorithm,
    head: `v${head}`,
    manifest,
    versions,
  };
  if (fixity.length > 0) {
    inv.fixity = Object.fromEntries(
      fixity.map((alg) => {
        const block: Record<string, string[]> = {};
        for (const f of files) if (r() < 0.95) (block[f.digest[alg]!] ??= []).push(f.path);
        return [alg, block];
      }),
    );
  }
  return Buffer.from(JSON.stringify(inv, null, 2));
}

function checked(bytes: Buffer, plain: boolean): CheckedInventory {
  const p = plain ? plainInventory(bytes) : undefined;
  const value = p ? p.skeleton : (parseJson(bytes) as { value: unknown }).value;
  return checkInventory(value, { findings: new Findings(), where: 'x', specVersion: '1.1' }, p?.blocks)!;
}

test('earlier inventories: the compact expectations answer as entries added one by one', (t) => {
  const r = rng(20261126);
  let echoes = 0;
  let differing = 0;
  for (let round = 0; round < 300; round++) {
    const versions = 2 + Math.floor(r() * 3);
    const files: FileRecord[] = [];
    const inventories: Array<{ bytes: Buffer; where: string }> = [];
    const fileDigests = () => ({ sha512: hex(r, 128), sha256: hex(r, 64), md5: hex(r, 32), sha1: hex(r, 40) });
    for (let v = 1; v <= versions; v++) {
      for (let f = 1 + Math.floor(r() * 6); f > 0; f--)
        files.push({ path: `v${v}/content/f${files.length}${r() < 0.2 ? '😀' : ''}`, digest: fileDigests() });
      // The inventory of version v as written then; now and then it differs from what came later.
      const then = files.map((f) => (r() < 0.1 ? { path: f.path, digest: fileDigests() } : f));
      if (r() < 0.1) then.push({ path: `v${v}/content/gone${v}`, digest: fileDigests() });
      const fixity = r() < 0.7 ? (r() < 0.8 ? ['sha256'] : ['md5', 'sha256']) : [];
      inventories.push({ bytes: inventoryText(then, r() < 0.9 ? 'sha512' : 'sha256', fixity, v, r), where: `v${v}/inventory.json` });
    }
    const rootFixity = r() < 0.8 ? ['sha256'] : r() < 0.5 ? ['md5', 'sha256'] : [];
    const rootBytes = inventoryText(files, r() < 0.9 ? 'sha512' : 'sha256', rootFixity, versions, r);
    const walked = files.filter(() => r() < 0.95).map((f) => f.path);
    if (r() < 0.3) walked.push(`v1/content/extra${round}`);
    const exists = (p: string) => walked.includes(p);
    const probes = [...new Set([...files.map((f) => f.path), ...walked, 'v1/content/gone1', 'v2/content/gone2', 'nothing'])];
    for (const plain of [true, false]) {
      const root = checked(rootBytes, plain);
      // Read plain or parsed in full, the manifest is the one compact model (validate/block-maps.ts).
      t.true(root.manifest instanceof PathMap);
      for (const hashing of [true, false]) {
        const compact = new Expectations(root, 'inventory.json', hashing);
        const ref = new ReferenceExpectations(root, 'inventory.json', hashing);
        for (const inv of inventories.slice(0, -1)) {
          const earlier = checked(inv.bytes, plain);
          compact.addInventory(earlier, inv.where);
          ref.addInventory(earlier, inv.where);
        }
        t.deepEqual([...compact.unbacked(exists)], ref.unbacked(exists), `round ${round}, plain ${plain}, hashing ${hashing}`);
        if (!hashing) continue;
        for (const p of probes) {
          t.is(compact.has(p), ref.has(p), `round ${round}: has ${p}`);
          const got = compact.get(p);
          t.deepEqual(got, ref.get(p), `round ${round}: get ${p}`);
          const earlierOnes = (got ?? []).filter((e) => e.where !== 'inventory.json');
          if (earlierOnes.length > 0 && earlierOnes.every((e) => got!.some((x) => x.where === 'inventory.json' && x.digest === e.digest)))
            echoes++;
          else if (earlierOnes.length > 0) differing++;
        }
      }
    }
  }
  t.true(echoes > 1000, `${echoes} paths echoing the root`);
  t.true(differing > 100, `${differing} paths with expectations of their own`);
});

test('the walked files: looked up and listed as a Map of path -> size would', (t) => {
  const r = rng(11);
  const existing = new ExistingFiles();
  const map = new Map<string, number>();
  const names = ['a', 'é', '😀', '\uE000', 'b/c', 'a b', '中', 'z'];
  for (let v = 1; v <= 4; v++) {
    const files = Array.from({ length: Math.floor(r() * 50) }, (_, i) => ({
      relative: `${names[Math.floor(r() * names.length)]}/${i}${names[Math.floor(r() * names.length)]}`,
      size: Math.floor(r() * 5000),
    })).sort((a, b) => (a.relative < b.relative ? -1 : 1));
    existing.add(`v${v}/content/`, files);
    for (const f of files) map.set(`v${v}/content/${f.relative}`, f.size);
  }
  t.deepEqual(
    [...existing.entries()].map(([p, size]) => [p, size]),
    [...map],
  );
  t.deepEqual(
    [...existing.entries()].map(([, , n]) => n),
    [...map.keys()].map((_, n) => n),
  ); // numbered in walk order, across the folders
  t.is(existing.files, map.size);
  t.is(
    existing.bytes,
    [...map.values()].reduce((a, b) => a + b, 0),
  );
  for (const p of [...map.keys(), 'v1/content/', 'v5/content/a/1a', 'v1/content/a/0', 'v10/content/a/1a', 'x'])
    t.is(existing.has(p), map.has(p), p);
});

test('the walked files without sizes: each set by its number, the others filled by path', async (t) => {
  const existing = new ExistingFiles();
  const sizes = new Map([
    ['v1/content/a', 10],
    ['v1/content/b', 20],
    ['v2/content/a', 30],
    ['v2/content/c', 40],
  ]);
  for (const v of ['v1', 'v2']) {
    const files = [...sizes.keys()].filter((p) => p.startsWith(`${v}/`)).map((p) => ({ relative: p.slice(11), size: NaN }));
    existing.add(`${v}/content/`, files);
  }
  // Learnt by reading: the second file of v1 and the first of v2 (numbers 1 and 2).
  for (const [p, , n] of [...existing.entries()].filter(([, , n]) => n === 1 || n === 2)) existing.setSize(n, sizes.get(p)!);
  t.deepEqual(
    [...existing.entries()].map(([p, size]) => [p, size]),
    [
      ['v1/content/a', NaN],
      ['v1/content/b', 20],
      ['v2/content/a', 30],
      ['v2/content/c', NaN],
    ],
  );
  const asked: string[] = [];
  await existing.fillSizes(async (p) => {
    asked.push(p);
    return sizes.get(p)!;
  });
  t.deepEqual(asked, ['v1/content/a', 'v2/content/c']);
  t.deepEqual(
    [...existing.entries()].map(([p, size]) => [p, size]),
    [...sizes],
  );
  t.is(existing.bytes, 100);
});

sharedTest('a damaged three-version object: each finding as the specification reads it, in order', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'expect-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const object = path.join(dir, 'obj');
  cpSync(reference('ocfl-fixtures', '1.1', 'good-objects', 'updates_three_versions_one_file'), object, { recursive: true });
  const clean = await validateObject(object);
  t.deepEqual(clean.errors, []);
  const rootInv = JSON.parse(readFileSync(path.join(object, 'inventory.json'), 'utf8')) as { manifest: Record<string, string[]> };
  const contentPaths = Object.values(rootInv.manifest).flat().sort();
  t.true(contentPaths.length >= 3);
  const [first, second, third] = contentPaths as [string, string, string];
  // v1's file changed: every inventory naming it (root, v1, v2) records the digest it had.
  writeFileSync(path.join(object, first), 'changed\n');
  // v2's file gone, an extra file in v3.
  unlinkSync(path.join(object, second));
  writeFileSync(path.join(object, path.dirname(third), 'extra.txt'), 'extra\n');
  const result = await validateObject(object);
  const at = (p: string) => path.join(object, p);
  const actual = digestSync('sha512', Buffer.from('changed\n'));
  const e092 = result.errors.filter((f) => f.code === 'E092');
  t.deepEqual(
    e092.map((f) => [f.path, f.message.includes(actual) ? 'digest' : 'missing']),
    [[at(second), 'missing'], ...['inventory.json', 'v1/inventory.json', 'v2/inventory.json'].map(() => [at(first), 'digest'])],
  );
  t.deepEqual(
    e092.slice(1).map((f) => /records/.test(f.message) && /of (\S+) records/.exec(f.message)![1]),
    ['inventory.json', 'v1/inventory.json', 'v2/inventory.json'].map((w) => at(w)),
  );
  t.true(result.errors.some((f) => f.code === 'E023' && f.path === at(path.join(path.dirname(third), 'extra.txt'))));
});
