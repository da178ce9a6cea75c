/**
 * The audit's compact records (issue "A database of a million LOBs": audit under 1 GiB at a million
 * LOB files). The content files and LOB cells are held in typed arrays and each batch of digests is
 * recorded as it is read, so the findings must come out as they did from per-file objects:
 * - StringList against an array and a Map of the same strings (random, non-ASCII, a long one);
 * - PlannedLobs gives back every cell as planned (random places, lengths, digests, parts whose
 *   logical path is and is not the tail of their content path);
 * - damaged Northwind objects: changed LOB bytes, a wrong size, a changed fixity value, a deleted
 *   file, an extra file, and a relocated (two-version) object: the findings, their order and their
 *   messages derived here from the bytes and the inventory JSON.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AuditContentFiles } from '../../src/archive/audit-content-files.js';
import { PlannedLobs, type PlannedLob } from '../../src/archive/audit-lobs.js';
import { ExpectedDigests } from '../../src/archive/expected-digests.js';
import { StringList } from '../../src/archive/string-list.js';
import { openRoot } from '../../src/ocfl/root.js';
import {
  auditCli,
  contentPaths,
  copyTree,
  ingestNorthwind,
  readInventory,
  type AuditJson,
  type Ingested,
} from '../helpers/archive-support.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

let base: Ingested;
test.before(async () => {
  base = await ingestNorthwind();
});

/** A deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
}

test('StringList: get, find and compare as an array and a Map of the same strings', (t) => {
  const next = random(7);
  const alphabet = ['a', 'b', '/', 'é', '中', '😀', '\uE000', '0'];
  const strings: string[] = [];
  for (let i = 0; i < 5000; i++) {
    const n = Math.floor(next() * 12);
    strings.push(Array.from({ length: n }, () => alphabet[Math.floor(next() * alphabet.length)]).join(''));
  }
  strings.push('x'.repeat(5 << 20)); // longer than a buffer of the list
  strings.push('after the long one');
  const list = new StringList();
  const first = new Map<string, number>();
  strings.forEach((s, i) => {
    t.is(list.push(s), i);
    if (!first.has(s)) first.set(s, i);
  });
  t.is(list.length, strings.length);
  for (let i = 0; i < strings.length; i++) {
    t.is(list.get(i), strings[i]);
    t.is(list.find(strings[i]!), first.get(strings[i]!));
  }
  t.is(list.find('not there'), -1);
  t.is(list.find('ab😀c'), first.get('ab😀c') ?? -1);
  for (let k = 0; k < 3000; k++) {
    const i = Math.floor(next() * strings.length);
    const j = Math.floor(next() * strings.length);
    const want = Math.sign(Buffer.compare(Buffer.from(strings[i]!), Buffer.from(strings[j]!)));
    t.is(Math.sign(list.compare(i, j)), want);
  }
  // Strings pushed after the first find are found too.
  list.push('late');
  t.is(list.find('late'), strings.length);
});

test('PlannedLobs gives back each cell as planned', async (t) => {
  const reader = await (await openRoot(base.root)).openObject(base.id);
  const files = new AuditContentFiles(new ExpectedDigests(reader));
  const content = [...reader.contentPaths()];
  for (const p of content) files.add(p);
  const next = random(11);
  const lobs = new PlannedLobs(files);
  const cells: PlannedLob[] = [];
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  for (let i = 0; i < 3000; i++) {
    const n = next() < 0.8 ? 1 : 1 + Math.floor(next() * 4);
    const ids = Array.from({ length: n }, () => Math.floor(next() * content.length));
    // The tail of the content path (as after ingest or relocate), or another path (a deduplicated copy).
    const parts = ids.map((id) => (next() < 0.7 ? content[id]!.replace(/^v\d+\/content\//, '') : `copy ${i}/é/${id}.bin`));
    const digestType = pick([undefined, 'MD5', 'SHA-1', 'SHA-256'] as const);
    const hexLength = { MD5: 32, 'SHA-1': 40, 'SHA-256': 64 }[digestType ?? 'MD5'];
    const digest = pick([
      undefined,
      createHash('sha256').update(String(i)).digest('hex').slice(0, hexLength),
      'not hex',
      createHash('sha256').update(String(i)).digest('hex').slice(0, 10),
    ]);
    const cell: PlannedLob = {
      where: {
        path: pick(['a.siard', 'b/b.siard']),
        table: pick(['main.T', 'main.Ü']),
        row: 1 + Math.floor(next() * 1e9),
        column: pick(['c', 'd']),
      },
      ref: {
        file: parts[0]!,
        ...(next() < 0.7 ? { length: Math.floor(next() * 2 ** 40) } : {}),
        ...(digestType ? { digestType } : {}),
        ...(digest !== undefined ? { digest } : {}),
      },
      text: next() < 0.3,
      parts,
      files: ids,
      ...(next() < 0.2 ? { job: i } : {}),
      digestRecorded: digest !== undefined && next() < 0.3,
    };
    cells.push(cell);
    lobs.add(cell);
  }
  t.is(lobs.length, cells.length);
  cells.forEach((c, i) => {
    t.deepEqual(lobs.where(i), c.where);
    t.is(lobs.lengthAttribute(i), c.ref.length);
    t.is(lobs.digestType(i), c.ref.digestType);
    t.is(lobs.isText(i), c.text);
    t.is(lobs.job(i), c.job);
    t.is(lobs.digestRecorded(i), c.digestRecorded);
    t.is(
      lobs.digest(i, () => (c.digestRecorded ? c.ref.digest : 'asked for nothing')),
      c.ref.digest,
    );
    t.deepEqual(
      Array.from({ length: lobs.partCount(i) }, (_, k) => [lobs.partPathOf(i, k), lobs.fileOf(i, k)]),
      c.parts.map((p, k) => [p, c.files[k]]),
    );
  });
  t.deepEqual(
    [...lobs.partPathsOf(10, 20)],
    cells.slice(10, 20).flatMap((c) => c.parts),
  );
});

/** A private copy of the ingested root. */
function copy(): { root: string; objectDir: string } {
  const root = path.join(tempDir('siard-ocfl-audit-records-'), 'root');
  copyTree(base.root, root);
  return { root, objectDir: path.join(root, path.relative(base.root, base.objectDir)) };
}

const sha = (alg: string, bytes: Uint8Array) => createHash(alg).update(bytes).digest('hex');
const DIGEST_ALGORITHM: Record<string, string> = { MD5: 'md5', 'SHA-1': 'sha1', 'SHA-256': 'sha256' };

/** Whole LOB files of Categories.Picture: record<N>.bin holds row N + 1 (in the segment folders of 4 files). */
function picture(record: number): string {
  const all = [...contentPaths(readInventory(base.objectDir)).keys()];
  return all.find((p) => new RegExp(`^Northwind_lobseg_\\d+/content/schema0/table2/lob4/record${record}\\.bin$`).test(p))!;
}

/** The content findings about digests and the LOB findings, as (code, path) in the order reported. */
function digestFindings(report: AuditJson): string[] {
  return report.findings.filter((f) => /^(E092|E093|LOB_LENGTH|LOB_DIGEST)$/.test(f.code)).map((f) => `${f.code} ${f.path}`);
}

/** Rewrites both copies of a one-version inventory and their sidecars. */
function rewriteInventory(objectDir: string, edit: (json: string) => string): void {
  for (const dir of [objectDir, path.join(objectDir, 'v1')]) {
    const json = edit(readFileSync(path.join(dir, 'inventory.json'), 'utf8'));
    writeFileSync(path.join(dir, 'inventory.json'), json);
    writeFileSync(path.join(dir, 'inventory.json.sha512'), `${sha('sha512', Buffer.from(json))}  inventory.json\n`);
  }
}

test('damaged LOB files: content findings in manifest order, LOB findings in row order, messages from the bytes', async (t) => {
  const { root, objectDir } = copy();
  const inv = readInventory(objectDir);
  const contentOf = contentPaths(inv);
  const manifestOrder = Object.values(inv.manifest).flat();
  const at = (record: number) => path.join(objectDir, contentOf.get(picture(record))!);
  const original = new Map([1, 2, 4, 5, 6, 7].map((r) => [r, readFileSync(at(r))]));
  // Flipped bytes in rows 3, 6 and 8, one byte more in row 5, a changed sha256 fixity value for row 2.
  for (const r of [2, 5, 7]) {
    const bytes = Buffer.from(original.get(r)!);
    bytes[50] = bytes[50]! ^ 0x20;
    writeFileSync(at(r), bytes);
  }
  appendFileSync(at(4), Buffer.from([0]));
  const fixityWas = sha('sha256', original.get(1)!);
  const fixityNow = sha('sha256', Buffer.from('another value'));
  rewriteInventory(objectDir, (json) => json.replace(fixityWas, fixityNow));
  // The records must order what the read gives in path order: this test needs the orders to differ.
  const damaged = [1, 2, 4, 5, 7].map((r) => contentOf.get(picture(r))!);
  const byManifest = [...damaged].sort((a, b) => manifestOrder.indexOf(a) - manifestOrder.indexOf(b));
  t.notDeepEqual(byManifest, [...damaged].sort());

  const { cli, report } = await auditCli(root);
  t.is(cli.code, 1);
  const recordOf = (cp: string) => Number(/record(\d+)\.bin$/.exec(cp)![1]);
  const want: string[] = [];
  for (const cp of byManifest) {
    if (recordOf(cp) !== 1) want.push(`E092 ${picture(recordOf(cp))}`);
    want.push(`E093 ${picture(recordOf(cp))}`);
  }
  for (const r of [2, 4, 5, 7]) {
    if (r === 4) want.push(`LOB_LENGTH ${picture(r)}`);
    want.push(`LOB_DIGEST ${picture(r)}`);
  }
  t.deepEqual(digestFindings(report), want);

  // Messages: digests computed here from the bytes on disk and from the original bytes.
  const label = (r: number) => `${contentOf.get(picture(r))} (logical path ${picture(r)} in v1)`;
  const e092 = report.findings.filter((f) => f.code === 'E092');
  for (const f of e092) {
    const r = recordOf(f.path!);
    const now = readFileSync(at(r));
    const recorded = Object.entries(inv.manifest).find(([, ps]) => ps.includes(contentOf.get(picture(r))!))![0];
    t.is(f.message, `The content file ${label(r)} has sha512 ${sha('sha512', now)}, but the manifest records ${recorded}.`);
  }
  const row2 = report.findings.find((f) => f.code === 'E093' && f.path === picture(1))!;
  t.is(row2.message, `The content file ${label(1)} has sha256 ${fixityWas}, but the sha256 fixity block records ${fixityNow}.`);
  const lobDigests = report.findings.filter((f) => f.code === 'LOB_DIGEST');
  for (const f of lobDigests) {
    const r = recordOf(f.path!);
    const cell = /^Northwind\.siard: table main\.Categories, row (\d+), column Picture: /;
    const m = new RegExp(`${cell.source}LOB file (\\S+) has (\\S+) ([0-9a-f]+), but the cell says ([0-9a-f]+)\\.$`).exec(f.message);
    t.truthy(m, f.message);
    t.like(f, { table: 'main.Categories', row: r + 1, column: 'Picture' });
    t.is(m![1], String(r + 1));
    t.is(m![2], picture(r));
    t.is(m![4], sha(DIGEST_ALGORITHM[m![3]!]!, readFileSync(at(r))));
    t.is(m![5], sha(DIGEST_ALGORITHM[m![3]!]!, original.get(r)!));
  }
  const length = report.findings.find((f) => f.code === 'LOB_LENGTH')!;
  t.regex(
    length.message,
    new RegExp(`LOB file ${picture(4)} has ${original.get(4)!.length + 1} bytes, but the cell says length ${original.get(4)!.length}\\.$`),
  );
  // Row 2's bytes are intact: its cell digest is still right, though the inventory's fixity is not.
  t.false(lobDigests.some((f) => f.path === picture(1)));
});

test('a deleted LOB file and an extra file: the validator names them, the other LOB files are still checked', async (t) => {
  const { root, objectDir } = copy();
  const contentOf = contentPaths(readInventory(objectDir));
  rmSync(path.join(objectDir, contentOf.get(picture(3))!));
  writeFileSync(path.join(objectDir, 'v1', 'content', 'extra.bin'), 'in no inventory');
  const flipped = path.join(objectDir, contentOf.get(picture(6))!);
  const bytes = readFileSync(flipped);
  bytes[10] = bytes[10]! ^ 1;
  writeFileSync(flipped, bytes);
  const { cli, report } = await auditCli(root);
  t.is(cli.code, 1);
  t.true(report.findings.some((f) => f.severity === 'error' && f.message.includes('v1/content/extra.bin')));
  t.like(
    report.findings.find((f) => f.code === 'LOB_MISSING'),
    { path: picture(3), table: 'main.Categories', row: 4, column: 'Picture' },
  );
  t.deepEqual(
    // The validator names the missing file by its path in storage.
    digestFindings(report).filter((f) => !f.endsWith(`/${contentOf.get(picture(3))}`)),
    [`E092 ${picture(6)}`, `E093 ${picture(6)}`, `LOB_DIGEST ${picture(6)}`],
  );
  t.is(report.objects[0]!.siards[0]!.lobFiles, 128);
});

test('a relocated object (two versions): a changed LOB file is named by its logical path', async (t) => {
  const { root, objectDir } = copy();
  const r = await runCli(['relocate', '--root', root, '--id', base.id, '--lob-folder', 'file:///Archives/x/', '--user-name', 'test']);
  t.is(r.code, 0, r.stderr);
  const inv = readInventory(objectDir);
  t.is(inv.head, 'v2');
  const cp = contentPaths(inv).get(picture(2))!;
  t.is(cp, `v1/content/${picture(2)}`, 'the LOB file keeps its v1 content path');
  const file = path.join(objectDir, cp);
  const original = readFileSync(file);
  const bytes = Buffer.from(original);
  bytes[0] = bytes[0]! ^ 0xff;
  writeFileSync(file, bytes);
  const { cli, report } = await auditCli(root);
  t.is(cli.code, 1);
  t.deepEqual(digestFindings(report), [`E092 ${picture(2)}`, `E093 ${picture(2)}`, `LOB_DIGEST ${picture(2)}`]);
  const e092 = report.findings.find((f) => f.code === 'E092')!;
  t.true(e092.message.startsWith(`The content file ${cp} (logical path ${picture(2)} in v2) has sha512 ${sha('sha512', bytes)}`));
  const lob = report.findings.find((f) => f.code === 'LOB_DIGEST')!;
  t.like(lob, { path: picture(2), table: 'main.Categories', row: 3, column: 'Picture' });
  t.regex(lob.message, new RegExp(`has SHA-256 ${sha('sha256', bytes)}, but the cell says ${sha('sha256', original)}\\.$`));
  t.is(report.findings.filter((f) => f.code === 'SIARD_LOBFOLDER_ABSOLUTE').length, 1);
});
