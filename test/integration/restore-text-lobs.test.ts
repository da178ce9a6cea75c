/**
 * Issue 34, point 4: a character string a producer kept in a LOB file comes back as text. SiardApi's
 * sfdbsakila.siard stores `address.location` (VARCHAR(32767)) in files; restored into SQLite it was
 * given the BLOB storage class (the bytes, not the text) and nothing said so. Expectations come
 * from python3's zipfile (the files the cells name), not from the project's reader. Every sample's
 * character columns in files are checked for the storage class in restore-samples.test.ts.
 */
import Database from '../../src/sources/sqlite/driver.js';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { reference, sharedTest } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const SAKILA = reference('siard-samples', 'siardapi', 'sfdbsakila.siard');
const work = tempDir('siard-ocfl-text-lobs-');

/** address_id -> the text of the file its location cell names, read by python3. */
function sakilaLocations(): Map<number, string> {
  const script = `
import json, re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
xml = z.read('content/schema0/table1/table1.xml').decode('utf-8')
out = {}
for row in re.findall(r'<row>(.*?)</row>', xml):
    key = re.search(r'<c1>(\\d+)</c1>', row).group(1)
    f = re.search(r'<c8 [^>]*file="([^"]+)"', row).group(1)
    out[key] = z.read(f).decode('utf-8')
print(json.dumps(out))
`;
  const r = spawnSync('python3', ['-c', script, SAKILA], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(r.stderr);
  return new Map(Object.entries(JSON.parse(r.stdout) as Record<string, string>).map(([k, v]) => [Number(k), v]));
}

sharedTest('sfdbsakila: the VARCHAR cells kept in files restore into SQLite as TEXT, equal to their files', async (t) => {
  const target = path.join(work, 'sakila.db');
  const res = await runCli(['restore', SAKILA, target]);
  t.is(res.code, 0, res.stderr);
  const expected = sakilaLocations();
  t.is(expected.size, 603, 'every address row names a file');
  const db = new Database(target, { readonly: true });
  try {
    const rows = db.prepare('SELECT address_id AS id, typeof(location) AS kind, location FROM address').all() as Array<{
      id: number | bigint;
      kind: string;
      location: unknown;
    }>;
    t.is(rows.length, expected.size);
    t.deepEqual([...new Set(rows.map((r) => r.kind))], ['text'], 'storage class TEXT, not BLOB');
    for (const r of rows) t.is(r.location, expected.get(Number(r.id)), `address ${r.id}`);
  } finally {
    db.close();
  }
});

sharedTest('an archive of ours: a non-ASCII CLOB written to a LOB file restores as TEXT with the same characters', async (t) => {
  const source = path.join(work, 'clob.db');
  const text = 'héllo wörld ✓, long enough for a LOB file; 𝄞 outside the BMP';
  const db = new Database(source);
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body CLOB)');
  db.prepare('INSERT INTO t VALUES (?, ?), (?, ?)').run(1, text, 2, 'x');
  db.close();
  const out = path.join(work, 'clob-out');
  const exported = await runCli(['export', source, out, '--inline-max', '10', '--json']);
  t.is(exported.code, 0, exported.stderr);
  t.is((JSON.parse(exported.stdout) as { lobFiles: number }).lobFiles, 1, 'the long cell went to a file');
  const target = path.join(work, 'clob-restored.db');
  const restored = await runCli(['restore', path.join(out, 'clob.siard'), target]);
  t.is(restored.code, 0, restored.stderr);
  const back = new Database(target, { readonly: true });
  try {
    t.deepEqual(back.prepare('SELECT id, typeof(body) AS kind, body FROM t ORDER BY id').all(), [
      { id: 1, kind: 'text', body: text },
      { id: 2, kind: 'text', body: 'x' },
    ]);
  } finally {
    back.close();
  }
});
