/**
 * The error a loader reports for a value it cannot restore: one sentence naming the table, the
 * row and the column. An error of ours (already such a sentence) passes through unchanged.
 */
import { SiardOcflError } from '../errors.js';

export function restoreValueError(tableName: string, row: number, column: string, err: unknown): Error {
  if (err instanceof SiardOcflError) return err;
  return new SiardOcflError(`Table ${tableName}, row ${row}, column "${column}": ${(err as Error).message}`, {
    code: 'RESTORE_VALUE',
    exitCode: 1,
    cause: err,
  });
}
