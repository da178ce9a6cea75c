/**
 * Atomic exchange of two paths: Linux renameat2(RENAME_EXCHANGE), macOS renamex_np(RENAME_SWAP).
 * Node has no binding for either, so the C function is called through koffi (a prebuilt FFI
 * library, an optional dependency). Where neither is available the caller falls back to renames.
 */
import { constants } from 'node:os';
import { getSystemErrorName } from 'node:util';
import { lastErrno, libcFunction } from './libc.js';

const AT_FDCWD = -100;
const RENAME_EXCHANGE = 2; // linux/fs.h
const RENAME_SWAP = 2; // macOS sys/stdio.h

let exchange: ((a: string, b: string) => number) | null | undefined;

function load(): ((a: string, b: string) => number) | null {
  if (exchange !== undefined) return exchange;
  exchange = null;
  if (process.platform === 'linux') {
    const fn = libcFunction('int renameat2(int, const char *, int, const char *, unsigned int)');
    if (fn) exchange = (a, b) => fn(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) as number;
  } else if (process.platform === 'darwin') {
    const fn = libcFunction('int renamex_np(const char *, const char *, unsigned int)');
    if (fn) exchange = (a, b) => fn(a, b, RENAME_SWAP) as number;
  }
  return exchange;
}

// The errno values meaning "this kernel or filesystem cannot exchange" (e.g. NFS, some FUSE).
const { EINVAL, ENOSYS, ENOTSUP, EOPNOTSUPP } = constants.errno;
const UNSUPPORTED = new Set([EINVAL, ENOSYS, ENOTSUP, EOPNOTSUPP]);

/**
 * Swaps the entries at absolute paths `a` and `b` (both must exist; files or folders) in one
 * atomic step. Returns false when the platform or filesystem cannot; throws an errno error for
 * any other failure.
 */
export function exchangePaths(a: string, b: string): boolean {
  const fn = load();
  if (!fn) return false;
  if (fn(a, b) === 0) return true;
  const errno = lastErrno();
  if (UNSUPPORTED.has(errno)) return false;
  const code = getSystemErrorName(-errno);
  throw Object.assign(new Error(`${code}: cannot exchange ${a} and ${b}`), { errno: -errno, code, syscall: 'renameat2' });
}

/** Whether exchangePaths can work here at all (koffi and the C function present). */
export function exchangeAvailable(): boolean {
  return load() !== null;
}
