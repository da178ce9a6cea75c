// The line tier (`npm run test:line`): what can differ between Node lines, which CI runs on each
// supported line other than the one that runs the whole suite (test/README.md): the native modules
// (better-sqlite3 of the line, koffi's exchange and syncfs), the packed tarball installed and run,
// and one pass through every verb.
import { tierConfig } from '../runner/ava-tier.mjs';

export default tierConfig({
  files: ['test/line/**/*.test.ts', 'test/unit/ocfl/storage/rename-exchange.test.ts'],
  require: ['./test/runner/file-timer.ts'],
  timeout: '10m',
  concurrency: 2,
  workerThreads: false,
});
