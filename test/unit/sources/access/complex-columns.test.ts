/**
 * Which complex column is which: attachments.accdb's attachment column resolved through
 * MSysComplexColumns (its flat table, the foreign key "_Field1", the attachment type's columns in
 * their order); a multi-valued column described by the same system tables (a reader standing in
 * for mdb-reader with MSysComplexColumns, MSysObjects, MSysComplexType_Long and a flat table as
 * Access lays them out); what cannot be resolved is a sentence.
 */
import test from 'ava';
import MDBReader, { type Column } from 'mdb-reader';
import { readFileSync } from 'node:fs';
import { complexCatalogue, resolveComplex } from '../../../../src/sources/access/complex-columns.js';
import { firstDefinitionPages } from '../../../../src/sources/access/keys.js';
import { reference, sharedTest } from '../../../helpers/shared.js';

const column = (name: string, type: Column['type'], autoLong = false): Column => ({
  name,
  type,
  size: 4,
  fixedLength: true,
  nullable: true,
  autoLong,
  autoUUID: false,
});

sharedTest('attachments.accdb: the attachment column, its flat table and foreign key, the type columns in order', (t) => {
  const reader = new MDBReader(readFileSync(reference('access-samples/data/V2016/attachments.accdb')));
  const page = firstDefinitionPages(reader).get('Table1')!;
  const attachments = reader
    .getTable('Table1')
    .getColumns()
    .find((c) => c.name === 'Attachments')!;
  const complex = resolveComplex(reader, complexCatalogue(reader), page, attachments);
  t.is(complex.kind, 'Attachment');
  t.is(complex.flatTable, 'f_F42896D510474144890B9076E2CD27D9_Field1');
  t.is(complex.foreignKey, '_Field1');
  t.deepEqual(
    complex.values.map((c) => c.name),
    ['FileURL', 'FileName', 'FileType', 'FileData', 'FileTimeStamp', 'FileFlags'],
  );
});

/** A reader holding only the system tables of one multi-valued Long column "Scores" of table "T" (definition page 80). */
function fakeReader(flatColumns: Column[]): MDBReader {
  const tables: Record<string, { columns: Column[]; rows: Array<Record<string, unknown>> }> = {
    MSysComplexColumns: {
      columns: [],
      rows: [{ ColumnName: 'Scores', ComplexTypeObjectID: 27, FlatTableID: 0x1000091, ConceptualTableID: 80, ComplexID: 1 }],
    },
    MSysObjects: {
      columns: [],
      rows: [
        { Id: 27, Name: 'MSysComplexType_Long' },
        { Id: 0x1000091, Name: 'f_ABC_Scores' },
      ],
    },
    MSysComplexType_Long: { columns: [column('Value', 'long')], rows: [] },
    f_ABC_Scores: { columns: flatColumns, rows: [] },
  };
  return {
    getTableNames: () => Object.keys(tables),
    getTable: (name: string) => ({
      getColumns: () => tables[name]!.columns,
      getColumnNames: () => tables[name]!.columns.map((c) => c.name),
      getData: () => tables[name]!.rows,
    }),
  } as unknown as MDBReader;
}

test('a multi-valued Long column: its kind, flat table (id masked to 24 bits), foreign key and Value column', (t) => {
  const reader = fakeReader([column('T_Scores', 'long', true), column('Value', 'long'), column('_Scores', 'long')]);
  const complex = resolveComplex(reader, complexCatalogue(reader), 80, column('scores', 'complex'));
  t.is(complex.kind, 'Long');
  t.is(complex.flatTable, 'f_ABC_Scores');
  t.is(complex.foreignKey, '_Scores');
  t.deepEqual(
    complex.values.map((c) => [c.name, c.type]),
    [['Value', 'long']],
  );
});

test('what cannot be resolved: no row for the column, a flat table without the type columns', (t) => {
  const reader = fakeReader([column('T_Scores', 'long', true), column('_Scores', 'long')]);
  t.throws(() => resolveComplex(reader, complexCatalogue(reader), 81, column('Scores', 'complex')), {
    message: 'MSysComplexColumns has no row for it',
  });
  t.throws(() => resolveComplex(reader, complexCatalogue(reader), 80, column('Scores', 'complex')), {
    message: 'its flat table "f_ABC_Scores" lacks the columns of MSysComplexType_Long',
  });
});
