/**
 * The tests run from JavaScript compiled once per run, not through tsx in every test worker: the
 * runner (run.ts) builds a mirror of the project in the run's folder, in which every `.ts` file of
 * src/, test/ and spec/ has its compiled `.js` beside it (esbuild, as tsx itself compiles, with inline
 * source maps so that a failure still names the TypeScript line), and every other file and
 * top-level entry is a symbolic link to the real one. ava runs in the mirror; tests find the project
 * at the same relative paths (fixtures, spec/, dist/, bin/, node_modules/, the `.ts` sources they
 * read), and what they write through a link lands where it did before.
 *
 * Why: a test worker that loads tsx spends about 0.8 s of CPU on it (its loader thread, the
 * transform of every module it imports), over 131 files about 100 s of the suite's CPU; the unit
 * tier went from 163 to 100 s of CPU (test/README.md). Compiling all 500 files takes about a second.
 */
import { build } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';

/** The folders whose TypeScript is compiled; everything else is linked. */
const COMPILED_FOLDERS = ['src', 'test', 'spec'];

/** Builds the mirror of `projectRoot` in `mirror` (a new, empty folder); returns how many files were compiled. */
export async function buildCompiledTree(projectRoot: string, mirror: string): Promise<number> {
  mkdirSync(mirror, { recursive: true });
  for (const entry of readdirSync(projectRoot)) {
    if (!COMPILED_FOLDERS.includes(entry)) symlinkSync(path.join(projectRoot, entry), path.join(mirror, entry));
  }
  const files = COMPILED_FOLDERS.flatMap((folder) => filesUnder(projectRoot, folder));
  for (const file of files) {
    mkdirSync(path.dirname(path.join(mirror, file)), { recursive: true });
    symlinkSync(path.join(projectRoot, file), path.join(mirror, file));
  }
  // ../shared (the reference material, test/helpers/shared.ts) beside the mirror too, for code that
  // finds it from its own module's place (spec/make-validation-codes.ts).
  const shared = path.resolve(projectRoot, '..', 'shared');
  const besideMirror = path.resolve(mirror, '..', 'shared');
  if (existsSync(shared) && !existsSync(besideMirror)) symlinkSync(shared, besideMirror);
  const typescript = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  await build({
    absWorkingDir: projectRoot,
    entryPoints: typescript,
    outdir: mirror,
    outbase: '.',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  return typescript.length;
}

/** Every file under `folder` (relative to `root`), as paths relative to `root`. */
function filesUnder(root: string, folder: string): string[] {
  return readdirSync(path.join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(folder, entry.name);
    return entry.isDirectory() ? filesUnder(root, rel) : [rel];
  });
}
