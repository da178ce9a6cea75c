/**
 * Reading a layout extension's configuration (a parsed config.json, or a partial one given in code):
 * every parameter checked against its extension's constraints, defaults filled in, and each refusal
 * one sentence naming the extension.
 */
import { UsageError } from '../../errors.js';
import { DIGEST_ALGORITHMS, DIGEST_HEX_LENGTH, isDigestAlgorithm } from '../digest.js';

export function layoutConfigError(extensionName: string, message: string): UsageError {
  return new UsageError(`Extension ${extensionName.slice(0, 4)} layout: ${message}`, 'INVALID_LAYOUT_CONFIG');
}

/**
 * The configuration as an object whose extensionName, when given, is this extension's.
 * `requireExtensionName`: config.json files must name their extension.
 */
export function configObject(extensionName: string, input: unknown, requireExtensionName: boolean): Record<string, unknown> {
  if (input === undefined || input === null) input = {};
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw layoutConfigError(extensionName, `the configuration must be a JSON object, not ${JSON.stringify(input)}.`);
  }
  const given = input as Record<string, unknown>;
  if (given.extensionName === undefined) {
    if (requireExtensionName) {
      throw layoutConfigError(extensionName, `config.json has no "extensionName" (it must be "${extensionName}").`);
    }
  } else if (given.extensionName !== extensionName) {
    throw layoutConfigError(
      extensionName,
      `the configuration names extension ${JSON.stringify(given.extensionName)}, not "${extensionName}".`,
    );
  }
  return given;
}

/** A whole number within [min, max]; `fallback` when absent. */
export function integerParameter(
  extensionName: string,
  given: Record<string, unknown>,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const value = given[name] ?? fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Infinity ? `of ${min} or more` : `from ${min} to ${max}`;
    throw layoutConfigError(extensionName, `${name} must be a whole number ${range}, not ${JSON.stringify(value)}.`);
  }
  return value;
}

export function booleanParameter(extensionName: string, given: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const value = given[name] ?? fallback;
  if (typeof value !== 'boolean') throw layoutConfigError(extensionName, `${name} must be true or false, not ${JSON.stringify(value)}.`);
  return value;
}

/** A delimiter: a string of one character or more (lone surrogates refused: no id could contain them). */
export function delimiterValue(extensionName: string, name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '' || /\p{Surrogate}/u.test(value)) {
    throw layoutConfigError(extensionName, `${name} must be a string of one character or more, not ${JSON.stringify(value)}.`);
  }
  return value;
}

/** A digest algorithm of the OCFL registry (the extensions allow any algorithm allowed for fixity). */
function digestAlgorithmParameter(extensionName: string, given: Record<string, unknown>): string {
  const value = given.digestAlgorithm ?? 'sha256';
  if (typeof value !== 'string' || !isDigestAlgorithm(value)) {
    throw new UsageError(
      `Extension ${extensionName.slice(0, 4)} layout: unknown digestAlgorithm ${JSON.stringify(value)}; ` +
        `known: ${DIGEST_ALGORITHMS.join(', ')}.`,
      'UNKNOWN_DIGEST_ALGORITHM',
    );
  }
  return value;
}

export interface DigestTuples {
  digestAlgorithm: string;
  tupleSize: number;
  numberOfTuples: number;
}

/**
 * The parameters of 0003, 0004 and 0012 (defaults sha256, 3, 3): tupleSize and numberOfTuples
 * from 0 to `max` (0004 and 0012: 32; 0003 sets none), both 0 or neither, using no more than the
 * digest's hex characters.
 */
export function digestTuplesParameters(extensionName: string, given: Record<string, unknown>, max = 32): DigestTuples {
  const digestAlgorithm = digestAlgorithmParameter(extensionName, given);
  const tupleSize = integerParameter(extensionName, given, 'tupleSize', 3, 0, max);
  const numberOfTuples = integerParameter(extensionName, given, 'numberOfTuples', 3, 0, max);
  if ((tupleSize === 0) !== (numberOfTuples === 0)) {
    throw layoutConfigError(
      extensionName,
      `tupleSize (${tupleSize}) and numberOfTuples (${numberOfTuples}) must both be 0 or both be more than 0.`,
    );
  }
  const digestLength = DIGEST_HEX_LENGTH[digestAlgorithm];
  if (tupleSize * numberOfTuples > digestLength) {
    throw layoutConfigError(
      extensionName,
      `tupleSize x numberOfTuples (${tupleSize * numberOfTuples}) exceeds the ${digestLength} hex characters ` +
        `of a ${digestAlgorithm} digest.`,
    );
  }
  return { digestAlgorithm, tupleSize, numberOfTuples };
}
