/**
 * Runs every vector of spec/lobfolder-vectors.json against the pure lobFolder resolver and the
 * split-part finder. The vectors are the normative statement; this file only drives them.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../helpers/shared.js';
import {
  findLob,
  lobLocationResolver,
  resolveLobLocation,
  type LobPart,
  type LobTarget,
  type SiardDialect,
} from '../../../src/siard/lob-location.js';

interface ExpectedTarget {
  kind: LobTarget['kind'];
  entry?: string;
  path?: string;
  absolutePath?: string;
  escapes?: boolean;
}
interface Vector {
  name: string;
  databaseLobFolder?: string;
  columnLobFolders?: Array<string | null>;
  file: string;
  siardPath?: string;
  tableFolder?: string;
  dialect?: SiardDialect;
  expect: ExpectedTarget;
  candidates?: ExpectedTarget[];
  warnings?: number;
  /** external paths, or "<siardPath>!<entry>" for files inside the .siard */
  existing?: string[];
  found?: { split: string; parts: string[] } | null;
}

const vectors = (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'spec', 'lobfolder-vectors.json'), 'utf8')) as { vectors: Vector[] })
  .vectors;

/** Only the fields a vector states are compared. */
function pick(t: LobTarget, like: ExpectedTarget): ExpectedTarget {
  const out: Record<string, unknown> = { kind: t.kind };
  for (const k of Object.keys(like)) if (k !== 'kind') out[k] = (t as unknown as Record<string, unknown>)[k];
  return out as unknown as ExpectedTarget;
}

function partName(siardPath: string, p: LobPart): string {
  return p.kind === 'internal' ? `${siardPath}!${p.entry}` : p.path;
}

test('the vector file covers every dialect and attack the samples and the brief name', (t) => {
  const names = vectors.map((v) => v.name).join('\n');
  for (const word of ['DBPTK', 'SiardGui', 'sql2008', 'Full Convert', 'SIARD 1.0', 'lobseg split', 'siard22', 'ATTACK', 'file:///']) {
    t.true(names.includes(word) || JSON.stringify(vectors).includes(word), `a vector mentions ${word}`);
  }
});

for (const v of vectors) {
  test(`lobFolder vector: ${v.name}`, async (t) => {
    const input = {
      file: v.file,
      columnLobFolders: (v.columnLobFolders ?? []).map((c) => c ?? undefined),
      ...(v.databaseLobFolder !== undefined ? { databaseLobFolder: v.databaseLobFolder } : {}),
      ...(v.siardPath !== undefined ? { siardPath: v.siardPath } : {}),
      ...(v.tableFolder !== undefined ? { tableFolder: v.tableFolder } : {}),
      ...(v.dialect !== undefined ? { dialect: v.dialect } : {}),
    };
    const loc = resolveLobLocation(input);
    t.deepEqual(pick(loc.primary, v.expect), v.expect);
    t.deepEqual(loc.candidates[0], loc.primary);
    if (v.candidates) {
      t.deepEqual(
        loc.candidates.map((c, i) => pick(c, v.candidates![i] ?? { kind: c.kind })),
        v.candidates,
      );
    }
    if (v.warnings !== undefined) t.is(loc.warnings.length, v.warnings, loc.warnings.join(' | '));
    // Security: nothing outside the package is ever offered as an openable candidate.
    for (const c of loc.candidates) {
      if (c.kind === 'external') t.false(c.path.split('/').includes('..'), `external path ${c.path} stays inside`);
      if (c.kind === 'internal') t.false(c.entry.split('/').includes('..'), `entry ${c.entry} stays inside`);
    }
    if (v.existing !== undefined) {
      const siardPath = v.siardPath ?? 'archive.siard';
      const present = new Set(v.existing);
      const found = await findLob(loc, (p) => present.has(partName(siardPath, p)));
      if (v.found === null) t.is(found, undefined);
      else {
        t.truthy(found, 'found');
        t.is(found!.split, v.found!.split);
        t.deepEqual(
          found!.parts.map((p) => partName(siardPath, p)),
          v.found!.parts,
        );
      }
    }
  });
}

test('the resolver is pure: the same input gives the same answer and no file is read', (t) => {
  const input = { databaseLobFolder: '../', columnLobFolders: ['./'], file: 'a_lobseg_0/content/x.bin', siardPath: 'a.siard' };
  t.deepEqual(resolveLobLocation(input), resolveLobLocation(input));
  // It cannot read a file: nothing it imports, directly or through its own modules, is a
  // filesystem, process or network module.
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/^import\s[^;]*?from\s+'([^']+)'/gm)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')));
      else t.fail(`${path.relative(PROJECT_ROOT, file)} imports ${spec}`);
    }
  };
  visit(path.join(PROJECT_ROOT, 'src', 'siard', 'lob-location.ts'));
  t.true(seen.size >= 1);
});

test('one resolver for every cell of a column: each file, after any other, answered as a fresh resolution', (t) => {
  // Every vector's lobFolders (a column) with every vector's file (its cells), in turn through one
  // resolver: a cell's warnings or error never carry over to the next cell (the vectors hold
  // back-slashes, absolute files, bad percent-encodings and empty files).
  const files = vectors.map((v) => v.file);
  for (const v of vectors) {
    const folders = {
      columnLobFolders: (v.columnLobFolders ?? []).map((c) => c ?? undefined),
      ...(v.databaseLobFolder !== undefined ? { databaseLobFolder: v.databaseLobFolder } : {}),
      ...(v.siardPath !== undefined ? { siardPath: v.siardPath } : {}),
      ...(v.tableFolder !== undefined ? { tableFolder: v.tableFolder } : {}),
      ...(v.dialect !== undefined ? { dialect: v.dialect } : {}),
    };
    const resolve = lobLocationResolver(folders);
    for (const file of [...files, ...files]) t.deepEqual(resolve(file), lobLocationResolver(folders)(file), `${v.name}: ${file}`);
    t.deepEqual(resolve(v.file), resolveLobLocation({ ...folders, file: v.file }));
  }
});

test('a siardPath climbing out of the package is a programming error', (t) => {
  t.throws(() => resolveLobLocation({ file: 'x', siardPath: '../x.siard' }), { instanceOf: RangeError });
});
