/**
 * The OutputSink contract the OCFL ingest (issue 5) builds on: the writer asks for the LOB digest
 * algorithm on every LOB file, the sink computes it in its own single pass (here together with an
 * extra sha512, as an OCFL sink would), and the cell digest of an unsplit LOB is that value.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from '../../src/sources/sqlite/driver.js';
import { Hashes, type DigestName, type OutputFile, type OutputSink, type WrittenFile } from '../../src/siard/output-sink.js';
import { writeSiard } from '../../src/siard/writer.js';
import { SqliteSource } from '../../src/sources/sqlite/sqlite-source.js';
import { tempDir } from '../helpers/tmp.js';
import { readTableXml, unzipEntry } from '../helpers/export-support.js';

class MemorySink implements OutputSink {
  readonly files = new Map<string, { bytes: Buffer; requested: DigestName[]; result: WrittenFile }>();
  committed = false;
  async openFile(relPath: string, options: { digests?: DigestName[] } = {}): Promise<OutputFile> {
    const requested = options.digests ?? [];
    const hashes = new Hashes([...requested, 'sha512']);
    const chunks: Buffer[] = [];
    return {
      write: async (chunk) => {
        hashes.update(chunk);
        chunks.push(Buffer.from(chunk));
      },
      close: async () => {
        const bytes = Buffer.concat(chunks);
        const result = { relPath, size: bytes.length, digests: hashes.digests() };
        this.files.set(relPath, { bytes, requested, result });
        return result;
      },
      abort: async () => {},
    };
  }
  async commit() {
    this.committed = true;
  }
  async abort() {}
}

test('writer and sink: LOB digests come from the sink pass; every file lands in the sink', async (t) => {
  const dir = tempDir('siard-sink-');
  const db = path.join(dir, 'd.db');
  const conn = new Database(db);
  conn.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB, c TEXT)');
  const big = Buffer.alloc(70000, 3);
  conn.prepare('INSERT INTO t VALUES (1, ?, ?)').run(Buffer.alloc(5000, 1), 'x'.repeat(3000));
  conn.prepare('INSERT INTO t VALUES (2, ?, ?)').run(big, 'small');
  conn.close();
  const sink = new MemorySink();
  const source = SqliteSource.open(db);
  const summary = await writeSiard(source, sink, { name: 'D', maxBytes: 50000, lobDigest: 'MD5' });
  await source.close();
  t.false(sink.committed, 'writeSiard leaves commit to the caller');
  const names = [...sink.files.keys()].sort();
  t.deepEqual(names, [
    'D.fingerprints.json',
    'D.siard',
    'D_lobseg_0/content/schema0/table0/lob2/record0.bin',
    'D_lobseg_0/content/schema0/table0/lob2/record1.bin.0',
    'D_lobseg_0/content/schema0/table0/lob3/record0.txt',
    'D_lobseg_1/content/schema0/table0/lob2/record1.bin.z',
  ]);
  for (const [name, f] of sink.files) {
    if (name === 'D.siard' || name === 'D.fingerprints.json') continue;
    t.deepEqual(f.requested, ['md5'], `${name}: the LOB digest is requested from the sink`);
    t.is(f.result.digests.md5, createHash('md5').update(f.bytes).digest('hex'));
    t.is(f.result.digests.sha512, createHash('sha512').update(f.bytes).digest('hex'), 'the sink adds its own algorithm in the same pass');
  }
  const siardFile = path.join(dir, 'D.siard');
  writeFileSync(siardFile, sink.files.get('D.siard')!.bytes);
  const rows = readTableXml(unzipEntry(siardFile, 'content/schema0/table0/table0.xml').toString('utf8'));
  const record0 = sink.files.get('D_lobseg_0/content/schema0/table0/lob2/record0.bin')!;
  t.is(rows[0]!.get(2)!.attrs.digest, record0.result.digests.md5, 'cell digest = the sink-computed digest');
  t.is(rows[1]!.get(2)!.attrs.digest, createHash('md5').update(big).digest('hex'), 'split LOB: digest over the whole LOB');
  t.is(summary.lobs, 3);
  t.is(summary.segments, 2);
  t.is(summary.archive.lobFolder, '../');
});

test('--lob-folder sets the database-level base; siard22 appends its _lobs folder', async (t) => {
  const dir = tempDir('siard-sink-lf-');
  const db = path.join(dir, 'd.db');
  const conn = new Database(db);
  conn.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB)');
  conn.prepare('INSERT INTO t VALUES (1, ?)').run(Buffer.alloc(3000, 1));
  conn.close();
  for (const [layout, expected] of [
    ['lobseg', 'file:///Archives/North%20wind/'],
    ['siard22', 'file:///Archives/North%20wind/D_lobs/'],
  ] as const) {
    const source = SqliteSource.open(db);
    const summary = await writeSiard(source, new MemorySink(), {
      name: 'D',
      lobLayout: layout,
      lobFolder: 'file:///Archives/North%20wind/',
    });
    await source.close();
    t.is(summary.archive.lobFolder, expected);
  }
  const source = SqliteSource.open(db);
  await t.throwsAsync(writeSiard(source, new MemorySink(), { name: 'D', lobFolder: 'file:///no slash' }), {
    message: /must be a URI ending in '\/'/,
  });
  await source.close();
});
