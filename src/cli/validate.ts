/** `siard-ocfl validate`: validate an OCFL storage root or object root, with fixity by default. */
import type { Command } from 'commander';
import { validatePath, type Finding, type ValidationResult } from '../ocfl/validate/index.js';
import { printJson, rootArgument } from './common.js';
import { createProgress } from './progress.js';

function line(kind: 'ERROR' | 'WARNING', f: Finding): string {
  return `${kind} ${f.code} ${f.path}: ${f.message}\n`;
}

function summary(target: string, r: ValidationResult, fixity: boolean): string {
  const verdict = r.valid ? 'VALID' : 'INVALID';
  const objects = `${r.objects} object${r.objects === 1 ? '' : 's'}`;
  const digests = fixity ? ', digests verified' : ', digests not checked';
  const files = `${r.files} content file${r.files === 1 ? '' : 's'} (${r.bytes} bytes${digests})`;
  return (
    `${verdict}: ${target}: ${objects}, ${files}, ${r.errors.length} error${r.errors.length === 1 ? '' : 's'},` +
    ` ${r.warnings.length} warning${r.warnings.length === 1 ? '' : 's'}.\n`
  );
}

export function register(program: Command): void {
  program
    .command('validate')
    .description('validate an OCFL storage root or object root (OCFL 1.0/1.1 E/W codes); exit 0 valid, 1 invalid, 2 could not run')
    .argument('[path]', 'storage root or object root (a storage root may be given as --root instead)')
    .option('--root <root>', 'storage root to validate, as other verbs take it')
    .option(
      '--json',
      'print {valid, errors, warnings, objects, files, bytes} as JSON; each finding is {code, severity, object, path, message} ' +
        'as in audit; a failure prints {error: {code, message, exitCode}}',
    )
    .option('--no-fixity', 'skip verifying content and fixity digests (structure only)')
    .action(async (pathArg: string | undefined, options: { root?: string; json?: boolean; fixity: boolean }) => {
      const target = rootArgument(pathArg, options.root, 'storage root or object root to validate');
      // A storage root: bytes hashed, and objects done of those found (they say how far along);
      // a single object: bytes hashed of its content bytes, and files.
      const progress = createProgress({ json: options.json });
      progress.start(`validate ${target}`, 'files');
      let root = false;
      const result = await validatePath(target, {
        fixity: options.fixity,
        startWorkers: true,
        onObjectsFound: (count) => {
          root = true;
          progress.start(`validate ${target}`, 'objects', { count });
        },
        onObject: () => progress.count(),
        onPlan: (files, bytes) => {
          if (!root) progress.total({ bytes, count: files });
        },
        onHashed: (files, bytes) => {
          progress.bytes(bytes);
          if (!root) progress.count(files);
        },
      }).finally(() => progress.stop());
      if (options.json) {
        printJson({
          valid: result.valid,
          // The finding record `audit` uses too; validate works on paths, so `object` (an id) is null.
          errors: result.errors.map(({ code, message, path }) => ({ code, severity: 'error', object: null, path, message })),
          warnings: result.warnings.map(({ code, message, path }) => ({ code, severity: 'warning', object: null, path, message })),
          objects: result.objects,
          files: result.files,
          bytes: result.bytes,
        });
      } else {
        process.stdout.write(summary(target, result, options.fixity));
        for (const f of result.errors) process.stdout.write(line('ERROR', f));
        for (const f of result.warnings) process.stdout.write(line('WARNING', f));
      }
      process.exitCode = result.valid ? 0 : 1;
    });
}
