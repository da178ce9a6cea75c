/**
 * OCFL Community Extension 0007, "N Tuple Omit Prefix Storage Layout":
 *
 *   id -> prefix omitted (right-most `delimiter`, case-insensitive; none: the whole id; at the end:
 *         refused) -> zero-padded on the `zeroPadding` side to tupleSize x numberOfTuples characters
 *      -> reversed when `reverseObjectRoot` -> numberOfTuples directories of tupleSize characters
 *      -> object root: the prefix-omitted id.
 *
 * Defined over ASCII 0x20 to 0x7F; other characters, and folder names that are not safe, are refused.
 */
import { booleanParameter, configObject, delimiterValue, integerParameter, layoutConfigError } from './layout-config.js';
import { assertAsciiId, assertValidObjectId, omitPrefix, safeObjectPath, tupleFolders } from './object-id-rules.js';
import type { StorageLayout } from './storage-layout.js';

export const LAYOUT_0007_NAME = '0007-n-tuple-omit-prefix-storage-layout';

export interface Layout0007Config {
  extensionName: typeof LAYOUT_0007_NAME;
  delimiter: string;
  tupleSize: number;
  numberOfTuples: number;
  zeroPadding: 'left' | 'right';
  reverseObjectRoot: boolean;
}

/** Checks a configuration and fills in the defaults (":", 3, 3, "left", false). */
function validateLayout0007Config(input: unknown, requireExtensionName = false): Layout0007Config {
  const given = configObject(LAYOUT_0007_NAME, input, requireExtensionName);
  const zeroPadding = given.zeroPadding ?? 'left';
  if (zeroPadding !== 'left' && zeroPadding !== 'right') {
    throw layoutConfigError(LAYOUT_0007_NAME, `zeroPadding must be "left" or "right", not ${JSON.stringify(zeroPadding)}.`);
  }
  return {
    extensionName: LAYOUT_0007_NAME,
    delimiter: delimiterValue(LAYOUT_0007_NAME, 'delimiter', given.delimiter ?? ':'),
    tupleSize: integerParameter(LAYOUT_0007_NAME, given, 'tupleSize', 3, 1, 32),
    numberOfTuples: integerParameter(LAYOUT_0007_NAME, given, 'numberOfTuples', 3, 1, 32),
    zeroPadding,
    reverseObjectRoot: booleanParameter(LAYOUT_0007_NAME, given, 'reverseObjectRoot', false),
  };
}

export class NTupleOmitPrefixLayout implements StorageLayout {
  readonly extensionName = LAYOUT_0007_NAME;
  readonly config: Readonly<Layout0007Config>;

  /** `config`: a parsed config.json (`requireExtensionName`), a partial one, or nothing (the defaults). */
  constructor(config?: unknown, requireExtensionName = false) {
    this.config = Object.freeze(validateLayout0007Config(config, requireExtensionName));
  }

  objectPath(id: string): string {
    assertValidObjectId(id);
    assertAsciiId(LAYOUT_0007_NAME, id);
    const { delimiter, tupleSize, numberOfTuples, zeroPadding, reverseObjectRoot } = this.config;
    const rest = omitPrefix(LAYOUT_0007_NAME, id, delimiter);
    const length = tupleSize * numberOfTuples;
    let padded = zeroPadding === 'left' ? rest.padStart(length, '0') : rest.padEnd(length, '0');
    if (reverseObjectRoot) padded = [...padded].reverse().join('');
    return safeObjectPath(LAYOUT_0007_NAME, id, [...tupleFolders(padded, tupleSize, numberOfTuples), rest]);
  }
}
