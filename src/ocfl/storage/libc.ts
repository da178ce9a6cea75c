/**
 * C library functions Node does not bind (renameat2, aligned_alloc...), called through koffi, a
 * prebuilt FFI library installed as an optional dependency. Every caller has an ordinary fallback
 * for when a function is not there: koffi not installed, no prebuilt binary for this platform, or
 * a C library without that function.
 */
import { createRequire } from 'node:module';

type Koffi = typeof import('koffi');
// koffi's own type for a bound C function is untyped; each caller narrows it to the prototype it bound.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type CFunction = (...args: any[]) => any;

let koffi: Koffi | null | undefined;

/** koffi itself, or null when it cannot be loaded here. */
export function ffi(): Koffi | null {
  if (koffi === undefined) {
    try {
      koffi = createRequire(import.meta.url)('koffi') as Koffi;
    } catch {
      koffi = null;
    }
  }
  return koffi;
}

const LIBRARIES: Partial<Record<NodeJS.Platform, string[]>> = { linux: ['libc.so.6', 'libc.so'], darwin: ['libSystem.B.dylib'] };

/** The C library function of this prototype (e.g. 'int renameat2(int, const char *, ...)'), or null. */
export function libcFunction(prototype: string): CFunction | null {
  const k = ffi();
  if (!k) return null;
  for (const name of LIBRARIES[process.platform] ?? []) {
    try {
      return k.load(name).func(prototype) as CFunction;
    } catch {
      // this library, or this function in it, is missing: try the next
    }
  }
  return null;
}

/** errno of the last C call made through koffi on this thread. */
export function lastErrno(): number {
  return ffi()?.errno() ?? 0;
}
