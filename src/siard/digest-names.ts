/**
 * Digest algorithms as SIARD (`digestType`) and METS (`CHECKSUMTYPE`) spell them, with the
 * node:crypto name of each (also its name in the OCFL digest registry) and its length in hex.
 * SIARD names a subset of what METS names, so one table serves both.
 */
export type DigestName = 'MD5' | 'SHA-1' | 'SHA-256' | 'SHA-384' | 'SHA-512';

/** Spelled name -> node:crypto / OCFL registry name. */
export const ALGORITHM_OF_DIGEST_NAME: Readonly<Record<DigestName, string>> = {
  MD5: 'md5',
  'SHA-1': 'sha1',
  'SHA-256': 'sha256',
  'SHA-384': 'sha384',
  'SHA-512': 'sha512',
};

/** Spelled name -> length of the digest in hex digits. */
export const HEX_LENGTH_OF_DIGEST_NAME: Readonly<Record<DigestName, number>> = {
  MD5: 32,
  'SHA-1': 40,
  'SHA-256': 64,
  'SHA-384': 96,
  'SHA-512': 128,
};
