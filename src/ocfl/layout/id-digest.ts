/**
 * Synchronous digests of object ids for the layouts. Node computes most OCFL algorithms itself;
 * the short BLAKE2b variants come from hash-wasm, whose WebAssembly must be loaded once,
 * asynchronously, before the synchronous path can use it (see loadIdDigest).
 */
import type { IHasher } from 'hash-wasm';
import { UsageError } from '../../errors.js';
import { assertDigestAlgorithm, digestSync, WASM_BLAKE2B_BITS } from '../digest.js';

const loaded = new Map<string, IHasher>();

/** Makes `idDigestSync(algorithm, ...)` usable; a no-op for algorithms Node computes itself. */
export async function loadIdDigest(algorithm: string): Promise<void> {
  assertDigestAlgorithm(algorithm);
  const bits = WASM_BLAKE2B_BITS[algorithm];
  if (bits !== undefined && !loaded.has(algorithm)) loaded.set(algorithm, await (await import('hash-wasm')).createBLAKE2b(bits));
}

/** True when idDigestSync can run now without loadIdDigest. */
export function isIdDigestReady(algorithm: string): boolean {
  return WASM_BLAKE2B_BITS[algorithm] === undefined || loaded.has(algorithm);
}

/** Refuses, in one sentence, a layout made synchronously before its digest was loaded. */
export function assertIdDigestReady(extensionName: string, algorithm: string): void {
  if (!isIdDigestReady(algorithm)) {
    throw new UsageError(
      `Extension ${extensionName.slice(0, 4)} layout: digest algorithm "${algorithm}" must be loaded first (loadIdDigest, or the ` +
        `layout's asynchronous load()).`,
      'DIGEST_NOT_LOADED',
    );
  }
}

/** Lower-case hex digest of an id's UTF-8 bytes. */
export function idDigestSync(algorithm: string, bytes: Uint8Array): string {
  if (WASM_BLAKE2B_BITS[algorithm] === undefined) return digestSync(algorithm, bytes).toLowerCase();
  const hasher = loaded.get(algorithm);
  // Every layout made synchronously checked its digest at creation (assertIdDigestReady).
  if (!hasher) throw new Error(`Digest algorithm "${algorithm}" is not loaded (loadIdDigest).`);
  // One hasher per algorithm, re-initialised per id: the computation is synchronous, so calls cannot interleave.
  hasher.init();
  hasher.update(bytes);
  return hasher.digest('hex').toLowerCase();
}
