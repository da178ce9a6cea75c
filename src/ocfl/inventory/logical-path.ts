/**
 * Rules for logical paths and object ids that we accept when writing. OCFL allows almost any
 * '/'-separated string; we refuse what could escape a folder on checkout or cannot be stored
 * on a filesystem: empty, absolute, '.', '..' or empty segments, NUL, ill-formed Unicode.
 */
import { UsageError } from '../../errors.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a string is well-formed UTF-16 (no lone surrogate), i.e. encodes to UTF-8 losslessly. */
export function isWellFormedUnicode(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}

function describe(s: string): string {
  return JSON.stringify(s);
}

/** Throws a UsageError naming the path when it is not a plain relative logical path. */
export function assertLogicalPath(path: string): void {
  const why = logicalPathProblem(path);
  if (why) throw new UsageError(`Logical path ${describe(path)} is refused: ${why}.`, 'BAD_LOGICAL_PATH');
}

export function logicalPathProblem(path: string): string | undefined {
  if (typeof path !== 'string' || path === '') return 'it is empty';
  if (!isWellFormedUnicode(path)) return 'it is not well-formed Unicode (lone surrogate)';
  if (path.includes('\0')) return 'it contains a NUL character';
  if (path.startsWith('/')) return 'it is absolute';
  for (const segment of path.split('/')) {
    if (segment === '') return 'it has an empty segment';
    if (segment === '.' || segment === '..') return `it has a "${segment}" segment`;
  }
  return undefined;
}

/** Throws a UsageError when an object id is empty or not well-formed Unicode. */
export function assertObjectId(id: string): void {
  if (typeof id !== 'string' || id === '') throw new UsageError('An object id must not be empty.', 'BAD_OBJECT_ID');
  if (!isWellFormedUnicode(id)) {
    throw new UsageError(
      `Object id ${describe(id)} is not well-formed Unicode (it holds a lone surrogate); it is refused, not replaced.`,
      'BAD_OBJECT_ID',
    );
  }
}
