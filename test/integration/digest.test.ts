import test from 'ava';
import { execFileSync } from 'node:child_process';
import { MultiHasher, digestSync, DIGEST_HEX_LENGTH } from '../../src/ocfl/digest.js';
import { hasProgram, testIf } from '../helpers/requires.js';

// Published test vectors for the message "abc" (FIPS 180-2, RFC 1321, RFC 7693).
const ABC: Record<string, string> = {
  md5: '900150983cd24fb0d6963f7d28e17f72',
  sha1: 'a9993e364706816aba3e25717850c26c9cd0d89d',
  sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  sha512:
    'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
  'blake2b-512':
    'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923',
};

test('one pass gives every published digest of "abc"', async (t) => {
  const hasher = await MultiHasher.create(Object.keys(ABC));
  hasher.update(Buffer.from('a'));
  hasher.update(Buffer.from('bc'));
  t.deepEqual(hasher.digests(), ABC);
  t.is(hasher.size, 3);
});

test('digestSync agrees and lengths match the registry', (t) => {
  for (const [alg, hex] of Object.entries(ABC)) {
    t.is(digestSync(alg, 'abc'), hex);
    t.is(hex.length, DIGEST_HEX_LENGTH[alg]);
  }
});

// The short BLAKE2b variants (OCFL digest registry) are BLAKE2b with a shorter digest length in its
// parameter block, not a truncated BLAKE2b-512: checked against Python's hashlib (an independent
// implementation of RFC 7693) for inputs of several lengths, across the 128-byte block boundary.
testIf(hasProgram('python3', '--version'), 'python3 is not installed')(
  'short BLAKE2b variants equal Python hashlib.blake2b with that digest size',
  async (t) => {
    const inputs = ['', 'abc', 'x'.repeat(127), 'y'.repeat(128), 'z'.repeat(129), 'é'.repeat(1000)];
    const script =
      'import hashlib, sys, json\nprint(json.dumps([[hashlib.blake2b(s.encode(), digest_size=n).hexdigest() for n in (20, 32, ' +
      '48)] for s in json.loads(sys.stdin.read())]))';
    const expected = JSON.parse(execFileSync('python3', ['-c', script], { input: JSON.stringify(inputs), encoding: 'utf8' })) as string[][];
    for (const [i, input] of inputs.entries()) {
      const hasher = await MultiHasher.create(['blake2b-160', 'blake2b-256', 'blake2b-384']);
      hasher.update(Buffer.from(input));
      const d = hasher.digests();
      t.deepEqual([d['blake2b-160'], d['blake2b-256'], d['blake2b-384']], expected[i], `input of ${input.length} characters`);
    }
  },
);

test('an unknown algorithm is refused with a clear error', async (t) => {
  await t.throwsAsync(() => MultiHasher.create(['sha3']), { message: /Unknown digest algorithm "sha3"/ });
});
