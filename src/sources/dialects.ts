/**
 * The dialects the verbs know, looked up by the spec a user gives (a file path or a URL). A new
 * dialect is one folder of src/sources/ (its index.ts exporting a Dialect) and one line here.
 * Importing this loads no driver: each dialect loads its own when opened.
 */
import { UsageError } from '../errors.js';
import { accessDialect } from './access/index.js';
import type { Dialect } from './dialect.js';
import { mysqlDialect } from './mysql/index.js';
import { postgresDialect } from './postgres/index.js';
import { siardDialect } from './siard/index.js';
import { sqliteDialect } from './sqlite/index.js';

const DIALECTS: readonly Dialect[] = [accessDialect, sqliteDialect, postgresDialect, mysqlDialect, siardDialect];

const RESTORE_TARGETS = DIALECTS.filter((d): d is Dialect & Required<Pick<Dialect, 'openLoader'>> => d.openLoader !== undefined);

/** The forms of the databases among `dialects`, for messages and --help: "sqlite:<file>, ..., mysql:// or mariadb://". */
function formsOf(dialects: readonly Dialect[]): string {
  const forms = dialects.filter((d) => d.kind === 'database').flatMap((d) => d.forms);
  return `${forms.slice(0, -1).join(', ')} or ${forms[forms.length - 1]}`;
}

/** The database forms an export takes, for --help. */
export function sourceForms(): string {
  return formsOf(DIALECTS);
}

function unsupported(spec: string, what: 'source' | 'target', dialects: readonly Dialect[]): UsageError {
  const scheme = /^([a-z][a-z0-9+.-]+):\/\//i.exec(spec)?.[1];
  const list = formsOf(dialects);
  return new UsageError(
    scheme !== undefined
      ? `The ${what} scheme ${scheme}:// is not supported; ${what}s are ${list}.`
      : `${spec} is not a ${what} this tool reads; ${what}s are ${list}.`,
    'SOURCE_UNSUPPORTED',
  );
}

/** The dialect of an export source (a database or a SIARD package). */
export function sourceDialect(spec: string): Dialect {
  const found = DIALECTS.find((d) => d.accepts(spec));
  if (!found) throw unsupported(spec, 'source', DIALECTS);
  return found;
}

/** The dialect of a restore target, with its loader. */
export function targetDialect(spec: string): Dialect & Required<Pick<Dialect, 'openLoader'>> {
  const found = RESTORE_TARGETS.find((d) => d.accepts(spec));
  if (!found) throw unsupported(spec, 'target', RESTORE_TARGETS);
  return found;
}
