/**
 * describe --help lists every describable item: each element of metadata.xsd that has a
 * <description> (the list below, read off the official metadata.xsd) by the name a template gives
 * its collection, the database texts, and every collection a template of SIARD Suite's Oracle OE
 * sample holds. The help is read from the command as registered, without a child process.
 */
import test from 'ava';
import { Command } from 'commander';
import { describeTemplate } from '../../../src/archive/describe/describe.js';
import { register } from '../../../src/cli/describe.js';
import { reference, sharedTest } from '../../helpers/shared.js';

/** metadata.xsd's types with a description, as template collections: schema, table, column, field, keys, ... */
const XSD_COLLECTIONS = [
  'schemas',
  'tables',
  'columns',
  'fields',
  'primaryKey',
  'foreignKeys',
  'candidateKeys',
  'checkConstraints',
  'triggers',
  'views',
  'routines',
  'parameters',
  'types',
  'attributes',
  'users',
  'roles',
  'privileges',
];
const DATABASE_TEXTS = ['description', 'archiver', 'archiverContact', 'dataOwner', 'dataOriginTimespan'];

function helpWords(): Set<string> {
  const program = new Command();
  register(program);
  const help = program.commands.find((c) => c.name() === 'describe')!.helpInformation();
  return new Set(help.split(/[^A-Za-z]+/));
}

test('describe --help names every item metadata.xsd describes and every database text', (t) => {
  const words = helpWords();
  for (const name of [...XSD_COLLECTIONS, ...DATABASE_TEXTS]) t.true(words.has(name), `${name} in describe --help`);
});

sharedTest('describe --help names every collection of a real template (SIARD Suite sfdboe.siard)', async (t) => {
  const template = await describeTemplate({ siard: reference('siard-samples', 'siardapi', 'sfdboe.siard') });
  const found = new Set<string>();
  const walk = (item: object): void => {
    for (const [key, value] of Object.entries(item)) {
      if (value === null || typeof value !== 'object') continue;
      if (key !== 'database') found.add(key);
      for (const child of Object.values(value as object)) if (child !== null && typeof child === 'object') walk(child as object);
    }
  };
  walk(template);
  t.true(found.size >= 12, [...found].join(', '));
  const words = helpWords();
  for (const name of found) t.true(words.has(name), `${name} in describe --help`);
});
