/**
 * The OCFL staging sink (src/archive/ocfl-sink.ts): a database's LOBs are read once (each stream
 * opened once, every byte delivered once) and written straight into the staged version; each
 * part's fixity entry is the digest of its bytes, the cell digest that of the whole LOB; a failure
 * in the middle of a LOB leaves no object and no staging behind.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { ingestDatabase } from '../../src/archive/ingest.js';
import { loadLayout0003 } from '../../src/ocfl/layout/extensions.js';
import { initRoot } from '../../src/ocfl/root.js';
import type { DatabaseSource, SourceLob, SourceValue } from '../../src/siard/database-source.js';
import { contentPaths, fixityOf, readInventory } from '../helpers/archive-support.js';
import { readTableXml, unzipEntry } from '../helpers/export-support.js';
import { tempDir } from '../helpers/tmp.js';

function bytesOf(seed: number, size: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 31 + seed * 7) & 0xff;
  return b;
}

/** A one-table source whose LOBs count how often they are opened and how many bytes they give. */
function countingSource(sizes: number[], failAfter?: number): { source: DatabaseSource; opens: number[]; delivered: number[] } {
  const opens = sizes.map(() => 0);
  const delivered = sizes.map(() => 0);
  const lob = (i: number): SourceLob => ({
    kind: 'lob',
    byteLength: sizes[i]!,
    encoding: 'binary',
    open() {
      opens[i]!++;
      const data = bytesOf(i, sizes[i]!);
      return Readable.from(
        (function* () {
          for (let at = 0; at < data.length; at += 65536) {
            if (failAfter !== undefined && i === 1 && at >= failAfter) throw new Error('the database connection broke');
            delivered[i]! += Math.min(65536, data.length - at);
            yield data.subarray(at, at + 65536);
          }
        })(),
      );
    },
  });
  const source: DatabaseSource = {
    description: 'counting source',
    async catalog() {
      return {
        schemas: [
          {
            name: 'main',
            views: [],
            tables: [
              {
                name: 'Docs',
                rows: sizes.length,
                foreignKeys: [],
                candidateKeys: [],
                columns: [
                  { name: 'id', type: 'INTEGER', nullable: false },
                  { name: 'body', type: 'BLOB', nullable: true },
                ],
              },
            ],
          },
        ],
      };
    },
    async *rows(): AsyncIterable<SourceValue[]> {
      for (let i = 0; i < sizes.length; i++) yield [BigInt(i + 1), lob(i)];
    },
    async close() {},
  };
  return { source, opens, delivered };
}

test('each LOB is opened once and read once; parts carry their own fixity, the cell digest covers the whole LOB', async (t) => {
  const root = await initRoot(path.join(tempDir(), 'root'), await loadLayout0003());
  const sizes = [300_000, 2_500_000, 10_000];
  const { source, opens, delivered } = countingSource(sizes);
  const result = await ingestDatabase(source, root, 'docs', { name: 'Docs', maxBytes: 1_000_000, maxFiles: 10 });
  t.deepEqual(opens, [1, 1, 1], 'every LOB stream opened exactly once');
  t.deepEqual(delivered, sizes, 'every byte delivered once');
  const objectDir = path.join(root.location, result.objectPath);
  const inv = readInventory(objectDir);
  const state = contentPaths(inv);
  const fixity = fixityOf(inv, 'sha256');
  for (const cp of state.values())
    t.is(
      fixity.get(cp),
      createHash('sha256')
        .update(readFileSync(path.join(objectDir, cp)))
        .digest('hex'),
      `${cp}: fixity = sha256 of its bytes`,
    );
  const rows = readTableXml(
    unzipEntry(path.join(objectDir, state.get('Docs.siard')!), 'content/schema0/table0/table0.xml').toString('utf8'),
  );
  for (const [i, row] of rows.entries()) {
    const cell = row.get(2)!;
    t.is(
      cell.attrs.digest,
      createHash('sha256').update(bytesOf(i, sizes[i]!)).digest('hex'),
      `row ${i + 1}: cell digest over the whole LOB`,
    );
    t.is(Number(cell.attrs.length), sizes[i]);
    if (state.has(decodeURIComponent(cell.attrs.file!)))
      t.is(fixity.get(state.get(decodeURIComponent(cell.attrs.file!))!), cell.attrs.digest, 'unsplit: fixity = cell digest');
  }
  t.true(
    [...state.keys()].some((p) => p.endsWith('record1.bin.0')) && [...state.keys()].some((p) => p.endsWith('record1.bin.z')),
    'the 2.5 MB LOB is split',
  );
});

test('a source failing in the middle of a LOB: no object, no staging left', async (t) => {
  const dir = tempDir();
  const root = await initRoot(path.join(dir, 'root'), await loadLayout0003());
  const { source } = countingSource([300_000, 2_500_000], 1_200_000);
  await t.throwsAsync(ingestDatabase(source, root, 'broken', { name: 'Docs', maxBytes: 1_000_000 }), { message: /connection broke/ });
  t.is(await root.findObject('broken'), undefined);
  t.deepEqual(readdirSync(root.location).sort(), ['0=ocfl_1.1', 'extensions', 'ocfl_layout.json']);
  const ws = path.join(dir, '.root.siard-ocfl-work');
  t.deepEqual(existsSync(ws) ? readdirSync(ws).filter((n) => n.startsWith('stage-')) : [], []);
});
