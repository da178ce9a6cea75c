/**
 * Staging flushes placed files early, while later files are written. Linux reports a writeback
 * error to one fsync only, so a failure of an early flush must fail the commit even when the
 * commit's own fsync of that file (through a new descriptor) then succeeds.
 */
import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadLayout0003 } from '../../../../src/ocfl/layout/extensions.js';
import { initRoot, openRoot } from '../../../../src/ocfl/root.js';
import { FileSystemStorage } from '../../../../src/ocfl/storage/fs.js';
import { validatePath } from '../../../../src/ocfl/validate/index.js';
import { tempDir } from '../../../helpers/tmp.js';

const user = { name: 'Test', address: 'mailto:test@example.org' };

/**
 * Runs `put` of `files` under a FileSystemStorage whose flushes are replaced as `patch` says,
 * expects the commit to fail with EIO, and checks that nothing was published and the next writer
 * succeeds with a valid object.
 */
async function failedCommitLosesNothing(
  t: import('ava').ExecutionContext,
  id: string,
  files: Array<[string, Buffer | string]>,
  patch: {
    syncAll?: (original: () => Promise<boolean>) => Promise<boolean>;
    fsyncFile?: (rel: string, original: (rel: string) => Promise<void>) => Promise<void>;
  },
): Promise<void> {
  const dir = tempDir();
  const root = await initRoot(path.join(dir, 'root'), await loadLayout0003());
  const proto = FileSystemStorage.prototype;
  const { syncAll, fsyncFile } = proto;
  if (patch.syncAll)
    proto.syncAll = function (this: FileSystemStorage) {
      return patch.syncAll!(() => syncAll.call(this));
    };
  if (patch.fsyncFile)
    proto.fsyncFile = function (this: FileSystemStorage, rel: string) {
      return patch.fsyncFile!(rel, (r) => fsyncFile.call(this, r));
    };
  try {
    const staged = await root.startVersion(id);
    for (const [name, bytes] of files) await staged.addBuffer(name, bytes);
    const err = await t.throwsAsync(staged.commit({ message: 'm', user }));
    t.regex(err!.message, /EIO/);
  } finally {
    proto.syncAll = syncAll;
    proto.fsyncFile = fsyncFile;
  }
  const reopened = await openRoot(path.join(dir, 'root'));
  t.is(await reopened.findObject(id), undefined, 'no object was published');
  // Nothing is left behind that stops the next writer, and what it writes is valid.
  const again = await reopened.startVersion(id);
  await again.addBuffer('f.txt', 'again\n');
  await again.commit({ message: 'm', user });
  const objectPath = await reopened.findObject(id);
  t.truthy(objectPath);
  t.true(existsSync(path.join(dir, 'root', objectPath!, 'v1', 'content', 'f.txt')));
  const report = await validatePath(path.join(dir, 'root'));
  t.deepEqual(report.errors, []);
}

const smallFiles = Array.from({ length: 5 }, (_, i) => [`f${i}.txt`, `content ${i}\n`] as [string, string]);

test.serial('a lost write reported by the one flush of the whole filesystem (syncfs) fails the commit; nothing is published', async (t) => {
  let calls = 0;
  await failedCommitLosesNothing(t, 'urn:flush:syncfs', smallFiles, {
    syncAll: async (original) => {
      if (calls++ === 0) throw Object.assign(new Error('EIO: i/o error, syncfs: a write to this filesystem was lost'), { code: 'EIO' });
      return original();
    },
  });
  t.true(calls > 0, 'the commit flushed through syncAll');
});

test.serial('without syncfs, a file fsync that fails with EIO fails the commit; nothing is published', async (t) => {
  let calls = 0;
  await failedCommitLosesNothing(t, 'urn:flush:fsync', smallFiles, {
    syncAll: async () => false,
    fsyncFile: async (rel, original) => {
      if (rel.includes('/content/') && calls++ === 0) throw Object.assign(new Error(`EIO: i/o error, fsync '${rel}'`), { code: 'EIO' });
      return original(rel);
    },
  });
  t.true(calls > 0, 'the commit flushed file by file');
});

test.serial('an early flush of large content that fails with EIO fails the commit even when later flushes succeed', async (t) => {
  let calls = 0;
  // Large content (>= 256 KiB) is flushed while later files are written; Linux reports a lost
  // writeback to one fsync only, so the failure must be kept for the commit.
  await failedCommitLosesNothing(
    t,
    'urn:flush:early',
    [
      ['big.bin', randomBytes(512 * 1024)],
      ['small.txt', 'small\n'],
    ],
    {
      fsyncFile: async (rel, original) => {
        if (rel.includes('/content/') && calls++ === 0) throw Object.assign(new Error(`EIO: i/o error, fsync '${rel}'`), { code: 'EIO' });
        return original(rel);
      },
    },
  );
  t.true(calls > 0, 'the early flush ran');
});

test.serial('files replaced before their early flush runs do not fail the commit', async (t) => {
  const dir = tempDir();
  const root = await initRoot(path.join(dir, 'root'), await loadLayout0003());
  const staged = await root.startVersion('urn:flush:2');
  // The same logical path written again and again: each earlier content file is removed from the stage.
  for (let i = 0; i < 20; i++) await staged.addBuffer('same.txt', `version ${i}\n`);
  await staged.commit({ message: 'm', user });
  const report = await validatePath(path.join(dir, 'root'));
  t.deepEqual(report.errors, []);
  t.is(report.files, 1);
});

test('a large file streamed as views into a larger buffer gets the digests of exactly its bytes, for every algorithm', async (t) => {
  const dir = tempDir();
  const root = await initRoot(path.join(dir, 'root'), await loadLayout0003());
  const staged = await root.startVersion('urn:thread:1', { fixityAlgorithms: ['sha256', 'md5'] });
  const big = randomBytes(3 * 1024 * 1024 + 17);
  // Chunks that are views into one larger buffer (only the view may be hashed), then a small tail.
  const chunks = [big.subarray(0, 1024 * 1024), big.subarray(1024 * 1024, 3 * 1024 * 1024), big.subarray(3 * 1024 * 1024)];
  const added = await staged.addStream('big.bin', chunks);
  const small = await staged.addBuffer('small.txt', 'small\n');
  for (const [name, bytes, result] of [
    ['big', big, added],
    ['small', Buffer.from('small\n'), small],
  ] as const) {
    for (const alg of ['sha512', 'sha256', 'md5']) t.is(result.digests[alg], createHash(alg).update(bytes).digest('hex'), `${name} ${alg}`);
  }
  t.is(added.size, big.length);
  await staged.commit({ message: 'm', user });
  const report = await validatePath(path.join(dir, 'root'));
  t.deepEqual(report.errors, []);
});
