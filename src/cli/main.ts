/** The command line: one file per verb, each registering itself on the program. */
import { Command, CommanderError, type Option } from 'commander';
import { createRequire } from 'node:module';
import v8 from 'node:v8';
import { printJsonError, reportError } from './common.js';
import { EXAMPLES, VERBS } from './verbs.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/**
 * V8 lets the old generation grow to 2-4 times what survived the last full collection before the
 * next one. The verbs make much short-lived garbage that outlives the young generation (LOB cells
 * planned across awaits, rows of table XML): at a million LOBs audit peaked at 1.4 GB of which
 * ~600 MB was garbage nobody held. Collecting when the heap has grown by a fifth keeps the peak
 * near what is live (audit of 100,000 LOBs: 350 -> 257 MB) for about the same CPU. Set for this
 * process only: a program using the library keeps its own settings.
 */
const HEAP_GROWING_PERCENT = 20;

/**
 * Whether the command names a location on an object store (`s3://...`, as a root or a source). There
 * every byte passes through this thread as the HTTP client's buffers, and with the heap's growth
 * bounded V8 ran a full collection every ~9 MB streamed (validate of 328 MiB on Ceph RGW: 37 instead
 * of 6): 0.45-0.7 s more CPU for put and validate (a quarter), for the same peak (119-135 MB). Even a
 * bound of 100 % cost as much. So the bound is left off there.
 */
const namesObjectStore = (argv: string[]) => argv.some((a) => /^(?:--[\w-]+=)?s3:\/\//i.test(a));

export async function main(argv: string[]): Promise<number> {
  if (!namesObjectStore(argv)) v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
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
  // `--version` needs no verb; `--help` (or a mistyped verb) lists them all.
  const asksVersion = verb === undefined && argv.some((a) => a === '--version' || a === '-V');
  const names = asksVersion ? [] : verb !== undefined && Object.hasOwn(VERBS, verb) ? [verb] : Object.keys(VERBS);
  for (const name of names) (await VERBS[name]()).register(program);
  for (const verb of program.commands) {
    if (!verb.options.some((o) => o.long === '--debug')) verb.option('--debug', 'print stack traces with errors');
    for (const o of verb.options) if (o.mandatory) o.description += ' (required)';
    const example = EXAMPLES[verb.name()];
    if (example) verb.addHelpText('after', `\nExample:\n  $ ${example}\n`);
    reportUnknownBeforeMissing(verb);
  }
  // The verb that runs, so a system error can name the object it was working on.
  let running: Command | undefined;
  program.hook('preAction', (_program, action) => void (running = action));
  const debug = argv.includes('--debug');
  const json = argv.includes('--json');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      if (err.exitCode === 0) return 0;
      if (json) printJsonError('USAGE', err.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' '), 2);
      return 2;
    }
    const id = running?.opts().id as string | string[] | undefined;
    const context = typeof id === 'string' ? `object ${JSON.stringify(id)}` : undefined;
    return reportError(err, debug, context, json);
  }
}

/**
 * Commander checks required options before unknown ones, so `--rot R` was reported as a missing
 * `--root`: an unknown option is named first, as it is the mistake the user made.
 */
function reportUnknownBeforeMissing(command: Command): void {
  // Commander methods outside its typings (present in 14.x; the CLI tests cover the behaviour).
  const verb = command as Command & { missingMandatoryOptionValue(o: Option): void; unknownOption(flag: string): never };
  const missing = verb.missingMandatoryOptionValue.bind(verb);
  verb.missingMandatoryOptionValue = (option: Option) => {
    const known = (arg: string) => verb.options.some((o) => o.long === arg || o.short === arg) || arg === '--help' || arg === '-h';
    const end = verb.args.indexOf('--');
    const unknown = (end < 0 ? verb.args : verb.args.slice(0, end)).find(
      (a) => a.startsWith('-') && a.length > 1 && !known(a.split('=')[0]!),
    );
    if (unknown !== undefined) verb.unknownOption(unknown);
    missing(option);
  };
}
