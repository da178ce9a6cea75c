/**
 * The ledger of a resumable export's files (docs/resume.md, "Ingest"): a DirectorySink asked for
 * further digests lists every file it closes, reopens or adopts with digests equal to those of its
 * bytes computed here (node:crypto over the file read back), so an ingest can take the files into a
 * staged OCFL version without reading them again; a kept file adopted with the digests and size its
 * journal line recorded has one digest computed from its bytes (sha256) and the others taken from the
 * journal, a changed, longer or shorter file showing in what is returned; a ledger of many lines reads
 * back whole and in order.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DirectorySink } from '../../../../src/siard/output-sink.js';
import { FileLedger, ledgerFiles } from '../../../../src/siard/resume/file-ledger.js';
import { tempDir } from '../../../helpers/tmp.js';

async function listed(file: string) {
  const out = [];
  for await (const f of ledgerFiles(file)) out.push(f);
  return out;
}

function digestsOf(file: string): Record<string, string> {
  const bytes = readFileSync(file);
  return Object.fromEntries(['sha256', 'sha512'].map((a) => [a, createHash(a).update(bytes).digest('hex')]));
}

test('a sink lists each file it closes, reopens and adopts with the digests of its bytes', async (t) => {
  const out = tempDir('siard-ocfl-ledger-');
  const sink = new DirectorySink(out, true, undefined, { alsoDigests: ['sha512'], ledger: true });
  await sink.prepareResumable();
  const a = await sink.openFile('lobs/a.bin', { digests: ['sha256'] });
  await a.write(Buffer.from('first file '));
  await a.write(Buffer.alloc(70_000, 7));
  const closed = await a.close();
  t.truthy(closed.digests['sha512'], 'the sink computes its own digest beside the one asked for');
  const b = await sink.openFile('db.siard');
  await b.write(Buffer.from('0123456789'));
  await b.close();
  // the .siard continued after its first 4 bytes, as a resumed export does; a kept file adopted
  const again = await sink.resumable.reopenFile('db.siard', { length: 4, digests: ['sha256'] });
  await again.write(Buffer.from('-resumed'));
  await again.close();
  await sink.resumable.adoptFile('lobs/a.bin', { digests: ['sha256'] });
  const ledger = sink.closeLedger()!;
  const files = await listed(ledger);
  t.deepEqual(
    files.map((f) => f.relPath),
    ['lobs/a.bin', 'db.siard', 'db.siard', 'lobs/a.bin'],
  );
  const staged = (rel: string) => path.join(sink.stagingDir, ...rel.split('/'));
  const last = files.at(-1)!;
  t.deepEqual(last.digests, digestsOf(staged('lobs/a.bin')));
  t.is(last.size, 70_011);
  t.is(readFileSync(staged('db.siard'), 'utf8'), '0123-resumed');
  t.deepEqual(files[2]!.digests, digestsOf(staged('db.siard')), 'the reopened file: digests over all of its bytes');
  t.is(files[2]!.size, 12);
  t.deepEqual(files[0], last, 'adopted again: the same line as when it was closed');
});

test('a ledger of many lines (flushed several times) reads back whole and in order', async (t) => {
  const file = path.join(tempDir('siard-ocfl-ledger-'), 'files.jsonl');
  const ledger = new FileLedger(file);
  const n = 20_000; // about 3 MB of lines: written in pieces of 1 MiB
  for (let i = 0; i < n; i++) ledger.add({ relPath: `seg/${i}.bin`, size: i, digests: { sha512: i.toString(16).padStart(128, '0') } });
  ledger.close();
  const files = await listed(file);
  t.is(files.length, n);
  t.true(files.every((f, i) => f.relPath === `seg/${i}.bin` && f.size === i && f.digests['sha512']!.endsWith(i.toString(16))));
});

test('a kept file adopted with its journaled digests and size: one digest computed, the others from the journal', async (t) => {
  const out = tempDir('siard-ocfl-ledger-');
  const sink = new DirectorySink(out, true, undefined, { alsoDigests: ['sha512'], ledger: true });
  await sink.prepareResumable();
  const staged = (rel: string) => path.join(sink.stagingDir, ...rel.split('/'));
  const f = await sink.openFile('lobs/k.bin', { digests: ['sha256'], size: 8192 });
  await f.write(Buffer.alloc(8192, 3));
  const closed = await f.close();
  const recorded = { ...closed.digests };
  const adopt = (rel: string, size: number, journal = recorded) =>
    sink.resumable.adoptFile(rel, { digests: ['sha256'], recorded: journal, size });
  t.deepEqual(await adopt('lobs/k.bin', 8192), closed, 'unchanged: as closed');
  // sha256 is the one computed (the LOB digest): a wrong sha512 in the journal comes back as it was,
  // for the caller's comparison of every digest, and a changed byte changes the sha256 returned
  const odd = { ...recorded, sha512: '0'.repeat(128) };
  t.deepEqual((await adopt('lobs/k.bin', 8192, odd)).digests, { sha256: recorded['sha256'], sha512: '0'.repeat(128) });
  const bytes = readFileSync(staged('lobs/k.bin'));
  bytes[100] = 4;
  writeFileSync(staged('lobs/k.bin'), bytes);
  t.deepEqual((await adopt('lobs/k.bin', 8192)).digests['sha256'], digestsOf(staged('lobs/k.bin'))['sha256']);
  // a file longer or shorter than recorded: its true size and the sha256 of its bytes (the caller refuses it)
  for (const size of [9000, 100]) {
    writeFileSync(staged('lobs/k.bin'), Buffer.alloc(size, 3));
    const got = await adopt('lobs/k.bin', 8192);
    t.is(got.size, size);
    t.is(got.digests['sha256'], digestsOf(staged('lobs/k.bin'))['sha256']);
  }
  await t.throwsAsync(adopt('lobs/gone.bin', 8192), { code: 'ENOENT' });
  // no journaled digests (an export's journal, or an older one): every digest from the bytes
  t.deepEqual((await sink.resumable.adoptFile('lobs/k.bin', { digests: ['sha256'] })).digests, digestsOf(staged('lobs/k.bin')));
});
