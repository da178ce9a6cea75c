/**
 * Acceptance 3: every archive in ../shared/reference/siard-samples ingests (as received) and audits.
 * External LOBs of DBPTK (`_lobseg_1`), SiardGui (`../lobs/`) and SiardApi (`lobs/`) are found in
 * the object and their digests verified; externalLobsMissing is refused by default (exit 1,
 * nothing stored) and, stored as received on request, reported as missing files; Full Convert's
 * back-slash lobFolder is read with a warning.
 *
 * The arkade5 copies in ../shared lost the CR of CRLF line ends in their LOB files (git
 * normalisation), so as stored there their digests cannot verify; the audit says so (LOB_DIGEST),
 * and a copy with the CRs restored verifies completely.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { audit, type AuditResult } from '../../src/archive/audit.js';
import { ingest } from '../../src/archive/ingest.js';
import type { SiardOcflError } from '../../src/errors.js';
import { loadLayout0003 } from '../../src/ocfl/layout/extensions.js';
import { initRoot, type OcflStorageRoot } from '../../src/ocfl/root.js';
import { copyTree, readInventory } from '../helpers/archive-support.js';
import { unzipEntry, zipEntryNames } from '../helpers/export-support.js';
import { HAS_SHARED, reference, sharedTest, siardFilesUnder } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const SAMPLES = reference('siard-samples');

let root: OcflStorageRoot;
const results = new Map<string, AuditResult>();
const rel = (f: string) => path.relative(SAMPLES, f);
/** The samples shipped without their LOB files (externalLobsMissing on purpose): stored as received only when asked. */
const MISSING = 'arkade5/externalLobsMissing/dbptk.siard';
const LOBS_ABSENT = [MISSING, 'arkade5/dbptk_produced.siard'];

sharedTest.before(async () => {
  root = await initRoot(path.join(tempDir('siard-ocfl-samples-'), 'root'), await loadLayout0003());
  for (const file of siardFilesUnder(SAMPLES)) {
    await ingest(file, root, rel(file), { user: { name: 'test' }, ...(LOBS_ABSENT.includes(rel(file)) ? { allowMissingLobs: true } : {}) });
    results.set(rel(file), await audit(root, { ids: [rel(file)] }));
  }
});

const codes = (r: AuditResult, severity: string) => r.findings.filter((f) => f.severity === severity).map((f) => f.code);

if (HAS_SHARED) {
  for (const file of siardFilesUnder(SAMPLES)) {
    sharedTest(`${rel(file)}: ingested as received, audited, OCFL-valid`, (t) => {
      const r = results.get(rel(file))!;
      t.truthy(r);
      t.deepEqual(
        codes(r, 'error').filter((c) => /^E\d{3}$/.test(c)),
        [],
        'no OCFL error',
      );
      const s = r.objects[0]!.siards[0]!;
      t.is(s.path, path.basename(file));
      t.true(s.tables > 0);
      t.notRegex(s.xsd, /^invalid/, 'metadata.xml valid against its schema');
      // The .siard is stored byte for byte.
      const inv = readInventory(path.join(root.location, root.objectPath(rel(file))));
      const cp = Object.entries(inv.versions.v1!.state).find(([, ps]) => ps.includes(path.basename(file)))![0];
      t.true(readFileSync(path.join(root.location, root.objectPath(rel(file)), inv.manifest[cp]![0]!)).equals(readFileSync(file)));
    });
  }
}

sharedTest('external LOBs are found in the object: DBPTK _lobseg_1, SiardGui ../lobs/, SiardApi lobs/, Full Convert back-slashes', (t) => {
  const cases: Array<[string, number]> = [
    ['arkade5/dbPtk/external/dbptk.siard', 35],
    ['arkade5/siardGui/external/siardGui.siard', 35],
    ['siardapi/sql2008.siard', 3],
    ['arkade5/fullConvert/external/scfc.siard', 29],
  ];
  for (const [name, files] of cases) {
    const r = results.get(name)!;
    t.is(r.objects[0]!.siards[0]!.lobFiles, files, `${name}: LOB files verified in the object`);
    t.false(codes(r, 'error').includes('LOB_MISSING'), name);
  }
  t.true(results.get('siardapi/sql2008.siard')!.ok, 'sql2008: every digest verifies');
  t.true(codes(results.get('arkade5/fullConvert/external/scfc.siard')!, 'warning').includes('SIARD_LOBFOLDER_BACKSLASH'));
  for (const name of [
    'arkade5/dbPtk/external/dbptk.siard',
    'arkade5/siardGui/external/siardGui.siard',
    'arkade5/fullConvert/external/scfc.siard',
  ]) {
    t.true(
      results
        .get(name)!
        .findings.some((f) => f.code === 'LOB_UNREFERENCED' && f.severity === 'warning' && f.path!.endsWith('unreferenced-file.bin')),
      `${name}: the unreferenced file was kept and reported`,
    );
  }
});

sharedTest(
  'externalLobsMissing: refused by default (exit 1, one sentence, no object); stored on request, every external LOB reported ' +
    'missing, exit status 1',
  async (t) => {
    const refused = await t.throwsAsync(ingest(reference('siard-samples', MISSING), root, 'refused', { user: { name: 'test' } }));
    t.is((refused as SiardOcflError).exitCode, 1);
    t.regex(
      refused!.message,
      new RegExp(
        String.raw`^\S+dbptk\.siard: 35 LOB cells reference files the package folder does not hold \(the first: .*row ` +
          String.raw`1, column .*\), so nothing was stored`,
      ),
    );
    t.is(await root.findObject('refused'), undefined, 'no object left');
    const r = results.get(MISSING)!;
    t.false(r.ok);
    const missing = r.findings.filter((f) => f.code === 'LOB_MISSING');
    t.is(missing.length, 35);
    t.true(missing.every((f) => f.table !== undefined && f.row !== undefined && f.column !== undefined && f.path!.includes('_lobseg_1/')));
  },
);

sharedTest('arkade5 packages with their CRs restored: every LOB digest and length verifies', async (t) => {
  const damaged = results.get('arkade5/siardGui/external/siardGui.siard')!;
  t.true(
    damaged.findings.some((f) => f.code === 'LOB_DIGEST'),
    'as stored in ../shared the CR-less copies fail, and the audit says so',
  );
  const dir = tempDir('siard-ocfl-crlf-');
  const r = await initRoot(path.join(dir, 'root'), await loadLayout0003());
  for (const name of ['arkade5/dbPtk/external', 'arkade5/siardGui/external', 'arkade5/fullConvert/external']) {
    const copy = path.join(dir, name.split('/')[1]!);
    copyTree(path.join(SAMPLES, name), copy);
    restoreCrlf(copy);
    const siard = readdirSync(copy).find((n) => n.endsWith('.siard'))!;
    await ingest(path.join(copy, siard), r, name, { user: { name: 'test' } });
    const a = await audit(r, { ids: [name] });
    t.deepEqual(
      codes(a, 'error'),
      [],
      `${name}: ${a.findings
        .filter((f) => f.severity === 'error')
        .map((f) => f.message)
        .join('; ')}`,
    );
    t.true(a.objects[0]!.siards[0]!.lobFiles >= 29);
  }
});

/** File name (last segment of the cell's file) -> digests its cells state (lower case), read with unzip + regex. */
function cellDigests(siard: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const name of zipEntryNames(siard).filter((n) => /content\/[^/]+\/[^/]+\/[^/]+\.xml$/.test(n))) {
    for (const m of unzipEntry(siard, name)
      .toString('utf8')
      .matchAll(/<c\d+\b[^>]*>/g)) {
      const file = /file="([^"]+)"/.exec(m[0])?.[1];
      const digest = /digest="([0-9a-fA-F]+)"/.exec(m[0])?.[1];
      if (!file || !digest) continue;
      const base = file.split(/[\\/]/).pop()!;
      (out.get(base) ?? out.set(base, new Set()).get(base)!).add(digest.toLowerCase());
    }
  }
  return out;
}

/**
 * LF -> CRLF in each LOB file whose digest matches no cell as it is but does with its CRs restored
 * (what git's normalisation removed); files that verify as they are, binary ones included, stay.
 */
function restoreCrlf(
  dir: string,
  digests = cellDigests(
    path.join(
      dir,
      readdirSync(dir).find((n) => n.endsWith('.siard'))!,
    ),
  ),
): void {
  const known = (b: Buffer, name: string) =>
    digests.get(name)?.has(createHash('sha256').update(b).digest('hex')) ||
    digests.get(name)?.has(createHash('md5').update(b).digest('hex'));
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) restoreCrlf(p, digests);
    else if (!e.name.endsWith('.siard') && statSync(p).isFile()) {
      const b = readFileSync(p);
      if (known(b, e.name)) continue;
      const restored = Buffer.from(b.toString('latin1').replace(/\n/g, '\r\n'), 'latin1');
      if (known(restored, e.name)) writeFileSync(p, restored);
    }
  }
}

sharedTest("audit --shard k/n: the shards split the root's objects, each object in exactly one", async (t) => {
  const all = (await audit(root, { noXsd: true })).objects.map((o) => o.id).sort();
  const shards = [];
  for (let k = 1; k <= 3; k++) shards.push((await audit(root, { noXsd: true, shard: { k, n: 3 } })).objects.map((o) => o.id));
  t.deepEqual(shards.flat().sort(), all);
  t.true(
    shards.every((s) => s.length < all.length),
    'no shard holds everything',
  );
  await t.throwsAsync(audit(root, { shard: { k: 4, n: 3 } }), { message: /--shard/ });
});
