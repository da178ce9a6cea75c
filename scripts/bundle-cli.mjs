/**
 * Bundles the command line from src/ into dist/bundle/, which bin/siard-ocfl runs (esbuild strips
 * the types; tsc, run before it by the build script, checks them and builds the library in dist/).
 * Node 20's ESM loader spends most of a verb's start-up resolving and linking our modules one by
 * one (`audit --help` loads 153): 0.50 s of CPU against 0.40 s bundled, a bare `node` being 0.10 s
 * (ten runs each; Node 24: 0.30 against 0.23). A scheduled audit of a small object pays it once
 * per run, as does each of the test suite's ~800 command-line children. The verbs stay separate
 * chunks, loaded only when run (src/cli/verbs.ts). The packages written in JavaScript are bundled
 * too (below); native modules and those that load files beside their own stay imports.
 * hash-worker, object-worker and rows-worker are entries beside main.js, because the hash pool
 * and the SQLite reader start them by their URL (`./hash-worker.js`) next to their own module.
 * The bundle is one folder below dist/, as the modules are, so paths found from a module's own URL
 * (`../../package.json`, the resources of siard/writer.ts) lead to the same files.
 */
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

/**
 * Packages loaded from node_modules as they are, not bundled: native modules (their binary is found
 * from their own folder), libxml2-wasm (it loads its .wasm file from beside its module) and
 * @viz-js/viz (1.4 MB that only `serve` loads) and hash-wasm (bundled, its UMD module loaded by
 * `import()` showed none of its exports; only the short BLAKE2b variants load it). Every other package is bundled into the chunks that
 * use it. Why: Node 20 resolves, reads and links a package's modules one by one, and CommonJS ones
 * are scanned for their exports first; loading them from the bundle instead took the start-up of
 * `audit --help` from 0.30 to 0.20 s of CPU, and an `audit` of the Northwind object from 1.00 to 0.80 s
 * (five runs each, interleaved, loaded machine), over ~800 command-line runs in the test suite;
 * the AWS SDK alone, its few hundred modules, cost 0.17 s of an `ls` of an S3 root.
 * The packages are still dependencies: the library in dist/ (not bundled) imports them, and the
 * bundle keeps their licence comments.
 */
const NOT_BUNDLED = ['better-sqlite3', 'better-sqlite3-13', 'koffi', 'libxml2-wasm', '@viz-js/viz', 'hash-wasm'];
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const declared = Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies });
const unknown = NOT_BUNDLED.filter((name) => !declared.includes(name));
if (unknown.length) throw new Error(`bundle-cli.mjs: NOT_BUNDLED names packages package.json does not declare: ${unknown.join(', ')}`);
const external = NOT_BUNDLED;

const REQUIRE_BANNER = [
  "import { createRequire as createRequireForBundle } from 'node:module';",
  'const require = createRequireForBundle(import.meta.url);',
].join(' ');
const outdir = 'dist/bundle';
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: {
    main: 'src/cli/main.ts',
    'hash-worker': 'src/ocfl/validate/hash-worker.ts',
    'object-worker': 'src/ocfl/validate/object-worker.ts',
    'rows-worker': 'src/sources/sqlite/rows-worker.ts',
  },
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
