/**
 * Acceptance 1: after `npm run demo` (its script, fixtures/demo.js, on the built CLI) the storage
 * root validates and audits, the object lies at the 0003 path of its id (computed here from the
 * extension's text, not by our layout code), and for every LOB file the inventory fixity value
 * equals the cell digest (both parsed here from the raw inventory JSON and the table XML). The
 * reading room over demo-root: from / by its links to the relocated head's Employees table, its
 * rows, and the split 5 MiB photo downloaded whole, its SHA-256 the cell's digest.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { runCli } from '../helpers/cli.js';
import { startServe } from '../helpers/serve.js';
import { contentPaths, fixityOf, readInventory, sha256 } from '../helpers/archive-support.js';
import { metadataTables, readTableXml, unzipEntry } from '../helpers/export-support.js';

const ID = 'urn:example:siard-ocfl:northwind';
const ROOT = path.join(PROJECT_ROOT, 'demo-root');

/** Extension 0003: sha256 of the id, 3 tuples of 3, then the id with all but A-Za-z0-9-_ as %xx. */
function path0003(id: string): string {
  const digest = createHash('sha256').update(id, 'utf8').digest('hex');
  const encoded = [...Buffer.from(id, 'utf8')]
    .map((b) => (/[A-Za-z0-9_-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : '%' + b.toString(16).padStart(2, '0')))
    .join('');
  return [digest.slice(0, 3), digest.slice(3, 6), digest.slice(6, 9), encoded].join('/');
}

let demoOutput = '';
test.before(() => {
  demoOutput = execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'fixtures', 'demo.js')], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
});

test('the demo prints its steps, the object path and its tree', (t) => {
  for (const s of [
    'siard-ocfl ingest',
    'siard-ocfl audit',
    'siard-ocfl relocate',
    '--version v1',
    '--version v2',
    'AUDIT PASSED',
    'Northwind.siard',
  ])
    t.true(demoOutput.includes(s), s);
  // After relocation the head is restored into SQLite (its LOBs read inside the object) and compared.
  t.true(demoOutput.includes('siard-ocfl restore --root demo-root'), 'the relocated head is restored');
  t.regex(demoOutput, /Restored 6 tables, 87 rows, 13 LOB files \(13 digests verified\)/);
  t.true(demoOutput.includes('Row counts equal: 6 tables.'), 'row counts compared with the source');
  t.true(demoOutput.includes(path.join('demo-root', path0003(ID))), 'object path printed');
  t.regex(demoOutput, /Removed \.\/demo-root|No \.\/demo-root yet/);
});

test('validate and audit pass on demo-root', async (t) => {
  const v = await runCli(['validate', ROOT]);
  t.is(v.code, 0, v.stdout + v.stderr);
  const a = await runCli(['audit', '--root', ROOT]);
  t.is(a.code, 0, a.stdout + a.stderr);
  const a1 = await runCli(['audit', '--root', ROOT, '--id', ID, '--version', 'v1']);
  t.is(a1.code, 0, a1.stdout);
});

test('the object is at the 0003 path of its id', (t) => {
  const objectDir = path.join(ROOT, path0003(ID));
  t.true(existsSync(path.join(objectDir, '0=ocfl_object_1.1')));
  t.is(readInventory(objectDir).id, ID);
});

test(
  'every LOB file: inventory fixity value equals the cell digest; ' + 'split LOBs: parts have fixity, the cell digest covers the whole',
  (t) => {
    const objectDir = path.join(ROOT, path0003(ID));
    const inv = readInventory(objectDir);
    const v1 = contentPaths(inv, 'v1');
    const fixity = fixityOf(inv, 'sha256');
    const siard = path.join(objectDir, v1.get('Northwind.siard')!);
    const tables = metadataTables(unzipEntry(siard, 'header/metadata.xml').toString('utf8'));
    let whole = 0;
    let split = 0;
    for (const table of tables) {
      const rows = readTableXml(unzipEntry(siard, `content/schema0/${table.folder}/${table.folder}.xml`).toString('utf8'));
      for (const row of rows) {
        for (const cell of row.values()) {
          const file = cell.attrs.file;
          if (!file) continue;
          t.is(cell.attrs.digestType, 'SHA-256');
          const logical = decodeURIComponent(file); // database lobFolder ../ : beside the .siard
          const cp = v1.get(logical);
          if (cp) {
            t.is(fixity.get(cp), cell.attrs.digest, `${logical}: fixity = cell digest`);
            whole++;
            continue;
          }
          // split: .0 beside the unsplit name, then .1 ... .z in the following segment folders
          const tail = logical.slice(logical.indexOf('/') + 1);
          const suffix = (p: string) => /^Northwind_lobseg_\d+\/(.*)\.(\d+|z)$/.exec(p);
          const rank = (p: string) => (suffix(p)![2] === 'z' ? Infinity : Number(suffix(p)![2]));
          const ordered = [...v1.keys()].filter((p) => suffix(p)?.[1] === tail).sort((a, b) => rank(a) - rank(b));
          const segment = (p: string) => Number(/^Northwind_lobseg_(\d+)\//.exec(p)![1]);
          t.is(ordered[0], `${logical}.0`);
          t.true(
            ordered.every((p, i) => i === 0 || segment(p) > segment(ordered[i - 1]!)),
            'parts in following segment folders',
          );
          t.true(ordered.length > 2, `${logical} is split`);
          t.true(ordered.at(-1)!.endsWith('.z'));
          const bytes = Buffer.concat(ordered.map((p) => readFileSync(path.join(objectDir, v1.get(p)!))));
          t.is(sha256(bytes), cell.attrs.digest, `${logical}: the cell digest covers the whole LOB`);
          t.is(String(bytes.length), cell.attrs.length);
          for (const p of ordered)
            t.is(fixity.get(v1.get(p)!), sha256(readFileSync(path.join(objectDir, v1.get(p)!))), `${p}: its own fixity entry`);
          split++;
        }
      }
    }
    t.true(whole >= 12, `${whole} whole LOB files checked`);
    t.is(split, 1, 'the 5 MiB photo is split');
  },
);

/** The links of a page whose path is `pathname`, entities decoded. */
function links(page: string, pathname: string): string[] {
  return [...page.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&')).filter((h) => h.split('?')[0] === pathname);
}

test("the reading room over demo-root: / to the head's Employees rows by links, the split photo downloaded whole", async (t) => {
  const objectDir = path.join(ROOT, path0003(ID));
  const siard = path.join(objectDir, contentPaths(readInventory(objectDir), 'v1').get('Northwind.siard')!);
  const employees = metadataTables(unzipEntry(siard, 'header/metadata.xml').toString('utf8')).find((x) => x.name === 'Employees')!;
  const cells = readTableXml(unzipEntry(siard, `content/schema0/${employees.folder}/${employees.folder}.xml`).toString('utf8')).flatMap(
    (row) => [...row.values()],
  );
  const photo = cells.find((c) => c.attrs.file && Number(c.attrs.length) === 5 * 1024 * 1024)!;
  t.truthy(photo, 'the 5 MiB photo in the table XML');
  const served = await startServe(['--root', ROOT, '--port', '0']);
  const get = async (p: string) => (await fetch(new URL(p, served.url))).text();
  const home = await get('/');
  const object = await get(links(home, '/object').find((h) => new URLSearchParams(h.split('?')[1]).get('id') === ID)!);
  t.regex(object, />v2</);
  // v2: the head, its LOBs relocated to file:///Archives/Northwind/ (read where the object keeps them).
  const archive = await get(links(object, '/archive').find((h) => new URLSearchParams(h.split('?')[1]).get('v') === 'v2')!);
  const table = links(archive, '/table').find((h) => new URLSearchParams(h.split('?')[1]).get('t') === 'Employees')!;
  const rows = [...new Set(links(await get(table), '/row'))];
  t.true(rows.length >= 5, `${rows.length} rows linked`);
  const digests: string[] = [];
  for (const row of rows)
    for (const lob of links(await get(row), '/lob').filter((h) => h.includes('download=1'))) {
      const res = await fetch(new URL(lob, served.url));
      t.is(res.status, 200, lob);
      digests.push(sha256(Buffer.from(await res.arrayBuffer())));
    }
  t.true(digests.includes(photo.attrs.digest!), 'the split photo downloaded with its exact bytes');
});
