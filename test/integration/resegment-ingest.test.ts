/**
 * Issue 20 through `ingest`: `--resegment` stores the re-segmented archive (audits clean),
 * `--keep-received` keeps the package as received under `received/` in the same version (OCFL
 * valid, both archives audited, fixity for every content file of both), and a corrupted internal
 * LOB (its ZIP entry rewritten with a valid CRC, so only the cell digest can tell) stops the
 * re-segmentation naming table, row and column, leaving no output and no object.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { auditCli, contentPaths, readInventory } from '../helpers/archive-support.js';
import { runCli } from '../helpers/cli.js';
import { repairedCopy } from '../helpers/repaired-samples.js';
import { reference, sharedTest } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const SAMPLES = reference('siard-samples');
const ENV = { SIARD_OCFL_USER_NAME: 'Test', SIARD_OCFL_USER_ADDRESS: 'mailto:test@example.org' };
const LIMITS = ['--max-files', '3', '--max-bytes', '4000', '--inline-max', '100'];

async function newRoot(work: string): Promise<string> {
  const root = path.join(work, 'root');
  const res = await runCli(['init', '--root', root]);
  if (res.code !== 0) throw new Error(res.stderr);
  return root;
}

sharedTest('ingest --resegment --keep-received: both archives in one version, OCFL-valid, audited clean, fixity for both', async (t) => {
  const work = tempDir('siard-ocfl-reseg-ingest-');
  const siard = repairedCopy(path.join(SAMPLES, 'arkade5/siardGui/external/siardGui.siard'), work);
  const root = await newRoot(work);
  const id = 'urn:example:siardgui';
  const res = await runCli(['ingest', siard, '--root', root, '--id', id, '--resegment', '--keep-received', ...LIMITS, '--json'], {
    env: ENV,
  });
  t.is(res.code, 0, res.stderr);
  const result = JSON.parse(res.stdout) as {
    objectPath: string;
    siardFile: string;
    receivedFolder: string;
    received: { name: string; sha256: string };
  };
  t.is(result.siardFile, 'siardGui.siard');
  t.is(result.receivedFolder, 'received');
  const inv = readInventory(path.join(root, result.objectPath));
  const contentOf = contentPaths(inv);
  const state = [...contentOf.keys()];
  t.true(state.includes('siardGui.siard'));
  t.true(state.includes('received/siardGui.siard'), 'the received .siard is kept');
  t.true(
    state.some((p) => p.startsWith('received/lobs/')),
    'with its external LOB folder',
  );
  t.true(
    state.some((p) => /^siardGui_lobseg_\d+\/content\/schema0\/table\d+\/lob\d+\/record\d+\.(bin|txt)(\.(\d+|z))?$/.test(p)),
    're-segmented LOBs in lobseg folders',
  );
  // Fixity: our LOB files under SHA-256 (the new cell digests), the received ones under MD5 (SiardGui's).
  const fixed = (alg: string) => new Set(Object.values(inv.fixity?.[alg] ?? {}).flat());
  const [md5, sha256] = [fixed('md5'), fixed('sha256')];
  for (const p of state) {
    const content = contentOf.get(p)!;
    if (p.startsWith('received/lobs/')) t.true(md5.has(content), `${p}: md5 fixity`);
    if (p.startsWith('siardGui_lobseg_')) t.true(sha256.has(content), `${p}: sha256 fixity`);
  }
  const validate = await runCli(['validate', path.join(root, result.objectPath)]);
  t.is(validate.code, 0, validate.stdout + validate.stderr);
  const { cli, report } = await auditCli(root, '--id', id);
  t.is(cli.code, 0, cli.stdout + cli.stderr);
  t.deepEqual(report.objects[0]!.siards.map((s) => s.path).sort(), ['received/siardGui.siard', 'siardGui.siard']);
  t.is(report.errors, 0);
  // The object restores (the top-level, re-segmented archive).
  const restored = await runCli(['restore', '--root', root, '--id', id, path.join(work, 'restored.db')]);
  t.is(restored.code, 0, restored.stderr);
  t.regex(restored.stdout, /from urn:example:siardgui v1: siardGui\.siard/);
});

sharedTest(
  'ingest --resegment of a package with internal LOBs audits clean; plain ingest of the same package still stores it as received',
  async (t) => {
    const work = tempDir('siard-ocfl-reseg-ingest-');
    const root = await newRoot(work);
    const siard = path.join(SAMPLES, 'siard2sql/encoding.siard');
    const res = await runCli(
      ['ingest', siard, '--root', root, '--id', 'urn:x:reseg', '--resegment', '--lob-layout', 'siard22', ...LIMITS, '--json'],
      { env: ENV },
    );
    t.is(res.code, 0, res.stderr);
    const r = JSON.parse(res.stdout) as { objectPath: string; export: { lobs: number } };
    t.true(r.export.lobs > 0, 'inline CLOBs above --inline-max went to files');
    const state = [...contentPaths(readInventory(path.join(root, r.objectPath))).keys()];
    t.true(
      state.every(
        (p) =>
          p === 'encoding.siard' ||
          p === 'encoding.fingerprints.json' ||
          /^encoding_lobs\/s\d+_t\d+_c\d+\/seg_\d+\/t\d+_c\d+_r\d+\.txt(_part\d{3})?$/.test(p),
      ),
      state.join(' '),
    );
    const { cli } = await auditCli(root, '--id', 'urn:x:reseg');
    t.is(cli.code, 0, cli.stdout + cli.stderr);
    const plain = await runCli(['ingest', siard, '--root', root, '--id', 'urn:x:plain', '--json'], { env: ENV });
    t.is(plain.code, 0, plain.stderr);
    const p = JSON.parse(plain.stdout) as { objectPath: string; files: number };
    t.deepEqual([...contentPaths(readInventory(path.join(root, p.objectPath))).keys()], ['encoding.siard'], 'stored as received');
  },
);

sharedTest('a corrupted internal LOB stops the re-segmentation naming the cell; nothing is written, no object made', async (t) => {
  const work = tempDir('siard-ocfl-reseg-corrupt-');
  const bad = path.join(work, 'sakila.siard');
  // Rewrite the archive with one internal LOB entry changed (one byte): its CRC is right, its cell digest is not.
  execFileSync('python3', [
    '-c',
    `import sys, zipfile
src = zipfile.ZipFile(sys.argv[1]); dst = zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED)
for info in src.infolist():
    data = src.read(info)
    if info.filename == 'content/schema0/table1/lob7/record0.txt': data = data.replace(b'POINT', b'P0INT')
    dst.writestr(info, data)
dst.close()`,
    path.join(SAMPLES, 'siardapi/sfdbsakila.siard'),
    bad,
  ]);
  const out = path.join(work, 'out');
  const res = await runCli(['export', bad, out]);
  t.is(res.code, 1);
  t.regex(
    res.stderr,
    new RegExp(
      String.raw`sakila\.siard: table [^,]+\.address, row 1, column location: LOB file ` +
        String.raw`"content\/schema0\/table1\/lob7\/record0\.txt" has MD5 digest [0-9a-f]{32}, but the cell says ` +
        String.raw`fe2f5197558a096b813bc6135cfabe82; re-segmentation stopped`,
    ),
  );
  t.false(existsSync(out), 'no output folder left');
  const root = await newRoot(work);
  const ing = await runCli(['ingest', bad, '--root', root, '--id', 'urn:x:bad', '--resegment'], { env: ENV });
  t.is(ing.code, 1);
  t.regex(ing.stderr, /row 1, column location: LOB file .* but the cell says fe2f5197558a096b813bc6135cfabe82/);
  const ls = await runCli(['ls', '--root', root]);
  t.is(ls.stdout.trim(), '', 'no object');
});

sharedTest(
  'ingest --resegment of a package with user-defined types (sql2008): LOB attributes under their element path in both layouts, ' +
    'audited clean, the restore says how it stored the UDTs',
  async (t) => {
    const work = tempDir('siard-ocfl-reseg-ingest-');
    const root = await newRoot(work);
    const siard = path.join(SAMPLES, 'siardapi/sql2008.siard');
    const expected = {
      lobseg: [
        'sql2008_lobseg_0/content/schema0/table1/lob3/u2/record0.txt',
        'sql2008_lobseg_0/content/schema0/table1/lob3/u3/record0.bin',
        'sql2008_lobseg_0/content/schema0/table1/lob5/u2/u2/record0.txt',
        'sql2008_lobseg_0/content/schema0/table1/lob5/u2/u3/record0.bin',
      ],
      siard22: [
        'sql2008_lobs/s0_t1_c3/seg_0/t1_c3_u2_r1.txt',
        'sql2008_lobs/s0_t1_c3/seg_0/t1_c3_u3_r1.bin',
        'sql2008_lobs/s0_t1_c5/seg_0/t1_c5_u2_u2_r1.txt',
        'sql2008_lobs/s0_t1_c5/seg_0/t1_c5_u2_u3_r1.bin',
      ],
    };
    for (const layout of ['lobseg', 'siard22'] as const) {
      const id = `urn:x:sql2008-${layout}`;
      const res = await runCli(
        ['ingest', siard, '--root', root, '--id', id, '--resegment', '--lob-layout', layout, '--name', 'sql2008', '--json'],
        { env: ENV },
      );
      t.is(res.code, 0, res.stderr);
      const r = JSON.parse(res.stdout) as { objectPath: string };
      const state = [...contentPaths(readInventory(path.join(root, r.objectPath))).keys()];
      for (const p of expected[layout]) t.true(state.includes(p), `${layout}: ${p} in ${state.join(' ')}`);
      const { cli, report } = await auditCli(root, '--id', id);
      t.is(cli.code, 0, cli.stdout + cli.stderr);
      t.is(report.errors, 0);
      const restored = await runCli(['restore', '--root', root, '--id', id, path.join(work, `${layout}.db`)]);
      t.is(restored.code, 0, restored.stderr);
      t.regex(restored.stdout, /TESTSCHEMA\.TUDTS: SQLite has no user-defined types; its values restored as JSON text/);
    }
  },
);
