import { WORKSPACE_EXTENSION } from '../commit/workspace-choice.js';

/**
 * Names of the extensions registered with OCFL (https://ocfl.github.io/extensions/), as their index
 * lists them (test/unit/ocfl/validate/extensions.test.ts compares the two).
 */
export const REGISTERED_EXTENSIONS: ReadonlySet<string> = new Set([
  '0001-digest-algorithms',
  '0002-flat-direct-storage-layout',
  '0003-hash-and-id-n-tuple-storage-layout',
  '0004-hashed-n-tuple-storage-layout',
  '0005-mutable-head',
  '0006-flat-omit-prefix-storage-layout',
  '0007-n-tuple-omit-prefix-storage-layout',
  '0008-schema-registry',
  '0009-digest-algorithms',
  '0010-differential-n-tuple-omit-prefix-storage-layout',
  '0011-direct-clean-path-layout',
  '0012-hash-and-no-prefix-id-n-tuple-storage-layout',
]);

export function isRegisteredExtension(name: string): boolean {
  return REGISTERED_EXTENSIONS.has(name);
}

/**
 * Local storage-root extensions of siard-ocfl (described in this project's extensions/ folder):
 * this validator knows them, so it does not warn (W016) about their names; other validators may
 * (a warning, not an error). Like every extension folder, their contents are not looked into.
 */
export const OWN_ROOT_EXTENSIONS: ReadonlySet<string> = new Set([WORKSPACE_EXTENSION]);
