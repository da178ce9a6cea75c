/**
 * Issue 36, part 2: `cat` and `info`, the verbs other OCFL tools have, on a Northwind object
 * ingested in the seeds' limits (4 files / 45,000 bytes: a split LOB across lobseg folders).
 * Expectations come from the inventory read as plain JSON, the files on disk and the table XML
 * read by unzip, not from the project's reader.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { contentPaths, ingestNorthwind, readInventory } from '../helpers/archive-support.js';
import { runCli } from '../helpers/cli.js';
import { unzipEntry, zipEntryNames } from '../helpers/export-support.js';

const made = ingestNorthwind('urn:example:cat-info');

/** Every file under a folder with its size (an independent walk). */
function bytesOf(dir: string): number {
  let sum = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    sum += e.isDirectory() ? bytesOf(p) : statSync(p).size;
  }
  return sum;
}

/** A run of a child whose stdout is binary. */
async function catBytes(args: string[]): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  const { spawn } = await import('node:child_process');
  const { BIN } = await import('../helpers/cli.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'cat', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout: Buffer.concat(out), stderr }));
  });
}

test('cat writes a logical file as stored; --join-chunks joins a split LOB into the bytes its cell states', async (t) => {
  const { root, id, objectDir } = await made;
  const inventory = readInventory(objectDir);
  const content = contentPaths(inventory);
  const siard = await catBytes(['--root', root, '--id', id, '--version', 'v1', 'Northwind.siard']);
  t.is(siard.code, 0, siard.stderr);
  t.true(siard.stdout.equals(readFileSync(path.join(objectDir, content.get('Northwind.siard')!))), 'the .siard byte for byte');

  // The split LOB: its parts in the version, joined in order (.0, .1, ..., .z).
  const first = [...content.keys()].find((p) => p.endsWith('.bin.0'))!;
  t.truthy(first, 'Northwind in the seed limits has a split LOB');
  const whole = first.slice(0, -2);
  const name = path.posix.basename(whole);
  const order = (p: string) => (p.endsWith('.z') ? Number.POSITIVE_INFINITY : Number(p.slice(p.lastIndexOf('.') + 1)));
  const inFolder = (p: string) => p.split('/').slice(1, -1).join('/'); // the path under the lobseg folder
  const partName = new RegExp(`^${name.replace(/\./g, '\\.')}\\.(\\d+|z)$`);
  const parts = [...content.keys()].filter((p) => inFolder(p) === inFolder(whole) && partName.test(path.posix.basename(p)));
  parts.sort((a, b) => order(a) - order(b));
  t.true(parts.length >= 3 && parts.at(-1)!.endsWith('.z'), parts.join(', '));
  const expected = Buffer.concat(parts.map((p) => readFileSync(path.join(objectDir, content.get(p)!))));
  const joined = await catBytes(['--root', root, '--id', id, '--join-chunks', whole]);
  t.is(joined.code, 0, joined.stderr);
  t.true(joined.stdout.equals(expected), 'the parts joined in order');
  // ... which is the LOB its cell names, digest and length as the table XML says.
  const siardFile = path.join(objectDir, content.get('Northwind.siard')!);
  const cells = zipEntryNames(siardFile)
    .filter((e) => /table\d+\.xml$/.test(e))
    .map((e) => unzipEntry(siardFile, e).toString('utf8'))
    .join('\n');
  const cell =
    new RegExp(`<c\\d+ [^>]*file="[^"]*/${inFolder(whole).split('/').slice(-1)[0]}/${name.replace(/\./g, '\\.')}"[^>]*>`).exec(
      cells,
    )?.[0] ?? '';
  const digestType = /digestType="([^"]+)"/.exec(cell)?.[1];
  t.truthy(digestType, `the cell of ${whole}: ${cell}`);
  const algorithm = { MD5: 'md5', SHA1: 'sha1', 'SHA-256': 'sha256' }[digestType!] ?? 'sha256';
  t.true(cell.toLowerCase().includes(`digest="${createHash(algorithm).update(expected).digest('hex')}"`), cell);
  t.true(cell.includes(`length="${expected.length}"`), cell);

  // Without --join-chunks the whole name is not a file of the version: exit 2, saying how to read it.
  const refused = await runCli(['cat', '--root', root, '--id', id, whole]);
  t.is(refused.code, 2);
  t.is(
    refused.stderr.trim(),
    `siard-ocfl: Object "${id}" version v1 has no file "${whole}" (it is split: add --join-chunks to read its parts joined).`,
  );
  const noVersion = await runCli(['cat', '--root', root, '--id', id, '--version', 'v7', 'Northwind.siard']);
  t.is(noVersion.code, 2);
  t.regex(noVersion.stderr, /has no version v7/);
});

test.serial('cat stops with exit 1 naming the file when its bytes do not match the manifest', async (t) => {
  const { root, id, objectDir } = await made;
  const content = contentPaths(readInventory(objectDir));
  const lob = [...content.keys()].find((p) => p.endsWith('record0.bin'))!;
  const onDisk = path.join(objectDir, content.get(lob)!);
  const bytes = readFileSync(onDisk);
  const damaged = Buffer.from(bytes);
  damaged[damaged.length >> 1]! ^= 0xff;
  writeFileSync(onDisk, damaged);
  try {
    const res = await catBytes(['--root', root, '--id', id, lob]);
    t.is(res.code, 1);
    t.regex(
      res.stderr,
      new RegExp(
        `file "${lob.replace(/\./g, '\\.')}": its bytes have digest [0-9a-f]+, not the manifest's [0-9a-f]+; the output is incomplete\\.`,
      ),
    );
  } finally {
    writeFileSync(onDisk, bytes);
  }
});

test('info --json describes the root and the object as their files say', async (t) => {
  const { root, id, objectDir } = await made;
  const rootRes = await runCli(['info', '--root', root, '--json']);
  t.is(rootRes.code, 0, rootRes.stderr);
  const layoutName = (JSON.parse(readFileSync(path.join(root, 'ocfl_layout.json'), 'utf8')) as { extension: string }).extension;
  t.deepEqual(JSON.parse(rootRes.stdout), {
    root,
    ocflVersion: '1.1',
    layout: { extension: layoutName, config: JSON.parse(readFileSync(path.join(root, 'extensions', layoutName, 'config.json'), 'utf8')) },
    extensions: readdirSync(path.join(root, 'extensions')).sort(),
    objects: 1,
    bytes: bytesOf(root),
  });
  const objectRes = await runCli(['info', '--root', root, '--id', id, '--json']);
  t.is(objectRes.code, 0, objectRes.stderr);
  const inventory = readInventory(objectDir) as unknown as {
    head: string;
    digestAlgorithm: string;
    fixity?: Record<string, unknown>;
    versions: Record<string, { state: Record<string, string[]>; created: string; message?: string }>;
  };
  const info = JSON.parse(objectRes.stdout) as Record<string, unknown>;
  t.like(info, {
    id,
    path: path.relative(root, objectDir),
    ocflVersion: '1.1',
    head: inventory.head,
    files: Object.values(inventory.versions[inventory.head]!.state).flat().length,
    bytes: bytesOf(objectDir),
    digestAlgorithm: inventory.digestAlgorithm,
    fixityAlgorithms: Object.keys(inventory.fixity ?? {}),
    siardArchives: ['Northwind.siard'],
  });
  t.deepEqual(
    (info.versions as Array<{ version: string; created: string }>).map((v) => [v.version, v.created]),
    Object.entries(inventory.versions).map(([v, x]) => [v, x.created]),
  );
  const text = await runCli(['info', '--root', root, '--id', id]);
  t.regex(text.stdout, /SIARD archives: Northwind\.siard/);
  const unknown = await runCli(['info', '--root', root, '--id', 'urn:example:none']);
  t.is(unknown.code, 2);
  t.is(unknown.stderr.trim(), `siard-ocfl: Storage root ${root} holds no object "urn:example:none".`);
});
