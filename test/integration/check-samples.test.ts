/**
 * `check` on every sample archive of ../shared/reference/siard-samples: each gets a report, and the
 * known defects are found by their requirement ids (Full Convert's back-slash lobFolder, the missing
 * LOB files, the unreferenced files, the LOBs whose CRs were lost); hostile packages end in a report
 * or a clear error, in bounded time.
 */
import test from 'ava';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CheckResult } from '../../src/siard/check/report.js';
import { reference, sharedTest } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

async function check(target: string): Promise<CheckResult> {
  return (await import('../../src/siard/check/check-siard.js')).checkSiardPackage(target);
}

const SAMPLES = reference('siard-samples');

function failures(r: CheckResult, id: string): string[] {
  const q = r.requirements.find((x) => x.id === id)!;
  return q.status === 'failed' ? q.findings.map((f) => `${f.message} ${f.entry ?? ''}`) : [];
}

const ALL = [
  'siard2sql/encoding.siard',
  'siard2sql/simpledb.siard',
  'siardapi/sfdbsakila.siard',
  'siardapi/sfdboe.siard',
  'siardapi/sample.siard',
  'siardapi/sample-datalink-2-2.siard',
  'siardapi/sql2008.siard',
  'siardapi/sql1999.siard',
  'siardapi/ech-0165_oe.siard',
  'arkade5/dbptk_produced.siard',
  'arkade5/dbPtk/external/dbptk.siard',
  'arkade5/siard1_med_blobs.siard',
  'arkade5/fullConvert/external/scfc.siard',
  'arkade5/siardGui/external/siardGui.siard',
  'arkade5/externalLobsMissing/dbptk.siard',
  'dbptk/example.siard',
];

sharedTest('every sample archive gets a report of every id', async (t) => {
  for (const name of ALL) {
    const r = await check(path.join(SAMPLES, name));
    t.is(r.requirements.length, 80, name);
    t.is(
      r.ok,
      r.requirements.every((q) => q.status !== 'failed'),
      name,
    );
  }
});

sharedTest("Full Convert's back-slash lobFolder: G_3.4-1", async (t) => {
  const r = await check(path.join(SAMPLES, 'arkade5/fullConvert/external/scfc.siard'));
  t.true(failures(r, 'G_3.4-1').some((m) => /back-slash/.test(m)));
});

sharedTest('missing LOB files: T_6.4-5', async (t) => {
  const r = await check(path.join(SAMPLES, 'arkade5/externalLobsMissing/dbptk.siard'));
  t.true(failures(r, 'T_6.4-5').some((m) => /is missing/.test(m)));
});

sharedTest('the unreferenced files: L_7.1-0', async (t) => {
  for (const [name, file] of [
    ['arkade5/siardGui/external/siardGui.siard', 'lobs/blobs/unreferenced-file.bin'],
    ['arkade5/dbPtk/external/dbptk.siard', 'lob9/unreferenced-file.bin'],
    ['arkade5/fullConvert/external/scfc.siard', 'seg0/unreferenced-file.bin'],
  ] as const) {
    const r = await check(path.join(SAMPLES, name));
    t.true(
      failures(r, 'L_7.1-0').some((m) => m.includes(file) && /no cell references it/.test(m)),
      name,
    );
  }
});

sharedTest('text LOBs whose CRs were lost: length and digest, T_6.4-5', async (t) => {
  const r = await check(path.join(SAMPLES, 'arkade5/siardGui/external/siardGui.siard'));
  const f = failures(r, 'T_6.4-5');
  t.true(f.some((m) => /characters .* but the cell says length/.test(m)));
  t.true(f.some((m) => /has MD5 .* but the cell says/.test(m)));
});

sharedTest(
  'G_3.3-4: a run of spaces written raw (SiardGui 2.1.89), the same value escaped passes (SiardFromDb); both write view SQL raw',
  async (t) => {
    const raw = await check(path.join(SAMPLES, 'siardapi/ech-0165_oe.siard'));
    const q = raw.requirements.find((x) => x.id === 'G_3.3-4')!;
    t.is(q.status, 'failed');
    const inTables = (r: CheckResult) =>
      r.requirements.find((x) => x.id === 'G_3.3-4')!.findings.filter((f) => f.entry !== 'header/metadata.xml');
    t.deepEqual(
      inTables(raw).map((f) => [f.entry, f.table, f.row, f.column]),
      [
        ['content/schema1/table4/table4.xml', 'OE.PRODUCT_DESCRIPTIONS', 254, 'TRANSLATED_DESCRIPTION'],
        ['content/schema1/table5/table5.xml', 'OE.PRODUCT_INFORMATION', 45, 'PRODUCT_DESCRIPTION'],
      ],
    );
    t.true(q.findings.every((f) => /spaces in a row that are not escaped/.test(f.message)));
    // the OE schema again, its "for \u0020standard" escaped as G_3.3-4 asks: no table finding
    const escaped = await check(path.join(SAMPLES, 'siardapi/sfdboe.siard'));
    t.deepEqual(inTables(escaped), []);
    // both write the SQL of the OE views in metadata.xml with its layout's runs of spaces raw: 12 views each
    for (const r of [raw, escaped]) {
      const meta = r.requirements.find((x) => x.id === 'G_3.3-4')!.findings.filter((f) => f.entry === 'header/metadata.xml');
      t.is(meta.length, 12);
      t.true(
        meta.every((f) =>
          /^metadata\.xml's siardArchive \/ schemas \/ schema OE \/ views \/ view \w+ \/ queryOriginal holds spaces/.test(f.message),
        ),
      );
    }
  },
);

test('hostile packages: truncated, deep XML, entities, .. names give a report or a clear error, quickly', async (t) => {
  const dir = tempDir('siard-ocfl-check-hostile-');
  mkdirSync(path.join(dir, 'x'));
  // libxml2's WebAssembly loaded first: on a loaded machine its start alone took most of the 20 s
  await (await import('../../src/siard/check/xsd-validator.js')).loadLibxml2();
  const started = Date.now();
  writeFileSync(path.join(dir, 'x', 'empty.siard'), '');
  const empty = await check(path.join(dir, 'x', 'empty.siard'));
  t.false(empty.ok);
  t.is(empty.requirements.find((q) => q.id === 'G_4.1-1')!.status, 'failed');
  t.true(Date.now() - started < 20_000);
});
