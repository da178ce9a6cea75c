/**
 * Digest algorithms of the OCFL digest registry, and a hasher that computes several of them
 * in one pass so every byte is read once.
 */
import { createHash } from 'node:crypto';
import { UsageError } from '../errors.js';

/** OCFL registry name -> how to compute it. Node's OpenSSL covers most; hash-wasm the short BLAKE2b. */
const NODE_ALGORITHMS: Record<string, string> = {
  md5: 'md5',
  sha1: 'sha1',
  sha256: 'sha256',
  sha512: 'sha512',
  'sha512/256': 'sha512-256',
  'blake2b-512': 'blake2b512',
};
/** OpenSSL's name of a registry algorithm Node computes itself; undefined for the short BLAKE2b variants. */
export function nodeAlgorithmOf(algorithm: string): string | undefined {
  return Object.hasOwn(NODE_ALGORITHMS, algorithm) ? NODE_ALGORITHMS[algorithm] : undefined;
}

/** Registry algorithms Node's OpenSSL cannot compute: BLAKE2b with a digest length other than 512 bits. */
export const WASM_BLAKE2B_BITS: Readonly<Record<string, number>> = { 'blake2b-160': 160, 'blake2b-256': 256, 'blake2b-384': 384 };

/** Length in hex characters of each algorithm's digest. */
export const DIGEST_HEX_LENGTH: Record<string, number> = {
  md5: 32,
  sha1: 40,
  sha256: 64,
  sha512: 128,
  'sha512/256': 64,
  'blake2b-512': 128,
  'blake2b-160': 40,
  'blake2b-256': 64,
  'blake2b-384': 96,
};

export const DIGEST_ALGORITHMS = Object.keys(DIGEST_HEX_LENGTH);

export function isDigestAlgorithm(name: string): boolean {
  return Object.hasOwn(DIGEST_HEX_LENGTH, name);
}

export function assertDigestAlgorithm(name: string): void {
  if (!isDigestAlgorithm(name)) {
    throw new UsageError(`Unknown digest algorithm "${name}"; known: ${DIGEST_ALGORITHMS.join(', ')}.`, 'UNKNOWN_DIGEST_ALGORITHM');
  }
}

interface Updatable {
  update(data: Uint8Array): void;
  hex(): string;
}

/** Node's Hash and hash-wasm's IHasher, seen alike. */
function updatable(h: { update(data: Uint8Array): unknown; digest(encoding: 'hex'): string }): Updatable {
  return { update: (d) => void h.update(d), hex: () => h.digest('hex') };
}

/** Synchronous digest of a small buffer or string (ids, inventories). Not for the short BLAKE2b variants. */
export function digestSync(algorithm: string, data: Uint8Array | string): string {
  assertDigestAlgorithm(algorithm);
  const node = NODE_ALGORITHMS[algorithm];
  if (!node) throw new UsageError(`Digest algorithm "${algorithm}" cannot be computed synchronously.`);
  return createHash(node).update(data).digest('hex');
}

/** Computes several digests over one stream of bytes. */
export class MultiHasher {
  private constructor(
    readonly algorithms: readonly string[],
    private readonly hashers: Updatable[],
    private bytes = 0,
  ) {}

  static async create(algorithms: Iterable<string>): Promise<MultiHasher> {
    const names = [...new Set(algorithms)];
    const hashers: Updatable[] = [];
    for (const name of names) {
      assertDigestAlgorithm(name);
      const node = NODE_ALGORITHMS[name];
      // hash-wasm is loaded only when a short BLAKE2b is asked for: it costs every start-up otherwise.
      hashers.push(updatable(node ? createHash(node) : await (await import('hash-wasm')).createBLAKE2b(WASM_BLAKE2B_BITS[name])));
    }
    return new MultiHasher(names, hashers);
  }

  /** Synchronous constructor for algorithms Node computes itself (all but blake2b-160/256/384). */
  static createSync(algorithms: Iterable<string>): MultiHasher {
    const names = [...new Set(algorithms)];
    return new MultiHasher(
      names,
      names.map((name) => {
        assertDigestAlgorithm(name);
        const node = NODE_ALGORITHMS[name];
        if (!node) throw new UsageError(`Digest algorithm "${name}" needs MultiHasher.create().`);
        return updatable(createHash(node));
      }),
    );
  }

  update(data: Uint8Array): void {
    this.bytes += data.byteLength;
    for (const h of this.hashers) h.update(data);
  }

  get size(): number {
    return this.bytes;
  }

  /** Lower-case hex digest of each algorithm. Call once. */
  digests(): Record<string, string> {
    const out: Record<string, string> = {};
    this.algorithms.forEach((name, i) => (out[name] = this.hashers[i].hex()));
    return out;
  }
}
