/**
 * OCFL Community Extension 0006, "Flat Omit Prefix Storage Layout": the object root is a child of
 * the storage root named by the id without its prefix (everything up to and including the
 * right-most occurrence of `delimiter`, compared case-insensitively). The delimiter has no default.
 *
 * Left open by the extension, decided here (docs/layouts.md): an id without the delimiter is used
 * whole, as 0007 and 0010 (built on 0006) say; an id ending in the delimiter is refused, as they
 * say; a name that is no safe folder name is refused, as 0002 says of its own.
 */
import { configObject, delimiterValue, layoutConfigError } from './layout-config.js';
import { assertValidObjectId, omitPrefix, safeObjectPath } from './object-id-rules.js';
import type { StorageLayout } from './storage-layout.js';

export const LAYOUT_0006_NAME = '0006-flat-omit-prefix-storage-layout';

export interface Layout0006Config {
  extensionName: typeof LAYOUT_0006_NAME;
  delimiter: string;
}

function validateLayout0006Config(input: unknown, requireExtensionName = false): Layout0006Config {
  const given = configObject(LAYOUT_0006_NAME, input, requireExtensionName);
  if (given.delimiter === undefined) {
    throw layoutConfigError(LAYOUT_0006_NAME, 'the extension has no default "delimiter"; the configuration must give one.');
  }
  return { extensionName: LAYOUT_0006_NAME, delimiter: delimiterValue(LAYOUT_0006_NAME, 'delimiter', given.delimiter) };
}

export class FlatOmitPrefixLayout implements StorageLayout {
  readonly extensionName = LAYOUT_0006_NAME;
  readonly config: Readonly<Layout0006Config>;

  /** `config`: a parsed config.json (`requireExtensionName`) or a partial one; it must give the delimiter. */
  constructor(config: unknown, requireExtensionName = false) {
    this.config = Object.freeze(validateLayout0006Config(config, requireExtensionName));
  }

  objectPath(id: string): string {
    assertValidObjectId(id);
    return safeObjectPath(LAYOUT_0006_NAME, id, [omitPrefix(LAYOUT_0006_NAME, id, this.config.delimiter)]);
  }
}
