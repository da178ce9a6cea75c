/**
 * A received SIARD sample restored into SQLite and checked against the archive itself (issue 6,
 * acceptance 3; issue 34): each table ends with the row count its `<rows>` states, every LOB cell
 * that carries a digest is verified, character cells kept in files come back as text, and `verify`
 * finds every archived value in the database. Expectations come from the archive read with
 * python3's zipfile and ElementTree (not the project's reader). Used by restore-samples.test.ts and
 * by resegment-samples.test.ts, which compares its re-segmented package's restore with this one
 * (one restore of each received sample per run, not two).
 */
import Database from '../../src/sources/sqlite/driver.js';
import type { ExecutionContext } from 'ava';
import { execFileSync } from 'node:child_process';
import { verify } from '../../src/archive/verify/verify.js';
import { runCli } from './cli.js';

/** The samples that cannot restore as they are: their external LOB files are absent. */
export const MISSING_LOBS = ['arkade5/externalLobsMissing/dbptk.siard', 'arkade5/dbptk_produced.siard'];
/** The arkade5 copies whose text LOB files lost their CRs (git normalisation): refused as they are. */
export const LOST_CR = [
  'arkade5/dbPtk/external/dbptk.siard',
  'arkade5/siardGui/external/siardGui.siard',
  'arkade5/fullConvert/external/scfc.siard',
];
/** SIARD 1.0 samples: restored, not re-segmented. */
export const SIARD_1_0 = ['arkade5/siard1_med_blobs.siard', 'siardapi/sql1999.siard'];

export interface Expected {
  tables: Array<{ schema: string | null; name: string; rows: number }>;
  /** LOB cells (at any depth) with both a file and a digest attribute */
  digestCells: number;
  /** their file attribute and digest (lower-case) */
  digests: Array<[string, string]>;
  /** [index of the table, column name] of character columns (CHAR ... CLOB, XML) with cells in files */
  textFileColumns: Array<[number, string]>;
}

const PYTHON = `
import re, sys, json, zipfile, xml.etree.ElementTree as ET
z = zipfile.ZipFile(sys.argv[1])
meta = sorted([n for n in z.namelist() if n == 'header/metadata.xml' or n.endswith('/header/metadata.xml')], key=len)[0]
root = meta[:-len('header/metadata.xml')]
local = lambda t: t.split('}')[-1]
def kids(el, name): return [c for c in el if local(c.tag) == name]
def text(el, name):
    k = kids(el, name)
    return k[0].text if k else None
tables = []
folders = {}
doc = ET.fromstring(z.read(meta))
for s in kids(doc, 'schemas')[0] if kids(doc, 'schemas') else []:
    for ts in kids(s, 'tables'):
        for t in kids(ts, 'table'):
            columns = [(text(c, 'name'), (text(c, 'type') or '').upper()) for cs in kids(t, 'columns') for c in kids(cs, 'column')]
            folders[(text(s, 'folder'), text(t, 'folder'))] = (len(tables), columns)
            tables.append({'schema': text(s, 'name'), 'name': text(t, 'name'), 'rows': int(text(t, 'rows') or 0)})
CHARACTER = re.compile(r'^(CHAR|CHARACTER|VARCHAR|NATIONAL|NCHAR|CLOB|NCLOB|XML)\\b')
digests = 0
values = []
text_files = set()
for n in z.namelist():
    if n.startswith(root + 'content/') and n.endswith('.xml'):
        parts = n[len(root):].split('/')
        if len(parts) == 4 and parts[3] == parts[2] + '.xml':
            index, columns = folders.get((parts[1], parts[2]), (None, []))
            for _, el in ET.iterparse(z.open(n)):
                if 'file' in el.attrib and 'digest' in el.attrib:
                    digests += 1
                    values.append([el.attrib['file'], el.attrib['digest'].lower()])
                cell = re.match(r'^c(\\d+)$', local(el.tag))
                if 'file' in el.attrib and cell and index is not None and int(cell.group(1)) <= len(columns):
                    name, type = columns[int(cell.group(1)) - 1]
                    if CHARACTER.match(type): text_files.add((index, name))
                el.clear()
print(json.dumps({'tables': tables, 'digestCells': digests, 'digests': values, 'textFileColumns': sorted(text_files)}))
`;

function expectedOf(siard: string): Expected {
  return JSON.parse(execFileSync('python3', ['-c', PYTHON, siard], { encoding: 'utf8', maxBuffer: 1 << 26 })) as Expected;
}

/** Row count of every table of a SQLite file. */
function countsOf(file: string): Map<string, number> {
  const db = new Database(file, { readonly: true });
  try {
    const names = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>).map((r) => r.name);
    return new Map(
      names.map((n) => [n, Number((db.prepare(`SELECT count(*) AS n FROM "${n.replace(/"/g, '""')}"`).get() as { n: number }).n)]),
    );
  } finally {
    db.close();
  }
}

/** Restores and checks row counts and verified digests against the archive's own metadata. */
export async function restoresFully(t: ExecutionContext, siard: string, target: string): Promise<Expected> {
  const expected = expectedOf(siard);
  const res = await runCli(['restore', siard, target, '--json']);
  t.is(res.code, 0, res.stderr);
  const summary = JSON.parse(res.stdout) as {
    tables: Array<{ schema: string; name: string; target: string; rows: number }>;
    digestsVerified: number;
  };
  const counts = countsOf(target);
  t.is(counts.size, expected.tables.length, 'one SQLite table per archive table');
  t.is(summary.tables.length, expected.tables.length);
  expected.tables.forEach((want, i) => {
    const got = summary.tables[i]!;
    t.deepEqual([got.schema, got.name], [want.schema ?? '', want.name]); // an empty <name/> reads as None in python
    t.is(counts.get(got.target), want.rows, `${want.schema}.${want.name}: rows in SQLite = <rows>`);
  });
  t.is(summary.digestsVerified, expected.digestCells, 'every LOB digest present was verified');
  // Character strings kept in files (CLOBs, and the VARCHARs some producers put there) come back as
  // text, never as BLOBs (issue 34: sfdbsakila's address.location did).
  const db = new Database(target, { readonly: true });
  try {
    for (const [index, column] of expected.textFileColumns) {
      const table = summary.tables[index]!.target;
      const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
      const { n } = db.prepare(`SELECT count(*) AS n FROM ${q(table)} WHERE typeof(${q(column)}) = 'blob'`).get() as { n: number };
      t.is(n, 0, `${table}.${column}: character cells kept in files restored as TEXT`);
    }
  } finally {
    db.close();
  }
  // verify (issue 34): the restored database holds every archived value; the only columns that are
  // not equal are ARRAY and UDT columns, which SQLite holds as JSON text (compared as that JSON)
  const verified = await verify({ siard }, target);
  t.is(verified.tables.length, expected.tables.length);
  for (const x of verified.tables) {
    t.deepEqual([x.missing, x.extra, x.changed, x.problems, x.differences], [0, 0, 0, [], []], x.table);
    t.is(x.targetRows, x.rows, x.table);
    for (const l of x.lossy) t.regex(l.reason, /^(ARRAY|structured type) values held as JSON text$/, `${x.table}.${l.column}`);
    t.is(x.equal, x.lossy.length === 0, x.table);
  }
  return expected;
}
