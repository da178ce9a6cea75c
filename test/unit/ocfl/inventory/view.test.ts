/**
 * The inventory read in place (src/ocfl/inventory/view.ts), by both its loaders (read plain, and
 * InventoryView.read: parsed in full where not plain), held to what JSON.parse reads (parseInventory,
 * and built here from its objects: each state as a Map set path by path in the inventory's order,
 * the manifest by lower-case digest, the content path -> digest maps of the manifest and fixity
 * blocks that audit and mets read): on the OCFL conformance fixtures, on random inventories (paths
 * with escapes, non-ASCII, characters above U+FFFF and from U+E000, paths and digests listed twice),
 * and on the same inventories damaged byte by byte. Where the view reads an inventory it must read
 * what the full parse reads; where the full parse refuses one, the view must not accept it.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { isDigestAlgorithm } from '../../../../src/ocfl/digest.js';
import { InventoryView, type VersionListing } from '../../../../src/ocfl/inventory/view.js';
import { InventoryWindows } from '../../../../src/ocfl/inventory/windows.js';
import { parseInventory, type Inventory } from '../../../../src/ocfl/inventory/inventory.js';
import { serializeInventory } from '../../../../src/ocfl/inventory/chunks.js';
import { rng } from '../../../../fixtures/northwind.js';
import { inventoriesUnder } from '../../../helpers/fixture-inventories.js';
import { sameValue } from '../../../helpers/same-value.js';
import { reference, sharedTest } from '../../../helpers/shared.js';

const NAME_PIECES = ['a', 'b', 'seg_1', '/', 'é', '😀', '\uE000', '\uFFFD', ' ', 'Z', '~', '__proto__', '0', '.'];
/** Characters JSON writes escaped: one path in about forty has one. */
const ESCAPED = ['"', '\\', '\n', '\u0001'];
const hex = (r: () => number, n: number) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(r() * 16)]).join('');

function randomPath(r: () => number): string {
  let out = '';
  const n = 1 + Math.floor(r() * 4);
  for (let i = 0; i < n; i++) out += NAME_PIECES[Math.floor(r() * NAME_PIECES.length)];
  return r() < 0.025 ? out + ESCAPED[Math.floor(r() * ESCAPED.length)] : out;
}

/** A random inventory: mostly plain paths, sometimes one that needs an escape, a path or digest listed twice. */
function randomInventory(r: () => number): Inventory {
  const digests = Array.from({ length: 1 + Math.floor(r() * 12) }, () => hex(r, 128));
  const manifest: Record<string, string[]> = {};
  for (const d of digests)
    manifest[d] = Array.from({ length: r() < 0.9 ? 1 : 2 + Math.floor(r() * 2) }, () => `v1/content/${randomPath(r)}`);
  const versions: Inventory['versions'] = {};
  const count = 1 + Math.floor(r() * 3);
  for (let v = 1; v <= count; v++) {
    const state: Record<string, string[]> = {};
    for (const d of digests) if (r() < 0.8) state[d] = Array.from({ length: 1 + Math.floor(r() * 3) }, () => randomPath(r));
    // A logical path under two digests (invalid OCFL, but readers have always read it: the last wins).
    if (r() < 0.1 && digests.length > 1) state[digests[0]!] = [...(state[digests[0]!] ?? []), ...(state[digests[1]!] ?? ['x'])];
    versions[`v${v}`] = {
      created: '2026-11-24T00:00:00Z',
      state,
      ...(r() < 0.5 ? { message: randomPath(r) } : {}),
      ...(r() < 0.5 ? { user: { name: 'N', address: 'mailto:n@example.org' } } : {}),
    };
  }
  const inv: Inventory = {
    id: `urn:x:${randomPath(r)}`,
    type: 'https://ocfl.io/1.1/spec/#inventory',
    digestAlgorithm: 'sha512',
    head: `v${count}`,
    manifest,
    versions,
  };
  if (r() < 0.3) inv.fixity = { md5: Object.fromEntries(Object.values(manifest).map((paths) => [hex(r, 32), paths])) };
  if (r() < 0.3) {
    // A second block: sometimes a content path listed under two digests (the last wins), an upper-case
    // digest (left to the full parse), and a block of an algorithm this tool does not compute.
    const sha256 = Object.fromEntries(Object.values(manifest).map((paths) => [hex(r, 64), paths]));
    const first = Object.values(manifest)[0]!;
    if (r() < 0.3) sha256[hex(r, 64)] = [first[0]!];
    if (r() < 0.1) sha256[hex(r, 64).toUpperCase()] = [first[0]!];
    inv.fixity = { ...inv.fixity, sha256, ...(r() < 0.3 ? { 'x-local': { 'not hex': first } } : {}) };
  }
  return inv;
}

/** content path -> lower-case digest of one block of a parsed inventory, as a Map set entry by entry reads it. */
function byContentPath(block: Record<string, string[]>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [digest, paths] of Object.entries(block)) for (const p of paths) out.set(p, digest.toLowerCase());
  return out;
}

/** logical path -> lower-case digest of a state as JSON.parse reads it: set path by path in its order (the last wins), sorted by path. */
function stateOf(state: Record<string, string[]>): Array<[string, string]> {
  const entries = Object.entries(state).flatMap(([digest, paths]) => paths.map((p) => [p, digest.toLowerCase()] as [string, string]));
  // A stable sort: a path listed twice keeps its listings' order, and the Map its last.
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return [...new Map(entries)];
}

/** What a reader reads of inventory bytes, through the full parse. */
function readFull(bytes: Buffer) {
  const inv = parseInventory(bytes);
  const versions = Object.keys(inv.versions);
  const byPath = new Map([[inv.digestAlgorithm, byContentPath(inv.manifest)]]);
  for (const [alg, block] of Object.entries(inv.fixity ?? {}))
    if (isDigestAlgorithm(alg) && !byPath.has(alg)) byPath.set(alg, byContentPath(block));
  const contentPaths = [...byPath.get(inv.digestAlgorithm)!.keys()];
  // Digests compare ignoring case: the manifest by lower-case digest (of two keys differing in case only, the last).
  const manifestPaths = new Map(Object.entries(inv.manifest).map(([d, paths]) => [d.toLowerCase(), paths]));
  return {
    id: inv.id,
    head: inv.head,
    versions: versions.map((v) => [v, inv.versions[v]!.created, inv.versions[v]!.message, inv.versions[v]!.user]),
    states: versions.map((v) => stateOf(inv.versions[v]!.state)),
    // What show reads: each path's digest and the content path of its bytes (the manifest's first).
    listings: versions.map((v) => stateOf(inv.versions[v]!.state).map(([p, d]) => [p, d, manifestPaths.get(d)![0]])),
    manifest: Object.keys(inv.manifest).map((d) => [d, manifestPaths.get(d.toLowerCase())]),
    fixityAlgorithms: Object.keys(inv.fixity ?? {}),
    contentPaths,
    // Every content path (and one no block lists) in every algorithm the blocks use and this tool computes.
    contentDigests: [...contentPaths, 'v1/content/none'].map((cp) => [...byPath].map(([alg, m]) => [alg, m.get(cp)])),
  };
}

/**
 * A version's listing read as its state reads: path, digest, content path; a later listing of a
 * path wins (the content path asked of that one only); in code-unit order.
 */
function listed(listing: VersionListing): string[][] {
  const byPath = new Map<string, number>();
  for (let i = 0; i < listing.size; i++) byPath.set(listing.logicalPath(i), i);
  return [...byPath]
    .map(([p, i]) => [p, listing.digest(i), listing.contentPath(i)])
    .sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
}

/** The loader of inventory bytes read plain only (undefined where they are not plain). */
const plainView = (bytes: Buffer) => InventoryView.from(bytes, 'inventory.json');
/** The loader of any inventory bytes: plain where they are, else parsed in full. */
const anyView = (bytes: Buffer) => InventoryView.read(bytes, 'inventory.json');

/** The same through the view (undefined when it declines the bytes). */
function readView(bytes: Buffer, load: (bytes: Buffer) => InventoryView | undefined = plainView) {
  const view = load(bytes);
  if (!view) return undefined;
  const versions = view.versions().map((v) => v.version);
  // Only for the list of digests to ask about; a view of bytes the full parse refuses is an answer too.
  let inv: Inventory;
  try {
    inv = parseInventory(bytes);
  } catch {
    return { acceptedWhatTheFullParseRefuses: true };
  }
  const algorithms = [
    inv.digestAlgorithm,
    ...Object.keys(inv.fixity ?? {}).filter((a) => isDigestAlgorithm(a) && a !== inv.digestAlgorithm),
  ];
  const contentPaths = [...view.contentPaths()];
  const listings = versions.map((v) => listed(view.listing(v)));
  const contentDigests = [...contentPaths, 'v1/content/none'].map((cp) => algorithms.map((alg) => [alg, view.contentDigest(alg, cp)]));
  return {
    id: view.id,
    head: view.head,
    versions: view.versions().map((v) => [v.version, v.created, v.message, v.user]),
    states: versions.map((v) => [...view.state(v)]),
    listings,
    manifest: Object.keys(inv.manifest).map((d) => [d, view.manifestPaths(d.toLowerCase())]),
    fixityAlgorithms: view.fixityAlgorithms(),
    contentPaths,
    contentDigests,
  };
}

test('random inventories read in place give what the full parse gives: states in order, manifest lookups, versions', (t) => {
  const r = rng(20261124);
  let viewed = 0;
  for (let round = 0; round < 600; round++) {
    const bytes = serializeInventory(randomInventory(r));
    const full = readFull(bytes);
    // The full parse lists versions in key order, the view in numeric order: ours serialises them numerically.
    const view = readView(bytes);
    if (view) {
      viewed++;
      sameValue(t, view, full, () => bytes.toString());
    } else {
      const upperCaseDigest = /"[0-9A-F]{64}"/.test(bytes.toString('utf8'));
      t.true(bytes.includes('\\') || upperCaseDigest, 'only inventories with escapes or an upper-case fixity digest are declined');
    }
    // Read whole, every one is read, and as the full parse reads it.
    sameValue(t, readView(bytes, anyView)!, full, () => bytes.toString());
  }
  t.true(viewed > 300, `${viewed} of 600 random inventories read in place`);
});

test('a path listed under two digests keeps the digest listed last, as the full parse does', (t) => {
  const a = 'a'.repeat(128);
  const b = 'b'.repeat(128);
  const inv: Inventory = {
    id: 'urn:x',
    type: 'https://ocfl.io/1.1/spec/#inventory',
    digestAlgorithm: 'sha512',
    head: 'v1',
    manifest: { [a]: ['v1/content/x'], [b]: ['v1/content/y'] },
    versions: { v1: { created: '2026-11-24T00:00:00Z', state: { [a]: ['same', 'one'], [b]: ['same'] } } },
  };
  const view = InventoryView.from(serializeInventory(inv), 'inventory.json')!;
  t.deepEqual(
    [...view.state('v1')],
    [
      ['one', a],
      ['same', b],
    ],
  );
  t.is(view.state('v1').get('same'), b);
  t.is(view.state('v1').size, 2);
});

test('damaged inventories: the view accepts none the full parse refuses, and reads the others as it does', (t) => {
  const r = rng(7);
  let refused = 0;
  for (let round = 0; round < 3000; round++) {
    const text = serializeInventory(randomInventory(r)).toString('utf8');
    const at = Math.floor(r() * text.length);
    const junk = ['', '"', ',', '}', '{', ':', ']', '[', '\\', 'x', 'A', ' ', '\u0001'][Math.floor(r() * 13)]!;
    const damaged = Buffer.from(
      r() < 0.5 ? text.slice(0, at) + junk + text.slice(at + 1) : text.slice(0, at) + junk + text.slice(at),
      'utf8',
    );
    let full: ReturnType<typeof readFull> | undefined;
    try {
      full = readFull(damaged);
    } catch {
      refused++;
    }
    for (const load of [plainView, anyView]) {
      let view: ReturnType<typeof readView>;
      try {
        view = readView(damaged, load);
      } catch (err) {
        t.is(full, undefined, `the view threw (${(err as Error).message}) where the full parse reads:\n${damaged.toString()}`);
        continue;
      }
      if (full === undefined) {
        if (view === undefined) t.pass();
        else t.is(view, undefined, `the view read what the full parse refuses:\n${damaged.toString()}`);
      } else if (view) sameValue(t, view, full as typeof view, () => damaged.toString());
      else t.is(load, plainView, `read whole, the view declined what the full parse reads:\n${damaged.toString()}`);
    }
  }
  t.true(refused > 1000, `${refused} of the damaged inventories are refused`);
});

test('bytes that are not UTF-8 and a byte order mark are left to the full parse', (t) => {
  const bytes = serializeInventory(randomInventory(rng(3)));
  t.is(InventoryView.from(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]), 'inventory.json'), undefined);
  const broken = Buffer.from(bytes);
  broken[broken.indexOf('v1/content/') + 3] = 0xff;
  t.is(InventoryView.from(broken, 'inventory.json'), undefined);
});

sharedTest('every inventory of the OCFL conformance fixtures: read in place exactly as parsed in full, or left to the full parse', (t) => {
  const found = inventoriesUnder(reference('ocfl-fixtures'));
  t.true(found.length > 50);
  let viewed = 0;
  for (const file of found) {
    const bytes = readFileSync(file);
    let full: ReturnType<typeof readFull> | undefined;
    try {
      full = readFull(bytes);
    } catch {
      full = undefined;
    }
    for (const load of [plainView, anyView]) {
      let view: ReturnType<typeof readView>;
      try {
        view = readView(bytes, load);
      } catch {
        t.is(full, undefined, `${file}: the view threw where the full parse reads it`);
        continue;
      }
      if (!view) continue;
      if (load === plainView) viewed++;
      t.not(full, undefined, `${file}: read in place but refused in full`);
      t.false('acceptedWhatTheFullParseRefuses' in view, `${file}: read in place but refused in full`);
      const byNumber = (x: NonNullable<typeof full>) => {
        const order = x.versions.map((v, i) => [Number(String(v[0]).slice(1)), i] as const).sort((a, b) => a[0] - b[0]);
        return {
          ...x,
          versions: order.map(([, i]) => x.versions[i]),
          states: order.map(([, i]) => x.states[i]),
          listings: order.map(([, i]) => x.listings[i]),
        };
      };
      sameValue(t, byNumber(view as NonNullable<typeof full>), byNumber(full!), () => file);
    }
  }
  t.true(viewed > 30, `${viewed} of ${found.length} fixture inventories read in place`);
});

/**
 * Everything a reader can ask of a view, or how it was declined (undefined) or refused (the error's
 * class and message): two reads of the same bytes are the same read when these are deep-equal.
 */
function outcome(read: () => InventoryView | undefined) {
  let view: InventoryView | undefined;
  try {
    view = read();
  } catch (err) {
    return { error: `${(err as Error).name}: ${(err as Error).message}` };
  }
  if (!view) return { declined: true };
  const versions = view.versions();
  const contentPaths = [...view.contentPaths()];
  const manifest = [...view.manifestEntries()];
  const algorithms = [view.digestAlgorithm, ...view.fixityAlgorithms()];
  return {
    header: [view.id, view.type, view.digestAlgorithm, view.head, view.contentDirectory, view.hasFixity],
    versions,
    states: versions.map((v) => [...view.state(v.version)]),
    stateEntries: versions.map((v) => [...view.stateEntries(v.version)]),
    lookups: versions.map((v) => [...view.state(v.version).keys(), 'none'].map((p) => view.state(v.version).get(p))),
    manifest,
    manifestPaths: manifest.map(([d]) => view.manifestPaths(d)),
    fixityAlgorithms: view.fixityAlgorithms(),
    contentPaths,
    contentDigests: [...contentPaths, 'v1/content/none'].map((cp) => algorithms.map((alg) => view.contentDigest(alg, cp))),
  };
}

/** The bytes cut into windows of the given lengths (cycled), read window by window. */
function viewInWindows(bytes: Buffer, lengths: number[], options: { fixity?: boolean } = {}): InventoryView | undefined {
  const windows = new InventoryWindows(options);
  for (let at = 0, w = 0; at < bytes.length; w++) {
    const end = Math.min(bytes.length, at + lengths[w % lengths.length]!);
    // A copy: the reader must not rely on a window staying as it was once handed over.
    if (!windows.write(Buffer.from(bytes.subarray(at, end)))) break;
    at = end;
  }
  return InventoryView.fromWindows(windows, 'inventory.json');
}

/** Window lengths to try: 1 byte (every UTF-8 sequence, escape, number and key cut), small primes, irregular, large. */
function windowPlans(r: () => number, oneByte: boolean): number[][] {
  const irregular = Array.from({ length: 17 }, () => 1 + Math.floor(r() * 40));
  return [...(oneByte ? [[1]] : []), [2], [3], [7], [64], irregular, [1 << 20]];
}

test('windowed: random inventories read in windows of any length give what the whole-buffer view gives', (t) => {
  const r = rng(20261126);
  let viewed = 0;
  for (let round = 0; round < 150; round++) {
    const bytes = serializeInventory(randomInventory(r));
    const whole = outcome(() => InventoryView.from(bytes, 'inventory.json'));
    if (!('declined' in whole) && !('error' in whole)) viewed++;
    for (const plan of windowPlans(r, round % 10 === 0))
      sameValue(
        t,
        outcome(() => viewInWindows(bytes, plan)),
        whole,
        () => `windows ${plan}`,
      );
  }
  t.true(viewed > 75, `${viewed} of 150 read in place`);
});

/** What a view read without its fixity blocks answers where the whole view answers `o`: no fixity digest of a content path. */
function withoutFixity(o: ReturnType<typeof outcome>): ReturnType<typeof outcome> {
  if (!('header' in o)) return o;
  const algorithms = [o.header[2], ...o.fixityAlgorithms];
  return { ...o, contentDigests: o.contentDigests.map((row) => row.map((d, i) => (algorithms[i] === o.header[2] ? d : undefined))) };
}

test('windowed without fixity: the same view, its fixity blocks checked but not kept', (t) => {
  const r = rng(20261128);
  let lightWithFixity = 0;
  for (let round = 0; round < 150; round++) {
    const bytes = serializeInventory(randomInventory(r));
    const whole = withoutFixity(outcome(() => InventoryView.from(bytes, 'inventory.json')));
    for (const plan of [[7], [1 << 20]]) {
      const light = viewInWindows(bytes, plan, { fixity: false });
      sameValue(
        t,
        outcome(() => light),
        whole,
        () => `windows ${plan}`,
      );
      if (light && light.fixityAlgorithms().length > 0) lightWithFixity++;
      t.true(light?.fixityAlgorithms().every((alg) => light.fixityBlock(alg) === undefined) ?? true);
    }
  }
  t.true(lightWithFixity > 40, `${lightWithFixity} light reads of an inventory with fixity`);
  // A fixity block of a known algorithm with keys of another length is declined as by the whole view.
  const d = 'a'.repeat(128);
  const inv: Inventory = {
    id: 'urn:x',
    type: 'https://ocfl.io/1.1/spec/#inventory',
    digestAlgorithm: 'sha512',
    head: 'v1',
    manifest: { [d]: ['v1/content/x'] },
    versions: { v1: { created: '2026-11-24T00:00:00Z', state: { [d]: ['x'] } } },
    fixity: { md5: { ['b'.repeat(30)]: ['v1/content/x'] } },
  };
  const bytes = serializeInventory(inv);
  t.is(InventoryView.from(bytes, 'inventory.json'), undefined);
  t.is(viewInWindows(bytes, [1 << 20], { fixity: false }), undefined);
  inv.fixity = { md5: { ['b'.repeat(32)]: ['v1/content/x'] } };
  t.truthy(viewInWindows(serializeInventory(inv), [1 << 20], { fixity: false }));
});

/** Damage the header checks refuse (inventoryFromJson), in JSON that stays plain: one of a few edits. */
function misread(bytes: Buffer, r: () => number): Buffer {
  const edits: Array<[string, string]> = [
    ['"digestAlgorithm": "sha512"', '"digestAlgorithm": "md5"'],
    ['"digestAlgorithm": "sha512"', '"digestAlgorithm": "constructor"'],
    ['"head": "v', '"head": "w'],
    ['"id": ', '"id": 7, "x": '],
    ['"created": ', '"created": 1, "x": '],
    ['"type": ', '"type": "", "x": '],
    ['"user": {', '"user": {"name": 5, "x": '],
    ['"contentDirectory": "', '"contentDirectory": "a/'],
    ['"versions": {', '"contentDirectory": "..", "versions": {'],
    ['"fixity": {', '"fixity": {"md5": {}, "x": '],
  ];
  const [from, to] = edits[Math.floor(r() * edits.length)]!;
  return Buffer.from(bytes.toString('utf8').replace(from, to), 'utf8');
}

test('windowed: damaged inventories are viewed, declined or refused exactly as by the whole-buffer view', (t) => {
  const r = rng(11);
  const kinds = new Map<string, number>();
  for (let round = 0; round < 1000; round++) {
    const original = serializeInventory(randomInventory(r));
    const text = (r() < 0.4 ? misread(original, r) : original).toString('utf8');
    const at = Math.floor(r() * text.length);
    const junk = ['', '"', ',', '}', '{', ':', ']', '[', '\\', 'x', 'A', ' ', '\u0001', '1', 'é', '😀'][Math.floor(r() * 16)]!;
    // Three in four damaged by a byte: the others only misread (header checks), or whole.
    const damage =
      r() < 0.75 ? (r() < 0.5 ? text.slice(0, at) + junk + text.slice(at + 1) : text.slice(0, at) + junk + text.slice(at)) : text;
    const damaged = Buffer.from(damage, 'utf8');
    // Sometimes a byte that breaks the UTF-8, or bytes after the object.
    if (r() < 0.05) damaged[Math.floor(r() * damaged.length)] = [0xff, 0xc3, 0x80, 0xe2][Math.floor(r() * 4)]!;
    const bytes = r() < 0.03 ? Buffer.concat([damaged, Buffer.from(r() < 0.5 ? ' \n' : ' x')]) : damaged;
    const whole = outcome(() => InventoryView.from(bytes, 'inventory.json'));
    const kind = 'error' in whole ? 'error' : 'declined' in whole ? 'declined' : 'viewed';
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    for (const plan of windowPlans(r, round % 25 === 0))
      sameValue(
        t,
        outcome(() => viewInWindows(bytes, plan)),
        whole,
        () => `windows ${plan}:\n${bytes}`,
      );
  }
  // All three answers occur often enough for the comparison to mean something.
  t.true(kinds.get('error')! > 30 && kinds.get('declined')! > 250 && kinds.get('viewed')! > 75, JSON.stringify([...kinds]));
});

test('windowed: an inventory cut in two at every byte, and in three around every third byte, reads as whole', (t) => {
  // One the whole-buffer view reads, with fixity and more than one version.
  const r = rng(5);
  let inv = randomInventory(r);
  const small = (i: Inventory) => Object.keys(i.manifest).length <= 4 && Object.keys(i.versions).length === 2;
  while (!inv.fixity || !small(inv) || !InventoryView.from(serializeInventory(inv), 'inventory.json')) inv = randomInventory(r);
  // Every kind of value the outline gathers: a number, literals, escapes, non-ASCII in a key and a message.
  const text = serializeInventory(inv)
    .toString('utf8')
    .replace('{\n', '{\n  "x-n\\u00e9": [-12.5e+3, true, null, false, {"a": "\\"]}"}],\n  "x-s": "é😀\\\\\\n",\n');
  const bytes = Buffer.from(text.replace('"created": ', '"message": "m\\u00e9 \\"q\\" 😀",\n      "created": '), 'utf8');
  const whole = outcome(() => InventoryView.from(bytes, 'inventory.json'));
  t.false('declined' in whole || 'error' in whole, 'the whole-buffer view reads it');
  for (let cut = 1; cut < bytes.length; cut++) {
    sameValue(
      t,
      outcome(() => viewInWindows(bytes, [cut, bytes.length])),
      whole,
      () => `cut at ${cut}`,
    );
    if (cut % 3 === 0 && cut + 2 < bytes.length)
      sameValue(
        t,
        outcome(() => viewInWindows(bytes, [cut, 2, bytes.length])),
        whole,
        () => `cuts at ${cut}, ${cut + 2}`,
      );
  }
});

test('windowed: bytes that are not UTF-8, a byte order mark, bytes after the object are declined as by the whole-buffer view', (t) => {
  const bytes = serializeInventory(randomInventory(rng(3)));
  const cases = [
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]),
    Buffer.concat([bytes, Buffer.from([0xe2, 0x82])]),
    Buffer.concat([bytes, Buffer.from('x')]),
    Buffer.concat([Buffer.from(' \n\t'), bytes, Buffer.from(' \r\n')]),
    bytes.subarray(0, bytes.length - 3),
  ];
  const broken = Buffer.from(bytes);
  broken[broken.indexOf('v1/content/') + 3] = 0xff;
  cases.push(broken);
  for (const c of cases) {
    const whole = outcome(() => InventoryView.from(c, 'inventory.json'));
    for (const plan of [[1], [2], [3], [5], [1 << 20]])
      t.deepEqual(
        outcome(() => viewInWindows(c, plan)),
        whole,
      );
  }
  t.deepEqual(
    outcome(() => viewInWindows(cases[3]!, [1])),
    outcome(() => InventoryView.from(bytes, 'inventory.json')),
  );
});

sharedTest('windowed: every OCFL fixture inventory reads in windows exactly as the whole-buffer view reads it', (t) => {
  const found = [...inventoriesUnder(reference('ocfl-fixtures')), ...inventoriesUnder(reference('ocfl-extra-fixtures'))];
  t.true(found.length > 50);
  const r = rng(1);
  let viewed = 0;
  for (const file of found) {
    const bytes = readFileSync(file);
    const whole = outcome(() => InventoryView.from(bytes, file));
    if (!('declined' in whole) && !('error' in whole)) viewed++;
    for (const plan of windowPlans(r, true)) {
      const windows = new InventoryWindows();
      for (let at = 0, w = 0; at < bytes.length; w++) {
        const end = Math.min(bytes.length, at + plan[w % plan.length]!);
        if (!windows.write(bytes.subarray(at, end))) break;
        at = end;
      }
      sameValue(
        t,
        outcome(() => InventoryView.fromWindows(windows, file)),
        whole,
        () => `${file}, windows ${plan}`,
      );
    }
  }
  t.true(viewed > 30, `${viewed} of ${found.length} fixture inventories read in place`);
});

test('windowed: keys, paths and values longer than the bytes read with a cut-off token (4 KiB) read as whole', (t) => {
  const d = 'c'.repeat(128);
  const inv: Inventory = {
    id: `urn:x:${'i'.repeat(5000)}`,
    type: 'https://ocfl.io/1.1/spec/#inventory',
    digestAlgorithm: 'sha512',
    head: 'v1',
    manifest: { [d]: [`v1/content/${'p'.repeat(9000)}`, 'v1/content/é😀'] },
    versions: { v1: { created: '2026-11-26T00:00:00Z', message: `${'m'.repeat(12000)}\n`, state: { [d]: ['é😀'.repeat(3000), 'b'] } } },
    fixity: { 'x-local': { ['k'.repeat(7000)]: ['v1/content/é😀'] } },
  };
  const bytes = serializeInventory(inv);
  const whole = outcome(() => InventoryView.from(bytes, 'inventory.json'));
  t.false('declined' in whole || 'error' in whole);
  for (const plan of [[4097], [4100, 13], [5000], [6001, 3], [9999], [20000], [1 << 20]])
    t.deepEqual(
      outcome(() => viewInWindows(bytes, plan)),
      whole,
      `windows ${plan}`,
    );
});
