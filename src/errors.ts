/**
 * Errors that reach the user. Every layer throws these so the CLI can print one sentence
 * and choose the exit status without knowing where the error came from.
 *
 * exit status 1: the input was examined and found wrong (invalid object, fixity failure).
 * exit status 2: the command could not run (bad arguments, unreadable input, lock held, I/O error).
 */
export class SiardOcflError extends Error {
  readonly exitCode: 1 | 2;
  readonly code: string;
  constructor(message: string, options: { code?: string; exitCode?: 1 | 2; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SiardOcflError';
    this.code = options.code ?? 'ERROR';
    this.exitCode = options.exitCode ?? 2;
  }
}

/** Bad arguments or unusable input: exit 2. */
export class UsageError extends SiardOcflError {
  constructor(message: string, code = 'USAGE', cause?: unknown) {
    super(message, { code, exitCode: 2, cause });
    this.name = 'UsageError';
  }
}

/** Another writer holds the object: exit 2, never a wait. */
export class LockHeldError extends SiardOcflError {
  constructor(message: string, cause?: unknown) {
    super(message, { code: 'LOCK_HELD', exitCode: 2, cause });
    this.name = 'LockHeldError';
  }
}
