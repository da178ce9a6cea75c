/**
 * Complex columns (Access 2007 and later): attachments, multi-valued columns, and any other kind
 * Access makes the same way. The cell holds an id; the values are rows of a hidden "flat" table,
 * each with that id in a foreign key column. MSysComplexColumns names, for each complex column (by
 * its table's definition page and its name), the flat table and the complex type: a system table
 * `MSysComplexType_<kind>` whose columns are the value's (`Value` for a multi-valued column of
 * UnsignedByte, Short, Long, IEEESingle, IEEEDouble, GUID, Decimal or Text; FileName, FileData...
 * for an attachment). The flat table holds those columns, an auto-number of its own and the
 * foreign key (the Long that is neither, named `_<column>` after the column's first name in the samples).
 */
import type MDBReader from 'mdb-reader';
import type { Column } from 'mdb-reader';

export interface ComplexColumn {
  /** the column in its table */
  column: Column;
  /** the complex type's name after MSysComplexType_ ("Attachment", "Text", "Long"...) */
  kind: string;
  flatTable: string;
  /** the flat table's column holding the cell's id */
  foreignKey: string;
  /** the flat table's columns that hold the values, in the complex type's order */
  values: Column[];
}

interface ComplexColumnRow {
  ColumnName: string;
  ComplexTypeObjectID: number;
  FlatTableID: number;
  ConceptualTableID: number;
}

const TYPE_PREFIX = 'MSysComplexType_';
const ID_MASK = 0xffffff;

/** What the database says of its complex columns: MSysComplexColumns' rows and the names of MSysObjects' ids. */
export interface ComplexCatalogue {
  rows: ComplexColumnRow[];
  names: Map<number, string>;
}

export function complexCatalogue(reader: MDBReader): ComplexCatalogue | undefined {
  if (!reader.getTableNames({ normalTables: false, systemTables: true }).includes('MSysComplexColumns')) return undefined;
  const rows = reader.getTable('MSysComplexColumns').getData() as unknown as ComplexColumnRow[];
  const objects = reader.getTable('MSysObjects').getData({ columns: ['Id', 'Name'] }) as Array<{ Id: number; Name: string }>;
  return { rows, names: new Map(objects.map((o) => [o.Id & ID_MASK, o.Name])) };
}

/** The complex column `column` of the table whose definition starts on `firstPage`; throws a sentence when it cannot be resolved. */
export function resolveComplex(
  reader: MDBReader,
  catalogue: ComplexCatalogue | undefined,
  firstPage: number,
  column: Column,
): ComplexColumn {
  const row = catalogue?.rows.find(
    (r) => (r.ConceptualTableID & ID_MASK) === firstPage && r.ColumnName.toLowerCase() === column.name.toLowerCase(),
  );
  if (!catalogue || !row) throw new Error('MSysComplexColumns has no row for it');
  const typeTable = catalogue.names.get(row.ComplexTypeObjectID & ID_MASK);
  const flatTable = catalogue.names.get(row.FlatTableID & ID_MASK);
  if (!typeTable?.startsWith(TYPE_PREFIX) || !flatTable) throw new Error('its complex type or flat table is not in MSysObjects');
  const typeColumns = reader.getTable(typeTable).getColumnNames();
  const flat = reader.getTable(flatTable).getColumns();
  const values = typeColumns.map((name) => flat.find((c) => c.name === name));
  const candidates = flat.filter((c) => c.type === 'long' && !c.autoLong && !typeColumns.includes(c.name));
  // Access names it "_<the column's first name>"; where the flat table holds more Longs, the "_" tells
  const underscored = candidates.filter((c) => c.name.startsWith('_'));
  const foreignKey = candidates.length === 1 ? candidates[0] : underscored.length === 1 ? underscored[0] : undefined;
  if (values.some((v) => v === undefined) || !foreignKey)
    throw new Error(`its flat table "${flatTable}" lacks the columns of ${typeTable}`);
  return { column, kind: typeTable.slice(TYPE_PREFIX.length), flatTable, foreignKey: foreignKey.name, values: values as Column[] };
}
