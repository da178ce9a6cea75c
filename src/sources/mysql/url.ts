/** mysql:// or mariadb://, told from the scheme alone (no driver loaded). */
export function isMysqlUrl(value: string): boolean {
  return /^(mysql|mariadb):\/\//i.test(value);
}
