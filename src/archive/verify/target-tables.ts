/**
 * The target of a verify, read as a database source (src/sources): each archived table is found
 * where `restore` puts it, by the same naming rules as the target's loader:
 * - SQLite: the table's name, or "schema.table" when two schemas have a table of that name;
 * - PostgreSQL: schema.table;
 * - MariaDB / MySQL: a one-schema archive in the URL's database; with several schemas, the one named
 *   like the URL's database there and every other in the database of its own name.
 * PostgreSQL and MariaDB values come as their sources give them to an export; SQLite's as it stores
 * them (sources/sqlite/raw-source.ts), turned into what the SQLite source gives for the archived
 * column's type by target-side.ts.
 */
import type { DatabaseSource, SourceTable } from '../../siard/database-source.js';
import type { SiardTableRef } from '../../siard/reader/siard-reader.js';
import { targetDialect } from '../../sources/dialects.js';

export interface TargetTable {
  source: DatabaseSource;
  schema: string;
  table: SourceTable;
}

export interface OpenedTarget {
  /** 'sqlite', 'postgres', 'mysql' */
  kind: string;
  description: string;
  /** the target's table of an archived table, or undefined when the target has none */
  find(ref: SiardTableRef): TargetTable | undefined;
  close(): Promise<void>;
}

interface Place {
  /** the spec of the database holding it */
  spec: string;
  schema: string;
  name: string;
}

/** Where `restore` put each archived table in a target of `kind`. */
async function placesOf(kind: string, spec: string, refs: SiardTableRef[], schemas: string[]): Promise<Place[]> {
  if (kind === 'sqlite') {
    const count = new Map<string, number>();
    for (const r of refs) count.set(r.table.name.toLowerCase(), (count.get(r.table.name.toLowerCase()) ?? 0) + 1);
    return refs.map((r) => ({
      spec,
      schema: 'main',
      name: (count.get(r.table.name.toLowerCase()) ?? 0) > 1 ? `${r.schema.name}.${r.table.name}` : r.table.name,
    }));
  }
  if (kind === 'mysql') {
    // (the module loads the driver: imported here only for a MariaDB target)
    const { parseMysqlUrl } = await import('../../sources/mysql/connection.js');
    const database = parseMysqlUrl(spec).database;
    const dbOf = (schema: string) => (schemas.length === 1 || schema === database ? database : schema);
    return refs.map((r) => {
      const db = dbOf(r.schema.name);
      const u = new URL(spec);
      u.pathname = '/' + encodeURIComponent(db);
      return { spec: db === database ? spec : u.toString(), schema: db, name: r.table.name };
    });
  }
  return refs.map((r) => ({ spec, schema: r.schema.name, name: r.table.name }));
}

/** Opens the databases of `spec` that hold the archived tables `refs` (of an archive with `schemas`). */
export async function openTarget(spec: string, refs: SiardTableRef[], schemas: string[]): Promise<OpenedTarget> {
  const dialect = targetDialect(spec);
  const kind = dialect.name;
  const places = await placesOf(kind, spec, refs, schemas);
  const key = (schema: string, name: string) => (kind === 'sqlite' ? name.toLowerCase() : `${schema}\u0000${name}`);
  const wanted = new Map<string, Set<string>>();
  for (const p of places) {
    if (!wanted.has(p.spec)) wanted.set(p.spec, new Set());
    wanted.get(p.spec)!.add(key(p.schema, p.name));
  }
  const sources = new Map<string, DatabaseSource>();
  const tables = new Map<string, TargetTable>();
  try {
    for (const [s, names] of wanted) {
      const tableFilter = (name: string, schema: string) => names.has(key(schema, name));
      const source =
        kind === 'sqlite'
          ? // values as SQLite stores them: the archive's types say what they are (an export's type scan would cost a read more)
            (await import('../../sources/sqlite/raw-source.js')).SqliteRawSource.open(s.replace(/^sqlite:/, ''), tableFilter)
          : await dialect.openSource!(s, { tableFilter });
      sources.set(s, source);
      for (const schema of (await source.catalog()).schemas) {
        for (const table of schema.tables) tables.set(`${s}\u0001${key(schema.name, table.name)}`, { source, schema: schema.name, table });
      }
    }
  } catch (err) {
    for (const source of sources.values()) await source.close().catch(() => {});
    throw err;
  }
  const placeOf = new Map(refs.map((r, i) => [r, places[i]!]));
  return {
    kind,
    description: [...sources.values()].map((s) => s.description).join(', '),
    find(ref) {
      const p = placeOf.get(ref);
      return p ? tables.get(`${p.spec}\u0001${key(p.schema, p.name)}`) : undefined;
    },
    async close() {
      for (const source of sources.values()) await source.close().catch(() => {});
    },
  };
}
