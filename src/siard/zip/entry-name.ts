/**
 * ZIP entry names as SIARD uses them: relative, '/'-separated, no '..'. An archive name that
 * breaks these rules must never reach the file system (zip-slip), so both the writer (refuses)
 * and the reader (marks the entry unsafe and refuses to open it by name) share this check.
 */

/** Why `name` is not a safe relative entry name, or null when it is. */
export function unsafeEntryNameReason(name: string): string | null {
  if (name.length === 0) return 'the name is empty';
  if (name.includes('\0')) return 'the name contains a NUL character';
  if (name.includes('\\')) return 'the name contains a backslash';
  if (name.startsWith('/')) return 'the name is an absolute path';
  if (/^[A-Za-z]:/.test(name)) return 'the name starts with a drive letter';
  const body = name.endsWith('/') ? name.slice(0, -1) : name;
  for (const segment of body.split('/')) {
    if (segment === '..') return "the name contains a '..' segment";
    if (segment === '.') return "the name contains a '.' segment";
    if (segment === '') return 'the name contains an empty segment';
  }
  return null;
}
