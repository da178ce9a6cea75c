// One ava config per tier (ava.config.mjs and test/<tier>/ava.config.mjs) is written for the
// TypeScript tests, which `npx ava <file>` runs through tsx. The runner (test/runner/run.ts) runs
// them instead from JavaScript compiled once (compiled-tree.ts) and says so in
// SIARD_OCFL_TEST_COMPILED: then every `.ts` named here becomes its compiled `.js` and tsx is not
// loaded.
const compiled = Boolean(process.env.SIARD_OCFL_TEST_COMPILED);
const js = (file) => file.replace(/\.ts$/, '.js');

/** The ava config of a tier, for the TypeScript sources or for the compiled mirror. */
export function tierConfig(config) {
  if (!compiled) return { extensions: { ts: 'module' }, nodeArguments: ['--import=tsx'], ...config };
  const sort = config.sortTestFiles;
  return {
    ...config,
    files: config.files.map(js),
    require: config.require?.map(js),
    ...(sort ? { sortTestFiles: (a, b) => sort(a.replace(/\.js$/, '.ts'), b.replace(/\.js$/, '.ts')) } : {}),
  };
}
