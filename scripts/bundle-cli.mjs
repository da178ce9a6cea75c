/**
 * Bundles the command line from src/ into dist/bundle/, which bin/siard-ocfl runs (esbuild strips
 * the types; tsc, run before it by the build script, checks them and builds the library in dist/).
 * Node 20's ESM loader spends most of a verb's start-up resolving and linking our modules one by
 * one (`audit --help` loads 153): 0.50 s of CPU against 0.40 s bundled, a bare `node` being 0.10 s
 * (ten runs each; Node 24: 0.30 against 0.23). A scheduled audit of a small object pays it once
 * per run, as does each of the test suite's ~800 command-line children. The verbs stay separate
 * chunks, loaded only when run (src/cli/verbs.ts). Packages in node_modules stay imports (native
 * modules and their own file lookups need their folders), but for the AWS SDK (below). hash-worker is a second entry, beside
 * main.js, because the hash pool starts it by the URL `./hash-worker.js` next to its own module.
 * The bundle is one folder below dist/, as the modules are, so paths found from a module's own URL
 * (`../../package.json`, the resources of siard/writer.ts) lead to the same files.
 */
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

/**
 * The AWS SDK is bundled too, in the chunk only S3 roots load (src/ocfl/storage/open.ts imports
 * s3.ts on demand): loading its few hundred CommonJS modules one by one cost 0.27 s of CPU; `ls` of
 * an S3 root took 0.73 s of CPU with it external, 0.56 s bundled (ten runs each, Ceph RGW).
 */
const BUNDLED_PACKAGES = /^@aws-sdk\//;
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const external = Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies }).filter((name) => !BUNDLED_PACKAGES.test(name));

const REQUIRE_BANNER = [
  "import { createRequire as createRequireForBundle } from 'node:module';",
  'const require = createRequireForBundle(import.meta.url);',
].join(' ');
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
  external: [...external, ...external.map((name) => `${name}/*`)],
  // The bundled CommonJS requires Node's modules; in an ES module it needs a require of its own.
  banner: { js: REQUIRE_BANNER },
  chunkNames: 'chunk-[hash]',
  logLevel: 'warning',
});
