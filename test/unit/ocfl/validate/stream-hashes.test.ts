import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { MultiHasher } from '../../../../src/ocfl/digest.js';
import { streamHash } from '../../../../src/ocfl/validate/stream-hashes.js';

const reference = (algorithm: string, chunks: Buffer[]) => {
  const h = createHash(algorithm);
  for (const c of chunks) h.update(c);
  return h.digest('hex');
};

test('streams hashed on worker threads give the digests of node:crypto, interleaved, whatever the producer does after', async (t) => {
  const streams = await Promise.all(Array.from({ length: 5 }, () => streamHash(['sha512', 'sha256', 'md5'])));
  const sent: Buffer[][] = streams.map(() => []);
  // One buffer reused for every chunk of every stream: each chunk must be copied when handed over.
  const scratch = Buffer.alloc(300 * 1024);
  for (let round = 0; round < 40; round++) {
    for (const [i, s] of streams.entries()) {
      const size = 1 + ((round * 7919 + i * 104729) % scratch.length);
      randomBytes(size).copy(scratch);
      const chunk = scratch.subarray(0, size);
      sent[i]!.push(Buffer.from(chunk));
      s.update(chunk);
      scratch.fill(0xee, 0, size);
      await s.drained();
    }
  }
  const results = await Promise.all(streams.map((s) => s.finish()));
  for (const [i, r] of results.entries()) {
    t.is(
      r.size,
      sent[i]!.reduce((n, c) => n + c.length, 0),
    );
    for (const alg of ['sha512', 'sha256', 'md5']) t.is(r.digests[alg], reference(alg, sent[i]!), `stream ${i} ${alg}`);
  }
});

test('an empty stream, a dropped stream, small content and a short BLAKE2b (hashed in this thread) all come out right', async (t) => {
  const empty = await streamHash(['sha512']);
  t.deepEqual(await empty.finish(), { digests: { sha512: reference('sha512', []) }, size: 0 });
  const dropped = await streamHash(['sha512']);
  dropped.update(Buffer.from('never finished'));
  dropped.drop();
  const small = await streamHash(['sha256'], { size: 10, inlineBelow: 64 * 1024 });
  small.update(Buffer.from('0123456789'));
  t.is((await small.finish()).digests.sha256, reference('sha256', [Buffer.from('0123456789')]));
  const blake = await streamHash(['blake2b-256', 'sha512']);
  blake.update(Buffer.from('abc'));
  const expected = await MultiHasher.create(['blake2b-256', 'sha512']);
  expected.update(Buffer.from('abc'));
  t.deepEqual((await blake.finish()).digests, expected.digests());
});

test('a producer far ahead of the worker waits: drained() holds it back until the bytes are hashed', async (t) => {
  const s = await streamHash(['sha512']);
  const chunk = randomBytes(4 * 1024 * 1024);
  let waited = 0;
  const all: Buffer[] = [];
  for (let i = 0; i < 8; i++) {
    s.update(chunk);
    all.push(chunk);
    const wait = s.drained();
    if (wait) {
      waited++;
      await wait;
    }
  }
  t.true(waited > 0, 'with 32 MiB sent at once, the producer was held back at least once');
  t.is((await s.finish()).digests.sha512, reference('sha512', all));
});
