/**
 * Other producers' tables on the fast table pass: the table XSDs of DBPTK, SIARD Suite (SiardFromDb),
 * SiardGui and Full Convert in ../shared/reference/siard-samples are read by their meaning
 * (fast-xsd.ts), and every table the fast pass reads to its end must be valid against its own XSD
 * for libxml2 and give no finding in the full pass, with the same row count and the same key
 * violations; every table of scalar columns the full pass finds clean must be read by the fast
 * pass (or it is no fast path for that producer). What the producer's XSD forbids and ours allows (a version attribute it
 * does not declare, a version it does not enumerate, a timestamp without the fraction DBPTK's
 * pattern requires) must be left to the full pass.
 */
import { Readable } from 'node:stream';
import { cellType } from '../../../../src/siard/model.js';
import { SiardReader } from '../../../../src/siard/reader/siard-reader.js';
import type { SiardTableRef } from '../../../../src/siard/reader/siard-reader.js';
import { fastXsdProfile } from '../../../../src/siard/check/fast-xsd.js';
import { KeyIndex, type KeySpec } from '../../../../src/siard/check/key-index.js';
import { keySpecs } from '../../../../src/siard/check/keys.js';
import { CheckReport } from '../../../../src/siard/check/report.js';
import { fastTablePass } from '../../../../src/siard/check/table-pass-fast.js';
import { tablePass } from '../../../../src/siard/check/table-pass.js';
import { loadLibxml2, validateDocument } from '../../../../src/siard/check/xsd-validator.js';
import { reference, sharedTest } from '../../../helpers/shared.js';

const PRODUCERS: Record<string, string[]> = {
  DBPTK: ['arkade5/dbptk_produced.siard', 'dbptk/example.siard'],
  'SIARD Suite': ['siardapi/sfdboe.siard', 'siardapi/sfdbsakila.siard', 'siard2sql/simpledb.siard', 'siard2sql/encoding.siard'],
  SiardGui: ['arkade5/siardGui/external/siardGui.siard', 'siardapi/ech-0165_oe.siard'],
  'Full Convert': ['arkade5/fullConvert/external/scfc.siard'],
};

interface Table {
  ref: SiardTableRef;
  keys: KeySpec[];
  xsd: Buffer;
  xml: Buffer;
}

async function tables(file: string): Promise<Table[]> {
  const reader = await SiardReader.open(reference('siard-samples', file));
  try {
    const specs = keySpecs(reader.archive);
    const bytes = async (name: string) => {
      const chunks: Buffer[] = [];
      for await (const c of (await reader.zip.openStream(name)) as AsyncIterable<Buffer>) chunks.push(c);
      return Buffer.concat(chunks);
    };
    const out: Table[] = [];
    for (const ref of reader.tables()) {
      if (!reader.zip.entry(ref.xmlEntry)) continue;
      out.push({
        ref,
        // the table's own unique keys (foreign keys reach other tables)
        keys: (specs.get(`${ref.schema.name}\u0000${ref.table.name}`) ?? []).filter((k) => k.kind === 'primary' || k.kind === 'candidate'),
        xsd: await bytes(ref.xmlEntry.replace(/\.xml$/, '.xsd')),
        xml: await bytes(ref.xmlEntry),
      });
    }
    return out;
  } finally {
    reader.close();
  }
}

/** The fast pass over a table's XML: whether it read it all, its rows, its key violations. */
async function fast(table: Table, xml = table.xml) {
  const profile = fastXsdProfile(table.ref.table, table.xsd);
  if (!profile) return undefined;
  const index = new KeyIndex(table.keys);
  try {
    const r = await fastTablePass({
      table: table.ref,
      profile,
      keys: table.keys,
      index,
      stream: Readable.from([xml]),
      onLobCell: async () => {},
    });
    return { ...r, violations: r.done ? [...index.violations()].map((v) => v.message) : [] };
  } finally {
    index.close();
  }
}

/** The full pass (without the XSD windows: libxml2 is asked separately): its findings, rows, key violations. */
async function full(table: Table) {
  const index = new KeyIndex(table.keys);
  try {
    const report = new CheckReport();
    const r = await tablePass({ table: table.ref, stream: Readable.from([table.xml]), keys: table.keys, index, report });
    const findings = report
      .result()
      .requirements.filter((q) => q.status === 'failed')
      .flatMap((q) => q.findings.map((f) => `${q.id}: ${f.message}`));
    return { rows: r.rows, findings, violations: [...index.violations()].map((v) => v.message) };
  } finally {
    index.close();
  }
}

sharedTest.before(async () => {
  await loadLibxml2();
});

for (const [producer, files] of Object.entries(PRODUCERS)) {
  sharedTest(`${producer}: the fast pass reads every clean table and only tables the full pass and libxml2 find clean`, async (t) => {
    let read = 0;
    for (const file of files) {
      for (const table of await tables(file)) {
        const where = `${file} ${table.ref.xmlEntry}`;
        const f = await fast(table);
        const valid = validateDocument(table.xml, table.xsd);
        const g = await full(table);
        const clean = valid.length === 0 && g.findings.length === 0;
        if (f?.done) {
          read++;
          t.deepEqual(valid, [], `read by the fast pass but not valid: ${where}`);
          t.deepEqual(g.findings, [], `read by the fast pass but the full pass finds: ${where}`);
          t.is(f.rows, g.rows, where);
          t.deepEqual(f.violations, g.violations, where);
        } else {
          // ARRAY and UDT columns are read by the full pass only (their a1.. / u1.. elements)
          const scalar = table.ref.table.columns.every((c) => c.cardinality === undefined && cellType(c) !== undefined);
          t.false(clean && scalar, `clean but left to the full pass: ${where}`);
        }
      }
    }
    t.true(read > 0, `no table of ${producer} read by the fast pass`);
  });
}

sharedTest("what the producer's XSD forbids and ours allows is left to the full pass", async (t) => {
  const cases: Array<[file: string, from: RegExp, to: string]> = [
    // DBPTK declares no version attribute on the root
    ['arkade5/dbptk_produced.siard', /<table /, '<table version="2.2" '],
    // DBPTK's dateTimeType requires a fraction: \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d*)Z?
    ['dbptk/example.siard', /(<c2>1986-05-31T23:00:00)\.000000Z/, '$1Z'],
    // SIARD Suite 2.1, SiardGui and Full Convert enumerate version 2.1 only
    ['siardapi/sfdboe.siard', /version="2\.1"/, 'version="2.2"'],
    ['arkade5/siardGui/external/siardGui.siard', /version="2\.1"/, 'version="2.2"'],
    ['arkade5/fullConvert/external/scfc.siard', /version="2\.1"/, 'version="2.2"'],
  ];
  for (const [file, from, to] of cases) {
    const table = (await tables(file)).find((x) => from.test(x.xml.toString('utf8')))!;
    const xml = Buffer.from(table.xml.toString('utf8').replace(from, to));
    t.true((await fast(table))?.done, `the sample itself is read by the fast pass: ${file}`);
    t.notDeepEqual(validateDocument(xml, table.xsd), [], `libxml2 refuses the changed table: ${file}`);
    t.false((await fast(table, xml))!.done, `the fast pass leaves the changed table: ${file}`);
  }
});

sharedTest('Full Convert: comments before the root are read; a comment XML forbids is not', async (t) => {
  const table = (await tables('arkade5/fullConvert/external/scfc.siard'))[0]!;
  t.regex(table.xml.toString('utf8'), /^\ufeff<\?xml[^>]*>\s*<!--/);
  t.true((await fast(table))!.done);
  const broken = Buffer.from(table.xml.toString('utf8').replace('<!--', '<!-- a -- b'));
  t.false((await fast(table, broken))!.done);
  t.notDeepEqual(validateDocument(broken, table.xsd), []);
});
