/**
 * The keys a check collects from the tables' rows: primary and candidate keys, and for each
 * foreign key its referencing columns and the referenced columns of the other table (the
 * referenced side as its own key, so any column list can be referenced, or the unique key of
 * exactly those columns).
 */
import type { SiardArchive } from '../model.js';
import type { KeySpec } from './key-index.js';

export function keySpecs(archive: SiardArchive): Map<string, KeySpec[]> {
  const out = new Map<string, KeySpec[]>();
  const all: KeySpec[] = [];
  const add = (schemaName: string, tableName: string, spec: Omit<KeySpec, 'id' | 'indexes' | 'table'>): KeySpec | undefined => {
    const schema = archive.schemas.find((s) => s.name === schemaName);
    const table = schema?.tables.find((t) => t.name === tableName);
    if (!table) return undefined;
    const indexes = spec.columns.map((c) => table.columns.findIndex((x) => x.name === c));
    if (indexes.some((i) => i < 0) || indexes.length === 0) return undefined;
    const key = `${schemaName}\u0000${tableName}`;
    const k: KeySpec = { ...spec, id: all.length, indexes, table: `${schemaName}.${tableName}` };
    all.push(k);
    out.set(key, [...(out.get(key) ?? []), k]);
    return k;
  };
  const referenced = new Map<string, KeySpec>();
  // unique keys first: a foreign key referencing exactly a table's primary or candidate key uses that
  // key's values (each row's key stored once), any other column list gets a 'referenced' key of its own
  for (const s of archive.schemas) {
    for (const t of s.tables) {
      const unique = [
        ...(t.primaryKey ? [{ name: t.primaryKey.name, kind: 'primary' as const, columns: t.primaryKey.columns }] : []),
        ...(t.candidateKeys ?? []).map((c) => ({ name: c.name, kind: 'candidate' as const, columns: c.columns })),
      ];
      for (const u of unique) {
        const k = add(s.name, t.name, u);
        if (k) referenced.set(`${s.name}\u0000${t.name}\u0000${u.columns.join('\u0000')}`, k);
      }
    }
  }
  for (const s of archive.schemas) {
    for (const t of s.tables) {
      for (const fk of t.foreignKeys ?? []) {
        const targetSchema = fk.referencedSchema || s.name;
        const cols = fk.references.map((r) => r.referenced);
        const rk = `${targetSchema}\u0000${fk.referencedTable}\u0000${cols.join('\u0000')}`;
        let target = referenced.get(rk);
        if (!target) {
          target = add(targetSchema, fk.referencedTable, {
            name: `${fk.referencedTable}(${cols.join(', ')})`,
            kind: 'referenced',
            columns: cols,
          });
          if (target) referenced.set(rk, target);
        }
        if (target) {
          add(s.name, t.name, { name: fk.name, kind: 'foreign', columns: fk.references.map((r) => r.column), target: target.id });
        }
      }
    }
  }
  return out;
}
