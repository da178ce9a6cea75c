/**
 * A table's primary key and unique indexes (from its definition, table-definition.ts) as the SIARD
 * primaryKey and candidateKeys. SIARD has no place for an index that is not unique: those are
 * named in the export's "not exported" summary, as is a key over a column the table does not
 * carry (an attachment or multi-valued column, exported as a table of its own). An index Access
 * made for a relationship (type 2) is the relationship's, exported as its foreign key.
 */
import type MDBReader from 'mdb-reader';
import type { SiardUniqueKey } from '../../siard/model.js';
import type { AccessPages } from './decrypted-pages.js';
import { definitionBytes, parseTableDefinition, type DefinedIndex } from './table-definition.js';

export interface TableKeys {
  primaryKey?: SiardUniqueKey;
  candidateKeys: SiardUniqueKey[];
  /** lines for the "not exported" summary */
  notExported: string[];
}

/** The first definition page of every table (MSysObjects rows of type 1: their Id's low 24 bits). */
export function firstDefinitionPages(reader: MDBReader): Map<string, number> {
  const rows = reader.getTable('MSysObjects').getData({ columns: ['Id', 'Name', 'Type'] }) as Array<{
    Id: number;
    Name: string;
    Type: number;
  }>;
  return new Map(rows.filter((r) => (r.Type & 0x7f) === 1).map((r) => [r.Name, r.Id & 0xffffff]));
}

const quoted = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ');

/** `table`'s keys over `columns` (the columns it is exported with). */
export function tableKeys(pages: AccessPages, firstPage: number | undefined, table: string, columns: readonly string[]): TableKeys {
  const out: TableKeys = { candidateKeys: [], notExported: [] };
  let indexes: DefinedIndex[];
  try {
    if (firstPage === undefined) throw new Error('MSysObjects names no definition page for it');
    indexes = parseTableDefinition(definitionBytes(pages, firstPage), pages.jet3).indexes;
  } catch (err) {
    out.notExported.push(`the indexes and primary key of table "${table}" (its definition cannot be read: ${(err as Error).message})`);
    return out;
  }
  const plain: string[] = [];
  for (const index of indexes) {
    if (index.foreignKey) continue;
    if (!index.unique) {
      plain.push(`"${index.name}" (${quoted(index.columns)})`);
      continue;
    }
    const missing = index.columns.filter((c) => !columns.includes(c));
    if (missing.length > 0) {
      const what = `${index.primary ? 'primary key' : 'unique index'} "${index.name}" of table "${table}"`;
      out.notExported.push(`${what} (over ${quoted(missing)}, exported as a table of its own)`);
    } else if (index.primary && !out.primaryKey) out.primaryKey = { name: index.name, columns: index.columns };
    else out.candidateKeys.push({ name: index.name, columns: index.columns });
  }
  if (plain.length > 0) out.notExported.push(`indexes that are not unique of table "${table}" (SIARD has none): ${plain.join(', ')}`);
  return out;
}
