/**
 * Bundles the command line from src/ into dist/bundle/, which bin/siard-ocfl runs (esbuild strips
 * the types; tsc, run before it by the build script, checks them and builds the library in dist/).
 * Node 20's ESM loader spends most of a verb's start-up resolving and linking our modules one by
 * one (`audit --help` loads 153): 0.50 s of CPU against 0.40 s bundled, a bare `node` being 0.10 s
 * (ten runs each; Node 24: 0.30 against 0.23). A scheduled audit of a small object pays it once
 * per run, as does each of the test suite's ~800 command-line children. The verbs stay separate
 * chunks, loaded only when run (src/cli/verbs.ts). Packages in node_modules stay imports (native
 * modules and their own file lookups need their folders). hash-worker is a second entry, beside
 * main.js, because the hash pool starts it by the URL `./hash-worker.js` next to its own module.
 * The bundle is one folder below dist/, as the modules are, so paths found from a module's own URL
 * (`../../package.json`, the resources of siard/writer.ts) lead to the same files.
 */
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

const outdir = 'dist/bundle';
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: 'src/cli/main.ts', 'hash-worker': 'src/ocfl/validate/hash-worker.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  chunkNames: 'chunk-[hash]',
  logLevel: 'warning',
});
