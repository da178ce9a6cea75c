/** Quoting of SQL identifiers (table, column, constraint names) for the dialects the sources speak. */

/** Standard SQL, as SQLite and PostgreSQL read it: in double quotes, a double quote doubled. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** MySQL and MariaDB: in backticks, a backtick doubled. */
export function quoteMysqlIdent(name: string): string {
  return '`' + name.replace(/`/g, '``') + '`';
}
