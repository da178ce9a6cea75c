/**
 * What a database dialect offers the verbs: how it is named on the command line, how it is opened
 * as an export source and as a restore target, and where its type mapping is. Each dialect is one
 * folder of src/sources/ whose index.ts exports one such object; dialects.ts lists them. The
 * drivers are loaded by `openSource` / `openLoader` (dynamic imports), never by the object itself,
 * so a verb loads only the driver it uses (each takes a fifth of a second to load).
 */
import type { DatabaseSource } from '../siard/database-source.js';
import type { TargetLoader } from './loader.js';

/** What an export asks of a source, besides its spec. */
export interface DialectSourceOptions {
  /** only tables whose name passes (a database's table selection) */
  tableFilter?: (name: string, schema: string) => boolean;
  /** refuse columns whose values do not fit their declared type instead of widening them */
  strict?: boolean;
  /** a SIARD package: keep LOBs whose bytes differ from their received cell, recording them */
  acceptDigestMismatch?: boolean;
  /** an Access file: its database or encryption password */
  password?: string;
}

/** What a restore asks of a target, besides its spec; each loader takes the fields it knows. */
export interface DialectLoaderOptions {
  /** a server: create the database first (it must not exist); dropped again if the restore fails */
  create?: boolean;
  /** a server: restore into a database that already holds tables or views (none of the archive's names) */
  intoExisting?: boolean;
  /** LOBs up to this many bytes go inside an INSERT; larger ones are streamed (default 1 MiB) */
  inlineLobBytes?: number;
  /** rows per INSERT (default 500) */
  batchRows?: number;
  /** bytes of values per INSERT before it is sent */
  batchBytes?: number;
}

export interface Dialect {
  /** short name, also RestoreSummary.targetKind: 'sqlite', 'postgres', 'mysql', 'siard' */
  readonly name: string;
  /** for messages: 'PostgreSQL' */
  readonly product: string;
  /** the spec forms it accepts, for messages: 'postgres://', 'postgresql://' */
  readonly forms: readonly string[];
  /** 'database': a database the table selection and --strict apply to; 'package': an archive taken whole */
  readonly kind: 'database' | 'package';
  /** a database server (restore's --create and --into-existing apply) */
  readonly server: boolean;
  /** True when `spec` names a database of this dialect, told from its text alone. */
  accepts(spec: string): boolean;
  /** The archive's default base name for this spec (a file's name without extension, a URL's database). */
  archiveName(spec: string): string;
  /** Opens the spec as an export source. */
  openSource(spec: string, options: DialectSourceOptions): Promise<DatabaseSource>;
  /** Opens the spec as a restore target; absent for a dialect restore cannot write. */
  openLoader?(spec: string, options: DialectLoaderOptions): Promise<TargetLoader>;
  /** Its mapping of native types to SIARD types (the module, loaded on demand); absent where types come as SIARD types. */
  typeMapping?(): Promise<object>;
}

/** A file's or URL path's last name without the extension a database file or package carries. */
export function baseName(file: string): string {
  const base = file.split(/[\\/]/).pop() ?? 'database';
  return base.replace(/\.(db|sqlite|sqlite3|siard)$/i, '') || 'database';
}
