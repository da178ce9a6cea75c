/**
 * Content written around the page cache (src/ocfl/storage/direct-write.ts): every byte lands exactly,
 * whatever the chunking and however the length falls against the 4 KiB alignment and the 1 MiB
 * buffers (the padded tail is cut off); the bytes really bypass the page cache (fincore); abort
 * removes the file; a staged version mixing direct (large) and ordinary (small) files commits
 * content whose digests the validator confirms.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, constants as fsConstants, existsSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { directWriteAvailable, openDirect } from '../../src/ocfl/storage/direct-write.js';
import { loadLayout0003 } from '../../src/ocfl/layout/extensions.js';
import { initRoot } from '../../src/ocfl/root.js';
import { validateStorageRoot } from '../../src/ocfl/validate/index.js';
import { rng as prng } from '../../fixtures/northwind.js';
import { hasProgram, testIf } from '../helpers/requires.js';
import { diskTempDir as tempDir } from '../helpers/tmp.js';
import { headInventory } from '../helpers/fixture-inventories.js';

const KIB = 1024;
const MIB = 1024 * KIB;

function randomBytes(n: number, seed: number): Buffer {
  const rand = prng(seed);
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(rand() * 256);
  return b;
}

/**
 * Whether the test folder's filesystem takes O_DIRECT (an old tmpfs refuses it, and the product
 * then falls back to ordinary writes): probed once. Where it does not, the direct-write tests are
 * skipped with that reason, and fail under CI (ext4 there).
 */
const directHere = (() => {
  if (fsConstants.O_DIRECT === undefined) return false;
  try {
    closeSync(
      openSync(
        path.join(tempDir('siard-ocfl-direct-probe-'), 'probe.bin'),
        fsConstants.O_CREAT | fsConstants.O_WRONLY | fsConstants.O_DIRECT,
      ),
    );
    return true;
  } catch {
    return false;
  }
})();
const directTest = testIf(directHere, 'the filesystem of the test folder refuses O_DIRECT');

/** Opens a direct file (directTest guarantees the filesystem takes it). */
async function direct(file: string) {
  const f = await openDirect(file, { exclusive: true, durable: true });
  if (!f) throw new Error(`O_DIRECT refused for ${file} after the probe accepted it`);
  return f;
}

test('direct writes are available on this machine (Linux, koffi)', (t) => {
  t.is(directWriteAvailable(), process.platform === 'linux');
});

for (const size of [0, 1, 4095, 4096, 4097, MIB - 1, MIB, MIB + 1, 3 * MIB + 12345]) {
  directTest(`a file of ${size} bytes written in uneven chunks reads back byte for byte`, async (t) => {
    const dir = tempDir('siard-ocfl-direct-');
    const file = path.join(dir, 'f.bin');
    const bytes = randomBytes(size, size + 7);
    const f = await direct(file);
    const rand = prng(size);
    for (let at = 0; at < size;) {
      const n = Math.min(size - at, 1 + Math.floor(rand() * 700 * KIB));
      // The caller's buffer is reused at once: the file must hold what was passed, not what came later.
      const chunk = Buffer.from(bytes.subarray(at, at + n));
      await f.write(chunk);
      chunk.fill(0xee);
      at += n;
    }
    await f.close();
    t.is(statSync(file).size, size);
    t.true(readFileSync(file).equals(bytes));
  });
}

testIf(
  directHere && hasProgram('fincore', '--version'),
  directHere ? 'fincore (util-linux) is not installed' : 'the filesystem of the test folder refuses O_DIRECT',
)('the bytes bypass the page cache (fincore sees few of them resident)', async (t) => {
  const dir = tempDir('siard-ocfl-direct-');
  const file = path.join(dir, 'big.bin');
  const f = await direct(file);
  const chunk = randomBytes(MIB, 1);
  for (let i = 0; i < 8; i++) await f.write(chunk);
  await f.close();
  const out = spawnSync('fincore', ['--bytes', '--noheadings', '--output', 'RES', file], { encoding: 'utf8' });
  t.is(out.status, 0, out.stderr);
  const resident = Number(out.stdout.trim());
  t.true(resident < MIB, `${resident} of ${8 * MIB} bytes in the page cache`);
  // The same bytes written the ordinary way stay cached: the measurement itself works.
  const plain = path.join(dir, 'plain.bin');
  writeFileSync(plain, Buffer.concat(Array.from({ length: 8 }, () => chunk)));
  const cached = Number(spawnSync('fincore', ['--bytes', '--noheadings', '--output', 'RES', plain], { encoding: 'utf8' }).stdout.trim());
  t.true(cached >= 4 * MIB, `ordinary write: ${cached} bytes resident`);
});

directTest('abort removes the file; exclusive refuses an existing one', async (t) => {
  const dir = tempDir('siard-ocfl-direct-');
  const file = path.join(dir, 'f.bin');
  const f = await direct(file);
  await f.write(randomBytes(2 * MIB + 5, 3));
  await f.abort();
  t.false(existsSync(file));
  writeFileSync(file, 'there');
  const err = await t.throwsAsync(openDirect(file, { exclusive: true, durable: false }));
  t.is((err as NodeJS.ErrnoException).code, 'EEXIST');
});

test('a version with large (direct) and small (ordinary) content commits exact bytes and validates', async (t) => {
  const rootDir = path.join(tempDir('siard-ocfl-direct-'), 'root');
  const root = await initRoot(rootDir, await loadLayout0003());
  const staged = await root.startVersion('urn:direct:1', { fixityAlgorithms: ['sha256'] });
  const files: Record<string, Buffer> = {
    'big/unknown-size.bin': randomBytes(2 * MIB + 333, 10),
    'big/hinted.bin': randomBytes(MIB + 4097, 11),
    'small/a.txt': Buffer.from('small content\n'),
  };
  await staged.addStream('big/unknown-size.bin', [files['big/unknown-size.bin']]);
  await staged.addStream('big/hinted.bin', [files['big/hinted.bin']], { sizeHint: files['big/hinted.bin'].length });
  await staged.addStream('small/a.txt', [files['small/a.txt']], { sizeHint: files['small/a.txt'].length });
  await staged.commit({ message: 'direct' });
  const inventory = headInventory(root, 'urn:direct:1');
  const objectDir = path.join(rootDir, root.objectPath('urn:direct:1'));
  for (const [logical, bytes] of Object.entries(files)) {
    const digest = createHash('sha512').update(bytes).digest('hex');
    t.deepEqual(inventory.versions.v1.state[digest], [logical]);
    t.true(readFileSync(path.join(objectDir, inventory.manifest[digest][0])).equals(bytes), logical);
  }
  t.deepEqual((await validateStorageRoot(rootDir)).errors, []);
});
