/**
 * The shape of the table in progress at a cut (docs/resume.md): a resumed run refuses a table whose
 * columns, column types (NOT NULL included) or keys changed, in a sentence naming what changed, and
 * only then; a shape through a JSON journal line and back is the same shape.
 */
import test from 'ava';
import type { SourceTable } from '../../../../src/siard/database-source.js';
import { shapeChange, tableShape } from '../../../../src/siard/resume/table-shape.js';

function big(change: (t: SourceTable) => void = () => undefined): SourceTable {
  const t: SourceTable = {
    name: 'big',
    columns: [
      { name: 'g', type: 'INTEGER', typeOriginal: 'integer', nullable: false },
      { name: 's', type: 'CHARACTER VARYING(20)', typeOriginal: 'character varying(20)', nullable: false },
      { name: 'note', type: 'CHARACTER LARGE OBJECT', typeOriginal: 'text', nullable: true },
    ],
    primaryKey: { name: 'big_pkey', columns: ['g', 's'] },
    candidateKeys: [],
    foreignKeys: [],
    rows: 36000,
  };
  change(t);
  return t;
}

const when = 'when the interrupted export stopped inside it';
const changeOf = (now: SourceTable) =>
  shapeChange(JSON.parse(JSON.stringify(tableShape(big()))) as ReturnType<typeof tableShape>, tableShape(now), 'public.big');

test('the same table after a JSON journal line: no change', (t) => {
  t.is(changeOf(big()), undefined);
  // the SIARD type may be settled again from the values (SQLite): only the declared type counts
  t.is(
    changeOf(
      big((b) => {
        b.columns[2]!.type = 'VARCHAR(900)';
      }),
    ),
    undefined,
  );
});

test("a key column's type changed, or its NOT NULL: named with both types", (t) => {
  t.is(
    changeOf(
      big((b) => {
        b.columns[0]!.typeOriginal = 'bigint';
      }),
    ),
    `Column g of table public.big was integer NOT NULL ${when} and is bigint NOT NULL now`,
  );
  t.is(
    changeOf(
      big((b) => {
        b.columns[1]!.nullable = true;
      }),
    ),
    `Column s of table public.big was character varying(20) NOT NULL ${when} and is character varying(20) now`,
  );
});

test('a column added, dropped or renamed: the column lists', (t) => {
  t.is(
    changeOf(
      big((b) => {
        b.columns.push({ name: 'extra', typeOriginal: 'date' });
      }),
    ),
    `The columns of table public.big were (g, s, note) ${when} and are (g, s, note, extra) now`,
  );
  t.is(
    changeOf(
      big((b) => {
        b.columns[2]!.name = 'remark';
      }),
    ),
    `The columns of table public.big were (g, s, note) ${when} and are (g, s, remark) now`,
  );
});

test('a key made of other columns of the same number, or a primary key become a unique key: the keys', (t) => {
  t.is(
    changeOf(
      big((b) => {
        b.primaryKey = { name: 'big_pkey', columns: ['g', 'note'] };
      }),
    ),
    `The keys of table public.big were primary key (g, s) ${when} and are primary key (g, note) now`,
  );
  t.is(
    changeOf(
      big((b) => {
        delete b.primaryKey;
        b.candidateKeys = [{ name: 'big_g_s', columns: ['g', 's'] }];
      }),
    ),
    `The keys of table public.big were primary key (g, s) ${when} and are unique key (g, s) now`,
  );
});
