/**
 * The writing side of a database, used by restore: a target creates the archive's tables with
 * mapped types, takes rows in batches (LOBs as byte streams), adds the keys, and either commits
 * all of it or leaves nothing behind. SQLite (`sqlite/loader.ts`), PostgreSQL
 * (`postgres/loader.ts`) and MariaDB / MySQL (`mysql/loader.ts`) implement it.
 */
import type { Readable } from 'node:stream';
import type {
  SiardArchive,
  SiardCheckConstraint,
  SiardColumn,
  SiardForeignKey,
  SiardTrigger,
  SiardUniqueKey,
  SqlTypeFamily,
} from '../siard/model.js';

/** A LOB as a stream of bytes (UTF-8 for text), checked against its cell while it is read. */
export interface LoadLob {
  readonly kind: 'lob';
  /** true for CLOB / XML (the bytes are UTF-8 text) */
  readonly text: boolean;
  readonly chunks: AsyncIterable<Uint8Array>;
}

/** An ARRAY (a1, a2 ...) or UDT (u1, u2 ...) value: elements by 1-based index, absent = NULL. */
export interface LoadComplex {
  readonly kind: 'array' | 'udt';
  readonly elements: ReadonlyMap<number, LoadValue>;
}

/** A cell as the loader gets it: SIARD lexical text, bytes, a LOB stream, or a nested value. */
export type LoadValue = null | string | Uint8Array | LoadLob | LoadComplex;

export function isLoadLob(v: LoadValue): v is LoadLob {
  return v !== null && typeof v === 'object' && !(v instanceof Uint8Array) && v.kind === 'lob';
}

export function isLoadComplex(v: LoadValue): v is LoadComplex {
  return v !== null && typeof v === 'object' && !(v instanceof Uint8Array) && (v.kind === 'array' || v.kind === 'udt');
}

export interface LoadColumn {
  column: SiardColumn;
  /** family of the column's SIARD type; undefined for UDT columns (typeName instead of type) */
  family: SqlTypeFamily | undefined;
  /** true for ARRAY columns (cardinality or a1.. fields) */
  array: boolean;
}

export interface LoadTable {
  schema: string;
  name: string;
  /** the table's description (a target with table comments restores it) */
  description?: string;
  columns: LoadColumn[];
  primaryKey?: SiardUniqueKey;
  candidateKeys: SiardUniqueKey[];
  foreignKeys: SiardForeignKey[];
  /** conditions in the archived database's SQL dialect: a target adds those it can and warns about the rest */
  checkConstraints: SiardCheckConstraint[];
  /** in the archived database's dialect: a target recreates those it can (after the rows) and lists the rest */
  triggers: SiardTrigger[];
}

/** A view of the archive, for a target that can recreate it from its query. */
export interface LoadView {
  schema: string;
  name: string;
  /** the query in the archived database's own dialect (SQLite: the whole CREATE VIEW statement) */
  queryOriginal?: string;
}

/** Something the archive holds that the target did not get, and why (one phrase). */
export interface NotRecreated {
  kind: 'view' | 'default' | 'check' | 'type' | 'trigger' | 'routine' | 'role' | 'privilege' | 'index' | 'comment';
  name: string;
  reason: string;
}

/**
 * The archived query of a view to try, or why the view is not recreated: a query is run only on
 * the kind of database it was written for (`sameDialect`).
 */
export function viewQuery(query: string | undefined, sameDialect: boolean, product: string): { query: string } | { reason: string } {
  if (!query) return { reason: 'the archive holds no query for it' };
  return sameDialect ? { query } : { reason: `its query is in ${product}'s dialect` };
}

/**
 * Creates items whose dependencies are not known (views over views): each round tries every one
 * still pending, until a round creates none. `create` answers the database's refusal as a message
 * (undefined: created); what it throws ends the restore. Returns those never created, each with its
 * last refusal.
 */
export async function createInAnyOrder<T>(
  items: T[],
  create: (item: T) => Promise<string | undefined>,
): Promise<Array<{ item: T; error: string }>> {
  let pending = items.map((item) => ({ item, error: '' }));
  for (let progress = true; progress && pending.length > 0;) {
    progress = false;
    const next: typeof pending = [];
    for (const p of pending) {
      const error = await create(p.item);
      if (error === undefined) progress = true;
      else next.push({ item: p.item, error });
    }
    pending = next;
  }
  return pending;
}

/** A table's rows as the bytes of its table XML, for a target that turns them into its own input directly. */
export interface LoadTableXml {
  /** the table XML (inflated), from its start */
  open(): Promise<Readable>;
  /** the table's rows after the first `skip`, as insertRows takes them (where the target gives up on the bytes) */
  rest(skip: number): AsyncIterable<LoadValue[][]>;
}

export interface TargetLoader {
  /** for messages: the file or host:port/db */
  readonly description: string;
  /**
   * Opens the target inside one transaction and checks that none of the tables exists yet
   * (a SiardOcflError, exit 2, naming the first that does). Nothing is visible until commit().
   */
  begin(archive: SiardArchive, tables: LoadTable[]): Promise<void>;
  /** The name the table gets in the target (schema-qualified where the target has schemas). */
  targetName(table: LoadTable): string;
  createTable(table: LoadTable): Promise<void>;
  /** Inserts the rows, given in batches; LOB streams are read to their end before their row is sent. */
  insertRows(table: LoadTable, batches: AsyncIterable<LoadValue[][]>, onRow?: () => void): Promise<number>;
  /**
   * The same from the table XML's bytes, where the target has a faster way (PostgreSQL: COPY text
   * made from the bytes); rows it cannot take so go through `xml.rest`. The rows stored equal insertRows's.
   */
  insertTableXml?(table: LoadTable, xml: LoadTableXml, onRow?: () => void): Promise<number>;
  /**
   * Primary, unique and foreign keys, and check constraints where the target can add them after the
   * rows (targets that can only declare keys with the table do it in createTable).
   */
  addKeys(tables: LoadTable[]): Promise<void>;
  /** Views whose query is in the target's own dialect, then the tables' triggers likewise; the others are listed in notRecreated. */
  addViews(views: LoadView[], tables: LoadTable[]): Promise<void>;
  /** what the target did not recreate (defaults, checks, views, types), filled as the restore goes */
  readonly notRecreated: NotRecreated[];
  /** things that went in but deserve a word (a check the restored rows violate ...) */
  readonly warnings: string[];
  /** Number of rows the target holds in the table (read inside the transaction). */
  countRows(table: LoadTable): Promise<number>;
  commit(): Promise<void>;
  /** Rolls back and removes anything created; safe to call after a failure at any point. */
  abort(): Promise<void>;
}

/** Reads a LOB stream into one buffer (for targets that cannot stream a value in). */
export async function collectLob(lob: LoadLob): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of lob.chunks) parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  return Buffer.concat(parts);
}

/** Strips the 'Z' (or +00:00) SIARD puts on dates and times of types without a time zone. */
export function withoutUtcMark(text: string): string {
  return text.replace(/(Z|[+-]00:00)$/, '');
}

/** True when the SIARD type carries a time zone (TIME/TIMESTAMP WITH TIME ZONE). */
export function hasTimeZone(type: string | undefined): boolean {
  return /WITH\s+TIME\s+ZONE/i.test(type ?? '');
}

/**
 * JSON of a nested value for a text column (the SQLite target's form of ARRAY and UDT cells):
 * an ARRAY is a JSON array whose item i is element a(i+1), null for a NULL element, [] for an
 * empty array; a UDT is an object {"u1": ..., "u2": ...}. Every scalar is a JSON string holding
 * the SIARD lexical form exactly as archived (integer and decimal digits, dates with Z, binary as
 * hex), so nothing is rounded or reinterpreted: the text round-trips to the archived value.
 */
export async function complexJson(value: LoadComplex): Promise<unknown> {
  const plain = async (v: LoadValue): Promise<unknown> => {
    if (v === null || typeof v === 'string') return v;
    if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
    if (isLoadLob(v)) {
      const bytes = await collectLob(v);
      return v.text ? bytes.toString('utf8') : bytes.toString('hex');
    }
    return complexJson(v);
  };
  if (value.kind === 'array') {
    const size = Math.max(0, ...value.elements.keys());
    const out: unknown[] = [];
    for (let i = 1; i <= size; i++) out.push(await plain(value.elements.get(i) ?? null));
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const [i, v] of [...value.elements].sort((a, b) => a[0] - b[0])) out[`u${i}`] = await plain(v);
  return out;
}

/** The rows of batches one by one, for loaders that take a row at a time. */
export async function* eachRow(batches: AsyncIterable<LoadValue[][]>): AsyncGenerator<LoadValue[]> {
  for await (const batch of batches) yield* batch;
}
