/**
 * The library API is one file, src/index.ts, naming what we promise: no `export *` (which once
 * published 191 names, internals included), each name with a one-line comment, about forty of
 * them; and package.json publishes that file and nothing else under the package's name.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import * as api from '../../../src/index.js';

const INDEX = path.resolve('src/index.ts');

interface Promised {
  name: string;
  type: boolean;
  documented: boolean;
}

function promisedNames(): { names: Promised[]; wildcards: number } {
  const text = readFileSync(INDEX, 'utf8');
  const source = ts.createSourceFile(INDEX, text, ts.ScriptTarget.ES2022, true);
  const names: Promised[] = [];
  let wildcards = 0;
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    const clause = statement.exportClause;
    if (!clause || !ts.isNamedExports(clause)) {
      wildcards++;
      continue;
    }
    for (const spec of clause.elements) {
      const comments = ts.getLeadingCommentRanges(text, spec.getFullStart()) ?? [];
      names.push({
        name: spec.name.text,
        type: statement.isTypeOnly || spec.isTypeOnly,
        documented: comments.some((c) => text.slice(c.pos, c.end).startsWith('/**')),
      });
    }
  }
  return { names, wildcards };
}

test('src/index.ts names every promise, each documented, about forty of them', (t) => {
  const { names, wildcards } = promisedNames();
  t.is(wildcards, 0, 'no export * in the API file');
  t.deepEqual(
    names.filter((n) => !n.documented).map((n) => n.name),
    [],
    'each name has its /** one-line */ comment',
  );
  t.true(names.length >= 30 && names.length <= 50, `${names.length} names: a promise this size is kept; more belongs inside`);
});

test('the module gives exactly the promised values, each defined', (t) => {
  const values = promisedNames()
    .names.filter((n) => !n.type)
    .map((n) => n.name)
    .sort();
  t.deepEqual(Object.keys(api).sort(), values);
  for (const name of values) t.not((api as Record<string, unknown>)[name], undefined, name);
  t.is(typeof api.ingest, 'function');
  t.true(new api.UsageError('x') instanceof api.SiardOcflError);
});

test('package.json publishes the API file as the package entry', (t) => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
    main: string;
    types: string;
    exports: Record<string, string | { types: string; import: string }>;
  };
  t.is(pkg.main, './dist/index.js');
  t.is(pkg.types, './dist/index.d.ts');
  t.deepEqual(pkg.exports['.'], { types: './dist/index.d.ts', import: './dist/index.js' });
  // Nothing else under the package's name but the plugin and package.json: no deep imports of internals.
  t.deepEqual(Object.keys(pkg.exports).sort(), ['.', './ocfl-js-plugin', './package.json']);
});
