/**
 * The keys a check collects from the tables' rows: primary and candidate keys, and for each
 * foreign key its referencing columns and the referenced columns of the other table (the
 * referenced side as its own key, so any column list can be referenced).
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
  for (const s of archive.schemas) {
    for (const t of s.tables) {
      if (t.primaryKey) add(s.name, t.name, { name: t.primaryKey.name, kind: 'primary', columns: t.primaryKey.columns });
      for (const c of t.candidateKeys ?? []) add(s.name, t.name, { name: c.name, kind: 'candidate', columns: c.columns });
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
