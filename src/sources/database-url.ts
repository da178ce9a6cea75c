/**
 * Which database server a URL names, told from its scheme alone: a check that does not load the
 * server's driver (each takes a fifth of a second to load), so a verb loads only the one it uses.
 */

/** postgres:// or postgresql:// */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/** mysql:// or mariadb:// */
export function isMysqlUrl(value: string): boolean {
  return /^(mysql|mariadb):\/\//i.test(value);
}
