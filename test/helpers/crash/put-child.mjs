// The `put` verb as bin/siard-ocfl runs it (same register(), same error reporting and exit
// codes), without loading the other verbs, so that the crash and lock tests depend only on the
// OCFL code. Needs the build (dist/), like bin/siard-ocfl.
import { Command, CommanderError } from 'commander';
import { register } from '../../../dist/cli/put.js';
import { reportError } from '../../../dist/cli/common.js';

const program = new Command('siard-ocfl').exitOverride().enablePositionalOptions();
program.configureOutput({ outputError: (str, write) => write(str) });
register(program);
try {
  await program.parseAsync(process.argv.slice(2), { from: 'user' });
} catch (err) {
  process.exitCode = err instanceof CommanderError ? (err.exitCode === 0 ? 0 : 2) : reportError(err, false);
}
