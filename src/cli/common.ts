/** What every verb shares: output in human or JSON form, and turning errors into exit codes. */
import { JsonPieces } from '../ocfl/inventory/large-json.js';
import type { Command } from 'commander';
import { SiardOcflError, UsageError } from '../errors.js';

/**
 * Prints a value as JSON.stringify(value, null, 2) would, in pieces: the listing of a million
 * files is more text than one string can hold.
 */
export function printJson(value: unknown): void {
  const out = new JsonPieces();
  out.value(value, '');
  out.put('\n');
  for (const piece of out.done()) process.stdout.write(piece);
}

/** Plain words for the system errors a user can meet and act on. */
const ERRNO_WORDS: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exhausted',
  EFBIG: 'the file size limit was reached',
  EROFS: 'the filesystem is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EIO: 'an input/output error occurred',
  EMFILE: 'too many open files',
};

/**
 * Exit status for any thrown value: our own errors carry theirs; anything else could not run (2).
 * `context` names what was being worked on (e.g. `object "x"`) for system errors that name no path.
 */
export function reportError(err: unknown, debug: boolean, context?: string, json = false): number {
  const system = systemCause(err);
  let message: string;
  if (system) {
    // Node's words for a full disk or a size limit name no file: say what the work was on.
    const where = system.path ? ` (${system.syscall ? `${system.syscall} ` : ''}${system.path})` : '';
    const what =
      `${context ? `Could not finish the work on ${context}` : 'Could not finish'}:` +
      ` ${ERRNO_WORDS[system.code!]}${where} [${system.code}]`;
    const original = err instanceof SiardOcflError ? err.message : (err as Error).message;
    // Node's own text for a failed system call ("EACCES: permission denied, mkdir 'x'") repeats what
    // was just said; any other text (ours, or a failure without a system call) says more.
    const repeats = !original || (system.syscall !== undefined && original.startsWith(`${system.code}:`));
    message = repeats ? what : `${what}; ${stripStop(original)}`;
  } else {
    message = err instanceof SiardOcflError ? err.message : ((err as Error)?.message ?? String(err));
  }
  const sentence = `${message}${/[.!?]$/.test(message) ? '' : '.'}`;
  process.stderr.write(`siard-ocfl: ${sentence}\n`);
  const stack = (err as Error)?.stack;
  if (debug && stack) process.stderr.write(stack + '\n');
  const exitCode = err instanceof SiardOcflError ? err.exitCode : 2;
  if (json) printJsonError(err instanceof SiardOcflError ? err.code : system ? system.code! : 'ERROR', sentence, exitCode);
  return exitCode;
}

/**
 * With --json a failure still gives a document on stdout, so a script parsing it need not special-case
 * an empty output: {"error": {code, message, exitCode}}; stderr and the exit status are as without.
 */
export function printJsonError(code: string, message: string, exitCode: number): void {
  printJson({ error: { code, message, exitCode } });
}

/** The system error (ENOSPC, EFBIG, ...) behind an error, following its causes. */
function systemCause(err: unknown): NodeJS.ErrnoException | undefined {
  for (
    let e = err as NodeJS.ErrnoException | undefined, depth = 0;
    e && depth < 10;
    e = e.cause as NodeJS.ErrnoException | undefined, depth++
  ) {
    if (typeof e.code === 'string' && Object.hasOwn(ERRNO_WORDS, e.code) && !(e instanceof SiardOcflError)) return e;
  }
  return undefined;
}

/**
 * An archive given as input that cannot be read (not a ZIP, truncated) means the command could not
 * run (exit 2); the same finding inside a stored object during `audit` stays a problem found (1).
 */
export function asUnreadableInput(err: unknown): unknown {
  if (err instanceof SiardOcflError && err.exitCode === 1 && /^ZIP_/.test(err.code)) {
    return new SiardOcflError(err.message, { code: err.code, exitCode: 2, cause: err });
  }
  return err;
}

function stripStop(s: string): string {
  return s.replace(/[.!?]$/, '');
}

/**
 * The words every verb uses for LOBs: a "LOB cell" holds a LOB that lies in a file; "LOB files"
 * counts those files, each part of a split LOB as one; they sit in "segment folders".
 */
export function lobWords(s: { lobs: number; lobFiles: number; segments: number }): string {
  return (
    `${s.lobs} LOB cell${s.lobs === 1 ? '' : 's'} in ${s.lobFiles} LOB file${s.lobFiles === 1 ? '' : 's'} in ${s.segments} ` +
    `segment folder${s.segments === 1 ? '' : 's'}`
  );
}

// C0 controls, DEL and C1 controls: they break line- and tab-separated output and terminals.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

/** Text for one tab-separated column: control characters as `\n`, `\t`, `\r` or `\u00XX`. */
export function printable(text: string): string {
  return text.replace(CONTROLS, (c) =>
    c === '\n' ? '\\n' : c === '\t' ? '\\t' : c === '\r' ? '\\r' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * Writing verbs refuse an object id holding a control character (newline, tab, ...): OCFL allows
 * it, but it cannot be typed, listed or grepped reliably. Objects other tools made are still read.
 */
export function checkObjectId(id: string): void {
  if (CONTROL.test(id))
    throw new UsageError(
      `The object id ${JSON.stringify(id)} holds a control character (such as a newline or tab), which siard-ocfl does not write.`,
    );
}

/** Parses a non-negative integer option, or throws a one-sentence usage error. */
export function parseCount(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value)) throw new SiardOcflError(`Option ${name} needs a whole number, not "${value}".`);
    return Number(value);
  };
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  m: 1e6,
  mb: 1e6,
  g: 1e9,
  gb: 1e9,
  t: 1e12,
  tb: 1e12,
  ki: 2 ** 10,
  kib: 2 ** 10,
  mi: 2 ** 20,
  mib: 2 ** 20,
  gi: 2 ** 30,
  gib: 2 ** 30,
  ti: 2 ** 40,
  tib: 2 ** 40,
};

/**
 * Parses a byte size: a whole number, or a number with a unit, decimal (k, M, G, T = 1000^n, as disk
 * makers and `ls --si` count) or binary (KiB, MiB, GiB, TiB = 1024^n); case does not matter.
 */
export function parseSize(name: string) {
  return (value: string): number => {
    const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(value.trim());
    const unit = m ? SIZE_UNITS[m[2]!.toLowerCase()] : undefined;
    const bytes = m && unit !== undefined ? Number(m[1]) * unit : NaN;
    if (!Number.isSafeInteger(bytes)) {
      throw new UsageError(`Option ${name} needs a size in bytes such as 45000, 45k, 2KiB or 1G, not "${value}".`);
    }
    return bytes;
  };
}

/**
 * The root of verbs that also take it as their argument (`init`, `validate`): `--root R`, as every
 * other verb, or the argument; giving both is refused unless they agree.
 */
export function rootArgument(argument: string | undefined, root: string | undefined, what: string): string {
  if (argument !== undefined && root !== undefined && argument !== root)
    throw new UsageError(`Give the ${what} once: either --root ${root} or ${argument}.`);
  const chosen = root ?? argument;
  if (chosen === undefined) throw new UsageError(`Give the ${what}: --root <root>.`);
  return chosen;
}

/** The `--workspace` option of every verb that writes (and of `init`, which remembers it). */
export interface WorkspaceCliOptions {
  workspace?: string;
}

export function addWorkspaceOption(command: Command): Command {
  return command.option(
    '--workspace <dir>',
    "folder on the root's filesystem where versions are staged and locks kept (default: $SIARD_OCFL_WORKSPACE, else the one the " +
      'root remembers, else beside the root or inside its extensions/siard-ocfl-workspace/)',
  );
}

/** Root options from `--workspace` (then SIARD_OCFL_WORKSPACE); notes go to stderr as one sentence each. */
export function rootOptions(o: WorkspaceCliOptions): { workspaceDir?: string; onNote: (sentence: string) => void } {
  const given = o.workspace ?? (process.env.SIARD_OCFL_WORKSPACE || undefined);
  return { ...(given !== undefined ? { workspaceDir: given } : {}), onNote: (s) => process.stderr.write(`siard-ocfl: note: ${s}\n`) };
}

/** The options of every verb that writes a version: its message and who made it. */
export interface VersionInfoCliOptions {
  message?: string;
  userName?: string;
  userAddress?: string;
}

export function addVersionInfoOptions(command: Command): Command {
  return command
    .option('--message <text>', 'version message')
    .option('--user-name <name>', 'name of the user making the version (default: $SIARD_OCFL_USER_NAME)')
    .option('--user-address <uri>', 'address (URI, e.g. mailto:) of the user (default: $SIARD_OCFL_USER_ADDRESS)');
}

/**
 * The version's message and user, as the OCFL commit takes them; refuses an address without a name.
 * The user comes from the options, else from SIARD_OCFL_USER_NAME / SIARD_OCFL_USER_ADDRESS, so an
 * archivist sets it once in a shell profile and no version lacks one (OCFL warning W007).
 */
export function versionInfo(o: VersionInfoCliOptions): { message?: string; user?: { name: string; address?: string } } {
  if (o.userAddress && !o.userName) throw new UsageError('--user-address needs --user-name.');
  const fromEnv = o.userName === undefined;
  const name = fromEnv ? process.env.SIARD_OCFL_USER_NAME || undefined : o.userName;
  const address = fromEnv ? process.env.SIARD_OCFL_USER_ADDRESS || undefined : o.userAddress;
  if (fromEnv && address && !name)
    throw new UsageError('SIARD_OCFL_USER_ADDRESS is set but SIARD_OCFL_USER_NAME is not; set both, or give --user-name.');
  return {
    ...(o.message !== undefined ? { message: o.message } : {}),
    ...(name ? { user: { name, ...(address ? { address } : {}) } } : {}),
  };
}

/** The `--digest` option of a new object: sha512 (the default) or sha256. */
export function contentDigest(value: string | undefined): 'sha512' | 'sha256' | undefined {
  if (value !== undefined && value !== 'sha512' && value !== 'sha256')
    throw new UsageError(`--digest must be sha512 or sha256, not "${value}".`);
  return value;
}
