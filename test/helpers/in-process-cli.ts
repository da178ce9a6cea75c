/**
 * The command line run in this process (src/cli/main.ts), its stdout and stderr captured: what a
 * user's command does, without the start-up of a child (a third of a second of CPU each), for
 * tests that run many verbs on many roots. Runs one command at a time (stdout is the process's):
 * call it from serial tests only.
 */
import { main } from '../../src/cli/main.js';

export interface InProcessResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

type Write = typeof process.stdout.write;

function capture(into: Buffer[]): Write {
  return ((chunk: string | Uint8Array, encoding?: BufferEncoding | ((err?: Error) => void), callback?: (err?: Error) => void) => {
    into.push(typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8') : Buffer.from(chunk));
    (typeof encoding === 'function' ? encoding : callback)?.();
    return true;
  }) as Write;
}

export async function cliInProcess(args: string[]): Promise<InProcessResult> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const [stdoutWrite, stderrWrite] = [process.stdout.write, process.stderr.write];
  const listeners = process.listeners('SIGXFSZ');
  process.stdout.write = capture(out);
  process.stderr.write = capture(err);
  let code: number;
  try {
    code = await main(args);
  } finally {
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
    process.exitCode = undefined;
    // main() listens for SIGXFSZ each time it runs: one per command would pile up here.
    for (const l of process.listeners('SIGXFSZ')) if (!listeners.includes(l)) process.removeListener('SIGXFSZ', l);
  }
  return { code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') };
}
