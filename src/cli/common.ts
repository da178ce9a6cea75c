/** What every verb shares: output in human or JSON form, and turning errors into exit codes. */
import { SiardOcflError } from '../errors.js';

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/** Exit status for any thrown value: our own errors carry theirs; anything else could not run (2). */
export function reportError(err: unknown, debug: boolean): number {
  if (err instanceof SiardOcflError) {
    process.stderr.write(`siard-ocfl: ${err.message}\n`);
    if (debug && err.stack) process.stderr.write(err.stack + '\n');
    return err.exitCode;
  }
  const e = err as NodeJS.ErrnoException;
  const message = e?.message ?? String(err);
  process.stderr.write(`siard-ocfl: ${message}${/[.!?]$/.test(message) ? '' : '.'}\n`);
  if (debug && e?.stack) process.stderr.write(e.stack + '\n');
  return 2;
}

/** Parses a non-negative integer option, or throws a one-sentence usage error. */
export function parseCount(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value)) throw new SiardOcflError(`Option ${name} needs a whole number, not "${value}".`);
    return Number(value);
  };
}
