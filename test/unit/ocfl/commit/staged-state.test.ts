/**
 * The compact staged state (src/ocfl/commit/staged-state.ts, inventory/arena.ts KeyArena) against the plain Maps it
 * replaces, as StagedVersion used them: random adds (the same content again under other paths),
 * replacements, removes, renames, content dropped and its content path freed later, paths with
 * non-ASCII characters, from U+E000 and above U+FFFF (whose UTF-8 order differs from JavaScript's).
 * After every step the maps must answer alike (entries in the same order, lookups, sizes), and the
 * inventory blocks must be the model's grouped and sorted the way the inventory writers sort.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { byCodeUnit, type PathBlock } from '../../../../src/ocfl/inventory/chunks.js';
import { StagedState, type NewContent } from '../../../../src/ocfl/commit/staged-state.js';

const PREFIX = 'v3/content/';
const FIXITY = ['md5', 'sha1'];
const hex = (alg: string, s: string) => createHash(alg).update(s).digest('hex');

/** The Maps of StagedVersion before the compact state, with the same operations. */
class MapModel {
  readonly state = new Map<string, string>();
  readonly refs = new Map<string, number>();
  readonly newContent = new Map<string, NewContent>();
  readonly taken = new Set<string>();

  add(p: string, digest: string): void {
    this.state.set(p, digest);
    this.refs.set(digest, (this.refs.get(digest) ?? 0) + 1);
  }
  remove(p: string): NewContent | undefined {
    const digest = this.state.get(p);
    if (digest === undefined) return undefined;
    this.state.delete(p);
    const n = this.refs.get(digest)! - 1;
    if (n > 0) {
      this.refs.set(digest, n);
      return undefined;
    }
    this.refs.delete(digest);
    const orphan = this.newContent.get(digest);
    this.newContent.delete(digest);
    return orphan;
  }
  rename(from: string, to: string): void {
    const digest = this.state.get(from)!;
    this.state.delete(from);
    this.state.set(to, digest);
  }
  store(digest: string, taken: string, digests: Record<string, string>, size: number): string {
    this.newContent.set(digest, { contentPath: PREFIX + taken, digests, size });
    this.taken.add(taken);
    return PREFIX + taken;
  }
}

/** A small seeded generator (mulberry32): a failing run can be repeated. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const SEGMENTS = ['a', 'b', 'caf\u00e9', '\u{1F600}', '\uE000x', '\uFFFD', 'Z', 'd\u{10FFFF}', '\u00ff'];

function blockOf(block: PathBlock): Array<[string, string[]]> {
  return [...block()].map(([k, paths]) => [k, [...paths]]);
}

/** The grouped block the inventory writers make of (key, path) pairs: keys and paths in code-unit order. */
function referenceBlock(pairs: Array<[string, string]>): Array<[string, string[]]> {
  const groups = new Map<string, string[]>();
  for (const [k, p] of pairs) (groups.get(k) ?? groups.set(k, []).get(k)!).push(p);
  return [...groups.keys()].sort(byCodeUnit).map((k) => [k, groups.get(k)!.sort(byCodeUnit)]);
}

function compare(t: import('ava').ExecutionContext, compact: StagedState, model: MapModel, probes: string[], step: number): void {
  t.deepEqual([...compact.state], [...model.state], `step ${step}: the state, in Map order`);
  t.deepEqual([...compact.newContent], [...model.newContent], `step ${step}: the content stored, in Map order`);
  t.is(compact.size, model.state.size);
  t.is([...compact.newContent].length, model.newContent.size);
  for (const p of probes) {
    t.is(compact.get(p), model.state.get(p), `step ${step}: get ${p}`);
    t.is(compact.has(p), model.state.has(p));
    t.is(compact.isTaken(p), model.taken.has(p), `step ${step}: content path ${p} taken`);
  }
  for (const digest of model.refs.keys()) t.deepEqual(compact.content(digest), model.newContent.get(digest));
}

function compareBlocks(t: import('ava').ExecutionContext, compact: StagedState, model: MapModel): void {
  const content = [...model.newContent];
  t.deepEqual(blockOf(compact.manifestBlock()), referenceBlock(content.map(([d, c]) => [d, c.contentPath])), 'the manifest block');
  t.deepEqual(blockOf(compact.stateBlock()), referenceBlock([...model.state].map(([p, d]) => [d, p])), 'the state block');
  for (const alg of FIXITY) {
    const pairs = content.map(([, c]): [string, string] => [c.digests![alg]!, c.contentPath]);
    t.deepEqual(blockOf(compact.fixityBlock(alg)), referenceBlock(pairs), `the ${alg} block`);
  }
}

for (const seed of [1, 2, 3]) {
  test(`the compact staged state answers as the plain Maps after every step (seed ${seed})`, (t) => {
    const next = random(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    const pathOf = () => Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(SEGMENTS)).join('/') + `/${Math.floor(next() * 4)}`;
    const compact = new StagedState('sha512', FIXITY, PREFIX);
    const model = new MapModel();
    /** Content dropped whose file is not removed yet: its content path stays taken a while (dropOrphan). */
    const dropping: string[] = [];
    const drop = (orphan: NewContent | undefined, other: NewContent | undefined) => {
      t.deepEqual(orphan, other, 'the same content is dropped');
      if (orphan) dropping.push(orphan.contentPath.slice(PREFIX.length));
    };
    const probes = new Set<string>();
    for (let step = 0; step < 600; step++) {
      const r = next();
      const present = [...model.state.keys()];
      if (r < 0.55 || present.length === 0) {
        // An add as StagedVersion.settle makes it: a few contents only, so content repeats.
        const p = next() < 0.2 && present.length > 0 ? pick(present) : pathOf();
        const body = `content ${Math.floor(next() * 40)}`;
        const digest = hex('sha512', body);
        probes.add(p);
        if (model.state.get(p) === digest) continue;
        drop(compact.remove(p), model.remove(p));
        if (!model.newContent.has(digest)) {
          t.is(compact.isStored(digest), false);
          let taken = p;
          for (let n = 1; model.taken.has(taken); n++) taken = `${p}~${n}`;
          t.is(compact.isTaken(taken), false);
          const digests = { sha512: digest, md5: hex('md5', body), sha1: hex('sha1', body) };
          t.is(compact.store(digest, taken, digests, body.length), model.store(digest, taken, digests, body.length));
          probes.add(taken);
        }
        compact.add(p, digest);
        model.add(p, digest);
      } else if (r < 0.75) {
        const p = pick(present);
        drop(compact.remove(p), model.remove(p));
      } else if (r < 0.9) {
        const from = pick(present);
        const to = pathOf();
        probes.add(to);
        if (model.state.has(to)) continue;
        compact.rename(from, to);
        model.rename(from, to);
      } else if (dropping.length > 0) {
        const taken = dropping.splice(Math.floor(next() * dropping.length), 1)[0]!;
        compact.release(taken);
        model.taken.delete(taken);
      }
      compare(t, compact, model, [...probes], step);
      if (step % 50 === 0) compareBlocks(t, compact, model);
    }
    compareBlocks(t, compact, model);
    t.true(model.state.size > 20, 'the state is not trivially small at the end');
  });
}

test('what is not a lower-case digest of the manifest algorithm is refused, and found nowhere', (t) => {
  const compact = new StagedState('sha256', [], PREFIX);
  const digest = hex('sha256', 'x');
  compact.add('x', digest);
  t.is(compact.get('x'), digest);
  t.throws(() => compact.add('y', digest.toUpperCase()), { message: /lower-case hexadecimal/ });
  t.throws(() => compact.add('y', hex('sha512', 'x')), { message: /lower-case hexadecimal/ });
  t.is(compact.isStored(digest.toUpperCase()), false);
  t.is(compact.has('y'), false);
  t.is(compact.get('x\uD800'), undefined, 'a lone surrogate is not found as U+FFFD');
});
