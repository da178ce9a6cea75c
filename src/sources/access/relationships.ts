/**
 * Access relationships (the system table MSysRelationships, one row per column pair) as foreign
 * keys on the table that refers; grbit's bits say whether the database enforces it and cascades.
 */
import type MDBReader from 'mdb-reader';
import type { SiardForeignKey } from '../../siard/model.js';

interface RelationshipRow {
  szRelationship: string;
  szObject: string;
  szColumn: string;
  szReferencedObject: string;
  szReferencedColumn: string;
  icolumn: number;
  grbit: number;
}

const NOT_ENFORCED = 0x2;
const CASCADE_UPDATES = 0x100;
const CASCADE_DELETES = 0x1000;

/** The foreign keys of each table, by the name of the table that refers. */
export function foreignKeysByTable(reader: MDBReader, schema: string): Map<string, SiardForeignKey[]> {
  const out = new Map<string, SiardForeignKey[]>();
  if (!reader.getTableNames({ normalTables: false, systemTables: true }).includes('MSysRelationships')) return out;
  const rows = reader.getTable('MSysRelationships').getData() as unknown as RelationshipRow[];
  const byName = new Map<string, RelationshipRow[]>();
  for (const row of rows) byName.set(row.szRelationship, [...(byName.get(row.szRelationship) ?? []), row]);
  for (const [name, pairs] of byName) {
    pairs.sort((a, b) => a.icolumn - b.icolumn);
    const first = pairs[0]!;
    const key: SiardForeignKey = {
      name,
      referencedSchema: schema,
      referencedTable: first.szReferencedObject,
      references: pairs.map((p) => ({ column: p.szColumn, referenced: p.szReferencedColumn })),
      deleteAction: first.grbit & CASCADE_DELETES ? 'CASCADE' : 'NO ACTION',
      updateAction: first.grbit & CASCADE_UPDATES ? 'CASCADE' : 'NO ACTION',
      ...(first.grbit & NOT_ENFORCED ? { description: 'Access relationship without referential integrity (not enforced).' } : {}),
    };
    out.set(first.szObject, [...(out.get(first.szObject) ?? []), key]);
  }
  return out;
}
