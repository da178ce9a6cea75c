/**
 * What every layout asks of an object id, and of the folder names a layout makes from it: ids the
 * layout cannot map are refused with one sentence before anything is written (never a changed
 * name, never an object root outside its place).
 */
import { UsageError } from '../../errors.js';

/** Refuses ids no layout can map faithfully: empty, non-strings, lone surrogates. */
export function assertValidObjectId(id: unknown): asserts id is string {
  if (typeof id !== 'string') throw new UsageError(`An object id must be a string, not ${typeof id}.`, 'INVALID_OBJECT_ID');
  if (id === '') throw new UsageError('An object id must not be empty.', 'INVALID_OBJECT_ID');
  const lone = /\p{Surrogate}/u.exec(id); // in 'u' mode only unpaired surrogates match
  if (lone) {
    throw new UsageError(
      `Object id ${JSON.stringify(id)} is not well-formed Unicode (lone surrogate at UTF-16 index ${lone.index}); it has no ` +
        `UTF-8 form, and siard-ocfl will not replace characters in an id.`,
      'INVALID_OBJECT_ID',
    );
  }
}

export function unmappableId(extensionName: string, id: string, reason: string): UsageError {
  return new UsageError(`Object id ${JSON.stringify(id)} cannot be stored under layout ${extensionName}: ${reason}.`, 'INVALID_OBJECT_ID');
}

/** Most file systems (ext4, XFS, APFS, NTFS) allow 255 bytes or characters in a name. */
const MAX_NAME_BYTES = 255;

/** Names a storage root holds itself: an object root there would overwrite or hide them. */
function isRootOwnName(name: string): boolean {
  return name === 'extensions' || name === 'ocfl_layout.json' || name.startsWith('0=') || /^ocfl_\d+\.\d+\.(txt|html)$/.test(name);
}

/**
 * Why a folder name made from an id is unsafe, or undefined: empty, '.', '..', a '/' (it would
 * nest), NUL or another control character, longer than 255 bytes, or (first segment) a name the
 * storage root uses itself.
 */
function unsafeFolderReason(name: string, first: boolean): string | undefined {
  if (name === '') return 'it gives an empty folder name';
  if (name === '.' || name === '..') return `it gives the folder name "${name}"`;
  if (name.includes('/')) return `the folder name ${JSON.stringify(name)} contains "/"`;
  if (/[\u0000-\u001f\u007f]/.test(name)) return `the folder name ${JSON.stringify(name)} contains a control character`;
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes > MAX_NAME_BYTES) return `the folder name is ${bytes} bytes long, more than the ${MAX_NAME_BYTES} file systems allow`;
  if (first && isRootOwnName(name)) return `the folder name "${name}" is one the storage root uses itself`;
  return undefined;
}

/** The object root made of `segments`, or a refusal naming the first unsafe one. */
export function safeObjectPath(extensionName: string, id: string, segments: readonly string[]): string {
  segments.forEach((segment, i) => {
    const reason = unsafeFolderReason(segment, i === 0);
    if (reason) throw unmappableId(extensionName, id, reason);
  });
  return segments.join('/');
}

/** 0007 and 0010 are defined over printable ASCII (0x20 to 0x7F) only. */
export function assertAsciiId(extensionName: string, id: string): void {
  const outside = /[^\u0020-\u007f]/u.exec(id);
  if (outside) {
    throw unmappableId(
      extensionName,
      id,
      `the extension is defined over ASCII 0x20 to 0x7F only, and it contains ${JSON.stringify(outside[0])}`,
    );
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The id without its prefix (everything up to and including the right-most occurrence of the
 * delimiter, compared case-insensitively, as 0006, 0007 and 0010 say); the whole id when it does
 * not contain the delimiter; refused when it ends in it (nothing would be left). Searched from
 * the right so that overlapping occurrences count.
 */
export function omitPrefix(extensionName: string, id: string, delimiter: string): string {
  const at = new RegExp(escapeRegExp(delimiter), 'iuy');
  for (let i = id.length - 1; i >= 0; i--) {
    at.lastIndex = i;
    const match = at.exec(id);
    if (!match) continue;
    const rest = id.slice(i + match[0].length);
    if (rest !== '') return rest;
    const why = `it ends in the delimiter ${JSON.stringify(delimiter)}, so nothing is left once the prefix is omitted`;
    throw unmappableId(extensionName, id, why);
  }
  return id;
}

/** The first `count` pieces of `tupleSize` characters of `text`: the n-tuple folders of 0003, 0004 and 0007. */
export function tupleFolders(text: string, tupleSize: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => text.slice(i * tupleSize, (i + 1) * tupleSize));
}
