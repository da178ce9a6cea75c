/**
 * Issue 33, describe: every describable item metadata.xsd has (the database texts; schemas, types
 * and their attributes, tables, columns and their fields, keys, check constraints, triggers, views,
 * routines and their parameters, users, roles, privileges) in the template, described (template ->
 * edit -> apply -> template again equal), cleared, valid against the official metadata.xsd with
 * hostile text, and an unknown name in each collection refused, naming it. The same template
 * applied to the archive model (model.ts, for export --describe) gives the same texts.
 * On the Oracle OE sample (SIARD Suite), which holds all of these but check constraints, triggers
 * and role grants; those are added to its model, written back with our writer.
 */
import test from 'ava';
import { describeMetadata } from '../../../../src/archive/describe/apply.js';
import { describeArchiveModel } from '../../../../src/archive/describe/model.js';
import { DATABASE_FIELDS, templateOf, type DescribedItem, type DescribeTemplate } from '../../../../src/archive/describe/template.js';
import { placedTree } from '../../../../src/archive/describe/xml-positions.js';
import { metadataText } from '../../../../src/archive/metadata-version.js';
import { loadLibxml2, validateDocument } from '../../../../src/siard/check/xsd-validator.js';
import { metadataXml } from '../../../../src/siard/metadata-xml.js';
import type { SiardArchive } from '../../../../src/siard/model.js';
import { parseSiardMetadata } from '../../../../src/siard/reader/metadata.js';
import { SiardReader } from '../../../../src/siard/reader/siard-reader.js';
import { officialMetadataXsd } from '../../../../src/siard/writer.js';
import { reference, sharedTest } from '../../../helpers/shared.js';

const WHAT = 'sfdboe.siard: header/metadata.xml';
const MANDATORY = ['dataOwner', 'dataOriginTimespan'];
/** Markup, a CDATA end, a control character, a back-slash, CR LF, an astral character. */
const HOSTILE = ' <b>&amp; "q" ]]> \u0001 \\ \r\n 😀 日本語';

/** Every collection of items a template can hold, by its name, with how many items it has in `template`. */
function collectionsIn(template: DescribeTemplate): Map<string, number> {
  const found = new Map<string, number>();
  const walk = (item: DescribedItem): void => {
    for (const [key, value] of Object.entries(item)) {
      if (key === 'description' || key === 'database' || value === null || typeof value !== 'object') continue;
      found.set(key, (found.get(key) ?? 0) + Object.keys(value).length);
      for (const child of Object.values(value)) walk(child);
    }
  };
  walk(template as DescribedItem);
  return found;
}

/** A copy of `template` with every text set by `text` (from the item's path); the number of texts set. */
function everyText(template: DescribeTemplate, text: (path: string) => string): { edited: DescribeTemplate; texts: number } {
  const edited = structuredClone(template);
  let texts = 0;
  for (const f of DATABASE_FIELDS) {
    edited.database![f] = text(`database.${f}`);
    texts++;
  }
  const walk = (item: DescribedItem, path: string): void => {
    for (const [key, value] of Object.entries(item)) {
      if (key === 'description') {
        item.description = text(path);
        texts++;
      } else if (key !== 'database' && value !== null && typeof value === 'object')
        for (const [name, child] of Object.entries(value)) walk(child, `${path}${key}.${JSON.stringify(name)}.`);
    }
  };
  walk(edited as DescribedItem, '');
  return { edited, texts };
}

/** The describe template's reading of the texts: every text given, "" cleared to null. */
function asRead(template: DescribeTemplate): DescribeTemplate {
  return JSON.parse(JSON.stringify(template, (_, v: unknown) => (v === '' ? null : v))) as DescribeTemplate;
}

let sampleXml = '';
/** The sample's model with a check constraint, a trigger and a role grant added, as our writer writes it. */
let writtenXml = '';
let writtenModel: SiardArchive;

test.before(async () => {
  const reader = await SiardReader.open(reference('siard-samples', 'siardapi', 'sfdboe.siard'));
  try {
    sampleXml = await metadataText(reader, WHAT);
  } finally {
    reader.close();
  }
  writtenModel = parseSiardMetadata(sampleXml, WHAT).archive;
  const table = writtenModel.schemas.flatMap((s) => s.tables).find((x) => x.columns.length > 1)!;
  table.checkConstraints = [{ name: 'positive', condition: `${table.columns[0]!.name} > 0` }];
  table.triggers = [{ name: 'audit_row', actionTime: 'AFTER', triggerEvent: 'INSERT', triggeredAction: 'CALL audit()' }];
  writtenModel.privileges = [...(writtenModel.privileges ?? []), { type: 'SALES_ROLE', grantor: 'OE', grantee: 'HR', option: 'ADMIN' }];
  writtenXml = metadataXml(writtenModel);
  await loadLibxml2();
});

async function valid(xml: string): Promise<string[]> {
  await loadLibxml2();
  return validateDocument(Buffer.from(xml, 'utf8'), officialMetadataXsd());
}

sharedTest('the template holds every describable item of the sample', (t) => {
  const found = collectionsIn(templateOf(placedTree(sampleXml, WHAT)));
  for (const c of ['schemas', 'types', 'attributes', 'tables', 'columns', 'fields', 'primaryKey', 'foreignKeys', 'candidateKeys'])
    t.true((found.get(c) ?? 0) > 0, `${c}: ${found.get(c)}`);
  for (const c of ['views', 'routines', 'parameters', 'users', 'roles', 'privileges'])
    t.true((found.get(c) ?? 0) > 0, `${c}: ${found.get(c)}`);
  // One item per element: no two items of a collection share a name, so none is out of reach.
  const count = (tag: string) => sampleXml.split(`<${tag}>`).length - 1;
  t.is(found.get('privileges'), count('privilege'));
  t.is(found.get('attributes'), count('attribute'));
  t.is(found.get('parameters'), count('parameter'));
  t.is(found.get('fields'), count('field'));
});

sharedTest('every text described: the template reads back as edited, and metadata.xml stays valid', async (t) => {
  t.deepEqual(await valid(sampleXml), [], 'the sample is valid to begin with');
  const original = templateOf(placedTree(sampleXml, WHAT));
  const { edited, texts } = everyText(original, (p) => p + HOSTILE);
  const described = await describeMetadata(sampleXml, edited, WHAT);
  t.is(described.changes.length, texts, 'one change per text');
  t.deepEqual(templateOf(placedTree(described.xml, WHAT)), edited);
  t.deepEqual(await valid(described.xml), []);
  // Cleared: every optional text absent, still valid; the two mandatory ones cannot be cleared.
  const { edited: blank } = everyText(original, (p) => (MANDATORY.some((f) => p === `database.${f}`) ? 'kept' : ''));
  const cleared = await describeMetadata(described.xml, blank, WHAT);
  t.deepEqual(templateOf(placedTree(cleared.xml, WHAT)), asRead(blank));
  t.false(cleared.xml.includes('<description>'), 'no description element left');
  t.deepEqual(await valid(cleared.xml), []);
  for (const f of MANDATORY)
    await t.throwsAsync(describeMetadata(cleared.xml, { database: { [f]: '' } }, WHAT), {
      message: new RegExp(`database\\.${f} is mandatory`),
      code: 'DESCRIBE_TEMPLATE',
    });
});

sharedTest('check constraints, triggers and role grants; the archive model described as metadata.xml is', async (t) => {
  t.deepEqual(await valid(writtenXml), [], 'our writer writes the sample model validly');
  const original = templateOf(placedTree(writtenXml, WHAT));
  const found = collectionsIn(original);
  t.is(found.get('checkConstraints'), 1);
  t.is(found.get('triggers'), 1);
  t.true(Object.keys(original.privileges!).includes('SALES_ROLE TO HR GRANTED BY OE WITH ADMIN OPTION'));
  const { edited } = everyText(original, (p) => (p.includes('"SALES_ROLE') || p.includes('"positive"') ? '' : `${p}${HOSTILE}`));
  const asText = await describeMetadata(writtenXml, edited, WHAT);
  t.deepEqual(templateOf(placedTree(asText.xml, WHAT)), asRead(edited));
  t.deepEqual(await valid(asText.xml), []);
  const model = structuredClone(writtenModel);
  describeArchiveModel(edited)(model);
  const fromModel = metadataXml(model);
  t.deepEqual(templateOf(placedTree(fromModel, WHAT)), asRead(edited));
  t.deepEqual(await valid(fromModel), []);
});

sharedTest('a name the archive does not hold, in any collection, is refused naming it, text and model alike', async (t) => {
  const template = templateOf(placedTree(writtenXml, WHAT));
  const schema = Object.keys(template.schemas!).find((s) => Object.keys(template.schemas![s]!['types'] ?? {}).length > 0)!;
  const at = template.schemas![schema]!;
  const first = (c: string) => Object.keys(at[c] as object)[0]!;
  const routine = Object.keys(at['routines'] as object).find((r) => (at['routines'] as Record<string, DescribedItem>)[r]!['parameters'])!;
  const cases: Array<[DescribeTemplate, RegExp]> = [
    [{ schemas: { [schema]: { types: { NO_TYPE: { description: 'x' } } } } }, /types\."NO_TYPE"/],
    [{ schemas: { [schema]: { types: { [first('types')]: { attributes: { NO_ATTR: {} } } } } } }, /attributes\."NO_ATTR"/],
    [{ schemas: { [schema]: { routines: { [routine]: { parameters: { NO_PARAM: {} } } } } } }, /parameters\."NO_PARAM"/],
    [{ schemas: { [schema]: { routines: { NO_ROUTINE: {} } } } }, /routines\."NO_ROUTINE"/],
    [{ schemas: { [schema]: { views: { NO_VIEW: {} } } } }, /views\."NO_VIEW"/],
    [{ schemas: { [schema]: { tables: { [first('tables')]: { foreignKeys: { NO_FK: {} } } } } } }, /foreignKeys\."NO_FK"/],
    [{ privileges: { 'SELECT ON X TO Y GRANTED BY Z': { description: 'x' } } }, /privileges\."SELECT ON X TO Y GRANTED BY Z"/],
    [{ roles: { NO_ROLE: {} } }, /roles\."NO_ROLE"/],
  ];
  for (const [given, name] of cases) {
    await t.throwsAsync(describeMetadata(writtenXml, given, WHAT), { message: name, code: 'DESCRIBE_UNKNOWN_NAME' });
    t.throws(() => describeArchiveModel(given)(structuredClone(writtenModel)), { message: name, code: 'DESCRIBE_UNKNOWN_NAME' });
  }
});

sharedTest(
  'any text a JSON string can hold round trips or is refused whole: NUL and controls kept, a lone surrogate or U+FFFE refused',
  async (t) => {
    const schema = Object.keys(templateOf(placedTree(sampleXml, WHAT)).schemas!)[0]!;
    const odd = '\u0000\u0008\u000b\u001f\u007f\u0080\u009f\u00a0\u2028\u2029\ufeff\ud83d\ude00 tail ';
    const described = await describeMetadata(sampleXml, { schemas: { [schema]: { description: odd } } }, WHAT);
    t.is(templateOf(placedTree(described.xml, WHAT)).schemas![schema]!.description, odd);
    t.deepEqual(await valid(described.xml), []);
    for (const [bad, why] of [
      ['a\ud800b', /database\.archiver cannot be written: it contains a lone surrogate U\+D800/],
      ['a\udc00', /lone surrogate U\+DC00/],
      ['a\ufffe', /non-character U\+FFFE/],
    ] as const) {
      const given = { schemas: { [schema]: { description: 'fine' } }, database: { archiver: bad } };
      await t.throwsAsync(describeMetadata(sampleXml, given, WHAT), { message: why, code: 'DESCRIBE_TEMPLATE' });
      // export --describe: refused when the template is read, before the export starts.
      t.throws(() => describeArchiveModel(given), { message: why, code: 'DESCRIBE_TEMPLATE' });
    }
  },
);
