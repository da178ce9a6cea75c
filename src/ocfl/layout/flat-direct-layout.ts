/**
 * OCFL Community Extension 0002, "Flat Direct Storage Layout": the object id, unchanged, is the
 * object root's folder name, a child of the storage root. It has no parameters. Ids that are no
 * safe folder name (a '/', '.', '..', more than 255 bytes, see object-id-rules.ts) are refused:
 * the extension's own Example 2 says such ids cannot be stored under it.
 */
import { configObject } from './layout-config.js';
import { assertValidObjectId, safeObjectPath } from './object-id-rules.js';
import type { StorageLayout } from './storage-layout.js';

export const LAYOUT_0002_NAME = '0002-flat-direct-storage-layout';

export class FlatDirectLayout implements StorageLayout {
  readonly extensionName = LAYOUT_0002_NAME;
  readonly config: Readonly<{ extensionName: typeof LAYOUT_0002_NAME }>;

  /** `config`: a parsed config.json (`requireExtensionName`) or nothing; the extension has no parameters. */
  constructor(config?: unknown, requireExtensionName = false) {
    configObject(LAYOUT_0002_NAME, config, requireExtensionName);
    this.config = Object.freeze({ extensionName: LAYOUT_0002_NAME });
  }

  objectPath(id: string): string {
    assertValidObjectId(id);
    return safeObjectPath(LAYOUT_0002_NAME, id, [id]);
  }
}
