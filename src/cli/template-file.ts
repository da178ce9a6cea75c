/** A describe template file (`describe --apply`, `export`/`ingest --describe`) read as JSON; its shape is checked where it is used. */
import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';

export function readTemplateFileSync(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`Cannot read the template ${file}: ${(err as Error).message}.`, 'DESCRIBE_TEMPLATE', err);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`The template ${file} is not JSON: ${(err as Error).message}.`, 'DESCRIBE_TEMPLATE', err);
  }
}
