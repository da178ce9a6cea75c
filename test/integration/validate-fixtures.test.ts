/**
 * Issue 3, acceptance 1 and 2: the validator against the official OCFL fixtures (1.0 and 1.1)
 * and ocfl-py's extra fixtures. Good cases: no error (and no warning unless listed below with the
 * clause that makes it right); bad cases: invalid, with every code the folder name starts with;
 * warn cases: valid, with every named warning. Cases git cannot hold (empty folders) are built here.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { validateObject, validatePath, validateStorageRoot, type ValidationResult } from '../../src/ocfl/validate/index.js';
import { checkInventory } from '../../src/ocfl/validate/inventory.js';
import { Findings } from '../../src/ocfl/validate/findings.js';
import { EMITTED } from '../../src/ocfl/validate/codes.js';
import { readExtensionConfig } from '../../src/ocfl/validate/storage-root.js';
import { HAS_SHARED, reference, sharedTest } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

/** Codes a fixture name starts with: "E003_E063_empty" -> E003, E063; "inventory_E042a_x" -> E042. */
function expectedCodes(name: string): string[] {
  const m = /^(?:inventory_)?((?:[EW]\d{3}[a-z]?_)+)/.exec(name);
  return m
    ? m[1]
        .split('_')
        .filter(Boolean)
        .map((c) => c.slice(0, 4))
    : [];
}

const codesOf = (r: { errors: { code: string }[]; warnings: { code: string }[] }) =>
  new Set([...r.errors, ...r.warnings].map((f) => f.code));
const describe = (r: ValidationResult) => [...r.errors, ...r.warnings].map((f) => `${f.code} ${f.message}`).join('\n');

/** Every code the validator reports must be one the code table says it emits (spec/validation-codes.md). */
function assertKnownCodes(t: import('ava').ExecutionContext, r: ValidationResult): void {
  for (const code of codesOf(r)) t.true(EMITTED.has(code), `${code} is reported but missing from EMITTED`);
}

function list(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** Unzips a fixture into a temporary folder; returns the tree's root (the zip may hold one folder of the same name). */
function unzipFixture(zip: string): string {
  const name = path.basename(zip, '.zip');
  const out = path.join(tempDir('validate-zip-'), name);
  execFileSync('unzip', ['-q', zip, '-d', out]);
  const inner = readdirSync(out);
  return inner.length === 1 && inner[0] === name ? path.join(out, name) : out;
}

// ---------------------------------------------------------------- official fixtures (acceptance 1)

/** Fixtures whose stored tree cannot be what the name says (git keeps no empty folder): built below instead. */
const BUILT_IN_TEMP = new Set(['E003_E063_empty']);

for (const version of HAS_SHARED ? ['1.0', '1.1'] : []) {
  const base = reference('ocfl-fixtures', version);
  for (const name of list(path.join(base, 'good-objects'))) {
    test(`official ${version} good ${name}: no error, no warning`, async (t) => {
      const r = await validateObject(path.join(base, 'good-objects', name));
      t.true(r.valid, describe(r));
      t.deepEqual(r.warnings, []);
      t.is(r.objects, 1);
    });
  }
  for (const name of list(path.join(base, 'bad-objects'))) {
    if (BUILT_IN_TEMP.has(name)) continue;
    test(`official ${version} bad ${name}: invalid with ${expectedCodes(name).join(', ')}`, async (t) => {
      const r = await validateObject(path.join(base, 'bad-objects', name));
      t.false(r.valid);
      const got = codesOf(r);
      for (const code of expectedCodes(name)) t.true(got.has(code), `${code} not reported; got:\n${describe(r)}`);
      assertKnownCodes(t, r);
    });
  }
  for (const name of list(path.join(base, 'warn-objects'))) {
    test(`official ${version} warn ${name}: valid with ${expectedCodes(name).join(', ')}`, async (t) => {
      const r = await validateObject(path.join(base, 'warn-objects', name));
      t.true(r.valid, describe(r));
      const got = codesOf(r);
      for (const code of expectedCodes(name)) t.true(got.has(code), `${code} not reported; got:\n${describe(r)}`);
      assertKnownCodes(t, r);
    });
  }
}

sharedTest('the fixture sets are all there (a lost folder would silently shrink the tests)', (t) => {
  for (const v of ['1.0', '1.1']) {
    t.true(list(reference('ocfl-fixtures', v, 'bad-objects')).length >= 50, v);
    t.true(list(reference('ocfl-fixtures', v, 'good-objects')).length >= 10, v);
    t.true(list(reference('ocfl-fixtures', v, 'warn-objects')).length >= 13, v);
  }
});

// Empty-folder cases: the fixtures README says git cannot hold them, so they are built here.

test('E003 + E063: an empty folder as object root', async (t) => {
  const dir = path.join(tempDir(), 'E003_E063_empty');
  mkdirSync(dir);
  const r = await validateObject(dir);
  t.false(r.valid);
  t.true(codesOf(r).has('E003'));
  t.true(codesOf(r).has('E063'));
});

sharedTest('E024: an empty folder inside a content folder', async (t) => {
  for (const v of ['1.0', '1.1']) {
    const dir = path.join(tempDir(), 'obj');
    cpSync(reference('ocfl-fixtures', v, 'good-objects', 'minimal_one_version_one_file'), dir, { recursive: true });
    t.true((await validateObject(dir)).valid, 'the copy is valid before the change');
    mkdirSync(path.join(dir, 'v1', 'content', 'empty_dir'));
    const r = await validateObject(dir);
    t.false(r.valid);
    t.deepEqual([...codesOf(r)], ['E024'], describe(r));
  }
});

sharedTest('W003: a version without files that has an (empty) content folder', async (t) => {
  for (const v of ['1.0', '1.1']) {
    const dir = path.join(tempDir(), 'obj');
    cpSync(reference('ocfl-fixtures', v, 'good-objects', 'minimal_no_content'), dir, { recursive: true });
    mkdirSync(path.join(dir, 'v1', 'content'));
    const r = await validateObject(dir);
    t.true(r.valid, describe(r));
    t.deepEqual([...codesOf(r)], ['W003']);
  }
});

sharedTest('E073: an empty folder under a storage root', async (t) => {
  const dir = path.join(tempDir(), 'root');
  cpSync(reference('ocfl-extra-fixtures', '1.0', 'good-storage-roots', 'simple-root'), dir, { recursive: true });
  t.deepEqual((await validateStorageRoot(dir)).errors, []);
  mkdirSync(path.join(dir, 'a', 'b'), { recursive: true });
  const r = await validateStorageRoot(dir);
  t.false(r.valid);
  t.deepEqual([...codesOf(r)], ['E073']);
  t.is(r.errors[0].path, path.join(dir, 'a/b'));
});

// ---------------------------------------------------------------- extra fixtures (acceptance 2)

/**
 * Good extra cases that rightly carry warnings. Each is a SHOULD the case does not meet; the
 * specification makes them warnings, so the case stays valid (and the test requires them).
 */
const EXTRA_GOOD_WARNINGS: Record<string, { codes: string[]; clause: string }> = {
  '1.0/good-objects/root_ext0003_horrible-obj': {
    codes: ['W005'],
    clause: 'OCFL 1.0 3.5.1: the id "..hor/rib:le-$id" is not a URI, and id "SHOULD be a URI" (W005)',
  },
  '1.0/good-objects/root_ext0003_object-01': { codes: ['W005'], clause: 'OCFL 1.0 3.5.1: the id "object-01" is not a URI (W005)' },
  '1.0/good-storage-roots/root_ext0003_ex1': {
    codes: ['W005'],
    clause: 'OCFL 1.0 3.5.1: ids "object-01" and "..hor/rib:le-$id" are not URIs (W005)',
  },
  '1.0/good-storage-roots/root_ext0003_ex2': { codes: ['W005'], clause: 'OCFL 1.0 3.5.1: the id "..hor/rib:le-$id" is not a URI (W005)' },
  '1.0/good-storage-roots/unreg-extension-dir-root': {
    codes: ['W016'],
    clause: 'OCFL 1.0 4.4: storage root extension folders SHOULD be registered names; this case is named for it (W016)',
  },
  '1.0/good-storage-roots/fedora-root': {
    codes: ['W005', 'W007', 'W008', 'W013'],
    clause:
      'Fedora objects: ids like "info:fedora/..." pass, but some versions lack message/user (3.5.3.1, W007) or a user address (W008), ' +
      'some ids are not URIs (W005), and the object extension folder "mutable-head" is not the registered name ' +
      '"0005-mutable-head" (4.1, W013)',
  },
};

async function validateExtra(kind: string, dir: string): Promise<ValidationResult> {
  return kind.includes('storage-roots') ? validateStorageRoot(dir) : validateObject(dir);
}

for (const version of HAS_SHARED ? ['1.0', '1.1'] : []) {
  const base = reference('ocfl-extra-fixtures', version);
  for (const kind of ['good-objects', 'good-storage-roots', 'bad-objects', 'bad-storage-roots', 'warn-objects']) {
    for (const file of list(path.join(base, kind))) {
      const name = file.replace(/\.zip$/, '');
      const key = `${version}/${kind}/${name}`;
      const expected = expectedCodes(name);
      test(`extra ${key}${expected.length ? ': ' + expected.join(', ') : ''}`, async (t) => {
        const src = path.join(base, kind, file);
        const dir = file.endsWith('.zip') ? unzipFixture(src) : src;
        const r = await validateExtra(kind, dir);
        const got = codesOf(r);
        assertKnownCodes(t, r);
        if (kind.startsWith('good')) {
          t.deepEqual(r.errors, [], describe(r));
          const allowed = EXTRA_GOOD_WARNINGS[key]?.codes ?? [];
          t.deepEqual(
            [...new Set(r.warnings.map((w) => w.code))].sort(),
            [...allowed].sort(),
            EXTRA_GOOD_WARNINGS[key]?.clause ?? 'no warning expected',
          );
          t.true(r.objects >= 1);
        } else if (kind.startsWith('bad')) {
          t.false(r.valid);
          for (const code of expected) t.true(got.has(code), `${code} not reported; got:\n${describe(r)}`);
        } else {
          t.true(r.valid, describe(r));
          for (const code of expected) t.true(got.has(code), `${code} not reported; got:\n${describe(r)}`);
        }
      });
    }
  }
  for (const file of list(path.join(base, 'bad-inventories'))) {
    test(`extra ${version}/bad-inventories/${file}: ${expectedCodes(file).join(', ')}`, (t) => {
      const findings = new Findings();
      const inv = checkInventory(JSON.parse(readFileSync(path.join(base, 'bad-inventories', file), 'utf8')), {
        findings,
        where: file,
        specVersion: version as '1.0' | '1.1',
      });
      t.truthy(inv);
      t.false(findings.valid);
      for (const code of expectedCodes(file)) t.true(findings.codes().has(code), `${code} not reported`);
    });
  }
}

sharedTest('extra simple-bad-root: each broken object and the stray file and empty folder are reported', async (t) => {
  const dir = unzipFixture(reference('ocfl-extra-fixtures', '1.0', 'bad-storage-roots', 'simple-bad-root.zip'));
  const r = await validateStorageRoot(dir);
  const at = (code: string, rel: string) => r.errors.some((f) => f.code === code && f.path.startsWith(path.join(dir, rel)));
  t.true(at('E073', 'empty_dir'));
  t.true(at('E003', 'object_multiple_declarations'));
  t.true(at('E006', 'object_unknown_version'));
  t.true(at('E072', 'dir_with_file_but_no_declaration/a_file.txt'));
  // Two objects claim the id ark:123/abc: ids must be unique in the root (3.5.1, E037).
  t.true(at('E037', 'object_unknown_version'));
  // The good objects of the root report nothing.
  t.false(r.errors.some((f) => f.path.startsWith(path.join(dir, 'ark%3A%2F12345%2Fbcd987'))));
});

sharedTest('extra extension_configs: config.json must be a JSON object; a missing one means defaults', async (t) => {
  const base = reference('ocfl-extra-fixtures', 'extension_configs', 'extensions');
  t.deepEqual(await readExtensionConfig(path.join(base, 'good_param')), { config: { extensionName: 'good_param', param: 'yay!' } });
  t.deepEqual(await readExtensionConfig(path.join(base, 'no_config')), {});
  t.regex((await readExtensionConfig(path.join(base, 'not_json'))).problem ?? '', /not valid JSON/);
  t.regex((await readExtensionConfig(path.join(base, 'not_json_object'))).problem ?? '', /not a JSON object/);
  // In a storage root the unusable config of the declared layout is an error (E071: the layout cannot be applied).
  for (const bad of ['not_json', 'not_json_object']) {
    const dir = path.join(tempDir(), 'root');
    cpSync(reference('ocfl-extra-fixtures', '1.0', 'good-storage-roots', 'reg-extension-dir-root'), dir, { recursive: true });
    const cfg = path.join(dir, 'extensions', '0003-hash-and-id-n-tuple-storage-layout', 'config.json');
    writeFileSync(cfg, readFileSync(path.join(base, bad, 'config.json')));
    const r = await validateStorageRoot(dir);
    t.true(
      r.errors.some((f) => f.code === 'E071' && f.path === cfg),
      describe(r),
    );
  }
});

sharedTest('extra misc declarations: two declarations and an unknown one', async (t) => {
  const multiple = reference('ocfl-extra-fixtures', 'misc', 'multiple_declarations');
  t.true(codesOf(await validateStorageRoot(multiple)).has('E076'));
  t.true(codesOf(await validateObject(multiple)).has('E003'));
  const unknown = reference('ocfl-extra-fixtures', 'misc', 'unknown_declaration');
  t.true(codesOf(await validateStorageRoot(unknown)).has('E079'));
  t.true(codesOf(await validateObject(unknown)).has('E006'));
  // As a path given to the CLI it is neither an object nor a root: the command cannot run.
  await t.throwsAsync(validatePath(unknown), { message: /neither an OCFL object/ });
});

sharedTest('the 0003 example roots: objects sit where the layout maps their ids, and a moved object is E083', async (t) => {
  const dir = unzipFixture(reference('ocfl-extra-fixtures', '1.0', 'good-storage-roots', 'root_ext0003_ex1.zip'));
  const r = await validateStorageRoot(dir);
  t.deepEqual(r.errors, []);
  t.is(r.objects, 2);
  // Move object-01 one level up: still a valid object, but no longer where 0003 puts it.
  execFileSync('mv', [path.join(dir, '3c0/ff4/240/object-01'), path.join(dir, '3c0/ff4/object-01')]);
  execFileSync('rmdir', [path.join(dir, '3c0/ff4/240')]);
  const moved = await validateStorageRoot(dir);
  t.deepEqual([...new Set(moved.errors.map((f) => f.code))], ['E083'], describe(moved));
  t.regex(moved.errors[0].message, /3c0\/ff4\/240\/object-01/);
});

// ---------------------------------------------------------------- the generated code table

sharedTest('spec/validation-codes.md is what npm run codes generates, and every reported code is shown by a fixture or test', async (t) => {
  const { renderValidationCodes, OUTPUT } = await import('../../spec/make-validation-codes.js');
  const text = renderValidationCodes();
  t.is(readFileSync(OUTPUT, 'utf8'), text, 'run `npm run codes` and commit spec/validation-codes.md');
  for (const line of text.split('\n').filter((l) => /^\| [EW]\d{3} /.test(l))) {
    const [first, , checked, shown] = line.split(' | ').map((s) => s.trim());
    const code = first.replace(/^\| /, '');
    if (checked === 'yes') t.not(shown.replace(/\|$/, '').trim(), '-', `${code} is reported but no fixture or test shows it`);
    else t.regex(checked, /^no: .{10,}/, `${code} is not reported and says why`);
  }
});
