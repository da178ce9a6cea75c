/** postgres:// or postgresql://, told from the scheme alone (no driver loaded). */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}
