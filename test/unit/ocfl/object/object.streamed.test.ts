/**
 * Issues 12 and 35: ls, log and repair stream each root inventory (hashed as read) through
 * InventoryWindows keeping only the header fields and the versions' metadata (manifest, fixity and
 * states checked and counted), instead of holding ~1 GB of JSON. Held here to the whole-text path
 * it stands in for: inventoryHeaderOf and summaryOfSkeleton on a plain inventory's skeleton answer
 * exactly what parseInventoryHeader and parseInventoryVersions answer on the whole text (same value
 * or same error message), whatever the windows the text arrives in, on every inventory of the OCFL
 * conformance fixtures and on random inventories damaged byte by byte; and the streamed loaders
 * (loadInventoryHeader/loadInventorySummary) answer as their whole reads on fixture objects and on
 * objects whose sidecars are stale, wrong or missing.
 */
import test, { type ExecutionContext } from 'ava';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { digestSync } from '../../../../src/ocfl/digest.js';
import {
  inventoryHeaderOf,
  parseInventoryHeader,
  parseInventoryVersions,
  summaryOfSkeleton,
} from '../../../../src/ocfl/inventory/inventory.js';
import { plainOfParts, type PlainInventory } from '../../../../src/ocfl/inventory/plain.js';
import { InventoryWindows } from '../../../../src/ocfl/inventory/windows.js';
import { readHashedWindows } from '../../../../src/ocfl/inventory/hashed-windows.js';
import { loadInventoryHeader, loadInventorySummary } from '../../../../src/ocfl/object/object.js';
import { FileSystemStorage } from '../../../../src/ocfl/storage/fs.js';
import { rng } from '../../../../fixtures/northwind.js';
import { inventoriesUnder } from '../../../helpers/fixture-inventories.js';
import { seamEdits } from '../../../helpers/seam-edits.js';
import { repetitions } from '../../../helpers/repetitions.js';
import { reference, sharedTest } from '../../../helpers/shared.js';

type Parse<T> = (input: T, where: string) => unknown;

/** What a parse answers: its value, or its error's class and message. */
function outcome<T>(parse: Parse<T>, input: T): unknown {
  try {
    return { value: parse(input, 'inv') };
  } catch (err) {
    return { error: (err as Error).constructor.name, message: (err as Error).message };
  }
}

/** The text cut into chunks of random sizes (1 to `max` bytes). */
function chunked(bytes: Buffer, r: () => number, max: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length;) {
    const n = 1 + Math.floor(r() * max);
    out.push(bytes.subarray(at, at + n));
    at += n;
  }
  return out;
}

/** The plain inventory the streamed loaders read of the text given in windows (as they read it: states counted, not kept), or undefined. */
function streamedPlain(windows: Buffer[]): PlainInventory | undefined {
  const reader = new InventoryWindows({ fixity: false, manifest: false, version: '' });
  for (const w of windows) if (!reader.write(w)) return undefined;
  const parts = reader.end();
  return parts && plainOfParts(parts, { unknownFixity: true });
}

/** What the streamed loaders parse a plain inventory into: its header, and its summary. */
const STREAMED: Array<[Parse<PlainInventory>, Parse<Uint8Array>]> = [
  [(p, where) => inventoryHeaderOf(p.skeleton, where), parseInventoryHeader],
  [(p, where) => summaryOfSkeleton(p.skeleton, (v) => p.blocks.states.get(v)!.pathCount, where), parseInventoryVersions],
];

/**
 * Whether the streamed read (when the text is plain) answers as the whole text, cut three ways.
 * Returns whether it was plain. The label is made only for a failure.
 */
function sameBothWays(t: ExecutionContext, bytes: Buffer, r: () => number, label: () => string): boolean {
  const plain = streamedPlain([bytes]);
  for (const max of [1, 7, 4096]) {
    const again = streamedPlain(chunked(bytes, r, max));
    if (JSON.stringify(again?.skeleton) !== JSON.stringify(plain?.skeleton)) {
      t.fail(`${label()}: the streamed read depends on the windows (${max})`);
      return false;
    }
  }
  if (!plain) return false;
  for (const [streamed, whole] of STREAMED) {
    const wholeOutcome = outcome(whole, bytes);
    const streamedOutcome = outcome(streamed, plain);
    if (JSON.stringify(wholeOutcome) !== JSON.stringify(streamedOutcome)) {
      t.deepEqual(streamedOutcome, wholeOutcome, `${label()}: ${whole.name}`);
      return true;
    }
  }
  return true;
}

const PIECES = ['a', 'é', '😀', '\uE000', ' ', '"', '\\', '\\"', '/', '{', '}', '[', ']', ',', ':', '\u0001', 'v1', 'state'];
const hex = (r: () => number, n: number) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(r() * 16)]).join('');
const pick = <T>(r: () => number, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
const name = (r: () => number, pieces = PIECES) => Array.from({ length: 1 + Math.floor(r() * 4) }, () => pick(r, pieces)).join('');
/** Pieces JSON writes without an escape: paths of these keep an inventory plain (streamed); the others send it to the whole read. */
const PLAIN_PIECES = PIECES.filter((p) => JSON.stringify(p) === `"${p}"`);

/**
 * A random inventory: several versions with states, a manifest, fixity now and then, other keys,
 * any key order. Four in five are plain (paths without escapes, digests of the algorithm's length).
 */
function randomInventory(r: () => number): Record<string, unknown> {
  const versions: Record<string, unknown> = {};
  const manifest: Record<string, string[]> = {};
  const count = 1 + Math.floor(r() * 4);
  const plain = r() < 0.8;
  const digestAlgorithm = r() < 0.8 ? 'sha512' : 'sha256';
  const digestLength = plain && digestAlgorithm === 'sha256' ? 64 : 128;
  const pathName = () => name(r, plain ? PLAIN_PIECES : PIECES);
  for (let v = 1; v <= count; v++) {
    const state: Record<string, string[]> = {};
    for (let f = Math.floor(r() * 4); f > 0; f--) {
      const d = hex(r, digestLength);
      manifest[d] = [`v${v}/content/${pathName()}`];
      state[d] = Array.from({ length: Math.floor(r() * 3) }, () => pathName());
    }
    versions[`v${v}`] = {
      ...(r() < 0.95 ? { created: '2026-11-26T00:00:00Z' } : {}),
      ...(r() < 0.95 ? { state } : {}),
      ...(r() < 0.6 ? { message: name(r) } : {}),
      ...(r() < 0.6 ? { user: { name: name(r), ...(r() < 0.8 ? { address: 'mailto:a@b.c' } : {}) } } : {}),
    };
  }
  const inv: Record<string, unknown> = {
    id: `urn:x:${name(r)}`,
    type: 'https://ocfl.io/1.1/spec/#inventory',
    digestAlgorithm,
    head: `v${count}`,
    manifest,
    versions,
    ...(r() < 0.4 ? { fixity: { md5: { [hex(r, 32)]: [`v1/content/${pathName()}`] } } } : {}),
    ...(r() < 0.1 ? { [name(r)]: [name(r), { a: [1, 2] }] } : {}),
  };
  const entries = Object.entries(inv);
  return Object.fromEntries(r() < 0.3 ? entries.reverse() : entries);
}

sharedTest('every inventory of the OCFL conformance fixtures: the streamed read answers as the whole text', (t) => {
  const r = rng(7);
  let streamed = 0;
  const files = [...inventoriesUnder(reference('ocfl-fixtures')), ...inventoriesUnder(reference('ocfl-extra-fixtures'))];
  for (const file of files) if (sameBothWays(t, readFileSync(file), r, () => file)) streamed++;
  t.true(streamed > files.length / 2, `${streamed} of ${files.length} plain`);
  t.log(`${streamed} of ${files.length} fixture inventories plain (streamed)`);
});

// 1000 rounds in the unit tier (3000 in the bench), the first sixth of them also whole: bugs made on purpose in the outline
// this replaced failed here at round 0 (test/README.md), but for damage at the seams, which random damage seldom makes (a
// version's state that is not an object first failed at round 1417): that is its own test below.
const ROUNDS = repetitions(1000, 3000);
const WHOLE_ROUNDS = Math.ceil(ROUNDS / 6);

test('random inventories, whole and damaged byte by byte: the streamed read answers as the whole text', (t) => {
  const r = rng(20261126);
  let streamed = 0;
  let damagedStreamed = 0;
  let damagedErrors = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const text = JSON.stringify(randomInventory(r), null, r() < 0.5 ? 2 : undefined);
    if (round < WHOLE_ROUNDS && sameBothWays(t, Buffer.from(text), r, () => `round ${round}:\n${text}`)) streamed++;
    const at = Math.floor(r() * text.length);
    const junk = pick(r, ['', '"', ',', '}', '{', ':', ']', '[', '\\', 'x', ' ', '\u0001', '0', 'null', '[]', '{}', '"a":1,']);
    const damaged = Buffer.from(r() < 0.5 ? text.slice(0, at) + junk + text.slice(at + 1) : text.slice(0, at) + junk + text.slice(at));
    if (sameBothWays(t, damaged, r, () => `damaged round ${round}:\n${damaged.toString()}`)) {
      damagedStreamed++;
      if ('error' in (outcome(parseInventoryVersions, damaged) as object)) damagedErrors++;
    }
  }
  // Four in five are made plain, less those a version without state makes otherwise: more than half of the whole ones
  // streamed; damage mostly falls in a digest or a path and makes it not plain (the whole read answers then): about a sixth
  // of the damaged ones streamed, some of them errors of the parse, refused alike both ways.
  t.true(streamed > WHOLE_ROUNDS / 2, `${streamed} of ${WHOLE_ROUNDS} whole inventories streamed`);
  t.true(damagedStreamed > ROUNDS / 10, `${damagedStreamed} of ${ROUNDS} damaged inventories streamed`);
  t.true(damagedErrors > ROUNDS / 60, `${damagedErrors} streamed damaged inventories are errors of the parse`);
  t.log(
    `${streamed} of ${WHOLE_ROUNDS} whole and ${damagedStreamed} of ${ROUNDS} damaged inventories streamed, ${damagedErrors} refused alike`,
  );
});

test('inventories damaged at every seam: the streamed read answers as the whole text', (t) => {
  const r = rng(779);
  let edits = 0;
  // Two inventories with an empty state and a state listing several paths, one written with indentation and one without.
  for (let found = 0; found < 2;) {
    const inv = randomInventory(r);
    const states = Object.values(inv.versions as Record<string, { state?: Record<string, string[]> }>).map((v) => v.state);
    const empty = states.some((s) => s && Object.keys(s).length === 0);
    if (!empty || !states.some((s) => s && Object.values(s).some((paths) => paths.length > 1))) continue;
    const text = JSON.stringify(inv, null, found++ === 0 ? 2 : undefined);
    for (const damaged of seamEdits(text)) {
      edits++;
      t.throws(() => JSON.parse(damaged) as unknown, undefined, damaged);
      sameBothWays(t, Buffer.from(damaged), r, () => `seam edit:\n${damaged}`);
    }
  }
  t.true(edits > 200, `${edits} edits`);
  t.log(`${edits} edits`);
});

test('the streamed read keeps no path of the large blocks and its digest is the whole file digest', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'streamed-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const paths = Array.from({ length: 20000 }, (_, i) => `v1/content/file-${i}.bin`);
  const r = rng(5);
  const state = Object.fromEntries(paths.map((p) => [hex(r, 128), [p.slice('v1/content/'.length)]]));
  const inv = {
    id: 'urn:x:streamed',
    type: 'https://ocfl.io/1.1/spec/#inventory',
    digestAlgorithm: 'sha512',
    head: 'v1',
    manifest: Object.fromEntries(Object.entries(state).map(([d, [p]]) => [d, [`v1/content/${p}`]])),
    versions: { v1: { created: '2026-11-26T00:00:00Z', state } },
  };
  const text = Buffer.from(JSON.stringify(inv, null, 2));
  writeFileSync(path.join(dir, 'inventory.json'), text);
  const windows = new InventoryWindows({ fixity: false, manifest: false, version: '' });
  const read = await readHashedWindows(new FileSystemStorage(dir), 'inventory.json', windows);
  t.is(read?.digest, digestSync('sha512', text));
  const parts = windows.end()!;
  t.is(parts.manifest!.pathCount, 20000);
  t.is(parts.manifest!.paths.bytes.length, 0);
  t.is(parts.versions![0]!.state.pathCount, 20000);
  t.is(parts.versions![0]!.state.paths.bytes.length, 0);
  t.is(parts.versions![0]!.state.digests.length, 0);
});

/** The streamed loader's answer and the whole-read one's: same value (bytes aside) or same error. */
async function sameLoad(t: ExecutionContext, storage: FileSystemStorage, objectPath: string, label: string): Promise<void> {
  const settle = async (p: Promise<unknown>) =>
    p.then(
      (v) => ({ value: { ...(v as object), bytes: undefined } }),
      (err: Error) => ({ error: err.constructor.name, message: err.message }),
    );
  t.deepEqual(
    await settle(loadInventorySummary(storage, objectPath)),
    await settle(loadInventorySummary(storage, objectPath, { streamed: false })),
    `${label}: summary`,
  );
  t.deepEqual(
    await settle(loadInventoryHeader(storage, objectPath)),
    await settle(loadInventoryHeader(storage, objectPath, { streamed: false })),
    `${label}: header`,
  );
}

sharedTest('the streamed loaders answer as the whole reads: fixture objects, stale, wrong and missing sidecars', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'streamed-objects-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const objects = [...new Set(inventoriesUnder(reference('ocfl-fixtures')).map((f) => path.dirname(f)))].filter((d) => !/\/v\d+$/.test(d));
  t.true(objects.length > 40, `${objects.length} fixture objects`);
  let n = 0;
  for (const object of objects) {
    await sameLoad(t, new FileSystemStorage(path.dirname(object)), path.basename(object), object);
    const copy = path.join(dir, `o${n++}`);
    cpSync(object, copy, { recursive: true });
    const storage = new FileSystemStorage(dir);
    const rel = path.basename(copy);
    const text = readFileSync(path.join(copy, 'inventory.json'), 'utf8');
    const alg = /"digestAlgorithm"\s*:\s*"(sha512|sha256)"/.exec(text)?.[1];
    const head = /"head"\s*:\s*"(v\d+)"/.exec(text)?.[1];
    if (!alg || !head) continue;
    const digest = digestSync(alg, Buffer.from(text));
    // Stale: the root sidecar is an older one, the head's copy and sidecar match the inventory.
    writeFileSync(path.join(copy, `inventory.json.${alg}`), `${'0'.repeat(digest.length)}  inventory.json\n`);
    mkdirSync(path.join(copy, head), { recursive: true });
    writeFileSync(path.join(copy, head, 'inventory.json'), text);
    writeFileSync(path.join(copy, head, `inventory.json.${alg}`), `${digest}  inventory.json\n`);
    await sameLoad(t, storage, rel, `${object} (stale sidecar)`);
    // The head's copy differs by one byte: the sidecar does not match.
    writeFileSync(path.join(copy, head, 'inventory.json'), `${text} `);
    await sameLoad(t, storage, rel, `${object} (head copy differs)`);
    rmSync(path.join(copy, `inventory.json.${alg}`));
    await sameLoad(t, storage, rel, `${object} (no root sidecar)`);
  }
  await sameLoad(t, new FileSystemStorage(dir), 'absent', 'no object');
});
