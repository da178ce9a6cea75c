/** The command line: one file per verb, each registering itself on the program. */
import { Command, CommanderError } from 'commander';
import { createRequire } from 'node:module';
import { reportError } from './common.js';
import { VERBS } from './verbs.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

export async function main(argv: string[]): Promise<number> {
  // A file-size limit must fail the write (EFBIG, exit 2, the version aborted), not kill us: the
  // signal-exit package (via proper-lockfile) re-raises SIGXFSZ with its default action unless
  // another listener exists, even when the process was started with the signal ignored.
  process.on('SIGXFSZ', () => {});
  const program = new Command('siard-ocfl')
    .description('Preserve relational databases as OCFL objects holding SIARD 2.2 archives.')
    .version(version)
    .option('--debug', 'print stack traces with errors')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    // Program options only before the verb, so verbs may have their own --version <vN>.
    .enablePositionalOptions();
  program.configureOutput({ outputError: (str, write) => write(str) });
  // The verb is the first argument that is not a program option (those come before it).
  const verb = argv.find((a) => !a.startsWith('-'));
  const names = verb !== undefined && Object.hasOwn(VERBS, verb) ? [verb] : Object.keys(VERBS);
  for (const name of names) (await VERBS[name]()).register(program);
  for (const verb of program.commands) {
    if (!verb.options.some((o) => o.long === '--debug')) verb.option('--debug', 'print stack traces with errors');
  }
  // The verb that runs, so a system error can name the object it was working on.
  let running: Command | undefined;
  program.hook('preAction', (_program, action) => void (running = action));
  const debug = argv.includes('--debug');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      return err.exitCode === 0 ? 0 : 2;
    }
    const id = running?.opts().id as string | string[] | undefined;
    const context = typeof id === 'string' ? `object ${JSON.stringify(id)}` : undefined;
    return reportError(err, debug, context);
  }
}
