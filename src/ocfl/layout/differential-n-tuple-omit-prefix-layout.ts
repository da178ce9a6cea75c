/**
 * OCFL Community Extension 0010, "Differential N-Tuple Omit Prefix Storage Layout" (for ids whose
 * parts have different lengths, such as DRUIDs: bc123df5678 -> bc/123/df/5678):
 *
 *   id -> prefix omitted (right-most `delimiter`, case-insensitive; none: the whole id; at the end:
 *         refused) -> cut into segments of the `tupleSegmentSizes` lengths, which must add up to
 *         its length -> the segments as directories, then the prefix-omitted id itself when
 *         `fullIdentifierAsObjectRoot`.
 *
 * Defined over ASCII 0x20 to 0x7F; other characters, and folder names that are not safe, are refused.
 */
import { booleanParameter, configObject, delimiterValue, layoutConfigError } from './layout-config.js';
import { assertAsciiId, assertValidObjectId, omitPrefix, safeObjectPath, unmappableId } from './object-id-rules.js';
import type { StorageLayout } from './storage-layout.js';

export const LAYOUT_0010_NAME = '0010-differential-n-tuple-omit-prefix-storage-layout';

export interface Layout0010Config {
  extensionName: typeof LAYOUT_0010_NAME;
  delimiter: string;
  tupleSegmentSizes: number[];
  fullIdentifierAsObjectRoot: boolean;
}

/** Whole numbers of 1 or more; not none, which only an empty id (no id) would match. */
function segmentSizes(value: unknown): number[] {
  const sizes = value ?? [2, 3, 2, 4];
  if (!Array.isArray(sizes) || sizes.length === 0 || !sizes.every((n) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 1)) {
    throw layoutConfigError(
      LAYOUT_0010_NAME,
      `tupleSegmentSizes must be a non-empty array of whole numbers of 1 or more, not ${JSON.stringify(sizes)}.`,
    );
  }
  return sizes as number[];
}

/** Checks a configuration and fills in the defaults (":", [2, 3, 2, 4], false). */
function validateLayout0010Config(input: unknown, requireExtensionName = false): Layout0010Config {
  const given = configObject(LAYOUT_0010_NAME, input, requireExtensionName);
  return {
    extensionName: LAYOUT_0010_NAME,
    delimiter: delimiterValue(LAYOUT_0010_NAME, 'delimiter', given.delimiter ?? ':'),
    tupleSegmentSizes: [...segmentSizes(given.tupleSegmentSizes)],
    fullIdentifierAsObjectRoot: booleanParameter(LAYOUT_0010_NAME, given, 'fullIdentifierAsObjectRoot', false),
  };
}

export class DifferentialNTupleOmitPrefixLayout implements StorageLayout {
  readonly extensionName = LAYOUT_0010_NAME;
  readonly config: Readonly<Layout0010Config>;

  /** `config`: a parsed config.json (`requireExtensionName`), a partial one, or nothing (the defaults). */
  constructor(config?: unknown, requireExtensionName = false) {
    const checked = validateLayout0010Config(config, requireExtensionName);
    this.config = Object.freeze({ ...checked, tupleSegmentSizes: Object.freeze(checked.tupleSegmentSizes) as number[] });
  }

  objectPath(id: string): string {
    assertValidObjectId(id);
    assertAsciiId(LAYOUT_0010_NAME, id);
    const { delimiter, tupleSegmentSizes, fullIdentifierAsObjectRoot } = this.config;
    const rest = omitPrefix(LAYOUT_0010_NAME, id, delimiter);
    const total = tupleSegmentSizes.reduce((sum, n) => sum + n, 0);
    if (rest.length !== total) {
      throw unmappableId(
        LAYOUT_0010_NAME,
        id,
        `without its prefix it is ${rest.length} characters long, and tupleSegmentSizes ` +
          `[${tupleSegmentSizes.join(', ')}] need exactly ${total}`,
      );
    }
    const segments: string[] = [];
    let at = 0;
    for (const size of tupleSegmentSizes) {
      segments.push(rest.slice(at, at + size));
      at += size;
    }
    if (fullIdentifierAsObjectRoot) segments.push(rest);
    return safeObjectPath(LAYOUT_0010_NAME, id, segments);
  }
}
