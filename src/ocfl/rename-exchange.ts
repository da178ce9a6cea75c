/**
 * Atomic exchange of two paths: Linux renameat2(RENAME_EXCHANGE), macOS renamex_np(RENAME_SWAP).
 * Node has no binding for either, so the C function is called through koffi (a prebuilt FFI
 * library, an optional dependency). Where neither is available the caller falls back to renames.
 */
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { getSystemErrorName } from 'node:util';

type Exchange = (a: string, b: string) => number;

interface Binding {
  exchange: Exchange;
  errno: () => number;
}

const AT_FDCWD = -100;
const RENAME_EXCHANGE = 2; // linux/fs.h
const RENAME_SWAP = 2; // macOS sys/stdio.h

let binding: Binding | null | undefined;

function load(): Binding | null {
  if (binding !== undefined) return binding;
  binding = null;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    if (process.platform === 'linux') {
      for (const name of ['libc.so.6', 'libc.so']) {
        try {
          const fn = koffi.load(name).func('int renameat2(int, const char *, int, const char *, unsigned int)');
          binding = { exchange: (a, b) => fn(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) as number, errno: () => koffi.errno() };
          break;
        } catch {
          // a libc without renameat2 (glibc < 2.28, some musl builds): try the next, else fall back
        }
      }
    } else if (process.platform === 'darwin') {
      const fn = koffi.load('libSystem.B.dylib').func('int renamex_np(const char *, const char *, unsigned int)');
      binding = { exchange: (a, b) => fn(a, b, RENAME_SWAP) as number, errno: () => koffi.errno() };
    }
  } catch {
    binding = null; // koffi not installed or no prebuilt binary for this platform
  }
  return binding;
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
  const lib = load();
  if (!lib) return false;
  if (lib.exchange(a, b) === 0) return true;
  const errno = lib.errno();
  if (UNSUPPORTED.has(errno)) return false;
  const code = getSystemErrorName(-errno);
  throw Object.assign(new Error(`${code}: cannot exchange ${a} and ${b}`), { errno: -errno, code, syscall: 'renameat2' });
}

/** Whether exchangePaths can work here at all (koffi and the C function present). */
export function exchangeAvailable(): boolean {
  return load() !== null;
}
