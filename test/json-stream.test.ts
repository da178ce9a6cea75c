/**
 * JSON parsed as it streams in (src/ocfl/json-stream.ts), held to JSON.parse: on random documents
 * cut into random chunks, split at random paths into tiny groups, the same value; on the same
 * documents with a byte deleted, inserted or changed, an error exactly when JSON.parse gives one.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { isInventoryBlock } from '../src/ocfl/inventory.js';
import { SplittingJsonParser } from '../src/ocfl/json-stream.js';
import { inventoriesUnder } from './helpers/fixture-inventories.js';
import { reference, sharedTest } from './helpers/shared.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['a', 'manifest', 'state', '"', '\\', '\\\\', '\\"', 'é', '😀', '\u0000', '\n', '__proto__', ' ', '{', '}', '[', ']', ',', ':', 'v1'];

function randomString(r: () => number): string {
  let out = '';
  const n = Math.floor(r() * 5);
  for (let i = 0; i < n; i++) out += PIECES[Math.floor(r() * PIECES.length)];
  return out;
}

function randomValue(r: () => number, depth: number): unknown {
  const k = r();
  if (depth > 3 || k < 0.3) {
    const scalars = [null, true, false, 0, -1.5e3, 12345678901234, randomString(r)];
    return scalars[Math.floor(r() * scalars.length)];
  }
  if (k < 0.5) return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
  const o: Record<string, unknown> = {};
  const n = Math.floor(r() * 6);
  for (let i = 0; i < n; i++) o[r() < 0.3 ? ['manifest', 'state', 'v1', 'a'][Math.floor(r() * 4)]! : randomString(r)] = randomValue(r, depth + 1);
  return o;
}

/** JSON text with random whitespace between tokens (JSON.stringify with a random indent, spaces added around colons). */
function randomText(r: () => number, value: unknown): string {
  const text = JSON.stringify(value, null, [0, 1, 2, '\t'][Math.floor(r() * 4)] as number | string);
  return r() < 0.5 ? `${' \n'.slice(0, Math.floor(r() * 3))}${text}\r\n` : text;
}

function parseStreamed(text: string, r: () => number, split: (path: readonly string[]) => boolean): unknown {
  const bytes = Buffer.from(text, 'utf8');
  const parser = new SplittingJsonParser(split, 1 + Math.floor(r() * 40));
  let at = 0;
  while (at < bytes.length) {
    const n = 1 + Math.floor(r() * (r() < 0.5 ? 4 : 64));
    parser.write(bytes.subarray(at, at + n));
    at += n;
  }
  return parser.end();
}

const splits: Array<(path: readonly string[]) => boolean> = [
  () => true,
  () => false,
  (p) => p.length === 0,
  (p) => p.length <= 1 || p[p.length - 1] === 'state',
  (p) => p.join('/').length % 2 === 0,
];

test('random documents in random chunks give what JSON.parse gives, at every split rule', (t) => {
  const r = rng(20261124);
  for (let round = 0; round < 2000; round++) {
    const value = r() < 0.9 ? { ...(randomValue(r, 0) as object), manifest: randomValue(r, 1) } : randomValue(r, 0);
    const text = randomText(r, value);
    const split = splits[round % splits.length]!;
    t.deepEqual(parseStreamed(text, r, split), JSON.parse(text), text);
  }
});

test('damaged documents fail exactly when JSON.parse fails, else give the same value', (t) => {
  const r = rng(7);
  let failures = 0;
  for (let round = 0; round < 4000; round++) {
    const text = randomText(r, { ...(randomValue(r, 0) as object), state: randomValue(r, 1) });
    const at = Math.floor(r() * text.length);
    const junk = ['', '"', ',', '}', '{', ':', ']', '\\', 'x', ' '][Math.floor(r() * 10)]!;
    const cut = r() < 0.5 ? text.slice(0, at) + junk + text.slice(at + 1) : text.slice(0, at) + junk + text.slice(at);
    // As UTF-8 bytes hold it: a cut through a surrogate pair becomes U+FFFD in both parsers' input.
    const damaged = Buffer.from(cut, 'utf8').toString('utf8');
    let expected: unknown;
    let expectedError = false;
    try {
      expected = JSON.parse(damaged);
    } catch {
      expectedError = true;
    }
    const split = splits[round % splits.length]!;
    if (expectedError) {
      failures++;
      t.throws(() => parseStreamed(damaged, r, split), undefined, damaged);
    } else t.deepEqual(parseStreamed(damaged, r, split), expected, damaged);
  }
  t.true(failures > 1000, `${failures} of the damaged documents are not JSON`);
});

test('a byte order mark is dropped as the whole-file decode drops it; bytes that are not UTF-8 are refused', (t) => {
  const parser = new SplittingJsonParser(() => true, 4);
  parser.write(Buffer.from([0xef, 0xbb, 0xbf]));
  parser.write(Buffer.from('{"a": [1, 2], "b": {"c": "d"}}'));
  t.deepEqual(parser.end(), { a: [1, 2], b: { c: 'd' } });
  const bad = new SplittingJsonParser(() => true, 4);
  t.throws(() => {
    bad.write(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]));
    bad.end();
  }, { instanceOf: TypeError });
});

test('"__proto__" members are own properties, never the prototype', (t) => {
  const text = '{"__proto__": {"polluted": true}, "m": {"__proto__": 1, "x": 2}}';
  const v = parseStreamed(text, rng(1), () => true) as Record<string, unknown>;
  t.deepEqual(v, JSON.parse(text));
  t.is(Object.getPrototypeOf(v), Object.prototype);
  t.is(({} as Record<string, unknown>).polluted, undefined);
});

sharedTest('every inventory of the OCFL conformance fixtures, streamed in 7-byte chunks with its blocks split, reads as JSON.parse reads it', (t) => {
  const found = inventoriesUnder(reference('ocfl-fixtures'));
  t.true(found.length > 50, `${found.length} inventories`);
  for (const file of found) {
    const bytes = readFileSync(file);
    let expected: unknown;
    let failed = false;
    try {
      expected = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch {
      failed = true;
    }
    const streamed = () => {
      const parser = new SplittingJsonParser(isInventoryBlock, 64);
      for (let at = 0; at < bytes.length; at += 7) parser.write(bytes.subarray(at, at + 7));
      return parser.end();
    };
    if (failed) t.throws(streamed, undefined, file);
    else t.deepEqual(streamed(), expected, file);
  }
});
